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
    let request = HTTPRequest(
      url: url, headers: ["Accept": Self.accept], maxBytes: Self.maxFeedBytes)
    return client.fetch(request) { result in
      completion(result.map(\.body).mapError { .http($0) })
    }
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
    fetch(pageURL) { [asked, pageURL] result in
      // The answer says what it is: XML is a podcast, anything else the song feed.
      if case .success(let body) = result, PodcastFeedParser.looksLikeXML(body) {
        completion(Self.podcastPage(body, url: url))
        return
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
