import Foundation

/// Why a request failed, as the reducer needs to know it.
public struct Failure: Error, Equatable, Sendable {
  /// Said to the user.
  public var reason: String
  /// The cause may pass (no connection, a timeout, 5xx, 408, 429): trying again makes sense.
  public var isTransient: Bool
  /// How long the server asked us to wait (`Retry-After`), in seconds.
  public var retryAfter: Double?

  public init(_ reason: String, isTransient: Bool = false, retryAfter: Double? = nil) {
    self.reason = reason
    self.isTransient = isTransient
    self.retryAfter = retryAfter
  }
}

/// Failed tries in a row at one request, and the one rule for the wait before the next: 1, 2,
/// 4 ... 30 s, or what the server asked for.
///
/// A retry is scheduled as `.after(delay, .retryDue(target, attempt:))`; only the latest
/// scheduled one counts (its attempt number matches), so a manual retry in between can never
/// double the chain.
public struct Retry: Equatable, Sendable {
  public var attempts: Int

  public init(attempts: Int = 0) {
    self.attempts = attempts
  }

  /// Counts a failure that may pass and returns the wait before the next try.
  public mutating func failed(_ failure: Failure) -> Double {
    attempts += 1
    return Self.delay(attempt: attempts, serverAsked: failure.retryAfter)
  }

  /// The wait before retry number `attempt` (1-based).
  public static func delay(attempt: Int, serverAsked: Double?) -> Double {
    let backoff = min(30, pow(2, Double(max(0, attempt - 1))))
    return max(1, serverAsked ?? backoff)
  }

  /// "retrying in 4 s"
  static func note(_ delay: Double) -> String {
    "retrying in \(Int(delay.rounded())) s"
  }
}

/// What a scheduled retry is about.
public enum RetryTarget: Hashable, Sendable {
  /// The page request of this source (the one being opened, or the one shown).
  case page(SourceKind)
  /// The lyrics of this song.
  case lyrics(songID: String)
  /// Connecting again to the live station on this page.
  case stream(songID: String)
}
