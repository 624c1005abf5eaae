import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleAPI

/// A scrobbling server on 127.0.0.1 standing in for ListenBrainz (`/1/submit-listens`) and
/// Last.fm (`/2.0/`): it answers as `answer` says and keeps every listen it took (answered
/// 2xx), so a test can tell that each arrived exactly once.
private final class ScrobbleServer: @unchecked Sendable {
  typealias Answer = @Sendable (LoopbackHTTPServer.Request, Int) -> LoopbackHTTPServer.Reply
  private let lock = NSLock()
  private var _answer: Answer
  private var count = 0
  private var _taken: [String] = []
  private var _times: [Date] = []
  let server: LoopbackHTTPServer

  init(port: UInt16 = 0, answer: @escaping Answer = { ScrobbleServer.ok($0, $1) }) throws {
    _answer = answer
    let box = WeakServerBox()
    server = try LoopbackHTTPServer(port: port) { request in
      box.value?.handle(request) ?? .respond(status: 500, body: Data())
    }
    box.value = self
  }

  var requests: [LoopbackHTTPServer.Request] { server.requests }
  /// "service:listened_at:title" of every listen answered 2xx, in order.
  var taken: [String] { lock.withLock { _taken } }
  var times: [Date] { lock.withLock { _times } }
  var url: URL { server.baseURL }

  private func handle(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
    let (answer, index) = lock.withLock { () -> (Answer, Int) in
      defer { count += 1 }
      _times.append(Date())
      return (_answer, count)
    }
    let reply = answer(request, index)
    if case .respond(let status, _, _) = reply, (200..<300).contains(status) {
      let listens = Self.listens(in: request)
      lock.withLock { _taken.append(contentsOf: listens) }
    }
    return reply
  }

  /// The listens (not "now playing") a request carries.
  static func listens(in request: LoopbackHTTPServer.Request) -> [String] {
    if request.path == "/1/submit-listens" {
      guard
        let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
        body["listen_type"] as? String != "playing_now",
        let payload = body["payload"] as? [[String: Any]]
      else { return [] }
      return payload.map { listen in
        let metadata = listen["track_metadata"] as? [String: Any]
        return
          "lb:\(listen["listened_at"] as? Int ?? -1):\(metadata?["track_name"] as? String ?? "")"
      }
    }
    let form = ScrobbleFormatTests.decodeForm(request.body)
    guard form["method"] == "track.scrobble" else { return [] }
    return (0..<50).compactMap { i in
      form["timestamp[\(i)]"].map { "fm:\($0):\(form["track[\(i)]"] ?? "")" }
    }
  }

  /// What each service answers when all is well.
  static func ok(_ request: LoopbackHTTPServer.Request, _ index: Int) -> LoopbackHTTPServer.Reply {
    if request.path == "/1/submit-listens" {
      return .respond(
        status: 200, headers: ["Content-Type": "application/json"],
        body: Data(#"{"status": "ok"}"#.utf8))
    }
    let form = ScrobbleFormatTests.decodeForm(request.body)
    let count = (0..<50).filter { form["timestamp[\($0)]"] != nil }.count
    let body =
      form["method"] == "track.scrobble"
      ? #"{"scrobbles":{"@attr":{"accepted":\#(count),"ignored":0},"scrobble":[]}}"#
      : ##"{"nowplaying":{"ignoredMessage":{"code":"0","#text":""}}}"##
    return .respond(
      status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
  }

  func stop() { server.stop() }
}

private final class WeakServerBox: @unchecked Sendable {
  weak var value: ScrobbleServer?
}

/// Messages `onProblem` got.
private final class Problems: @unchecked Sendable {
  private let lock = NSLock()
  private var _all: [String] = []
  var all: [String] { lock.withLock { _all } }
  func add(_ message: String) { lock.withLock { _all.append(message) } }
}

private final class ScrobblerBox: @unchecked Sendable {
  weak var value: Scrobbler?
}

/// Waits up to `seconds` for `condition`.
private func eventually(_ seconds: Double = 8, _ condition: () -> Bool) -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if condition() { return true }
    Thread.sleep(forTimeInterval: 0.02)
  }
  return condition()
}

/// A port nothing listens on (a server was just there).
private func closedPort() throws -> UInt16 {
  let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: Data()) }
  let port = server.port
  server.stop()
  return port
}

@Suite("Scrobbling: against loopback servers", .serialized)
struct ScrobblerTests {
  /// A timeout after 1 s without a byte, and quick back-offs, so each test takes seconds.
  static let client = HTTPClient(connectTimeout: 2, stallTimeout: 1)
  static let quick = Scrobbler.Backoff(first: 0.2, limit: 0.4)
  static let track = ScrobbleTrack(
    artist: "Sigur Rós", title: "Hoppípolla", album: "Takk...", duration: 268, trackNumber: 2,
    songID: "song-1")

  static func track(_ n: Int) -> ScrobbleTrack {
    ScrobbleTrack(artist: "Artist", title: "Song \(n)", duration: 200, songID: "song-\(n)")
  }

  fileprivate static func scrobbler(
    _ settings: ScrobbleSettings, file: URL, problems: Problems = Problems(),
    backoff: Scrobbler.Backoff = quick
  ) -> Scrobbler {
    Scrobbler(
      settings: settings, queueFile: file, client: client, backoff: backoff,
      onProblem: { problems.add($0) })
  }

  @Test("ListenBrainz gets playing_now, then the listen, exactly as documented")
  func listenBrainzRequests() throws {
    let server = try ScrobbleServer()
    let dir = try TemporaryDirectory()
    let scrobbler = Self.scrobbler(
      ScrobbleSettings(listenBrainz: .init(token: "lb-token-1", url: server.url)),
      file: dir.file("scrobbles.json"))
    scrobbler.nowPlaying(Self.track)
    #expect(eventually { server.requests.count == 1 })
    scrobbler.listened(Self.track, startedAt: Date(timeIntervalSince1970: 1_700_000_000.7))
    #expect(eventually { server.requests.count == 2 && scrobbler.pendingListens.isEmpty })

    for request in server.requests {
      #expect(request.method == "POST")
      #expect(request.path == "/1/submit-listens")
      #expect(request.headers["authorization"] == "Token lb-token-1")
      #expect(request.headers["content-type"] == "application/json")
    }
    let first = try ScrobbleFormatTests.json(server.requests[0].body)
    #expect(first["listen_type"] as? String == "playing_now")
    let nowPayload = try #require(first["payload"] as? [[String: Any]])
    #expect(nowPayload.count == 1 && nowPayload[0]["listened_at"] == nil)
    let second = try ScrobbleFormatTests.json(server.requests[1].body)
    #expect(second["listen_type"] as? String == "single")
    let listen = try #require((second["payload"] as? [[String: Any]])?.first)
    #expect(listen["listened_at"] as? Int == 1_700_000_000)
    let metadata = try #require(listen["track_metadata"] as? [String: Any])
    #expect(metadata["artist_name"] as? String == "Sigur Rós")
    #expect(metadata["track_name"] as? String == "Hoppípolla")
    #expect(metadata["release_name"] as? String == "Takk...")
    let info = try #require(metadata["additional_info"] as? [String: Any])
    #expect(info["duration_ms"] as? Int == 268_000)
    #expect(info["submission_client"] as? String == "Riffle")
    #expect(info["submission_client_version"] as? String == RiffleVersion.string)
    // Sent and confirmed: nothing is kept.
    #expect(!FileManager.default.fileExists(atPath: dir.file("scrobbles.json").path))
  }

  @Test("Last.fm gets track.updateNowPlaying and track.scrobble, form-encoded and signed")
  func lastFMRequests() throws {
    let server = try ScrobbleServer()
    let dir = try TemporaryDirectory()
    let scrobbler = Self.scrobbler(
      ScrobbleSettings(
        lastFM: .init(apiKey: "fm-key", secret: "fm-secret", sessionKey: "fm-sk", url: server.url)),
      file: dir.file("scrobbles.json"))
    scrobbler.nowPlaying(Self.track)
    #expect(eventually { server.requests.count == 1 })
    scrobbler.listened(Self.track, startedAt: Date(timeIntervalSince1970: 1_700_000_000))
    #expect(eventually { server.requests.count == 2 && scrobbler.pendingListens.isEmpty })

    var methods: [String] = []
    for request in server.requests {
      #expect(request.method == "POST")
      #expect(request.path == "/2.0/")
      #expect(
        request.headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
      let form = ScrobbleFormatTests.decodeForm(request.body)
      methods.append(form["method"] ?? "")
      #expect(form["api_key"] == "fm-key")
      #expect(form["sk"] == "fm-sk")
      #expect(form["format"] == "json")
      // The signature, worked out here from what arrived: every parameter but format and
      // api_sig, sorted, name then value, then the secret.
      let signed = form.filter { $0.key != "format" && $0.key != "api_sig" }
      let text = signed.keys.sorted().map { $0 + signed[$0]! }.joined() + "fm-secret"
      #expect(form["api_sig"] == LastFMService.md5Hex(text))
      #expect(!String(decoding: request.body, as: UTF8.self).contains("fm-secret"))
    }
    #expect(methods == ["track.updateNowPlaying", "track.scrobble"])
    let nowPlaying = ScrobbleFormatTests.decodeForm(server.requests[0].body)
    #expect(nowPlaying["artist"] == "Sigur Rós")
    #expect(nowPlaying["track"] == "Hoppípolla")
    #expect(nowPlaying["album"] == "Takk...")
    #expect(nowPlaying["duration"] == "268")
    #expect(nowPlaying["trackNumber"] == "2")
    let scrobble = ScrobbleFormatTests.decodeForm(server.requests[1].body)
    #expect(scrobble["artist[0]"] == "Sigur Rós")
    #expect(scrobble["track[0]"] == "Hoppípolla")
    #expect(scrobble["timestamp[0]"] == "1700000000")
    #expect(server.taken == ["fm:1700000000:Hoppípolla"])
  }

  @Test("401: one clear message, nothing more sent, listens kept (without the token) for later")
  func unauthorized() throws {
    let refusing = try ScrobbleServer { _, _ in
      .respond(
        status: 401, headers: ["Content-Type": "application/json"],
        body: Data(#"{"code": 401, "error": "Invalid authorization token."}"#.utf8))
    }
    let dir = try TemporaryDirectory()
    let file = dir.file("scrobbles.json")
    let problems = Problems()
    let scrobbler = Self.scrobbler(
      ScrobbleSettings(listenBrainz: .init(token: "wrong-token-77", url: refusing.url)),
      file: file, problems: problems)
    scrobbler.listened(Self.track(1), startedAt: Date(timeIntervalSince1970: 1_700_000_001))
    #expect(eventually { scrobbler.isStopped(.listenBrainz) })
    scrobbler.listened(Self.track(2), startedAt: Date(timeIntervalSince1970: 1_700_000_002))
    scrobbler.nowPlaying(Self.track(3))
    Thread.sleep(forTimeInterval: 0.3)
    #expect(refusing.requests.count == 1)
    #expect(problems.all.count == 1)
    #expect(problems.all.first?.contains("[scrobble.listenbrainz]") == true)
    #expect(problems.all.first?.contains("wrong-token-77") == false)
    #expect(scrobbler.pendingListens.count == 2)
    let kept = try String(contentsOf: file, encoding: .utf8)
    #expect(kept.contains("Song 1") && kept.contains("Song 2"))
    #expect(!kept.contains("wrong-token-77"))

    // The token fixed, the next run sends both, in one request, once.
    let server = try ScrobbleServer()
    let fixed = Self.scrobbler(
      ScrobbleSettings(listenBrainz: .init(token: "good", url: server.url)), file: file)
    #expect(eventually { fixed.pendingListens.isEmpty })
    #expect(server.taken == ["lb:1700000001:Song 1", "lb:1700000002:Song 2"])
    #expect(server.requests.count == 1)
  }

  @Test("Last.fm's invalid session key (error 9) stops Last.fm with a message naming the setting")
  func lastFMInvalidSession() throws {
    let server = try ScrobbleServer { _, _ in
      .respond(
        status: 403, headers: ["Content-Type": "application/json"],
        body: Data(#"{"message":"Invalid session key - Please re-authenticate","error":9}"#.utf8))
    }
    let dir = try TemporaryDirectory()
    let problems = Problems()
    // The handler asks the scrobbler back, as a status line might: that must not deadlock.
    let asked = ScrobblerBox()
    let scrobbler = Scrobbler(
      settings: ScrobbleSettings(
        lastFM: .init(apiKey: "k", secret: "s", sessionKey: "stale-session", url: server.url)),
      queueFile: dir.file("scrobbles.json"), client: Self.client, backoff: Self.quick,
      onProblem: { message in
        let stopped = asked.value?.isStopped(.lastFM) == true
        problems.add(stopped ? message : "not stopped yet: " + message)
      })
    asked.value = scrobbler
    scrobbler.listened(Self.track(1), startedAt: Date(timeIntervalSince1970: 1_700_000_001))
    #expect(eventually { scrobbler.isStopped(.lastFM) && problems.all.count == 1 })
    Thread.sleep(forTimeInterval: 0.1)
    #expect(problems.all.count == 1)
    #expect(problems.all.first?.contains("session_key") == true)
    #expect(problems.all.first?.contains("stale-session") == false)
    #expect(scrobbler.pendingListens.count == 1)
  }

  @Test("429 with Retry-After: the listen waits as asked, then arrives once")
  func rateLimited() throws {
    let server = try ScrobbleServer { request, index in
      index == 0
        ? .respond(
          status: 429, headers: ["Retry-After": "1"], body: Data(#"{"code":429}"#.utf8))
        : ScrobbleServer.ok(request, index)
    }
    let dir = try TemporaryDirectory()
    let scrobbler = Self.scrobbler(
      ScrobbleSettings(listenBrainz: .init(token: "t", url: server.url)),
      file: dir.file("scrobbles.json"))
    scrobbler.listened(Self.track(1), startedAt: Date(timeIntervalSince1970: 1_700_000_001))
    #expect(eventually { scrobbler.pendingListens.isEmpty })
    let times = server.times
    #expect(times.count == 2)
    if times.count == 2 { #expect(times[1].timeIntervalSince(times[0]) >= 0.9) }
    #expect(server.taken == ["lb:1700000001:Song 1"])
  }

  @Test("a server that never answers times out; the listen is tried again and arrives once")
  func neverAnswers() throws {
    let server = try ScrobbleServer { request, index in
      index == 0 ? .hang : ScrobbleServer.ok(request, index)
    }
    let dir = try TemporaryDirectory()
    let scrobbler = Self.scrobbler(
      ScrobbleSettings(listenBrainz: .init(token: "t", url: server.url)),
      file: dir.file("scrobbles.json"))
    scrobbler.listened(Self.track(1), startedAt: Date(timeIntervalSince1970: 1_700_000_001))
    // curl judges a stall by the speed over its last 5 s, and the POST's own bytes count: the
    // first try gives up after about 6 s (1 s of silence once they have left the window).
    #expect(eventually(20) { scrobbler.pendingListens.isEmpty })
    #expect(server.requests.count == 2)
    #expect(server.taken == ["lb:1700000001:Song 1"])
    server.stop()
  }

  @Test("listens made offline arrive, each once and in one batch, when the server comes back")
  func serverComesBack() throws {
    let port = try closedPort()
    let dir = try TemporaryDirectory()
    let file = dir.file("scrobbles.json")
    let url = URL(string: "http://127.0.0.1:\(port)")!
    let problems = Problems()
    let scrobbler = Self.scrobbler(
      ScrobbleSettings(
        listenBrainz: .init(token: "t", url: url),
        lastFM: .init(apiKey: "k", secret: "s", sessionKey: "sk", url: url)),
      file: file, problems: problems)
    for n in 1...3 {
      scrobbler.listened(
        Self.track(n), startedAt: Date(timeIntervalSince1970: Double(1_700_000_000 + n)))
    }
    Thread.sleep(forTimeInterval: 0.6)
    #expect(scrobbler.pendingListens.count == 3)
    #expect(try Data(contentsOf: file).count > 0)

    let server = try ScrobbleServer(port: port)
    #expect(eventually { scrobbler.pendingListens.isEmpty })
    #expect(
      server.taken.sorted() == [
        "fm:1700000001:Song 1", "fm:1700000002:Song 2", "fm:1700000003:Song 3",
        "lb:1700000001:Song 1", "lb:1700000002:Song 2", "lb:1700000003:Song 3",
      ])
    // One request per service: the three went as one batch.
    #expect(server.requests.count == 2)
    #expect(problems.all.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: file.path))
  }

  @Test("listens left at quit are read back and sent at the next start, each once")
  func acrossRestarts() throws {
    let port = try closedPort()
    let dir = try TemporaryDirectory()
    let file = dir.file("scrobbles.json")
    let settings = ScrobbleSettings(
      listenBrainz: .init(token: "t", url: URL(string: "http://127.0.0.1:\(port)")!))
    do {
      let offline = Self.scrobbler(settings, file: file, backoff: .init(first: 30, limit: 30))
      offline.listened(Self.track(1), startedAt: Date(timeIntervalSince1970: 1_700_000_001))
      offline.listened(Self.track(2), startedAt: Date(timeIntervalSince1970: 1_700_000_002))
      #expect(offline.flush(timeout: 1) == false)
      #expect(offline.pendingListens.count == 2)
    }
    let server = try ScrobbleServer(port: port)
    let next = Self.scrobbler(settings, file: file)
    #expect(eventually { next.pendingListens.isEmpty })
    #expect(server.taken == ["lb:1700000001:Song 1", "lb:1700000002:Song 2"])
    #expect(!FileManager.default.fileExists(atPath: file.path))
  }

  @Test("flush at quit skips the back-off wait and sends what waits")
  func flushSendsNow() throws {
    let server = try ScrobbleServer { request, index in
      index == 0 ? .respond(status: 503, body: Data()) : ScrobbleServer.ok(request, index)
    }
    let dir = try TemporaryDirectory()
    let scrobbler = Self.scrobbler(
      ScrobbleSettings(listenBrainz: .init(token: "t", url: server.url)),
      file: dir.file("scrobbles.json"), backoff: .init(first: 60, limit: 60))
    scrobbler.listened(Self.track(1), startedAt: Date(timeIntervalSince1970: 1_700_000_001))
    #expect(eventually { server.requests.count == 1 })
    Thread.sleep(forTimeInterval: 0.1)
    #expect(scrobbler.flush(timeout: 5))
    #expect(server.taken == ["lb:1700000001:Song 1"])
  }

  @Test("a batch refused with 400 is sent one by one: only the bad listen is dropped")
  func badListenInBatch() throws {
    let server = try ScrobbleServer { request, index in
      String(decoding: request.body, as: UTF8.self).contains("Broken")
        ? .respond(status: 400, body: Data(#"{"code":400,"error":"bad"}"#.utf8))
        : ScrobbleServer.ok(request, index)
    }
    let dir = try TemporaryDirectory()
    let file = dir.file("scrobbles.json")
    var queue = ScrobbleQueue(file: file)
    for (n, title) in [(1, "Song 1"), (2, "Broken"), (3, "Song 3")] {
      queue.append(
        PendingListen(
          id: "\(n)",
          track: ScrobbleTrack(artist: "A", title: title, songID: "\(n)"),
          listenedAt: 1_700_000_000 + n, services: [.listenBrainz]))
    }
    try queue.save()
    let scrobbler = Self.scrobbler(
      ScrobbleSettings(listenBrainz: .init(token: "t", url: server.url)), file: file)
    #expect(eventually { scrobbler.pendingListens.isEmpty })
    #expect(server.taken == ["lb:1700000001:Song 1", "lb:1700000003:Song 3"])
    #expect(server.requests.count == 4)
  }

  @Test("without a service nothing is kept or sent")
  func noService() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("scrobbles.json")
    let scrobbler = Self.scrobbler(ScrobbleSettings(), file: file)
    scrobbler.listened(Self.track(1), startedAt: Date())
    #expect(scrobbler.flush(timeout: 1))
    #expect(scrobbler.pendingListens.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: file.path))
    #expect(
      Scrobbler.start(
        settings: ScrobbleSettings(), paths: AppPaths.fromEnvironment(["HOME": dir.url.path]),
        onProblem: { _ in }) == nil)
  }
}
