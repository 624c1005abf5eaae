import Foundation
import RiffleCore

/// What a service's answer means for the listens it was sent.
enum SubmitOutcome: Equatable, Sendable {
  /// Taken (2xx); for Last.fm also "ignored" ones, which no retry would change.
  case accepted
  /// Refused for good (malformed or unacceptable listens): drop them for this service. Sent
  /// in a batch, the listens are tried one by one so a single bad one costs only itself.
  case rejected(String)
  /// The service cannot be reached, is overloaded or asks us to slow down: keep the listens
  /// and try again later (after `retryAfter` seconds when it said).
  case transient(retryAfter: Double?, reason: String)
  /// The credentials or the address are wrong (401, an invalid session key, a 404): stop
  /// sending to this service for the run and tell the user once; the listens stay on disk.
  case stop(String)
}

/// One scrobbling service: how its requests are made and what its answers mean.
protocol ScrobbleService: Sendable {
  var kind: ScrobbleServiceKind { get }
  /// How many listens one submission may carry.
  var batchLimit: Int { get }
  /// Whether the service takes this track as a listen at all.
  func accepts(_ track: ScrobbleTrack) -> Bool
  func nowPlayingRequest(_ track: ScrobbleTrack) -> HTTPRequest
  func submitRequest(_ listens: [PendingListen]) -> HTTPRequest
  func outcome(of result: Result<HTTPResponse, HTTPError>) -> SubmitOutcome
}

extension ScrobbleSettings {
  /// The services these settings set, ready to send to.
  func services() -> [any ScrobbleService] {
    var all: [any ScrobbleService] = []
    if let listenBrainz { all.append(ListenBrainzService(settings: listenBrainz)) }
    if let lastFM { all.append(LastFMService(settings: lastFM)) }
    return all
  }
}

/// A server's own words for the log: sanitized and short.
func logExcerpt(_ text: String) -> String {
  let clean = TextSanitizer.sanitize(text).replacingOccurrences(of: "\n", with: " ")
  return clean.count > 200 ? String(clean.prefix(200)) + "..." : clean
}

/// The outcome of a failed transfer that no service-specific rule decided.
func genericOutcome(_ error: HTTPError, service: String, setting: String) -> SubmitOutcome {
  if error.isTransient {
    var retryAfter: Double?
    if case .status(_, _, _, let after?) = error { retryAfter = Double(after) }
    return .transient(retryAfter: retryAfter, reason: error.userMessage)
  }
  switch error {
  case .status(401, _, _, _), .status(403, _, _, _):
    return .stop(
      "\(service) refused the credentials (\(statusCode(error) ?? 401)): check \(setting) in "
        + "config.toml; listens are kept until then")
  case .status(400, _, _, _), .status(413, _, _, _), .status(422, _, _, _):
    return .rejected(error.userMessage)
  default:
    return .stop(
      "\(service) cannot take listens (\(error.userMessage)): check \(setting) in config.toml; "
        + "listens are kept until then")
  }
}

private func statusCode(_ error: HTTPError) -> Int? {
  if case .status(let code, _, _, _) = error { return code }
  return nil
}

extension URL {
  /// `path` below this URL's own path, with exactly one slash between them.
  func joiningPath(_ path: String) -> URL {
    var base = absoluteString
    while base.hasSuffix("/") { base.removeLast() }
    return URL(string: base + "/" + path) ?? self
  }
}
