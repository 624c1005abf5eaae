import Foundation
import RiffleCore

/// Loads a song feed from a URL through the shared HTTP client.
public struct FeedSource: Sendable {
  public let client: HTTPClient

  public init(client: HTTPClient = .shared) {
    self.client = client
  }

  /// The largest feed accepted: 100,000 songs of a few hundred bytes each fit (the
  /// benchmark's 100,000-song feed is 24 MB).
  public static let maxFeedBytes = 40_000_000

  /// Fetches and decodes one feed page; the completion runs off the main queue.
  @discardableResult
  public func load(
    _ url: URL, completion: @escaping @Sendable (Result<FeedPage, FeedLoadError>) -> Void
  ) -> Transfer {
    fetch(url) { result in
      completion(
        result.flatMap { body in
          Result { () throws(FeedError) in try FeedDecoder.decode(body, base: url) }
            .mapError { .feed($0) }
        })
    }
  }

  /// What a feed's answer can be: the Suno JSON feed, or a podcast's RSS or Atom.
  public static let accept =
    "application/json, application/rss+xml, application/atom+xml, application/xml;q=0.9, "
    + "text/xml;q=0.9, */*;q=0.5"

  @discardableResult
  private func fetch(
    _ url: URL, completion: @escaping @Sendable (Result<Data, FeedLoadError>) -> Void
  ) -> Transfer {
    fetchAnswer(url) { result in
      completion(
        result.flatMap { answer in
          switch answer {
          case .body(let body): return .success(body)
          case .live: return .failure(.feed(.notAFeed(expected: "a feed, not an audio stream")))
          }
        })
    }
  }

  /// What an address answered: a document, or audio that does not end (a radio station).
  enum Answer: Sendable {
    case body(Data)
    /// Audio (its content type, or `icy-*` headers, said so): the transfer was stopped at its
    /// first bytes, which are never read as a feed.
    case live(contentType: String?, headers: [String: String])
  }

  /// Fetches `url`, stopping at once when the answer is an audio stream (a station's stream
  /// would otherwise be read up to `maxFeedBytes`, minutes of it).
  @discardableResult
  func fetchAnswer(
    _ url: URL, completion: @escaping @Sendable (Result<Answer, FeedLoadError>) -> Void
  ) -> Transfer {
    let request = HTTPRequest(
      url: url, headers: ["Accept": Self.accept], maxBytes: Self.maxFeedBytes)
    let collector = AnswerCollector()
    return client.stream(
      request,
      handlers: StreamHandlers(
        onResponse: { _, type, _ in collector.start(contentType: type) },
        onData: { collector.append($0) },
        onComplete: { error in
          let answer = collector.answer
          BackgroundWork.run("riffle.feed.answer") {
            if case .live = answer { return completion(.success(answer)) }
            completion(error.map { .failure(.http($0)) } ?? .success(answer))
          }
        },
        onHeaders: { collector.headers = $0 }))
  }
}

/// Gathers a feed's answer; decides from the headers whether it is a live audio stream.
private final class AnswerCollector: @unchecked Sendable {
  private let lock = NSLock()
  private var body = Data()
  private var contentType: String?
  private var live = false
  private var kept: [String: String] = [:]

  var headers: [String: String] {
    get { lock.withLock { kept } }
    set { lock.withLock { kept = newValue } }
  }

  func start(contentType: String?) {
    lock.withLock {
      self.contentType = contentType
      let type = contentType?.lowercased() ?? ""
      live =
        (type.hasPrefix("audio/") && !StationPlaylist.isPlaylistType(type))
        || type.hasPrefix("application/ogg") || kept["icy-name"] != nil
        || kept["icy-metaint"] != nil || kept["icy-br"] != nil
    }
  }

  /// False (stop) once the answer is known to be a stream.
  func append(_ chunk: Data) -> Bool {
    lock.withLock {
      if live { return false }
      body.append(chunk)
      return true
    }
  }

  var answer: FeedSource.Answer {
    lock.withLock { live ? .live(contentType: contentType, headers: kept) : .body(body) }
  }
}

extension FeedSource {
  /// Loads one page of a feed as the player pages it: `cursor` nil is the feed's URL as given;
  /// the next page is what the envelope says, or, for a later page that does not say, the page
  /// after it. Notes on skipped entries go to the log.
  public func loadPage(
    _ url: URL, cursor: PageCursor?,
    completion: @escaping @Sendable (Result<SourcePage, FeedLoadError>) -> Void
  ) {
    var asked: FeedPaging?
    var pageURL = url
    if case .page(let number, let size)? = cursor {
      asked = FeedPaging(page: number, pageSize: size)
      pageURL = Self.pageURL(url, page: number, pageSize: size)
    }
    fetchAnswer(pageURL) { [asked, pageURL] answer in
      // The answer says what it is: audio is a station, a playlist points at one, XML is a
      // podcast, anything else the song feed.
      if case .success(.live(_, let headers)) = answer {
        return completion(.success(StationPlaylist.stationPage(url, headers: headers)))
      }
      if case .success(.body(let body)) = answer, let playlist = StationPlaylist.parse(body) {
        return completion(
          playlist.map {
            StationPlaylist.stationPage($0.url, headers: $0.name.map { ["icy-name": $0] } ?? [:])
          })
      }
      if case .success(.body(let body)) = answer, PodcastFeedParser.looksLikeXML(body) {
        return completion(Self.podcastPage(body, url: url))
      }
      let result = answer.flatMap { answer -> Result<Data, FeedLoadError> in
        guard case .body(let body) = answer else {
          return .failure(.feed(.notAFeed(expected: "a feed")))
        }
        return .success(body)
      }
      completion(
        result.flatMap { body in
          Result { () throws(FeedError) in try FeedDecoder.decode(body, base: pageURL) }
            .mapError { .feed($0) }
        }.map { page in
          for note in page.skipped {
            FileHandle.standardError.write(Data("feed: \(note)\n".utf8))
          }
          let paging = page.paging ?? asked
          let next = paging?.nextPage.map { PageCursor.page($0, size: paging?.pageSize) }
          return SourcePage(songs: page.songs, next: next, skipped: page.skipped.count)
        })
    }
  }

  /// A podcast's episodes as one page, the source turned into `.podcast`.
  static func podcastPage(_ body: Data, url: URL) -> Result<SourcePage, FeedLoadError> {
    Result { () throws(PodcastFeedError) in try PodcastFeedParser.parse(body, base: url) }
      .mapError { .podcast($0) }
      .map { feed in
        for note in feed.skipped {
          FileHandle.standardError.write(Data("podcast: \(note)\n".utf8))
        }
        return SourcePage(
          songs: feed.songs, skipped: feed.skipped.count, kind: .podcast(url, show: feed.title))
      }
  }

  /// The URL of page `page` of a feed: its own query with `page` (and `page_size`) set.
  public static func pageURL(_ url: URL, page: Int, pageSize: Int?) -> URL {
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
      return url
    }
    var items = (components.queryItems ?? []).filter { $0.name != "page" && $0.name != "page_size" }
    items.append(URLQueryItem(name: "page", value: String(page)))
    if let pageSize { items.append(URLQueryItem(name: "page_size", value: String(pageSize))) }
    components.queryItems = items
    return components.url ?? url
  }
}

/// Why loading a feed failed: the transfer or the content.
public enum FeedLoadError: Error, Equatable, Sendable, TransferFailure, ReportableFailure {
  case http(HTTPError)
  case feed(FeedError)
  case podcast(PodcastFeedError)

  public var userMessage: String {
    switch self {
    case .http(let error): return error.userMessage
    case .feed(let error): return error.userMessage
    case .podcast(let error): return error.userMessage
    }
  }

  public var transferError: HTTPError? {
    if case .http(let error) = self { return error }
    return nil
  }
}
