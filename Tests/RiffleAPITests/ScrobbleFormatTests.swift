import Foundation
import RiffleCore
import Testing

@testable import RiffleAPI

/// The bytes each scrobbling service is sent, checked against the services' documentation
/// and against answers computed outside Riffle (Python's hashlib for MD5).
@Suite("Scrobbling: request formats")
struct ScrobbleFormatTests {
  static let track = ScrobbleTrack(
    artist: "Sigur Rós", title: "Hoppípolla", album: "Takk...", duration: 268.4, trackNumber: 2,
    songID: "song-1", origin: "https://example.org/feed.json")

  @Test("MD5 matches RFC 1321's test suite (values from Python's hashlib)")
  func md5() {
    #expect(LastFMService.md5Hex("") == "d41d8cd98f00b204e9800998ecf8427e")
    #expect(LastFMService.md5Hex("a") == "0cc175b9c0f1b6a831c399e269772661")
    #expect(LastFMService.md5Hex("abc") == "900150983cd24fb0d6963f7d28e17f72")
    #expect(LastFMService.md5Hex("message digest") == "f96b697d7cb7938d525a2f31aaf161d0")
    #expect(
      LastFMService.md5Hex("abcdefghijklmnopqrstuvwxyz") == "c3fcd3d76192e4007dfb496cca67e13b")
    #expect(
      LastFMService.md5Hex(String(repeating: "1234567890", count: 8))
        == "57edf4a22be3c955ac49da2e2107b67a")
  }

  @Test("api_sig: names sorted, name+value concatenated, secret appended, format left out")
  func signatureWorkedExample() {
    // Worked out with Python: sorted names, "album[0]Takk...api_key...track[0]Hoppípolla" +
    // secret, md5 of the UTF-8 bytes.
    let parameters = [
      "method": "track.scrobble", "api_key": "b25b959554ed76058ac220b7b2e0a026",
      "sk": "d580d57f32848f5dcf574d1ce18d78b2", "artist[0]": "Sigur Rós",
      "track[0]": "Hoppípolla", "timestamp[0]": "1700000000", "album[0]": "Takk...",
      "duration[0]": "268", "format": "json",
    ]
    let secret = "425b55975eed76058ac220b7b2e0a026"
    #expect(
      LastFMService.signature(parameters, secret: secret) == "99f60811596b0e2456701179f73186fd")
    // format and callback never count.
    var withCallback = parameters
    withCallback["callback"] = "f"
    withCallback["format"] = "xml"
    #expect(
      LastFMService.signature(withCallback, secret: secret) == "99f60811596b0e2456701179f73186fd")
  }

  @Test("api_sig sorts names by bytes: artist[10] before artist[1]")
  func signatureOrder() {
    let parameters = ["artist[1]": "B", "artist[10]": "K", "api_key": "k"]
    #expect(
      LastFMService.signature(parameters, secret: "s")
        == LastFMService.md5Hex("api_keykartist[10]Kartist[1]Bs"))
  }

  @Test("Last.fm form: every parameter UTF-8 percent-encoded, unreserved characters kept")
  func form() throws {
    let body = LastFMService.formBody(["artist": "AC/DC & Björk", "track": "a+b=c ~._-"])
    #expect(
      String(decoding: body, as: UTF8.self)
        == "artist=AC%2FDC%20%26%20Bj%C3%B6rk&track=a%2Bb%3Dc%20~._-")
  }

  @Test("Last.fm: track.scrobble carries indexed fields, timestamps, key, session and signature")
  func lastFMScrobble() throws {
    let service = LastFMService(
      settings: .init(
        apiKey: "KEY", secret: "SECRET", sessionKey: "SESSION",
        url: URL(string: "http://127.0.0.1:9/base/")!))
    let request = service.submitRequest([
      PendingListen(id: "a", track: Self.track, listenedAt: 1_700_000_000, services: [.lastFM]),
      PendingListen(
        id: "b", track: ScrobbleTrack(artist: "X", title: "Y", songID: "2"),
        listenedAt: 1_700_000_300, services: [.lastFM]),
    ])
    #expect(request.method == "POST")
    #expect(request.url.absoluteString == "http://127.0.0.1:9/base/2.0/")
    #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded; charset=utf-8")
    let form = Self.decodeForm(request.body ?? Data())
    #expect(
      Set(form.keys) == [
        "method", "api_key", "sk", "api_sig", "format", "artist[0]", "track[0]", "album[0]",
        "duration[0]", "trackNumber[0]", "timestamp[0]", "artist[1]", "track[1]", "timestamp[1]",
      ])
    #expect(form["method"] == "track.scrobble")
    #expect(form["artist[0]"] == "Sigur Rós")
    #expect(form["track[0]"] == "Hoppípolla")
    #expect(form["album[0]"] == "Takk...")
    #expect(form["duration[0]"] == "268")
    #expect(form["trackNumber[0]"] == "2")
    #expect(form["timestamp[0]"] == "1700000000")
    #expect(form["timestamp[1]"] == "1700000300")
    #expect(form["format"] == "json")
    #expect(form["api_key"] == "KEY")
    #expect(form["sk"] == "SESSION")
    let signed = form.filter { $0.key != "format" && $0.key != "api_sig" }
    let text = signed.keys.sorted().map { $0 + signed[$0]! }.joined() + "SECRET"
    #expect(form["api_sig"] == LastFMService.md5Hex(text))
    // The secret itself is never sent.
    #expect(!String(decoding: request.body ?? Data(), as: UTF8.self).contains("SECRET"))
  }

  @Test("Last.fm takes only tracks longer than 30 s (or of unknown length)")
  func lastFMThirtySeconds() {
    let service = LastFMService(settings: .init(apiKey: "k", secret: "s", sessionKey: "sk"))
    var track = Self.track
    track.duration = 30
    #expect(!service.accepts(track))
    track.duration = 31
    #expect(service.accepts(track))
    track.duration = nil
    #expect(service.accepts(track))
    track.artist = " "
    #expect(!service.accepts(track))
  }

  @Test("ListenBrainz: playing_now has no listened_at; single and import carry it")
  func listenBrainzBodies() throws {
    let nowPlaying = try Self.json(
      ListenBrainzService.body(listenType: "playing_now", listens: [(Self.track, nil)]))
    #expect(nowPlaying["listen_type"] as? String == "playing_now")
    let payload = try #require(nowPlaying["payload"] as? [[String: Any]])
    #expect(payload.count == 1)
    #expect(Set(payload[0].keys) == ["track_metadata"])
    let metadata = try #require(payload[0]["track_metadata"] as? [String: Any])
    #expect(Set(metadata.keys) == ["artist_name", "track_name", "release_name", "additional_info"])
    #expect(metadata["artist_name"] as? String == "Sigur Rós")
    #expect(metadata["track_name"] as? String == "Hoppípolla")
    #expect(metadata["release_name"] as? String == "Takk...")
    let info = try #require(metadata["additional_info"] as? [String: Any])
    #expect(
      Set(info.keys) == [
        "duration_ms", "tracknumber", "origin_url", "submission_client",
        "submission_client_version",
      ])
    #expect(info["duration_ms"] as? Int == 268_400)
    #expect(info["tracknumber"] as? Int == 2)
    #expect(info["origin_url"] as? String == "https://example.org/feed.json")
    #expect(info["submission_client"] as? String == "Riffle")
    #expect(info["submission_client_version"] as? String == RiffleVersion.string)

    let bare = ScrobbleTrack(artist: "A", title: "T", album: "", songID: "x", origin: "file:///a")
    let single = try Self.json(
      ListenBrainzService.body(listenType: "single", listens: [(bare, 1_700_000_000)]))
    #expect(single["listen_type"] as? String == "single")
    let listen = try #require((single["payload"] as? [[String: Any]])?.first)
    #expect(listen["listened_at"] as? Int == 1_700_000_000)
    let bareMetadata = try #require(listen["track_metadata"] as? [String: Any])
    // No album, length, number or http origin: left out, never null.
    #expect(Set(bareMetadata.keys) == ["artist_name", "track_name", "additional_info"])
    let bareInfo = try #require(bareMetadata["additional_info"] as? [String: Any])
    #expect(Set(bareInfo.keys) == ["submission_client", "submission_client_version"])
  }

  @Test("ListenBrainz: one listen is 'single', several are one 'import'; endpoint and token")
  func listenBrainzRequests() throws {
    let service = ListenBrainzService(
      settings: .init(token: "TOKEN", url: URL(string: "http://127.0.0.1:9")!))
    let one = PendingListen(id: "a", track: Self.track, listenedAt: 1, services: [.listenBrainz])
    let two = PendingListen(id: "b", track: Self.track, listenedAt: 2, services: [.listenBrainz])
    let request = service.submitRequest([one])
    #expect(request.url.absoluteString == "http://127.0.0.1:9/1/submit-listens")
    #expect(request.method == "POST")
    #expect(request.headers["Authorization"] == "Token TOKEN")
    #expect(request.headers["Content-Type"] == "application/json")
    #expect(try Self.json(request.body ?? Data())["listen_type"] as? String == "single")
    let batch = try Self.json(service.submitRequest([one, two]).body ?? Data())
    #expect(batch["listen_type"] as? String == "import")
    #expect(
      (batch["payload"] as? [[String: Any]])?.compactMap { $0["listened_at"] as? Int } == [1, 2])
  }

  @Test("what answers mean: 401 stops, 429/5xx/timeouts wait, 400 refuses the listen")
  func outcomes() {
    let lb = ListenBrainzService(settings: .init(token: "t"))
    func fail(_ error: HTTPError) -> Result<HTTPResponse, HTTPError> { .failure(error) }
    if case .stop(let message) = lb.outcome(of: fail(.status(401, host: "h", excerpt: ""))) {
      #expect(message.contains("[scrobble.listenbrainz]"))
      #expect(!message.contains("t\""))
    } else {
      Issue.record("401 must stop ListenBrainz")
    }
    #expect(
      lb.outcome(of: fail(.status(429, host: "h", excerpt: "", retryAfter: 7)))
        == .transient(
          retryAfter: 7, reason: HTTPError.status(429, host: "h", excerpt: "").userMessage))
    #expect(
      lb.outcome(of: fail(.timeout(host: "h")))
        == .transient(retryAfter: nil, reason: "h is not answering (timed out)"))
    #expect(lb.outcome(of: fail(.status(503, host: "h", excerpt: ""))) != .accepted)
    #expect(
      lb.outcome(of: fail(.status(400, host: "h", excerpt: ""))) == .rejected("HTTP 400 from h"))
    if case .stop = lb.outcome(of: fail(.status(404, host: "h", excerpt: ""))) {
    } else {
      Issue.record("a wrong address must stop, not drop listens")
    }

    let fm = LastFMService(settings: .init(apiKey: "k", secret: "s", sessionKey: "sk"))
    let invalidSession = #"{"error":9,"message":"Invalid session key - Please re-authenticate"}"#
    if case .stop(let message) = fm.outcome(
      of: fail(.status(403, host: "h", excerpt: invalidSession)))
    {
      #expect(message.contains("session_key"))
    } else {
      Issue.record("error 9 must stop Last.fm")
    }
    let offline = #"{"error":11,"message":"Service Offline"}"#
    if case .transient = fm.outcome(of: fail(.status(503, host: "h", excerpt: offline))) {
    } else {
      Issue.record("error 11 must wait")
    }
    let ok = HTTPResponse(
      status: 200, contentType: "application/json",
      body: Data(#"{"scrobbles":{"@attr":{"accepted":1,"ignored":0}}}"#.utf8))
    #expect(fm.outcome(of: .success(ok)) == .accepted)
    let failedIn200 = HTTPResponse(
      status: 200, contentType: "application/json", body: Data(#"{"error":16,"message":"x"}"#.utf8))
    if case .transient = fm.outcome(of: .success(failedIn200)) {
    } else {
      Issue.record("an error in a 200 answer counts")
    }
  }

  @Test("settings never print a token, key or secret")
  func settingsRedacted() {
    let settings = ScrobbleSettings(
      listenBrainz: .init(token: "lb-token-123"),
      lastFM: .init(apiKey: "fm-key-456", secret: "fm-secret-789", sessionKey: "fm-session-000"))
    var dumped = ""
    dump(settings, to: &dumped)
    var dumpedParts = ""
    dump(settings.listenBrainz, to: &dumpedParts)
    dump(settings.lastFM, to: &dumpedParts)
    let texts = [
      "\(settings)", String(reflecting: settings), dumped, dumpedParts,
      "\(settings.listenBrainz!)", String(reflecting: settings.lastFM!),
    ]
    for text in texts {
      for secret in ["lb-token-123", "fm-key-456", "fm-secret-789", "fm-session-000"] {
        #expect(!text.contains(secret))
      }
    }
    #expect("\(settings)".contains("ListenBrainz"))
  }

  @Test("a listen counts after half the song or 4 minutes, whichever comes first")
  func threshold() {
    #expect(ScrobbleTrack.listenThreshold(duration: 100) == 50)
    #expect(ScrobbleTrack.listenThreshold(duration: 600) == 240)
    #expect(ScrobbleTrack.listenThreshold(duration: nil) == 240)
  }

  static func json(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  /// Reads `application/x-www-form-urlencoded` as a server does.
  static func decodeForm(_ body: Data) -> [String: String] {
    var form: [String: String] = [:]
    for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      func decode(_ text: Substring) -> String {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
      }
      form[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
    }
    return form
  }
}

@Suite("Scrobbling: a song as a track")
struct ScrobbleTrackTests {
  @Test("artist from the display name, else the handle; title, album, length and id kept")
  func fromSong() {
    let song = Song(
      id: "s1", title: "Night Drive", displayName: "Mira Sol", handle: "mirasol",
      audioURL: URL(string: "https://example.org/a.mp3")!, duration: 181.5, album: "Roads")
    let track = ScrobbleTrack(song: song, origin: "https://example.org/feed.json")
    #expect(
      track
        == ScrobbleTrack(
          artist: "Mira Sol", title: "Night Drive", album: "Roads", duration: 181.5,
          songID: "s1", origin: "https://example.org/feed.json"))
    var anonymous = song
    anonymous.displayName = " "
    #expect(ScrobbleTrack(song: anonymous).artist == "mirasol")
  }
}
