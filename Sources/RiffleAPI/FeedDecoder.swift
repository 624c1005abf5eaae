import Foundation
import RiffleCore

/// Why a feed could not be read.
public enum FeedError: Error, Equatable, Sendable {
  case invalidJSON(String)
  /// The JSON is valid but not a feed: `expected` says what was looked for.
  case notAFeed(expected: String)

  public var userMessage: String {
    switch self {
    case .invalidJSON: return "The feed is not valid JSON"
    case .notAFeed(let expected): return "The response is not a song feed (\(expected))"
    }
  }
}

/// A decoded page of a feed: its songs, notes about skipped entries, and paging if present.
public struct FeedPage: Equatable, Sendable {
  public var songs: [Song]
  /// One line per entry that could not be used ("entry 3: no audio URL").
  public var skipped: [String]
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
///
/// Unknown keys are ignored. A field of the wrong type counts as missing. An entry without an
/// id or a usable audio URL is skipped with a note. Relative URLs resolve against `base`.
///
/// The bytes are read in one pass with `JSONReader`, entry by entry: only the fields of one
/// entry exist as values at a time, never the whole document (see docs/architecture.md).
public enum FeedDecoder {
  public static func decode(_ data: Data, base: URL) throws(FeedError) -> FeedPage {
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
    var songs: EntryList?
    var clips: EntryList?
    try reader.readObject { (reader, key) throws(FeedError) in
      let first = envelope[key] == nil
      switch key {
      case "songs" where first, "clips" where first && songs == nil:
        // "songs" wins over "clips": a "clips" list after a "songs" one is only checked.
        guard try reader.peekKind() == .array else {
          envelope[key] = try reader.readScalar()
          return
        }
        envelope[key] = .array([])
        let list = try readEntries(&reader, base: base)
        if key == "songs" { songs = list } else { clips = list }
      case "page" where first, "per_page" where first, "page_size" where first,
        "total_pages" where first:
        envelope[key] = try reader.readScalar()
      default:
        try reader.skipValue()
      }
    }
    guard var page = (songs ?? clips)?.page else { return nil }
    page.page = envelope["page"]?.int
    page.pageSize = envelope["per_page"]?.int ?? envelope["page_size"]?.int
    page.totalPages = envelope["total_pages"]?.int
    return page
  }

  /// The songs and notes of one list of entries, as they are read.
  private struct EntryList {
    var page = FeedPage(songs: [])
    var seen = Set<String>()
    var count = 0

    mutating func add(_ result: Result<Song, Reason>) {
      count += 1
      switch result {
      case .success(let song):
        if seen.insert(song.id).inserted {
          page.songs.append(song)
        } else {
          page.skipped.append("entry \(count): repeats id \(song.id)")
        }
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
    ] {
      song[key] = .value
    }
    song["metadata"] = .members(["duration": .value])
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
    guard let audioText = field("audio_url")?.nonEmptyText else {
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
        displayName: field("display_name")?.nonEmptyText ?? "",
        handle: handle ?? "",
        imageURL: imageURL,
        audioURL: audioURL,
        likeCount: max(0, field("upvote_count")?.int ?? field("like_count")?.int ?? 0),
        isLiked: field("is_liked")?.bool ?? false,
        duration: duration,
        album: field("album")?.nonEmptyText ?? field("album_name")?.nonEmptyText,
        likeDestination: .likesEndpoint))
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
