import Foundation
import RiffleAPI
import RiffleCore

/// One song of the library: the `Song` the player shows and plays, and what else the index
/// keeps about it.
public struct LibrarySong: Equatable, Sendable {
  public var song: Song
  public var path: String
  public var info: TrackInfo
  /// A picture file beside the song (cover.jpg, folder.jpg, front.png ...), when it has none
  /// of its own (`info.hasEmbeddedCover`).
  public var coverPath: String?
  /// A synced-lyrics file beside the song (same name, .lrc).
  public var lrcPath: String?
  /// Integrated loudness in LUFS, measured at scan where the file had no ReplayGain.
  public var loudness: Double?

  /// The gain to play at, in dB: album gain when an album plays in order, else track gain,
  /// else what the measured loudness says (to ReplayGain's reference, -18 LUFS).
  public func gain(albumInOrder: Bool) -> Double? {
    let tagged = albumInOrder ? (info.albumGain ?? info.trackGain) : info.trackGain
    return tagged ?? loudness.map { -18 - $0 }
  }
}

/// How much the library holds.
public struct LibraryCounts: Equatable, Sendable {
  public var songs: Int
  public var albums: Int
  public var artists: Int
}

/// The library's index: an SQLite database under `$XDG_DATA_HOME/riffle/` (WAL, one
/// transaction per batch, FTS5 for search) that upgrades its own schema.
///
/// Thread-safe: calls are serialised on the one connection. Readers in other processes read
/// while a scan writes (WAL); two writers wait for each other (busy timeout).
public final class LibraryIndex: @unchecked Sendable {
  /// Search ranks best match first (bm25) once a word typed has this many characters: bm25
  /// weighs every match, and a word of three starts thousands of songs' words at 100,000 songs
  /// (median 4 ms a keystroke ranked from three, 0.2 ms from four; docs/performance.md).
  static let rankedFrom = 4
  /// The schema this build writes (`PRAGMA user_version`).
  public static let schemaVersion = 3
  public let url: URL
  let connection: SQLiteConnection
  private let lock = NSLock()

  /// `library.sqlite` in Riffle's data folder.
  public static func defaultURL(_ paths: AppPaths = .fromEnvironment()) -> URL {
    paths.data.appendingPathComponent("library.sqlite")
  }

  /// Opens the index (creating it and its folder), bringing its schema up to date.
  public convenience init(url: URL = LibraryIndex.defaultURL()) throws {
    try self.init(url: url, upTo: LibraryIndex.schemaVersion)
  }

  /// Opens the index with its schema brought up to `version` (tests start from old ones).
  init(url: URL, upTo version: Int) throws {
    self.url = url
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    connection = try SQLiteConnection(path: url.path)
    try connection.execute("PRAGMA journal_mode=WAL")
    // NORMAL in WAL: a commit survives a crash of the process (kill -9); only a power cut
    // may lose the last commits, never the database.
    try connection.execute("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON")
    try migrate(upTo: version)
  }

  func locked<T>(_ body: () throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }

  // MARK: - Schema

  /// Each step moves the schema one version up, in its own transaction.
  private static let migrations: [String] = [
    // 1: the songs and the files that could not be read.
    """
    CREATE TABLE songs(
      id INTEGER PRIMARY KEY,
      path TEXT NOT NULL UNIQUE,
      size INTEGER NOT NULL,
      mtime INTEGER NOT NULL,
      title TEXT NOT NULL,
      artist TEXT,
      album_artist TEXT,
      album TEXT,
      track INTEGER,
      disc INTEGER,
      year INTEGER,
      genre TEXT,
      duration REAL,
      embedded_cover INTEGER NOT NULL DEFAULT 0,
      cover_path TEXT,
      lrc_path TEXT,
      lyrics TEXT,
      track_gain REAL,
      album_gain REAL,
      loudness REAL,
      loudness_tried INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX songs_album_order ON songs(
      coalesce(album_artist, artist) IS NULL, coalesce(album_artist, artist) COLLATE NOCASE,
      album COLLATE NOCASE, coalesce(disc, 1), track, path);
    CREATE INDEX songs_artist ON songs(artist COLLATE NOCASE);
    CREATE INDEX songs_album_artist ON songs(album_artist COLLATE NOCASE);
    CREATE INDEX songs_album ON songs(album COLLATE NOCASE);
    CREATE TABLE unreadable(
      path TEXT PRIMARY KEY,
      size INTEGER NOT NULL,
      mtime INTEGER NOT NULL,
      reason TEXT NOT NULL
    );
    """,
    // 2: full-text search, kept in step with the songs by triggers.
    """
    CREATE VIRTUAL TABLE songs_search USING fts5(
      title, artist, album_artist, album, genre,
      content='songs', content_rowid='id',
      tokenize='unicode61 remove_diacritics 2', prefix='1 2 3');
    CREATE TRIGGER songs_search_insert AFTER INSERT ON songs BEGIN
      INSERT INTO songs_search(rowid, title, artist, album_artist, album, genre)
        VALUES (new.id, new.title, new.artist, new.album_artist, new.album, new.genre);
    END;
    CREATE TRIGGER songs_search_delete AFTER DELETE ON songs BEGIN
      INSERT INTO songs_search(songs_search, rowid, title, artist, album_artist, album, genre)
        VALUES ('delete', old.id, old.title, old.artist, old.album_artist, old.album, old.genre);
    END;
    CREATE TRIGGER songs_search_update AFTER UPDATE OF title, artist, album_artist, album, genre
      ON songs BEGIN
      INSERT INTO songs_search(songs_search, rowid, title, artist, album_artist, album, genre)
        VALUES ('delete', old.id, old.title, old.artist, old.album_artist, old.album, old.genre);
      INSERT INTO songs_search(rowid, title, artist, album_artist, album, genre)
        VALUES (new.id, new.title, new.artist, new.album_artist, new.album, new.genre);
    END;
    INSERT INTO songs_search(songs_search) VALUES ('rebuild');
    """,
    // 3: letters of their own typed as their usual spelling: a `folded` column (generated, so
    // nothing writes it) searched beside the others.
    """
    ALTER TABLE songs ADD COLUMN folded TEXT GENERATED ALWAYS AS (\(foldedExpression)) VIRTUAL;
    DROP TRIGGER songs_search_insert;
    DROP TRIGGER songs_search_delete;
    DROP TRIGGER songs_search_update;
    DROP TABLE songs_search;
    CREATE VIRTUAL TABLE songs_search USING fts5(
      title, artist, album_artist, album, genre, folded,
      content='songs', content_rowid='id',
      tokenize='unicode61 remove_diacritics 2', prefix='1 2 3');
    CREATE TRIGGER songs_search_insert AFTER INSERT ON songs BEGIN
      INSERT INTO songs_search(rowid, title, artist, album_artist, album, genre, folded)
        VALUES (new.id, new.title, new.artist, new.album_artist, new.album, new.genre,
          new.folded);
    END;
    CREATE TRIGGER songs_search_delete AFTER DELETE ON songs BEGIN
      INSERT INTO songs_search(
        songs_search, rowid, title, artist, album_artist, album, genre, folded)
        VALUES ('delete', old.id, old.title, old.artist, old.album_artist, old.album, old.genre,
          old.folded);
    END;
    CREATE TRIGGER songs_search_update AFTER UPDATE OF title, artist, album_artist, album, genre
      ON songs BEGIN
      INSERT INTO songs_search(
        songs_search, rowid, title, artist, album_artist, album, genre, folded)
        VALUES ('delete', old.id, old.title, old.artist, old.album_artist, old.album, old.genre,
          old.folded);
      INSERT INTO songs_search(rowid, title, artist, album_artist, album, genre, folded)
        VALUES (new.id, new.title, new.artist, new.album_artist, new.album, new.genre,
          new.folded);
    END;
    INSERT INTO songs_search(songs_search) VALUES ('rebuild');
    """,
  ]

  /// Letters that are letters of their own, not accented ones (so FTS5's `remove_diacritics`
  /// keeps them), and how they are spelt without them: `ss` finds Straße, `ae` Ágætis.
  static let foldings: [(String, String)] = [
    ("ß", "ss"), ("ẞ", "ss"), ("æ", "ae"), ("Æ", "ae"), ("œ", "oe"), ("Œ", "oe"), ("ø", "o"),
    ("Ø", "o"), ("þ", "th"), ("Þ", "th"), ("ð", "d"), ("Ð", "d"), ("ł", "l"), ("Ł", "l"),
    ("đ", "d"), ("Đ", "d"), ("ı", "i"),
  ]

  /// The searched text (title, artist, album artist, album, genre) with `foldings` applied,
  /// or NULL when it has none of those letters (most songs: nothing more to index).
  static var foldedExpression: String {
    let text =
      "coalesce(title, '') || ' ' || coalesce(artist, '') || ' ' || coalesce(album_artist, '')"
      + " || ' ' || coalesce(album, '') || ' ' || coalesce(genre, '')"
    let folded = foldings.reduce(text) { "replace(\($0), '\($1.0)', '\($1.1)')" }
    return "CASE WHEN \(folded) <> \(text) THEN \(folded) END"
  }

  /// The schema version the file is at.
  public var version: Int {
    (try? locked { try connection.integer("PRAGMA user_version") }).flatMap { $0 }.map(Int.init)
      ?? 0
  }

  private func migrate(upTo target: Int) throws {
    // The write lock first: two Riffles starting at once must not both upgrade.
    try connection.transaction {
      let current = Int(try connection.integer("PRAGMA user_version") ?? 0)
      if current > LibraryIndex.migrations.count {
        throw LibraryError.newerSchema(current, path: url.path)
      }
      for step in current..<max(current, target) {
        try connection.execute(LibraryIndex.migrations[step])
        try connection.execute("PRAGMA user_version = \(step + 1)")
      }
    }
  }

  // MARK: - Reading

  private static let columns = """
    songs.id, songs.path, songs.title, songs.artist, songs.album_artist, songs.album,
    songs.track, songs.disc, songs.year, songs.genre, songs.duration, songs.embedded_cover,
    songs.cover_path, songs.lrc_path, songs.track_gain, songs.album_gain, songs.loudness
    """

  private static let albumOrder = """
    coalesce(album_artist, artist) IS NULL, coalesce(album_artist, artist) COLLATE NOCASE,
    album COLLATE NOCASE, coalesce(disc, 1), track, path
    """

  /// A page of songs: `limit` of them from `offset` on, in the query's order.
  public func songs(_ query: LibraryQuery, offset: Int = 0, limit: Int = 100) throws
    -> [LibrarySong]
  {
    let page: [SQLValue] = [.integer(Int64(max(0, limit))), .integer(Int64(max(0, offset)))]
    let sql: String
    var values: [SQLValue]
    switch query {
    case .all:
      sql = "SELECT \(Self.columns) FROM songs ORDER BY \(Self.albumOrder) LIMIT ? OFFSET ?"
      values = page
    case .album(let album, let artist):
      if let artist {
        sql = """
          SELECT \(Self.columns) FROM songs WHERE album = ? COLLATE NOCASE
          AND coalesce(album_artist, artist) = ? COLLATE NOCASE
          ORDER BY \(Self.albumOrder) LIMIT ? OFFSET ?
          """
        values = [.text(album), .text(artist)] + page
      } else {
        sql = """
          SELECT \(Self.columns) FROM songs WHERE album = ? COLLATE NOCASE
          ORDER BY \(Self.albumOrder) LIMIT ? OFFSET ?
          """
        values = [.text(album)] + page
      }
    case .artist(let artist):
      sql = """
        SELECT \(Self.columns) FROM songs WHERE artist = ?1 COLLATE NOCASE
        OR album_artist = ?1 COLLATE NOCASE ORDER BY \(Self.albumOrder) LIMIT ?2 OFFSET ?3
        """
      values = [.text(artist)] + page
    case .folder(let folder):
      // Paths under the folder sort between "folder/" and "folder0" ("0" follows "/").
      let base = LibraryScanner.clean(folder)
      let prefix = base == "/" ? "" : base
      sql = """
        SELECT \(Self.columns) FROM songs WHERE path > ? AND path < ?
        ORDER BY \(Self.albumOrder) LIMIT ? OFFSET ?
        """
      values = [.text(prefix + "/"), .text(prefix + "0")] + page
    case .search(let term):
      guard let match = Self.matchExpression(term) else { return [] }
      // Ranking (bm25) weighs every match: for the first keys of a word that is a good part of
      // the library (at 100,000 songs, 40 ms for "b"), so such a search lists in index order,
      // which FTS5 streams and stops at the page's end (`rankedFrom`).
      let ranked = term.split { !($0.isLetter || $0.isNumber) }.contains {
        $0.count >= Self.rankedFrom
      }
      sql = """
        SELECT \(Self.columns) FROM songs_search JOIN songs ON songs.id = songs_search.rowid
        WHERE songs_search MATCH ? ORDER BY \(ranked ? "rank" : "songs_search.rowid")
        LIMIT ? OFFSET ?
        """
      values = [.text(match)] + page
    }
    return try locked {
      var songs: [LibrarySong] = []
      try connection.query(sql, values) { songs.append(Self.song(from: $0)) }
      return songs
    }
  }

  /// The same as `songs`, as the player's `Song` values.
  public func playerSongs(_ query: LibraryQuery, offset: Int = 0, limit: Int = 100) throws
    -> [Song]
  {
    try songs(query, offset: offset, limit: limit).map(\.song)
  }

  /// The lyrics a song's tags hold, when they hold any (kept out of the pages: they are long).
  public func lyrics(path: String) throws -> String? {
    try locked {
      var lyrics: String?
      try connection.query("SELECT lyrics FROM songs WHERE path = ?", [.text(path)]) {
        lyrics = $0.text(0)
      }
      return lyrics
    }
  }

  /// Songs, albums and artists in the index.
  public func counts() throws -> LibraryCounts {
    try locked {
      let songs = try connection.integer("SELECT count(*) FROM songs") ?? 0
      let albums =
        try connection.integer(
          """
          SELECT count(*) FROM (SELECT DISTINCT coalesce(album_artist, artist) COLLATE NOCASE,
          album COLLATE NOCASE FROM songs WHERE album IS NOT NULL)
          """) ?? 0
      let artists =
        try connection.integer(
          "SELECT count(DISTINCT artist COLLATE NOCASE) FROM songs WHERE artist IS NOT NULL")
        ?? 0
      return LibraryCounts(songs: Int(songs), albums: Int(albums), artists: Int(artists))
    }
  }

  /// SQLite's own check of the file: "ok", or what is wrong.
  public func integrityCheck() throws -> String {
    try locked {
      var lines: [String] = []
      try connection.query("PRAGMA integrity_check") { lines.append($0.text(0) ?? "") }
      return lines.joined(separator: "\n")
    }
  }

  /// The words of what was typed as an FTS5 expression: each a quoted prefix, all required,
  /// so no character typed can be taken for FTS5 syntax. Nil when nothing searchable is left.
  static func matchExpression(_ term: String) -> String? {
    let words = term.split { !($0.isLetter || $0.isNumber) }
    guard !words.isEmpty else { return nil }
    return words.prefix(16).map { "\"\($0)\"*" }.joined(separator: " ")
  }

  private static func song(from row: SQLRow) -> LibrarySong {
    let path = row.text(1) ?? ""
    var info = TrackInfo(title: row.text(2) ?? "")
    info.artist = row.text(3)
    info.albumArtist = row.text(4)
    info.album = row.text(5)
    info.track = row.integer(6).map(Int.init)
    info.disc = row.integer(7).map(Int.init)
    info.year = row.integer(8).map(Int.init)
    info.genre = row.text(9)
    info.duration = row.real(10)
    info.hasEmbeddedCover = row.integer(11) == 1
    info.trackGain = row.real(14)
    info.albumGain = row.real(15)
    let coverPath = row.text(12)
    let url = URL(fileURLWithPath: path)
    let artist = info.artist ?? info.albumArtist ?? "Unknown artist"
    var song = Song(
      id: url.absoluteString, title: info.title, displayName: artist, handle: "",
      imageURL: coverPath.map { URL(fileURLWithPath: $0) }, audioURL: url,
      duration: info.duration, album: info.album)
    let entry = LibrarySong(
      song: song, path: path, info: info, coverPath: coverPath, lrcPath: row.text(13),
      loudness: row.real(16))
    song.trackGain = entry.gain(albumInOrder: false).map(Float.init)
    song.albumGain = info.albumGain.map(Float.init)
    var withGains = entry
    withGains.song = song
    return withGains
  }
}

/// Errors of the library that are not SQLite's own.
public enum LibraryError: Error, Equatable, Sendable, CustomStringConvertible {
  case newerSchema(Int, path: String)

  public var description: String {
    switch self {
    case .newerSchema(let version, let path):
      return "the library index (\(path)) was made by a newer Riffle (schema \(version), "
        + "this one knows \(LibraryIndex.schemaVersion)); update Riffle or remove the file"
    }
  }
}
