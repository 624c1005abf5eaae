import Foundation
import RiffleCore

/// One show the user follows, with what its last answer said to send next time.
public struct PodcastSubscription: Codable, Equatable, Sendable {
  /// The feed's URL as the user gave it.
  public var url: String
  /// The show's name from its last good answer.
  public var title: String
  /// The last answer's `ETag`, sent back as `If-None-Match`.
  public var etag: String?
  /// The last answer's `Last-Modified`, sent back as `If-Modified-Since`.
  public var lastModified: String?

  public init(url: String, title: String, etag: String? = nil, lastModified: String? = nil) {
    self.url = url
    self.title = title
    self.etag = etag
    self.lastModified = lastModified
  }
}

/// The shows the user follows, in `$XDG_DATA_HOME/riffle/podcasts.json`, written atomically
/// (`AtomicFile`): a crash leaves the old list or the new one. Read again before each change, so
/// two players (or `riffle podcast add` while one plays) do not undo each other's additions.
public final class PodcastSubscriptions: @unchecked Sendable {
  public let file: URL
  private let lock = NSLock()

  public init(file: URL) {
    self.file = file
  }

  private struct Stored: Codable {
    var subscriptions: [PodcastSubscription]
  }

  /// Every subscription, in the order they were added; a missing file is none. A file that
  /// cannot be read throws (and is never overwritten by a change: nothing is lost).
  public func all() throws -> [PodcastSubscription] {
    try lock.withLock { try read() }
  }

  private func read() throws -> [PodcastSubscription] {
    guard let data = try? Data(contentsOf: file) else {
      if FileManager.default.fileExists(atPath: file.path) {
        throw PodcastStoreError("cannot read \(file.path)")
      }
      return []
    }
    do {
      return try JSONDecoder().decode(Stored.self, from: data).subscriptions
    } catch {
      throw PodcastStoreError("\(file.path) is damaged (\(error)); it is left as it is")
    }
  }

  /// Applies `change` to the list and writes it; the list's old state stays on failure.
  public func update(_ change: (inout [PodcastSubscription]) -> Void) throws {
    try lock.withLock {
      var list = try read()
      let before = list
      change(&list)
      guard list != before else { return }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      try AtomicFile.write(try encoder.encode(Stored(subscriptions: list)), to: file)
    }
  }

  /// Adds a show, or refreshes what is kept of one already followed (same URL).
  public func add(_ subscription: PodcastSubscription) throws {
    try update { list in
      if let index = list.firstIndex(where: { $0.url == subscription.url }) {
        list[index] = subscription
      } else {
        list.append(subscription)
      }
    }
  }
}

/// Why the subscriptions file could not be used.
public struct PodcastStoreError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// Fetches followed shows with conditional GETs: a feed's last good answer is kept in the cache,
/// and its `ETag` and `Last-Modified` are sent back, so an unchanged feed costs one small request
/// answered with 304 and is read from the copy.
public struct PodcastFeeds: Sendable {
  public let client: HTTPClient
  public let subscriptions: PodcastSubscriptions
  /// The last good answer of each feed, by its URL.
  public let cache: DiskCache

  /// Each show's newest episodes that `riffle podcasts` shows.
  public static let episodesPerShow = 10

  public init(client: HTTPClient = .shared, subscriptions: PodcastSubscriptions, cache: DiskCache) {
    self.client = client
    self.subscriptions = subscriptions
    self.cache = cache
  }

  /// Fetches one show (conditionally when a copy is kept), keeps its answer and headers, and
  /// hands back the feed; the completion runs off the main queue.
  public func refresh(
    _ url: URL, completion: @escaping @Sendable (Result<PodcastFeed, FeedLoadError>) -> Void
  ) {
    let known = (try? subscriptions.all())?.first { $0.url == url.absoluteString }
    let copy = cache.file(for: url).flatMap { try? Data(contentsOf: $0) }
    var headers = ["Accept": FeedSource.accept]
    if let known, copy != nil {
      if let etag = known.etag { headers["If-None-Match"] = etag }
      if let date = known.lastModified { headers["If-Modified-Since"] = date }
    }
    let request = HTTPRequest(url: url, headers: headers, maxBytes: FeedSource.maxFeedBytes)
    let subscriptions = self.subscriptions
    let cache = self.cache
    client.fetch(request) { result in
      switch result {
      case .failure(let error):
        completion(.failure(.http(error)))
      case .success(let response):
        let unchanged = response.status == 304
        guard let body = unchanged ? copy : response.body else {
          return completion(.failure(.http(.transport("the server said 304 with nothing kept"))))
        }
        do throws(PodcastFeedError) {
          let feed = try PodcastFeedParser.parse(body, base: url)
          if !unchanged {
            cache.store(body, for: url)
            try? subscriptions.update { list in
              guard let index = list.firstIndex(where: { $0.url == url.absoluteString }) else {
                return
              }
              list[index].title = feed.title
              list[index].etag = response.headers["etag"]
              list[index].lastModified = response.headers["last-modified"]
            }
          }
          completion(.success(feed))
        } catch {
          completion(.failure(.podcast(error)))
        }
      }
    }
  }

  /// Follows a show: fetches it (it must be a podcast feed), keeps it and its headers.
  public func subscribe(
    _ url: URL, completion: @escaping @Sendable (Result<PodcastFeed, Error>) -> Void
  ) {
    do {
      try subscriptions.add(PodcastSubscription(url: url.absoluteString, title: url.absoluteString))
    } catch {
      return completion(.failure(error))
    }
    let subscriptions = self.subscriptions
    refresh(url) { result in
      switch result {
      case .success(let feed): completion(.success(feed))
      case .failure(let error):
        // Not a feed after all: it is not kept.
        try? subscriptions.update { $0.removeAll { $0.url == url.absoluteString } }
        completion(.failure(error))
      }
    }
  }

  /// Every followed show's newest episodes, newest first, as one page; a show that fails is
  /// left out and counted (its reason in the log), and only when all fail does the page fail.
  public func latestPage(
    completion: @escaping @Sendable (Result<SourcePage, FeedLoadError>) -> Void
  ) {
    let list: [PodcastSubscription]
    do {
      list = try subscriptions.all()
    } catch {
      return completion(.failure(.http(.transport(String(describing: error)))))
    }
    guard !list.isEmpty else { return completion(.success(SourcePage(songs: []))) }
    let gather = Gather(count: list.count)
    for (index, subscription) in list.enumerated() {
      guard let url = URL(string: subscription.url) else {
        gather.set(index, .failure(.http(.unsupportedURL(subscription.url))), completion)
        continue
      }
      refresh(url) { gather.set(index, $0, completion) }
    }
  }

  /// Collects the shows' answers; the last to come hands the page on.
  private final class Gather: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<PodcastFeed, FeedLoadError>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(
      _ index: Int, _ result: Result<PodcastFeed, FeedLoadError>,
      _ completion: @Sendable (Result<SourcePage, FeedLoadError>) -> Void
    ) {
      let done: [Result<PodcastFeed, FeedLoadError>]? = lock.withLock {
        results[index] = result
        return results.contains { $0 == nil } ? nil : results.compactMap { $0 }
      }
      guard let done else { return }
      var songs: [Song] = []
      var failures: [FeedLoadError] = []
      for result in done {
        switch result {
        case .success(let feed): songs += feed.songs.prefix(PodcastFeeds.episodesPerShow)
        case .failure(let error):
          failures.append(error)
          FileHandle.standardError.write(Data("podcasts: \(error.userMessage)\n".utf8))
        }
      }
      if songs.isEmpty, let first = failures.first { return completion(.failure(first)) }
      let ordered = songs.enumerated().sorted { a, b in
        let (x, y) = (a.element.released ?? .distantPast, b.element.released ?? .distantPast)
        return x != y ? x > y : a.offset < b.offset
      }.map(\.element)
      completion(.success(SourcePage(songs: ordered, skipped: failures.count)))
    }
  }
}
