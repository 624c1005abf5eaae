import Foundation

/// Last.fm's Scrobbling 2.0: `track.updateNowPlaying` and `track.scrobble`, POSTed to
/// `{url}/2.0/` form-encoded (UTF-8), signed with `api_sig`, answered as JSON (`format=json`).
struct LastFMService: ScrobbleService {
  let settings: ScrobbleSettings.LastFM
  var kind: ScrobbleServiceKind { .lastFM }
  /// "up to a maximum of 50 scrobbles per batch".
  var batchLimit: Int { 50 }

  /// Last.fm takes only tracks longer than 30 seconds; one of unknown length is sent.
  func accepts(_ track: ScrobbleTrack) -> Bool {
    guard track.isScrobblable else { return false }
    guard let duration = track.duration, duration.isFinite, duration > 0 else { return true }
    return duration > 30
  }

  var endpoint: URL { settings.url.joiningPath("2.0/") }

  func nowPlayingRequest(_ track: ScrobbleTrack) -> HTTPRequest {
    var parameters = ["method": "track.updateNowPlaying"]
    Self.add(track, suffix: "", to: &parameters)
    return request(parameters)
  }

  func submitRequest(_ listens: [PendingListen]) -> HTTPRequest {
    var parameters = ["method": "track.scrobble"]
    for (index, listen) in listens.enumerated() {
      let suffix = "[\(index)]"
      Self.add(listen.track, suffix: suffix, to: &parameters)
      parameters["timestamp" + suffix] = String(listen.listenedAt)
    }
    return request(parameters)
  }

  private static func add(
    _ track: ScrobbleTrack, suffix: String, to parameters: inout [String: String]
  ) {
    parameters["artist" + suffix] = track.artist
    parameters["track" + suffix] = track.title
    if let album = track.albumName { parameters["album" + suffix] = album }
    if let seconds = track.wholeSeconds { parameters["duration" + suffix] = String(seconds) }
    if let number = track.trackNumber { parameters["trackNumber" + suffix] = String(number) }
  }

  private func request(_ method: [String: String]) -> HTTPRequest {
    var parameters = method
    parameters["api_key"] = settings.apiKey
    parameters["sk"] = settings.sessionKey
    parameters["api_sig"] = Self.signature(parameters, secret: settings.secret)
    parameters["format"] = "json"
    return HTTPRequest(
      url: endpoint, method: "POST",
      headers: ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8"],
      body: Self.formBody(parameters), maxBytes: 1_000_000)
  }

  /// Last.fm's method signature: every parameter but `format` and `callback`, sorted by name
  /// (byte order, so `artist[10]` comes before `artist[1]`), each name then its value, the
  /// secret appended, MD5 of the UTF-8 bytes in lower-case hex.
  static func signature(_ parameters: [String: String], secret: String) -> String {
    let names = parameters.keys.filter { $0 != "format" && $0 != "callback" }
      .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    var text = ""
    for name in names { text += name + parameters[name]! }
    return md5Hex(text + secret)
  }

  static func md5Hex(_ text: String) -> String { MD5.hex(text) }

  /// `application/x-www-form-urlencoded`: everything but unreserved characters
  /// percent-encoded as UTF-8, names in a fixed order.
  static func formBody(_ parameters: [String: String]) -> Data {
    let unreserved = CharacterSet(
      charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    func encode(_ text: String) -> String {
      text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
    let pairs = parameters.keys.sorted().map { "\(encode($0))=\(encode(parameters[$0]!))" }
    return Data(pairs.joined(separator: "&").utf8)
  }

  /// Last.fm's error codes, as its API documents them, by what Riffle does about them.
  enum ErrorCode {
    /// Authentication failed (4), invalid session key (9), invalid API key (10), invalid
    /// method signature (13), suspended API key (26): the settings are wrong.
    static let credentials: Set = [4, 9, 10, 13, 26]
    /// Operation failed (8), service offline (11), temporary error (16), rate limit (29):
    /// try again later.
    static let temporary: Set = [8, 11, 16, 29]
    /// Invalid parameters (6): this listen will never be taken.
    static let badListen: Set = [6, 7]
  }

  func outcome(of result: Result<HTTPResponse, HTTPError>) -> SubmitOutcome {
    switch result {
    case .success(let response):
      // A failure may come with status 200 too: the body says.
      guard let value = try? JSONValue.parse(response.body) else { return .accepted }
      if let code = value["error"]?.int {
        return outcome(code: code, message: value["message"]?.text, retryAfter: nil)
      }
      return .accepted
    case .failure(let error):
      if case .status(_, _, let excerpt, let after) = error,
        let value = try? JSONValue.parse(Data(excerpt.utf8)), let code = value["error"]?.int
      {
        return outcome(
          code: code, message: value["message"]?.text, retryAfter: after.map(Double.init))
      }
      return genericOutcome(error, service: "Last.fm", setting: "[scrobble.lastfm]")
    }
  }

  private func outcome(code: Int, message: String?, retryAfter: Double?) -> SubmitOutcome {
    let said = message.map { ": " + logExcerpt($0) } ?? ""
    if ErrorCode.credentials.contains(code) {
      return .stop(
        "Last.fm refused the session (error \(code)\(said)): check api_key, secret and "
          + "session_key in [scrobble.lastfm] of config.toml; listens are kept until then")
    }
    if ErrorCode.temporary.contains(code) {
      return .transient(retryAfter: retryAfter, reason: "Last.fm error \(code)\(said)")
    }
    if ErrorCode.badListen.contains(code) {
      return .rejected("Last.fm error \(code)\(said)")
    }
    return .stop(
      "Last.fm cannot take listens (error \(code)\(said)): check [scrobble.lastfm] in "
        + "config.toml; listens are kept until then")
  }
}
