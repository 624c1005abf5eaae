import Foundation

/// ListenBrainz: `POST {url}/1/submit-listens` with `Authorization: Token TOKEN` and a JSON
/// body, as ListenBrainz documents it: `listen_type` "playing_now" (one listen, no
/// `listened_at`), "single" (one listen) or "import" (several); each listen has `listened_at`
/// (Unix seconds, when the song started) and `track_metadata` (`artist_name`, `track_name`,
/// `release_name` when known, `additional_info`).
struct ListenBrainzService: ScrobbleService {
  let settings: ScrobbleSettings.ListenBrainz
  var kind: ScrobbleServiceKind { .listenBrainz }
  /// The server takes up to 1000 listens a request; 100 keeps each request small.
  var batchLimit: Int { 100 }

  func accepts(_ track: ScrobbleTrack) -> Bool { track.isScrobblable }

  var endpoint: URL {
    settings.url.joiningPath("1/submit-listens")
  }

  func nowPlayingRequest(_ track: ScrobbleTrack) -> HTTPRequest {
    request(Self.body(listenType: "playing_now", listens: [(track, nil)]))
  }

  func submitRequest(_ listens: [PendingListen]) -> HTTPRequest {
    request(
      Self.body(
        listenType: listens.count == 1 ? "single" : "import",
        listens: listens.map { ($0.track, $0.listenedAt) }))
  }

  private func request(_ body: Data) -> HTTPRequest {
    HTTPRequest(
      url: endpoint, method: "POST",
      headers: ["Authorization": "Token \(settings.token)", "Content-Type": "application/json"],
      body: body, maxBytes: 1_000_000)
  }

  // The body's shape, in snake_case on the wire (`convertToSnakeCase`); optionals left nil are
  // left out (`encodeIfPresent`), never sent as null.
  struct Submission: Encodable {
    var listenType: String
    var payload: [Listen]
  }
  struct Listen: Encodable {
    var listenedAt: Int?
    var trackMetadata: TrackMetadata
  }
  struct TrackMetadata: Encodable {
    var artistName: String
    var trackName: String
    var releaseName: String?
    var additionalInfo: AdditionalInfo
  }
  struct AdditionalInfo: Encodable {
    var durationMs: Int?
    var tracknumber: Int?
    var originUrl: String?
    var submissionClient: String
    var submissionClientVersion: String
  }

  /// The JSON body for `listenType` and its listens (`listened_at` left out for "playing_now").
  static func body(listenType: String, listens: [(ScrobbleTrack, Int?)]) -> Data {
    let payload = listens.map { track, listenedAt in
      Listen(
        listenedAt: listenedAt,
        trackMetadata: TrackMetadata(
          artistName: track.artist, trackName: track.title, releaseName: track.albumName,
          additionalInfo: AdditionalInfo(
            durationMs: track.duration.flatMap {
              $0.isFinite && $0 > 0 ? Int(($0 * 1000).rounded()) : nil
            },
            tracknumber: track.trackNumber,
            originUrl: track.origin.flatMap(originURL),
            submissionClient: "Riffle", submissionClientVersion: RiffleVersion.string)))
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    // Encoding strings and integers cannot fail.
    return (try? encoder.encode(Submission(listenType: listenType, payload: payload))) ?? Data()
  }

  /// An http(s) origin, as ListenBrainz's `origin_url` takes; nil for anything else.
  static func originURL(_ text: String) -> String? {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https", url.host != nil
    else { return nil }
    return text
  }

  func outcome(of result: Result<HTTPResponse, HTTPError>) -> SubmitOutcome {
    switch result {
    case .success: return .accepted
    case .failure(let error):
      if case .status(401, _, _, _) = error {
        return .stop(
          "ListenBrainz refused the token (401): check 'token' in [scrobble.listenbrainz] of "
            + "config.toml; listens are kept until then")
      }
      return genericOutcome(error, service: "ListenBrainz", setting: "[scrobble.listenbrainz]")
    }
  }
}
