import Foundation
import RiffleCore

/// Loads a song feed from a URL through the shared HTTP client.
public struct FeedSource: Sendable {
  public let client: HTTPClient

  public init(client: HTTPClient = .shared) {
    self.client = client
  }

  /// Fetches and decodes one feed page; the completion runs off the main queue.
  @discardableResult
  public func load(
    _ url: URL, completion: @escaping @Sendable (Result<FeedPage, FeedLoadError>) -> Void
  ) -> Transfer {
    client.fetch(HTTPRequest(url: url, headers: ["Accept": "application/json"])) { result in
      switch result {
      case .failure(let error):
        completion(.failure(.http(error)))
      case .success(let response):
        do {
          completion(.success(try FeedDecoder.decode(response.body, base: url)))
        } catch let error as FeedError {
          completion(.failure(.feed(error)))
        } catch {
          completion(.failure(.feed(.invalidJSON(String(describing: error)))))
        }
      }
    }
  }
}

/// Why loading a feed failed: the transfer or the content.
public enum FeedLoadError: Error, Equatable, Sendable {
  case http(HTTPError)
  case feed(FeedError)

  public var userMessage: String {
    switch self {
    case .http(let error): return error.userMessage
    case .feed(let error): return error.userMessage
    }
  }
}
