import Foundation
import RiffleTestSupport
import Testing

// Issue 3's fault list, each case through the real riffle binary in tmux against a loopback HTTP
// server: the plain message on screen, the player still running (a key works, q exits 0), and no
// like lost (likes.json under the test's XDG_DATA_HOME after quitting).

/// A value shared between the test and the server's connection threads.
final class FaultLocked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }

  var current: Value { withLock { $0 } }
}

/// A bounded wait that ran out; the description says what was awaited and what was seen.
struct FaultTimeout: Error, CustomStringConvertible {
  var description: String
}

/// One fault scenario: a loopback server with the standard audio routes plus the case's own, a
/// private home (XDG folders) with likes already stored, and the riffle sessions started on it.
final class FaultHarness {
  typealias Reply = LoopbackHTTPServer.Reply
  typealias Request = LoopbackHTTPServer.Request

  /// A request as the server saw it, with the time it arrived.
  struct Arrival {
    var at: Date
    var request: Request
  }

  let server: LoopbackHTTPServer
  let home: TemporaryDirectory
  private let log: FaultLocked<[Arrival]>
  private var sessions: [TmuxSession] = []

  /// Likes the user had before the test; every case checks they are still there at the end.
  static let seededLikes = ["kept-liked": true, "kept-unliked": false]
  static let helpMarker = "show / hide this help"

  /// `feed` is served at /feed.json; `routes` add to or replace the standard ones; `handler`
  /// answers first when it returns a reply (for replies that change from one request to the next).
  init(
    feed: String? = nil, routes: [String: Reply] = [:],
    handler: (@Sendable (Request) -> Reply?)? = nil
  ) throws {
    var table: [String: Reply] = [
      "/audio/short-1.mp3": .file(try Self.fixture("short-1.mp3"), contentType: "audio/mpeg"),
      "/audio/short-2.mp3": .file(try Self.fixture("short-2.mp3"), contentType: "audio/mpeg"),
    ]
    if let feed { table["/feed.json"] = Self.json(feed) }
    table.merge(routes) { $1 }
    let fixed = table
    let log = FaultLocked<[Arrival]>([])
    self.log = log
    server = try LoopbackHTTPServer { request in
      log.withLock { $0.append(Arrival(at: Date(), request: request)) }
      return handler?(request) ?? fixed[request.path]
        ?? .respond(status: 404, body: Data("not found".utf8))
    }
    home = try TemporaryDirectory("riffle-fault")
    try Self.seedLikes(in: home)
  }

  deinit {
    for session in sessions { session.kill() }
    server.stop()
  }

  // MARK: Starting riffle

  /// Starts riffle on `source` (default: this server's /feed.json) with the null audio driver.
  @discardableResult
  func start(source: String? = nil, _ arguments: [String] = []) throws -> TmuxSession {
    let session = try Self.startRiffle(
      source: source ?? server.url("/feed.json").absoluteString, arguments, home: home)
    sessions.append(session)
    return session
  }

  static func startRiffle(source: String, _ arguments: [String], home: TemporaryDirectory) throws
    -> TmuxSession
  {
    try TmuxSession(
      command: [TestFiles.riffleBinary, source, "--audio", "null"] + arguments,
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 },
      width: 100, height: 24)
  }

  // MARK: Files

  static func fixture(_ name: String) throws -> Data {
    try Data(contentsOf: TestFiles.fixture(name))
  }

  /// Resources/Catalog/audio/riffle-003.mp3: 15.8 s at 128 kbit/s (253,916 bytes).
  static func longSong() throws -> Data {
    try Data(
      contentsOf: TestFiles.catalog.appendingPathComponent("audio/riffle-003.mp3"))
  }

  static func json(_ text: String) -> Reply {
    .respond(status: 200, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
  }

  static func likesFile(in home: TemporaryDirectory) -> URL {
    home.url.appendingPathComponent("data/riffle/likes.json")
  }

  static func seedLikes(in home: TemporaryDirectory) throws {
    let file = likesFile(in: home)
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    let body = try JSONSerialization.data(
      withJSONObject: ["version": 1, "likes": seededLikes], options: [.sortedKeys])
    try body.write(to: file)
  }

  /// The likes stored on disk now.
  static func storedLikes(in home: TemporaryDirectory) throws -> [String: Bool] {
    let data = try Data(contentsOf: likesFile(in: home))
    guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
      let likes = root["likes"] as? [String: Bool]
    else {
      throw FaultTimeout(
        description:
          "likes.json is not {\"likes\": {...}}: \(String(decoding: data, as: UTF8.self))"
      )
    }
    return likes
  }

  func storedLikes() throws -> [String: Bool] {
    try Self.storedLikes(in: home)
  }

  /// The likes the user had before the test are all still on disk.
  static func expectSeededLikesKept(
    in home: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let likes = try storedLikes(in: home)
    for (id, liked) in seededLikes {
      #expect(likes[id] == liked, "like of \(id) lost: \(likes)", sourceLocation: sourceLocation)
    }
  }

  func expectSeededLikesKept(sourceLocation: SourceLocation = #_sourceLocation) throws {
    try Self.expectSeededLikesKept(in: home, sourceLocation: sourceLocation)
  }

  // MARK: Requests

  var arrivals: [Arrival] { log.current }

  func requests(to path: String) -> [Request] {
    server.requests.filter { $0.path == path }
  }

  /// Waits until the requests so far satisfy `predicate`.
  @discardableResult
  func waitForRequests(
    _ what: String, timeout: TimeInterval = 5, _ predicate: ([Request]) -> Bool
  ) throws -> [Request] {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let seen = server.requests
      if predicate(seen) { return seen }
      if Date() >= deadline {
        throw FaultTimeout(
          description: "timed out after \(timeout)s waiting for \(what); requests were:\n"
            + Self.describe(seen))
      }
      usleep(20_000)
    }
  }

  static func describe(_ requests: [Request]) -> String {
    requests.map { request in
      "  \(request.method) \(request.target)"
        + (request.headers["range"].map { " (range: \($0))" } ?? "")
    }.joined(separator: "\n")
  }

  // MARK: The screen

  /// Shows help with `?`, hides it again, then quits with `q`: exit status 0.
  static func expectKeepsRunning(
    _ tmux: TmuxSession, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    #expect(!tmux.hasExited, "riffle ended by itself", sourceLocation: sourceLocation)
    tmux.sendKeys("?")
    try tmux.waitFor(helpMarker, timeout: 5)
    tmux.sendKeys("?")
    try waitUntil(tmux, "the help to close", timeout: 5) { !$0.contains(helpMarker) }
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit(timeout: 5) == 0, sourceLocation: sourceLocation)
  }

  /// Like `TmuxSession.waitUntil`, with `what` in the failure.
  @discardableResult
  static func waitUntil(
    _ tmux: TmuxSession, _ what: String, timeout: TimeInterval = 5,
    _ predicate: (String) -> Bool
  ) throws -> String {
    do {
      return try tmux.waitUntil(timeout: timeout, predicate)
    } catch let error as TmuxError {
      throw TmuxError(
        "timed out after \(timeout)s waiting for \(what)", screen: error.screen)
    }
  }

  /// Waits for `text` without ending the test: on timeout a failure with the screen is recorded
  /// and false comes back, so the case goes on to check the rest.
  @discardableResult
  static func expectScreen(
    _ tmux: TmuxSession, contains text: String, timeout: TimeInterval = 5, _ why: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> Bool {
    do {
      try tmux.waitFor(text, timeout: timeout)
      return true
    } catch {
      Issue.record("\(why.isEmpty ? "" : why + "\n")\(error)", sourceLocation: sourceLocation)
      return false
    }
  }

  /// The elapsed time on the progress line ("0:07 ━━━●──── 0:15"), in seconds.
  static func clock(_ screen: String) -> Int? {
    for line in screen.split(separator: "\n") where line.contains("●") {
      guard let token = line.split(separator: " ").first else { continue }
      let parts = token.split(separator: ":")
      guard parts.count == 2, let minutes = Int(parts[0]), let seconds = Int(parts[1]) else {
        continue
      }
      return minutes * 60 + seconds
    }
    return nil
  }

  /// Waits until the clock shows at least `seconds`; returns the screen.
  @discardableResult
  static func waitForClock(
    _ tmux: TmuxSession, atLeast seconds: Int, timeout: TimeInterval = 5
  ) throws -> String {
    try waitUntil(tmux, "the clock to reach \(seconds) s", timeout: timeout) {
      (clock($0) ?? -1) >= seconds
    }
  }

  // MARK: Feeds

  static func song(_ id: String, _ title: String, likes: Int = 0, audio: String) -> String {
    PlayerHarness.song(id, title, likes: likes, audio: audio)
  }

  static func feed(_ songs: String...) -> String {
    "{\"songs\":[\(songs.joined(separator: ","))]}"
  }
}

@Suite("Faults end to end (tmux, loopback HTTP)")
struct FaultEndToEndTests {
  typealias Reply = LoopbackHTTPServer.Reply
  typealias Request = LoopbackHTTPServer.Request

  // MARK: The feed

  @Test("feed 404: 'Not found (404)' on screen, not retried, player keeps running")
  func feedNotFound() throws {
    let harness = try FaultHarness(routes: [
      "/feed.json": .respond(status: 404, body: Data("no such feed".utf8))
    ])
    let tmux = try harness.start()
    try tmux.waitFor("Not found (404) at 127.0.0.1")
    try FaultHarness.expectKeepsRunning(tmux)
    let asked = harness.requests(to: "/feed.json")
    #expect(asked.count == 1, "a 404 is final, not retried: \(asked.count) requests")
    let agent = asked.first?.headers["user-agent"] ?? ""
    #expect(agent.hasPrefix("Riffle/"), "User-Agent was \(agent.debugDescription)")
    try harness.expectSeededLikesKept()
  }

  @Test("feed 500: 'Server error 500', retried with backoff, player keeps running")
  func feedServerError() throws {
    let harness = try FaultHarness(routes: [
      "/feed.json": .respond(status: 500, body: Data("boom".utf8))
    ])
    let tmux = try harness.start()
    try tmux.waitFor("Server error 500 from 127.0.0.1")
    FaultHarness.expectScreen(
      tmux, contains: "retrying in", timeout: 3,
      "the status line should say when the feed is tried again")
    // The first retry comes 1 s after the first failure.
    try harness.waitForRequests("a retry of the feed", timeout: 4) {
      $0.filter { $0.path == "/feed.json" }.count >= 2
    }
    try FaultHarness.expectKeepsRunning(tmux)
    try harness.expectSeededLikesKept()
  }

  @Test("429 with Retry-After: 2: the message says so, the retry comes 2 s later, songs appear")
  func tooManyRequests() throws {
    let feed = PlayerHarness.threeSongs
    let calls = FaultLocked(0)
    let harness = try FaultHarness { request in
      guard request.path == "/feed.json" else { return nil }
      let call = calls.withLock {
        $0 += 1
        return $0
      }
      if call == 1 {
        return .respond(
          status: 429, headers: ["Retry-After": "2"], body: Data("slow down".utf8))
      }
      return FaultHarness.json(feed)
    }
    let tmux = try harness.start()
    try tmux.waitFor("Too many requests (429): 127.0.0.1 asks us to slow down")
    FaultHarness.expectScreen(
      tmux, contains: "retrying in 2 s", timeout: 2,
      "the status line should say the server asked for 2 s")
    try tmux.waitFor("First Light", timeout: 6)
    let times = harness.arrivals.filter { $0.request.path == "/feed.json" }.map(\.at)
    try #require(times.count == 2, "one 429, then one retry: \(times)")
    let gap = times[1].timeIntervalSince(times[0])
    #expect(gap >= 1.9, "retried after \(gap) s, before the 2 s the server asked for")
    #expect(gap <= 3.0, "retried after \(gap) s, long after the 2 s the server asked for")
    try FaultHarness.expectKeepsRunning(tmux)
    try harness.expectSeededLikesKept()
  }

  @Test("a feed body cut off mid-way: 'was cut off', retried, then the songs; a like is kept")
  func feedCutOff() throws {
    let feed = Data(PlayerHarness.threeSongs.utf8)
    let calls = FaultLocked(0)
    let harness = try FaultHarness { request in
      guard request.path == "/feed.json" else { return nil }
      let call = calls.withLock {
        $0 += 1
        return $0
      }
      if call == 1 {
        return .cutOff(feed, contentType: "application/json", after: feed.count / 2)
      }
      return .respond(status: 200, headers: ["Content-Type": "application/json"], body: feed)
    }
    let tmux = try harness.start()
    try tmux.waitFor("Connection to 127.0.0.1 was cut off")
    try tmux.waitFor("First Light", timeout: 6)
    try tmux.waitFor("♡ 41")
    tmux.sendKeys("l")
    try tmux.waitFor("♥ 42 liked")
    try FaultHarness.expectKeepsRunning(tmux)
    let likes = try harness.storedLikes()
    #expect(likes["s1"] == true, "the like made after the retry is stored: \(likes)")
    try harness.expectSeededLikesKept()
  }

  @Test("a feed server that accepts and never answers: keys work while the feed hangs")
  func feedHangs() throws {
    let harness = try FaultHarness(routes: ["/feed.json": .hang])
    let tmux = try harness.start()
    try tmux.waitFor("Loading songs…")
    try harness.waitForRequests("the feed request") { !$0.isEmpty }
    let began = Date()
    tmux.sendKeys("?")
    try tmux.waitFor(FaultHarness.helpMarker, timeout: 3)
    let answered = Date().timeIntervalSince(began)
    #expect(answered < 2, "the help took \(answered) s to show while the feed hangs")
    tmux.sendKeys("?")
    try FaultHarness.waitUntil(tmux, "the help to close") {
      !$0.contains(FaultHarness.helpMarker) && $0.contains("Loading songs…")
    }
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit(timeout: 5) == 0, "q quits while the feed request hangs")
    try harness.expectSeededLikesKept()
  }

  @Test("a 60 MB feed body is refused with 'Response too large'")
  func feedTooLarge() throws {
    let huge = Data(repeating: UInt8(ascii: " "), count: 60_000_000)
    let harness = try FaultHarness(routes: [
      "/feed.json": .respond(status: 200, headers: ["Content-Type": "application/json"], body: huge)
    ])
    let tmux = try harness.start()
    try tmux.waitFor("Response too large", timeout: 8)
    try FaultHarness.expectKeepsRunning(tmux)
    #expect(harness.requests(to: "/feed.json").count == 1, "a body too large is not retried")
    try harness.expectSeededLikesKept()
  }

  @Test("invalid JSON: 'The feed is not valid JSON'")
  func feedInvalidJSON() throws {
    let harness = try FaultHarness(feed: #"{"songs": [{"id": "s1", "title": "Half"#)
    let tmux = try harness.start()
    try tmux.waitFor("The feed is not valid JSON")
    try FaultHarness.expectKeepsRunning(tmux)
    try harness.expectSeededLikesKept()
  }

  @Test("wrong types: unusable entries are skipped with a note, the rest play")
  func feedWrongTypes() throws {
    let feed = """
      {"songs":[\
      {"id":101,"title":["not","text"],"display_name":{"x":1},"upvote_count":"lots",\
      "is_liked":"perhaps","duration":"long","audio_url":"/audio/short-1.mp3"},\
      {"id":"w2","title":"Audio Is An Object","audio_url":{"href":"/audio/short-1.mp3"}},\
      {"id":true,"title":"Id Is A Bool","audio_url":"/audio/short-1.mp3"},\
      "just a string",\
      {"id":"w5","title":"Still Here","upvote_count":"12","is_liked":1,\
      "audio_url":"/audio/short-2.mp3"}]}
      """
    let harness = try FaultHarness(feed: feed)
    let tmux = try harness.start()
    let first = try tmux.waitFor("1 / 2")
    #expect(first.contains("Untitled"), "a title that is a list shows as Untitled")
    #expect(first.contains("Unknown artist"))
    #expect(first.contains("skipped 3 songs"), "screen:\n\(first)")
    try FaultHarness.waitForClock(tmux, atLeast: 1)
    tmux.sendKeys("Right")
    let second = try tmux.waitFor("Still Here")
    #expect(second.contains("♥ 12 liked"), "\"12\" and 1 are read as a count and a like")
    try FaultHarness.waitForClock(tmux, atLeast: 1)
    try FaultHarness.expectKeepsRunning(tmux)
    try harness.expectSeededLikesKept()
  }

  @Test("a redirect loop: 'Too many redirects', at most 5 followed")
  func feedRedirectLoop() throws {
    let harness = try FaultHarness(routes: [
      "/feed.json": .redirect(location: "/loop-a"),
      "/loop-a": .redirect(location: "/loop-b"),
      "/loop-b": .redirect(status: 301, location: "/loop-a"),
    ])
    let tmux = try harness.start()
    try tmux.waitFor("Too many redirects from 127.0.0.1")
    try FaultHarness.expectKeepsRunning(tmux)
    let count = harness.server.requests.count
    #expect(count <= 6, "the first request and at most 5 redirects, no retry: \(count)")
    try harness.expectSeededLikesKept()
  }

  @Test("a refused port that later answers: 'No connection … retrying in', then the songs")
  func refusedPortLaterAnswers() throws {
    // A port with nothing listening: bind a server, note its port, stop it.
    let probe = try LoopbackHTTPServer { _ in .hang }
    let port = probe.port
    probe.stop()

    let home = try TemporaryDirectory("riffle-fault")
    try FaultHarness.seedLikes(in: home)
    let tmux = try FaultHarness.startRiffle(
      source: "http://127.0.0.1:\(port)/feed.json", [], home: home)
    defer { tmux.kill() }
    try tmux.waitFor("No connection to 127.0.0.1")
    FaultHarness.expectScreen(
      tmux, contains: "No connection to 127.0.0.1: retrying in", timeout: 3,
      "the status line should say the feed is tried again")

    let feed = PlayerHarness.threeSongs
    let short1 = try FaultHarness.fixture("short-1.mp3")
    let short2 = try FaultHarness.fixture("short-2.mp3")
    let server = try LoopbackHTTPServer(
      port: port,
      handler: LoopbackHTTPServer.routes([
        "/feed.json": FaultHarness.json(feed),
        "/audio/short-1.mp3": .file(short1, contentType: "audio/mpeg"),
        "/audio/short-2.mp3": .file(short2, contentType: "audio/mpeg"),
      ]))
    defer { server.stop() }
    // No key is pressed: the backoff (1, 2, 4 s) brings the songs.
    try tmux.waitFor("First Light", timeout: 10)
    try FaultHarness.expectKeepsRunning(tmux)
    try FaultHarness.expectSeededLikesKept(in: home)
  }

  // MARK: Audio

  @Test("a connection reset during audio: the song says why, Right plays the next one")
  func audioConnectionReset() throws {
    let short2 = try FaultHarness.fixture("short-2.mp3")
    let feed = FaultHarness.feed(
      FaultHarness.song("r", "Reset Song", audio: "/audio/reset.mp3"),
      FaultHarness.song("s1", "First Light", likes: 41, audio: "/audio/short-1.mp3"))
    let harness = try FaultHarness(
      feed: feed,
      routes: [
        "/audio/reset.mp3": .reset(afterBytes: 12_000, of: short2, contentType: "audio/mpeg")
      ])
    let tmux = try harness.start()
    let failed = try tmux.waitFor("Cannot play “Reset Song”", timeout: 6)
    #expect(failed.contains("Connection to 127.0.0.1 was cut off"), "screen:\n\(failed)")
    // Space tries the failed song again (and it fails the same way).
    tmux.sendKeys("Space")
    try harness.waitForRequests("the song asked for again after Space") {
      $0.filter { $0.path == "/audio/reset.mp3" }.count >= 2
    }
    try tmux.waitFor("Cannot play “Reset Song”", timeout: 6)
    tmux.sendKeys("Right")
    try tmux.waitForAll("First Light", "2 / 2")
    let ended = try tmux.waitFor("End of the feed", timeout: 6)
    #expect(!ended.contains("Cannot play"), "the error belongs to the other song")
    try FaultHarness.expectKeepsRunning(tmux)
    try harness.expectSeededLikesKept()
  }

  @Test("an audio request that never answers: the page shows Loading, Right still pages")
  func audioHangs() throws {
    let feed = FaultHarness.feed(
      FaultHarness.song("h", "Hanging Song", audio: "/audio/hang.mp3"),
      FaultHarness.song("s2", "Second Wind", likes: 7, audio: "/audio/short-2.mp3"))
    let harness = try FaultHarness(feed: feed, routes: ["/audio/hang.mp3": .hang])
    let tmux = try harness.start()
    try tmux.waitFor("Hanging Song")
    try harness.waitForRequests("the audio request") {
      $0.contains { $0.path == "/audio/hang.mp3" }
    }
    Thread.sleep(forTimeInterval: 1)
    let waiting = tmux.capture()
    #expect(
      waiting.contains("Loading…") || waiting.contains("Buffering…"),
      "a hanging song shows that it waits; screen:\n\(waiting)")
    tmux.sendKeys("Right")
    try tmux.waitForAll("Second Wind", "2 / 2", timeout: 3)
    try FaultHarness.waitForClock(tmux, atLeast: 1)
    try FaultHarness.expectKeepsRunning(tmux)
    try harness.expectSeededLikesKept()
  }

  @Test("a slow audio stream (1.5x its bitrate): playback starts long before the download ends")
  func slowAudioStream() throws {
    let long = try FaultHarness.longSong()
    let rate = 24_000  // bytes/s: 1.5x the 16 kB/s of a 128 kbit/s MP3
    let wholeDownload = Double(long.count) / Double(rate)  // about 10.6 s
    let feed = FaultHarness.feed(
      FaultHarness.song("slow", "Slow Stream", audio: "/audio/slow.mp3"))
    let harness = try FaultHarness(
      feed: feed,
      routes: [
        "/audio/slow.mp3": .throttled(long, contentType: "audio/mpeg", bytesPerSecond: rate)
      ])
    let tmux = try harness.start()
    try tmux.waitFor("Slow Stream")
    let screen = try FaultHarness.waitForClock(tmux, atLeast: 1, timeout: 8)
    let asked = try #require(
      harness.arrivals.first { $0.request.path == "/audio/slow.mp3" }?.at)
    let playingAfter = Date().timeIntervalSince(asked)
    #expect(screen.contains("❚❚ Pause"))
    #expect(
      playingAfter < wholeDownload / 2,
      "the clock passed 0:00 \(playingAfter) s after the audio request; the whole body takes \(wholeDownload) s to send"
    )
    try FaultHarness.expectKeepsRunning(tmux)
    try harness.expectSeededLikesKept()
  }

  @Test("a corrupt MP3: a message, no crash, the next song plays after Right")
  func corruptAudio() throws {
    let corrupt = try FaultHarness.fixture("corrupt.mp3")
    let feed = FaultHarness.feed(
      FaultHarness.song("c", "Broken Record", audio: "/audio/corrupt.mp3"),
      FaultHarness.song("s1", "First Light", likes: 41, audio: "/audio/short-1.mp3"))
    let harness = try FaultHarness(
      feed: feed, routes: ["/audio/corrupt.mp3": .file(corrupt, contentType: "audio/mpeg")])
    let tmux = try harness.start()
    let failed = try tmux.waitFor("Cannot play “Broken Record”")
    #expect(failed.contains("not an audio format Riffle can play"), "screen:\n\(failed)")
    Thread.sleep(forTimeInterval: 0.3)
    #expect(!tmux.hasExited, "riffle must not crash on a corrupt song")
    tmux.sendKeys("Right")
    try tmux.waitFor("First Light")
    let ended = try tmux.waitFor("End of the feed", timeout: 6)
    #expect(!ended.contains("not an audio format"), "the error belongs to the other song")
    try FaultHarness.expectKeepsRunning(tmux)
    try harness.expectSeededLikesKept()
  }

  // MARK: Likes sent to a server

  /// A likes endpoint on the harness server: records each song's state, or fails with `status`.
  static func likesServer(failWith status: Int? = nil, state: FaultLocked<[String: Bool]>)
    -> @Sendable (Request) -> Reply?
  {
    return { request in
      let parts = request.path.split(separator: "/")
      guard parts.count == 4, parts[0] == "api", parts[1] == "songs", parts[3] == "like" else {
        return nil
      }
      if let status { return .respond(status: status, body: Data("likes are down".utf8)) }
      let id = String(parts[2])
      switch request.method {
      case "POST": state.withLock { $0[id] = true }
      case "DELETE": state.withLock { $0[id] = false }
      default: return .respond(status: 405, body: Data())
      }
      return FaultHarness.json(#"{"ok":true}"#)
    }
  }

  static func likeRequests(_ harness: FaultHarness) -> [Request] {
    harness.server.requests.filter { $0.path.hasPrefix("/api/songs/") }
  }

  static func endpoint(_ harness: FaultHarness) -> [String] {
    ["--likes-endpoint", "http://127.0.0.1:\(harness.server.port)/api/songs/{id}/like"]
  }

  @Test("--likes-endpoint: l sends a POST for the song, l again a DELETE")
  func likesEndpointPostAndDelete() throws {
    let state = FaultLocked<[String: Bool]>([:])
    let harness = try FaultHarness(
      feed: PlayerHarness.threeSongs, handler: Self.likesServer(state: state))
    let tmux = try harness.start(Self.endpoint(harness))
    try tmux.waitFor("♡ 41")
    tmux.sendKeys("l")
    try tmux.waitFor("♥ 42 liked")
    try harness.waitForRequests("POST /api/songs/s1/like") {
      $0.contains { $0.method == "POST" && $0.path == "/api/songs/s1/like" }
    }
    tmux.sendKeys("l")
    try tmux.waitFor("♡ 41")
    try harness.waitForRequests("DELETE /api/songs/s1/like") {
      $0.contains { $0.method == "DELETE" && $0.path == "/api/songs/s1/like" }
    }
    let sent = Self.likeRequests(harness).map { "\($0.method) \($0.path)" }
    #expect(sent == ["POST /api/songs/s1/like", "DELETE /api/songs/s1/like"])
    #expect(state.current["s1"] == false)
    try FaultHarness.expectKeepsRunning(tmux)
    let likes = try harness.storedLikes()
    #expect(likes["s1"] == false, "the unlike is stored: \(likes)")
    try harness.expectSeededLikesKept()
  }

  @Test("a likes endpoint answering 500 rolls the like back: count, message, likes.json")
  func likesEndpointRefuses() throws {
    let state = FaultLocked<[String: Bool]>([:])
    let harness = try FaultHarness(
      feed: PlayerHarness.threeSongs, handler: Self.likesServer(failWith: 500, state: state))
    let tmux = try harness.start(Self.endpoint(harness))
    try tmux.waitFor("♡ 41")
    tmux.sendKeys("l")
    try tmux.waitFor("♥ 42 liked")
    let rolledBack = try tmux.waitFor("Could not like “First Light”", timeout: 5)
    #expect(rolledBack.contains("Server error 500 from 127.0.0.1"), "screen:\n\(rolledBack)")
    let settled = try FaultHarness.waitUntil(tmux, "the count to go back to 41") {
      $0.contains("♡ 41") && !$0.contains("♥")
    }
    #expect(!settled.contains("42"))
    #expect(Self.likeRequests(harness).count == 1, "one refused POST, no retry storm")
    try FaultHarness.expectKeepsRunning(tmux)
    let likes = try harness.storedLikes()
    #expect(likes["s1"] != true, "the refused like is not kept: \(likes)")
    try harness.expectSeededLikesKept()
  }

  @Test("rapid toggling (7 x l) sends at most 2 requests; the server ends as the screen shows")
  func likesRapidToggling() throws {
    let state = FaultLocked<[String: Bool]>([:])
    let harness = try FaultHarness(
      feed: PlayerHarness.threeSongs, handler: Self.likesServer(state: state))
    let tmux = try harness.start(Self.endpoint(harness))
    try tmux.waitFor("♡ 41")
    tmux.sendKeys("l", "l", "l", "l", "l", "l", "l")
    try tmux.waitFor("♥ 42 liked")
    try harness.waitForRequests("the like to reach the server") { _ in
      state.current["s1"] == true
    }
    // Anything still to come would leave within the debounce and one round trip.
    Thread.sleep(forTimeInterval: 1)
    let sent = Self.likeRequests(harness)
    #expect(sent.count <= 2, "7 toggles sent:\n\(FaultHarness.describe(sent))")
    let screen = tmux.capture()
    let screenLiked = screen.contains("♥ 42 liked")
    #expect(screenLiked, "screen:\n\(screen)")
    #expect(state.current["s1"] == screenLiked, "server \(state.current), screen liked: true")
    try FaultHarness.expectKeepsRunning(tmux)
    let likes = try harness.storedLikes()
    #expect(likes["s1"] == true, "the final state is stored: \(likes)")
    try harness.expectSeededLikesKept()
  }

  // MARK: Paging

  /// A feed of 3 pages of 4 songs each (page/per_page/total_pages envelope); page 2 answers
  /// 500 the first `failPage2` times.
  static func pagingHandler(failPage2: Int = 0) -> @Sendable (Request) -> Reply? {
    let failures = FaultLocked(failPage2)
    return { request in
      guard request.path == "/feed.json" else { return nil }
      let query = URLComponents(string: "http://host" + request.target)?.queryItems ?? []
      let page = query.first { $0.name == "page" }?.value.flatMap { Int($0) } ?? 1
      guard (1...3).contains(page) else {
        return .respond(status: 404, body: Data("no page \(page)".utf8))
      }
      if page == 2 {
        let fail = failures.withLock { left in
          defer { left -= 1 }
          return left > 0
        }
        if fail { return .respond(status: 500, body: Data("page 2 is down".utf8)) }
      }
      let songs = (1...4).map { index in
        FaultHarness.song(
          "p\(page)-\(index)", "Page \(page) Song \(index)", audio: "/audio/long.mp3")
      }
      return FaultHarness.json(
        #"{"page":\#(page),"per_page":4,"total_pages":3,"total":12,"songs":["#
          + songs.joined(separator: ",") + "]}")
    }
  }

  static func pageRequests(_ harness: FaultHarness, _ page: Int) -> [Request] {
    harness.requests(to: "/feed.json").filter { $0.target.contains("page=\(page)") }
  }

  @Test("a paging feed: page=2&page_size=4 near the end, then page=3, never page=4")
  func pagingFeed() throws {
    let long = try FaultHarness.longSong()
    let harness = try FaultHarness(
      routes: ["/audio/long.mp3": .file(long, contentType: "audio/mpeg")],
      handler: Self.pagingHandler())
    let tmux = try harness.start()
    try tmux.waitFor("Page 1 Song 1")
    // On song 1 of 4, three songs remain: within 3 of the end, so page 2 is asked for now.
    try harness.waitForRequests("page 2") {
      $0.contains { $0.target.contains("page=2&page_size=4") }
    }
    let appended = try tmux.waitFor("1 / 8")
    #expect(appended.contains("Page 1 Song 1"), "appending does not move the current page")
    tmux.sendKeys("Right", "Right", "Right")
    try tmux.waitFor("4 / 8")
    Thread.sleep(forTimeInterval: 0.3)
    #expect(Self.pageRequests(harness, 3).isEmpty, "on 4 of 8, four songs remain: no page 3 yet")
    tmux.sendKeys("Right")
    try tmux.waitFor("5 / ")
    try harness.waitForRequests("page 3") {
      $0.contains { $0.target.contains("page=3&page_size=4") }
    }
    try tmux.waitFor("5 / 12")
    for _ in 0..<7 { tmux.sendKeys("Right") }
    try tmux.waitFor("12 / 12")
    tmux.sendKeys("Right", "Right")
    Thread.sleep(forTimeInterval: 0.5)
    let pages = harness.requests(to: "/feed.json").map(\.target)
    #expect(Self.pageRequests(harness, 4).isEmpty, "total_pages is 3: \(pages)")
    #expect(pages.count == 3, "one request per page: \(pages)")
    try FaultHarness.expectKeepsRunning(tmux)
    try harness.expectSeededLikesKept()
  }

  @Test("a failed page load shows a message and is retried on the next Right")
  func pagingFailedPage() throws {
    let long = try FaultHarness.longSong()
    let harness = try FaultHarness(
      routes: ["/audio/long.mp3": .file(long, contentType: "audio/mpeg")],
      handler: Self.pagingHandler(failPage2: 1))
    let tmux = try harness.start()
    try tmux.waitFor("Page 1 Song 1")
    let failed = try tmux.waitFor("Server error 500 from 127.0.0.1")
    #expect(failed.contains("1 / 4"), "the songs already loaded stay")
    #expect(Self.pageRequests(harness, 2).count == 1)
    tmux.sendKeys("Right")
    let retried = try tmux.waitFor("2 / 8")
    #expect(retried.contains("Page 1 Song 2"))
    #expect(Self.pageRequests(harness, 2).count == 2, "page 2 asked for again on Right")
    try FaultHarness.expectKeepsRunning(tmux)
    try harness.expectSeededLikesKept()
  }

  // MARK: Seek

  @Test("] on a song served with Range support moves the clock forward by about 10 s")
  func seekForward() throws {
    let long = try FaultHarness.longSong()
    let feed = FaultHarness.feed(
      FaultHarness.song("long", "Long Song", audio: "/audio/long.mp3"))
    let harness = try FaultHarness(
      feed: feed, routes: ["/audio/long.mp3": .file(long, contentType: "audio/mpeg")])
    let tmux = try harness.start()
    let before = try FaultHarness.waitForClock(tmux, atLeast: 1)
    let from = try #require(FaultHarness.clock(before))
    tmux.sendKeys("]")
    let after = try FaultHarness.waitForClock(tmux, atLeast: from + 9, timeout: 3)
    let to = try #require(FaultHarness.clock(after))
    #expect((from + 9...from + 12).contains(to), "] moved the clock from \(from) s to \(to) s")
    try FaultHarness.expectKeepsRunning(tmux)
    try harness.expectSeededLikesKept()
  }

  @Test("] beyond what has downloaded (throttled server) makes a Range request and plays on")
  func seekBeyondDownload() throws {
    let long = try FaultHarness.longSong()
    let feed = FaultHarness.feed(
      FaultHarness.song("long", "Long Song", audio: "/audio/long.mp3"))
    let harness = try FaultHarness(
      feed: feed,
      routes: [
        "/audio/long.mp3": .throttled(long, contentType: "audio/mpeg", bytesPerSecond: 24_000)
      ])
    let tmux = try harness.start()
    // At about 1.5 s some 36 kB of 254 kB have arrived; 10 s further on is near byte 180,000,
    // which the first download reaches only about 7.5 s after it began.
    let before = try FaultHarness.waitForClock(tmux, atLeast: 1)
    let from = try #require(FaultHarness.clock(before))
    tmux.sendKeys("]")
    try FaultHarness.waitForClock(tmux, atLeast: from + 9, timeout: 3)
    // Played from a Range download, the song goes on at once; waiting for the first download
    // to get there would hold the clock still for about 5 s.
    do {
      try FaultHarness.waitForClock(tmux, atLeast: from + 11, timeout: 4)
    } catch {
      Issue.record("after ] the song does not play on from the new point\n\(error)")
    }
    let audio = harness.requests(to: "/audio/long.mp3")
    let ranges = audio.compactMap { $0.headers["range"] }
    let seen = FaultHarness.describe(harness.server.requests)
    #expect(
      ranges.contains { $0.hasPrefix("bytes=") && $0 != "bytes=0-" },
      "no Range request for the part not yet downloaded; requests:\n\(seen)")
    let screen = tmux.capture()
    #expect(!screen.contains("Cannot play"), "screen:\n\(screen)")
    try FaultHarness.expectKeepsRunning(tmux)
    try harness.expectSeededLikesKept()
  }

  // MARK: The audio cache

  @Test("a song played once from the server plays again from the cache with the server gone")
  func audioCache() throws {
    let harness = try FaultHarness(
      feed: FaultHarness.feed(
        FaultHarness.song("c1", "Cached Song", audio: "/audio/short-1.mp3")))
    let audioURL = harness.server.url("/audio/short-1.mp3").absoluteString
    let first = try harness.start()
    try first.waitFor("Cached Song")
    try first.waitFor("End of the feed", timeout: 8)
    first.sendKeys("q")
    #expect(try first.waitForExit(timeout: 5) == 0)
    first.kill()

    let cache = harness.home.url.appendingPathComponent("cache/riffle/audio")
    let deadline = Date().addingTimeInterval(3)
    func cached() -> [String] {
      (try? FileManager.default.contentsOfDirectory(atPath: cache.path))?.filter {
        !$0.hasPrefix(".")
      } ?? []
    }
    while cached().isEmpty && Date() < deadline { usleep(50_000) }
    #expect(!cached().isEmpty, "no audio in \(cache.path)")
    // The network is gone: the song's URL now refuses connections.
    harness.server.stop()

    let feedFile = harness.home.file("offline-feed.json")
    try Data(
      FaultHarness.feed(FaultHarness.song("c1", "Cached Song", audio: audioURL)).utf8
    ).write(to: feedFile)
    let second = try harness.start(source: feedFile.path)
    try second.waitFor("Cached Song")
    let ended = try second.waitFor("End of the feed", timeout: 8)
    #expect(!ended.contains("Cannot play"), "screen:\n\(ended)")
    try FaultHarness.expectKeepsRunning(second)
    try harness.expectSeededLikesKept()
  }
}
