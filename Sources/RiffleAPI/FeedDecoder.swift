import Foundation
import RiffleCore

/// Why a feed could not be read.
public enum FeedError: Error, Equatable, Sendable {
  case invalidJSON(String)
  /// The JSON is valid but not a feed: `expected` says what was looked for.
  case notAFeed(expected: String)
  /// The server answered a web page (often a sign-in page sent with status 200).
  case webPage

  public var userMessage: String {
    switch self {
    case .invalidJSON: return "The feed is not valid JSON"
    case .webPage:
      return
        "The server answered with a web page, not a song feed (a sign-in page? set token in config.toml or RIFFLE_TOKEN)"
    case .notAFeed(let expected): return "The response is not a song feed (\(expected))"
    }
  }
}

/// A decoded page of a feed: its songs, notes about skipped entries, and paging if present.
public struct FeedPage: Equatable, Sendable {
  public var songs: [Song]
  /// One line per entry that could not be used ("entry 3: no audio URL").
  public var skipped: [String]
  /// One line per song that exists but cannot be played yet ("entry 4: not ready yet
  /// (streaming)"): a Suno clip still being made.
  public var notReady: [String] = []
  public var page: Int?
  public var pageSize: Int?
  public var totalPages: Int?

  public init(
    songs: [Song], skipped: [String] = [], page: Int? = nil, pageSize: Int? = nil,
    totalPages: Int? = nil
  ) {
    self.songs = songs
    self.skipped = skipped
    self.page = page
    self.pageSize = pageSize
    self.totalPages = totalPages
  }

  /// Paging as the player tracks it, when the envelope said which page this is.
  public var paging: FeedPaging? {
    page.map { FeedPaging(page: $0, pageSize: pageSize, totalPages: totalPages) }
  }
}

/// Reads the song feed format in every shape it is known to take.
///
/// - flat: `{"songs": [{"id", "title", "handle", "display_name", "image_url", "is_liked",
///   "upvote_count", "audio_url"}]}`
/// - the same inside a paging envelope (`page`, `per_page`, `total_pages`, ...), with extra keys
/// - entries wrapping the song: `{"clip": {...}}`, where the image may be `image_large_url`
/// - Suno's own answers: a playlist (`playlist_clips[].clip`), a profile (`clips`), the home and
///   trending sections (`sections[].items[]`, where only songs become pages: playlists and
///   follow entries are left out), a bare array of clips, and one clip object alone
///
/// The artist is `display_name` or `artist_name`. A clip with a `status` other than `complete`,
/// or with a status and no audio URL, is "not ready yet": counted in `notReady`, not played.
/// Likes come from `upvote_count` (or `like_count`), else the counts of a `reaction` object;
/// `is_liked`, else a `reaction` of type `L`, says whether the user likes it.
///
/// Unknown keys are ignored. A field of the wrong type counts as missing. An entry without an
/// id or a usable audio URL is skipped with a note. Relative URLs resolve against `base`.
///
/// The bytes are read in one pass with `JSONReader`, entry by entry: only the fields of one
/// entry exist as values at a time, never the whole document (see docs/architecture.md).
public enum FeedDecoder {
  public static func decode(_ data: Data, base: URL) throws(FeedError) -> FeedPage {
    if looksLikeWebPage(data) { throw FeedError.webPage }
    // withUnsafeBytes only rethrows untyped errors: the result comes out as a Result.
    let read = data.withUnsafeBytes { bytes in
      Result { () throws(FeedError) -> FeedPage? in
        var reader = JSONReader(bytes)
        let page = try readRoot(&reader, base: base)
        try reader.finish()
        return page
      }
    }
    guard let page = try read.get() else {
      throw FeedError.notAFeed(expected: "an object with a \"songs\" list")
    }
    return page
  }

  /// True when the body starts (after white space and a byte order mark) with `<`: HTML, never
  /// JSON.
  static func looksLikeWebPage(_ data: Data) -> Bool {
    for byte in data.prefix(512) {
      switch byte {
      case 0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF: continue
      case UInt8(ascii: "<"): return true
      default: return false
      }
    }
    return false
  }

  /// The page, or nil when the document is valid JSON but holds no list of entries.
  private static func readRoot(_ reader: inout JSONReader, base: URL) throws(FeedError)
    -> FeedPage?
  {
    switch try reader.peekKind() {
    case .array:
      return try readEntries(&reader, base: base).page
    case .object:
      break
    default:
      try reader.skipValue()
      return nil
    }
    // The envelope's members; where a key repeats, the first wins (as it did in JSONDecoder).
    var envelope: [String: JSONValue] = [:]
    // Lists by key; the first of songs, clips, playlist_clips, sections wins.
    var lists: [String: EntryList] = [:]
    // The members of the root itself that make a song: a clip object alone.
    var single: [String: JSONValue] = [:]
    try reader.readObject { (reader, key) throws(FeedError) in
      let first = envelope[key] == nil
      switch key {
      case _ where listKeys.contains(key) && first:
        guard try reader.peekKind() == .array else {
          envelope[key] = try reader.readScalar()
          return
        }
        envelope[key] = .array([])
        lists[key] =
          key == "sections"
          ? try readSections(&reader, base: base) : try readEntries(&reader, base: base)
      case "page" where first, "per_page" where first, "page_size" where first,
        "total_pages" where first, "current_page" where first,
        "num_total_results" where first:
        envelope[key] = try reader.readScalar()
      default:
        if let wanted = entryFields[key], single[key] == nil {
          if case .members(let inner) = wanted, try reader.peekKind() == .object {
            single[key] = try readMembers(&reader, keeping: inner)
          } else {
            single[key] = try reader.readScalar()
          }
        } else {
          try reader.skipValue()
        }
      }
    }
    let entries = listKeys.lazy.compactMap({ lists[$0] }).first?.count ?? 0
    guard var page = listKeys.lazy.compactMap({ lists[$0] }).first?.page else {
      // No list: a clip object alone is a page of one, when it names a song at all.
      let entry = JSONValue.object(single)
      guard single["id"] != nil || single["clip"] != nil else { return nil }
      var list = EntryList()
      list.add(song(from: entry, base: base))
      return list.page
    }
    page.page = envelope["page"]?.int
    page.pageSize = envelope["per_page"]?.int ?? envelope["page_size"]?.int
    page.totalPages = envelope["total_pages"]?.int
    if page.page == nil, let current = envelope["current_page"]?.int,
      let total = envelope["num_total_results"]?.int
    {
      page.page = current
      page.totalPages = suno(current: current, total: total, entries: entries)
    }
    return page
  }

  /// Suno's paging (a playlist, a profile, the feed): `current_page` and `num_total_results`,
  /// no page count. The page asked for next is `current_page + 1` (clients ask for `page=0`
  /// first, some for `page=1`; counted from 1, the pages seen so far hold at most
  /// `current_page` times this page's entries, so that bound never ends the pages early).
  /// Returns the page count as `FeedPaging` reads it: this page when it is the last, nil while
  /// more may come. An empty page ends the pages in any case.
  static func suno(current: Int, total: Int, entries: Int) -> Int? {
    entries == 0 || current * entries >= total ? current : nil
  }

  /// The keys of the root that hold songs, the one that wins first.
  static let listKeys = ["songs", "clips", "playlist_clips", "sections"]

  /// Home and trending sections: `[{"title", "items": [...]}, ...]`. Items that are songs become
  /// entries; playlists, users and the rest are left out without a note. A song in two sections
  /// is kept once, quietly.
  private static func readSections(_ reader: inout JSONReader, base: URL) throws(FeedError)
    -> EntryList
  {
    var list = EntryList()
    list.quietRepeats = true
    try reader.readArray { (reader) throws(FeedError) in
      guard try reader.peekKind() == .object else {
        try reader.skipValue()
        return
      }
      try reader.readObject { (reader, key) throws(FeedError) in
        guard key == "items", try reader.peekKind() == .array else {
          try reader.skipValue()
          return
        }
        try reader.readArray { (reader) throws(FeedError) in
          guard try reader.peekKind() == .object else {
            try reader.skipValue()
            return
          }
          let item = try readMembers(&reader, keeping: entryFields)
          guard isSong(item) else { return }
          list.add(song(from: item, base: base))
        }
      }
    }
    return list
  }

  /// True for a section item that is a song: its `entity_type` (or its clip's) says so, or,
  /// without one, it carries a clip or an audio URL.
  static func isSong(_ item: JSONValue) -> Bool {
    let type = item["entity_type"]?.text ?? item["clip"]?["entity_type"]?.text
    if let type { return type == "song_schema" || type == "clip" || type == "song" }
    return item["clip"] != nil || item["audio_url"] != nil || item["status"] != nil
  }

  /// The songs and notes of one list of entries, as they are read.
  private struct EntryList {
    var page = FeedPage(songs: [])
    var seen = Set<String>()
    var count = 0
    /// Sections repeat songs on purpose: a repeat there is no fault of the feed.
    var quietRepeats = false

    mutating func add(_ result: Result<Song, Reason>) {
      count += 1
      switch result {
      case .success(let song):
        if seen.insert(song.id).inserted {
          page.songs.append(song)
        } else if !quietRepeats {
          page.skipped.append("entry \(count): repeats id \(song.id)")
        }
      case .failure(let reason) where reason.notReady:
        page.notReady.append("entry \(count): \(reason.text)")
      case .failure(let reason):
        page.skipped.append("entry \(count): \(reason.text)")
      }
    }
  }

  private static func readEntries(_ reader: inout JSONReader, base: URL) throws(FeedError)
    -> EntryList
  {
    var list = EntryList()
    try reader.readArray { (reader) throws(FeedError) in
      guard try reader.peekKind() == .object else {
        try reader.skipValue()
        list.add(.failure(Reason(text: "not an object")))
        return
      }
      list.add(song(from: try readMembers(&reader, keeping: entryFields), base: base))
    }
    return list
  }

  /// What of a member to keep: its value (an array or object left empty), or some of its
  /// members when it is an object.
  indirect enum Keep {
    case value
    case members([String: Keep])
  }

  /// The members of an entry that `song(from:base:)` reads; everything else is skipped.
  static let entryFields: [String: Keep] = {
    var song: [String: Keep] = [:]
    for key in [
      "id", "title", "handle", "display_name", "image_url", "image_large_url", "is_liked",
      "upvote_count", "like_count", "audio_url", "duration", "album", "album_name",
      "artist_name", "status", "entity_type",
    ] {
      song[key] = .value
    }
    song["metadata"] = .members(["duration": .value])
    song["reaction"] = .members([
      "reaction_type": .value, "upvote_count": .value, "like_count": .value,
      "counts": .members(["upvote": .value, "upvotes": .value, "like": .value, "likes": .value]),
    ])
    var entry = song
    entry["clip"] = .members(song)
    return entry
  }()

  /// Reads the object at the reader into a value holding only the members `keep` names.
  static func readMembers(_ reader: inout JSONReader, keeping keep: [String: Keep])
    throws(FeedError) -> JSONValue
  {
    var members: [String: JSONValue] = [:]
    try reader.readObject { (reader, key) throws(FeedError) in
      guard let wanted = keep[key], members[key] == nil else {
        try reader.skipValue()
        return
      }
      if case .members(let inner) = wanted, try reader.peekKind() == .object {
        members[key] = try readMembers(&reader, keeping: inner)
      } else {
        members[key] = try reader.readScalar()
      }
    }
    return .object(members)
  }

  struct Reason: Error {
    let text: String
    /// The song exists but cannot be played yet (a clip still being made).
    var notReady = false
  }

  static func song(from entry: JSONValue, base: URL) -> Result<Song, Reason> {
    guard case .object = entry else { return .failure(Reason(text: "not an object")) }
    // A wrapped entry keeps the song in "clip"; keys missing there fall back to the wrapper.
    let inner: JSONValue = {
      if let clip = entry["clip"], case .object = clip { return clip }
      return entry
    }()
    func field(_ key: String) -> JSONValue? { inner[key] ?? entry[key] }

    guard let id = field("id")?.nonEmptyText else { return .failure(Reason(text: "no id")) }
    // A Suno clip says how far it is made; one without a status is a plain feed's song.
    let status: String? = field("status").flatMap {
      if case .null = $0 { return nil }
      return $0.text?.trimmingCharacters(in: .whitespaces) ?? ""
    }
    if let status, status.lowercased() != "complete" {
      let said = TextSanitizer.sanitize(status).prefix(40)
      return .failure(
        Reason(text: said.isEmpty ? "not ready yet" : "not ready yet (\(said))", notReady: true))
    }
    guard let audioText = field("audio_url")?.nonEmptyText else {
      if status != nil { return .failure(Reason(text: "not ready yet (no audio)", notReady: true)) }
      return .failure(Reason(text: "no audio URL"))
    }
    guard let audioURL = resolve(audioText, base: base) else {
      return .failure(Reason(text: "audio URL not usable"))
    }
    let imageURL = (field("image_large_url")?.nonEmptyText ?? field("image_url")?.nonEmptyText)
      .flatMap { resolve($0, base: base) }
    let duration =
      (field("duration")?.double ?? field("metadata")?["duration"]?.double).flatMap {
        $0 > 0 ? $0 : nil
      }
    let handle = field("handle")?.nonEmptyText.map {
      $0.hasPrefix("@") ? String($0.dropFirst()) : $0
    }
    return .success(
      Song(
        id: id,
        title: field("title")?.nonEmptyText ?? "",
        displayName: field("display_name")?.nonEmptyText ?? field("artist_name")?.nonEmptyText
          ?? "",
        handle: handle ?? "",
        imageURL: imageURL,
        audioURL: audioURL,
        likeCount: max(0, likeCount(field) ?? 0),
        isLiked: field("is_liked")?.bool ?? reactionLikes(field("reaction")) ?? false,
        duration: duration,
        album: field("album")?.nonEmptyText ?? field("album_name")?.nonEmptyText,
        likeDestination: .likesEndpoint))
  }

  /// The upvotes a clip counts: its own count, else its reaction's.
  static func likeCount(_ field: (String) -> JSONValue?) -> Int? {
    if let count = field("upvote_count")?.int ?? field("like_count")?.int { return count }
    guard let reaction = field("reaction"), case .object = reaction else { return nil }
    let counts = reaction["counts"]
    return reaction["upvote_count"]?.int ?? reaction["like_count"]?.int
      ?? counts?["upvote"]?.int ?? counts?["upvotes"]?.int ?? counts?["like"]?.int
      ?? counts?["likes"]?.int
  }

  /// Whether a reaction says the user likes the clip: Suno's reaction type `L` (a string, or an
  /// object's `reaction_type`); `D` (dislike) and the rest say no; nil says nothing.
  static func reactionLikes(_ reaction: JSONValue?) -> Bool? {
    guard let reaction else { return nil }
    let type = reaction.text ?? reaction["reaction_type"]?.text
    return type.map { $0.uppercased() == "L" || $0.uppercased() == "LIKE" }
  }

  /// Resolves a URL from a feed against the feed's own; only http(s) and file schemes pass.
  static func resolve(_ text: String, base: URL) -> URL? {
    let candidate =
      URL(string: text, relativeTo: base)
      ?? text.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed).flatMap {
        URL(string: $0, relativeTo: base)
      }
    guard let url = candidate?.absoluteURL, let scheme = url.scheme?.lowercased() else {
      return nil
    }
    guard ["http", "https", "file"].contains(scheme) else { return nil }
    // A remote feed must not point the player at local files.
    if scheme == "file" && !base.isFileURL { return nil }
    return url
  }
}
