import Foundation

/// A question asked of a music catalog whose answers become the pages: a search, or an
/// artist's top songs.
public enum SongQuery: Equatable, Hashable, Sendable {
  /// Songs matching what the user typed.
  case search(String)
  /// The most popular songs of the artist with this name, each song once.
  case artist(String)

  /// How the status line names the query ("“blue”", "Mira Sol's top songs").
  public var label: String {
    switch self {
    case .search(let term): return "\u{201C}\(term)\u{201D}"
    case .artist(let name): return "\(name)\u{2019}s top songs"
    }
  }

  /// What the status line says over the results.
  public var resultsTitle: String {
    switch self {
    case .search(let term): return "Results for \u{201C}\(term)\u{201D}"
    case .artist: return label
    }
  }

  /// What the activity line says while the query runs.
  public var activity: String {
    switch self {
    case .search(let term): return "Searching for \u{201C}\(term)\u{201D}\u{2026}"
    case .artist(let name): return "Finding \(name)\u{2019}s top songs\u{2026}"
    }
  }

  /// What the status line says when nothing came back.
  public var emptyNote: String {
    switch self {
    case .search(let term): return "No songs found for \u{201C}\(term)\u{201D}"
    case .artist(let name): return "No songs found for the artist \u{201C}\(name)\u{201D}"
    }
  }

  /// True when more results can be asked for with a larger offset.
  public var pages: Bool {
    if case .search = self { return true }
    return false
  }
}

/// Where the results of a query stand: how many were asked for and whether more exist.
public struct QueryPaging: Equatable, Sendable {
  /// The offset of the next batch; nil once a batch came back shorter than asked.
  public var nextOffset: Int?
  public var limit: Int
  /// A batch request is out, or waiting to be tried again.
  public var isLoading = false
  /// Failed batch requests in a row (sets the wait before the next).
  public var attempts = 0

  public init(nextOffset: Int?, limit: Int, isLoading: Bool = false, attempts: Int = 0) {
    self.nextOffset = nextOffset
    self.limit = limit
    self.isLoading = isLoading
    self.attempts = attempts
  }

  /// Results asked for in one batch.
  public static let batchSize = 25
  /// How close to the end of the results the next batch is asked for.
  public static let lookahead = 5

  /// The paging after a batch of `received` results asked for at `offset`.
  public static func after(offset: Int, received: Int, limit: Int) -> QueryPaging {
    QueryPaging(nextOffset: received < limit ? nil : offset + received, limit: limit)
  }
}

/// A query asked for whose results are not on the pages yet.
public struct QueryRequest: Equatable, Sendable {
  public var query: SongQuery
  /// Failed tries in a row; sets the wait before the next.
  public var attempts = 0
  /// Waiting for the next try after a failure (the status line says so).
  public var isWaiting = false

  public init(query: SongQuery, attempts: Int = 0, isWaiting: Bool = false) {
    self.query = query
    self.attempts = attempts
    self.isWaiting = isWaiting
  }
}

/// The wait before retry number `attempt` (1-based): 1, 2, 4 … 30 s, or what the server asked.
public func retryDelay(attempt: Int, serverAsked: Double?) -> Double {
  let backoff = min(30, pow(2, Double(max(0, attempt - 1))))
  return max(1, serverAsked ?? backoff)
}
