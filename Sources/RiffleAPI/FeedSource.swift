import Foundation
import RiffleCore

/// A sign-in token for one feed: sent as `Authorization: Bearer` to that feed's own scheme,
/// host and port, never anywhere else (covers and audio come from other hosts, a CDN, and are
/// fetched without it). It is never written to the log, a cache or the screen.
public struct FeedToken: Sendable, Equatable {
  let value: String
  let origin: String

  /// The token for the feed at `feed`; nil when there is no token or the feed is not http(s).
  public init?(_ value: String?, for feed: URL) {
    guard let value = value?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty,
      // A header cannot carry line breaks or other controls: such a token is refused whole.
      value.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value < 0x7F }),
      let origin = Self.origin(of: feed)
    else { return nil }
    self.value = value
    self.origin = origin
  }

  /// The header for a request to `url`, when `url` is on the feed's own origin.
  func header(for url: URL) -> String? {
    Self.origin(of: url) == origin ? "Bearer " + value : nil
  }

  static func origin(of url: URL) -> String? {
    guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
      let host = url.host?.lowercased(), !host.isEmpty
    else { return nil }
    return "\(scheme)://\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
  }
}

/// Loads a song feed from a URL through the shared HTTP client.
public struct FeedSource: Sendable {
  public let client: HTTPClient
  /// Sent to the feed's own origin only.
  public let token: FeedToken?

  public init(client: HTTPClient = .shared, token: FeedToken? = nil) {
    self.client = client
    self.token = token
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
    var headers = ["Accept": Self.accept]
    let authorization = token?.header(for: url)
    if let authorization { headers["Authorization"] = authorization }
    let request = HTTPRequest(url: url, headers: headers, maxBytes: Self.maxFeedBytes)
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
            switch error {
            case .status(let code, let host, _, _)? where code == 401 || code == 403:
              completion(
                .failure(.signIn(status: code, host: host, tokenSent: authorization != nil)))
            case let error?:
              completion(.failure(.http(error)))
            case nil:
              completion(.success(answer))
            }
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
          for note in page.skipped + page.notReady {
            FileHandle.standardError.write(Data("feed: \(note)\n".utf8))
          }
          let paging = page.paging ?? asked
          let next = paging?.nextPage.map { PageCursor.page($0, size: paging?.pageSize) }
          return SourcePage(
            songs: page.songs, next: next, skipped: page.skipped.count,
            notReady: page.notReady.count)
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
  /// The feed refused us (401 or 403): it needs a sign-in, or the token sent is not (or no
  /// longer) good.
  case signIn(status: Int, host: String, tokenSent: Bool)

  public var userMessage: String {
    switch self {
    case .http(let error): return error.userMessage
    case .feed(let error): return error.userMessage
    case .podcast(let error): return error.userMessage
    case .signIn(let status, let host, let tokenSent):
      return tokenSent
        ? "\(host) refused the token (\(status)): set a new token in config.toml or RIFFLE_TOKEN"
        : "\(host) asks for a sign-in (\(status)): set token in config.toml or RIFFLE_TOKEN"
    }
  }

  public var transferError: HTTPError? {
    if case .http(let error) = self { return error }
    return nil
  }
}
