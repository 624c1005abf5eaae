import Foundation
import RiffleCore

/// Why a transfer failed, in terms a user can act on.
public enum HTTPError: Error, Equatable, Sendable {
  /// DNS failed, the port refused, or the network is unreachable.
  case noConnection(host: String)
  /// Connecting took too long, or no bytes arrived for the stall timeout.
  case timeout(host: String)
  /// The server answered with an error status; `excerpt` is the start of its body and
  /// `retryAfter` the seconds its Retry-After header asked for.
  case status(Int, host: String, excerpt: String, retryAfter: Int? = nil)
  /// The body was larger than the limit for this kind of request.
  case tooLarge(limit: Int)
  case tooManyRedirects(host: String)
  /// The connection broke before the body was complete.
  case connectionLost(host: String)
  /// A file:// URL that cannot be read.
  case fileUnreadable(path: String)
  case unsupportedURL(String)
  case cancelled
  /// Anything else curl reports, with its own words.
  case transport(String)
  /// A `subsonic://NAME/...` address (a saved playlist's, a session's) whose server
  /// config.toml does not name (any more).
  case noServer(String)
  /// A server's own refusal in place of a body (a Subsonic `status="failed"` answer, a sign-in
  /// page), said in Riffle's words.
  case refused(String)

  /// True when the same request may work later: no connection, timeouts, cut connections,
  /// server errors and rate limits.
  public var isTransient: Bool {
    switch self {
    case .noConnection, .timeout, .connectionLost: return true
    case .status(let code, _, _, _): return code >= 500 || code == 429 || code == 408
    default: return false
    }
  }

  /// The same failure without the start of the server's body: a server may echo the signed
  /// request (its credentials) there, so a signed request's failure keeps none of it.
  public var withoutExcerpt: HTTPError {
    if case .status(let code, let host, _, let after) = self {
      return .status(code, host: host, excerpt: "", retryAfter: after)
    }
    return self
  }

  /// One plain sentence for the status line.
  public var userMessage: String {
    switch self {
    case .noConnection(let host):
      return host.isEmpty ? "No internet connection" : "No connection to \(host)"
    case .timeout(let host): return "\(host) is not answering (timed out)"
    case .status(let code, let host, _, _):
      switch code {
      case 404: return "Not found (404) at \(host)"
      case 401, 403: return "Access denied (\(code)) by \(host)"
      case 429: return "Too many requests (429): \(host) asks us to slow down"
      case 500...599: return "Server error \(code) from \(host)"
      default: return "HTTP \(code) from \(host)"
      }
    case .tooLarge(let limit): return "Response too large (over \(limit / 1_000_000) MB)"
    case .tooManyRedirects(let host): return "Too many redirects from \(host)"
    case .connectionLost(let host): return "Connection to \(host) was cut off"
    case .fileUnreadable(let path): return "Cannot read \(path)"
    case .unsupportedURL(let url): return "Unsupported address \(url)"
    case .cancelled: return "Cancelled"
    case .transport(let detail): return "Network error: \(detail)"
    case .noServer(let name): return SubsonicServers.unknownServerMessage(name)
    case .refused(let message): return message
    }
  }
}

/// A failure the player reports: one sentence for the user, and whether and when to try again.
public protocol ReportableFailure: Error {
  var userMessage: String { get }
  /// True when trying again later may work.
  var isTransient: Bool { get }
  /// Seconds the server asked us to wait, if it did.
  var retryAfter: Double? { get }
}

extension ReportableFailure {
  /// The failure as the reducer takes it.
  public var failure: Failure {
    Failure(userMessage, isTransient: isTransient, retryAfter: retryAfter)
  }
}

/// A failure that may have come from a transfer: whether to try again, and when, follow from
/// the transfer's error.
public protocol TransferFailure {
  /// The transfer's error, when the failure was the transfer's.
  var transferError: HTTPError? { get }
}

extension TransferFailure {
  /// True when trying again later may work (the network, the server's load).
  public var isTransient: Bool { transferError?.isTransient ?? false }

  /// Seconds the server asked us to wait, if it did.
  public var retryAfter: Double? {
    if case .status(_, _, _, let after?)? = transferError { return Double(after) }
    return nil
  }
}

extension URL {
  /// The host for messages; the file name for file:// URLs.
  var displayHost: String {
    if isFileURL { return lastPathComponent }
    return host ?? absoluteString
  }
}
