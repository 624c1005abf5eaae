import Foundation

/// A file's size and modification time (nanoseconds): what says it changed since last read.
struct FileStamp: Equatable {
  var size: Int64
  var mtime: Int64
}

/// What the index holds about a file, to tell whether it changed.
struct StoredFile {
  var stamp: FileStamp
  var coverPath: String?
  var lrcPath: String?
  var isSong: Bool
}

/// What a scan found in one file: its tags, or why they could not be read.
struct ScannedFile {
  var path: String
  var stamp: FileStamp
  var result: Result<TrackInfo, ScanProblem>
  var coverPath: String?
  var lrcPath: String?
}

/// Why a file is not in the library, as the report says it.
struct ScanProblem: Error {
  var message: String
}

extension LibraryIndex {
  /// Every file the index knows (songs and unreadable files): the stamp it was read at, and
  /// for a song the cover and lyrics files found beside it then.
  func storedFiles() throws -> [String: StoredFile] {
    try locked {
      var files: [String: StoredFile] = [:]
      try connection.query("SELECT path, size, mtime, cover_path, lrc_path FROM songs") { row in
        guard let path = row.text(0) else { return }
        files[path] = StoredFile(
          stamp: FileStamp(size: row.integer(1) ?? -1, mtime: row.integer(2) ?? -1),
          coverPath: row.text(3), lrcPath: row.text(4), isSong: true)
      }
      try connection.query("SELECT path, size, mtime FROM unreadable") { row in
        guard let path = row.text(0) else { return }
        files[path] = StoredFile(
          stamp: FileStamp(size: row.integer(1) ?? -1, mtime: row.integer(2) ?? -1),
          coverPath: nil, lrcPath: nil, isSong: false)
      }
      return files
    }
  }

  /// Keeps the cover and lyrics files found beside unchanged songs.
  func updateBeside(_ files: [FoundFile]) throws {
    guard !files.isEmpty else { return }
    try locked {
      try connection.transaction {
        for file in files {
          try connection.run(
            "UPDATE songs SET cover_path = ?, lrc_path = ? WHERE path = ?",
            [.optional(file.coverPath), .optional(file.lrcPath), .text(file.path)])
        }
      }
    }
  }

  /// Writes what a batch of files held, all or nothing (one transaction).
  func write(_ files: [ScannedFile]) throws {
    guard !files.isEmpty else { return }
    try locked {
      try connection.transaction {
        for file in files {
          switch file.result {
          case .success(let info):
            try connection.run(
              """
              INSERT INTO songs(path, size, mtime, title, artist, album_artist, album, track, disc,
                year, genre, duration, embedded_cover, cover_path, lrc_path, lyrics, track_gain,
                album_gain, loudness, loudness_tried)
              VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                ?18, NULL, 0)
              ON CONFLICT(path) DO UPDATE SET size = ?2, mtime = ?3, title = ?4, artist = ?5,
                album_artist = ?6, album = ?7, track = ?8, disc = ?9, year = ?10, genre = ?11,
                duration = ?12, embedded_cover = ?13, cover_path = ?14, lrc_path = ?15,
                lyrics = ?16, track_gain = ?17, album_gain = ?18, loudness = NULL,
                loudness_tried = 0
              """,
              [
                .text(file.path), .integer(file.stamp.size), .integer(file.stamp.mtime),
                .text(info.title), .optional(info.artist), .optional(info.albumArtist),
                .optional(info.album), .optional(info.track), .optional(info.disc),
                .optional(info.year), .optional(info.genre), .optional(info.duration),
                .integer(info.hasEmbeddedCover ? 1 : 0), .optional(file.coverPath),
                .optional(file.lrcPath), .optional(info.lyrics), .optional(info.trackGain),
                .optional(info.albumGain),
              ])
            try connection.run("DELETE FROM unreadable WHERE path = ?", [.text(file.path)])
          case .failure(let problem):
            try connection.run(
              """
              INSERT INTO unreadable(path, size, mtime, reason) VALUES (?1, ?2, ?3, ?4)
              ON CONFLICT(path) DO UPDATE SET size = ?2, mtime = ?3, reason = ?4
              """,
              [
                .text(file.path), .integer(file.stamp.size), .integer(file.stamp.mtime),
                .text(problem.message),
              ])
            try connection.run("DELETE FROM songs WHERE path = ?", [.text(file.path)])
          }
        }
      }
    }
  }

  /// Drops files that are gone; returns how many were songs.
  func remove(_ paths: [String]) throws -> Int {
    guard !paths.isEmpty else { return 0 }
    return try locked {
      try connection.transaction {
        var songs = 0
        for path in paths {
          songs += try connection.run("DELETE FROM songs WHERE path = ?", [.text(path)])
          try connection.run("DELETE FROM unreadable WHERE path = ?", [.text(path)])
        }
        return songs
      }
    }
  }

  /// Files kept as unreadable, with why (for the report of a scan that did not read them).
  func unreadableFiles() throws -> [(path: String, reason: String)] {
    try locked {
      var files: [(String, String)] = []
      try connection.query("SELECT path, reason FROM unreadable ORDER BY path") { row in
        files.append((row.text(0) ?? "", row.text(1) ?? ""))
      }
      return files
    }
  }

  /// Songs that are the same song (artist, album, disc, track and title, case aside), each
  /// group's paths in order.
  func duplicateGroups() throws -> [[String]] {
    try locked {
      var groups: [[String]] = []
      try connection.query(
        """
        SELECT group_concat(path, char(10)) FROM songs
        WHERE album IS NOT NULL AND track IS NOT NULL
        GROUP BY artist COLLATE NOCASE, album COLLATE NOCASE, coalesce(disc, 1), track,
          title COLLATE NOCASE
        HAVING count(*) > 1
        """
      ) { row in
        if let paths = row.text(0) {
          groups.append(paths.split(separator: "\n").map(String.init).sorted())
        }
      }
      return groups
    }
  }

  /// Songs with neither ReplayGain tags nor a loudness measurement tried yet.
  func pathsNeedingLoudness() throws -> [String] {
    try locked {
      var paths: [String] = []
      try connection.query(
        "SELECT path FROM songs WHERE track_gain IS NULL AND loudness_tried = 0 ORDER BY path"
      ) { row in
        if let path = row.text(0) { paths.append(path) }
      }
      return paths
    }
  }

  /// Keeps measured loudness (nil: the file could not be measured; not tried again until it
  /// changes).
  func setLoudness(_ values: [(path: String, loudness: Double?)]) throws {
    guard !values.isEmpty else { return }
    try locked {
      try connection.transaction {
        for (path, loudness) in values {
          try connection.run(
            "UPDATE songs SET loudness = ?, loudness_tried = 1 WHERE path = ?",
            [.optional(loudness), .text(path)])
        }
      }
    }
  }

  /// For tests of a full disk: caps the file at its current size plus `pages` pages, so the
  /// next writes beyond that fail as on a full disk (SQLITE_FULL).
  func limitGrowth(toPages pages: Int) throws {
    try locked {
      let count = try connection.integer("PRAGMA page_count") ?? 0
      try connection.execute("PRAGMA max_page_count = \(count + Int64(pages))")
    }
  }
}

extension LibraryIndex {
  /// Stores songs that were not read from files, as a scan would (benchmarks of libraries too
  /// large to encode, tests). Each path replaces what the index held for it.
  public func insert(_ songs: [(path: String, info: TrackInfo)]) throws {
    try write(
      songs.map {
        ScannedFile(
          path: $0.path, stamp: FileStamp(size: 0, mtime: 0), result: .success($0.info),
          coverPath: nil, lrcPath: nil)
      })
  }
}
