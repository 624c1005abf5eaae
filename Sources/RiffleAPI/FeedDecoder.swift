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
public enum FeedDecoder {
  public static func decode(_ data: Data, base: URL) throws -> FeedPage {
    let root = try JSONValue.parse(data)
    let entries: [JSONValue]
    if let songs = root["songs"]?.array {
      entries = songs
    } else if let clips = root["clips"]?.array {
      entries = clips
    } else if let items = root.array {
      entries = items
    } else {
      throw FeedError.notAFeed(expected: "an object with a \"songs\" list")
    }
    var page = FeedPage(
      songs: [], page: root["page"]?.int,
      pageSize: root["per_page"]?.int ?? root["page_size"]?.int,
      totalPages: root["total_pages"]?.int)
    var seen = Set<String>()
    for (offset, entry) in entries.enumerated() {
      switch song(from: entry, base: base) {
      case .success(let song):
        if seen.insert(song.id).inserted {
          page.songs.append(song)
        } else {
          page.skipped.append("entry \(offset + 1): repeats id \(song.id)")
        }
      case .failure(let reason):
        page.skipped.append("entry \(offset + 1): \(reason.text)")
      }
    }
    return page
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
        album: field("album")?.nonEmptyText ?? field("album_name")?.nonEmptyText))
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
