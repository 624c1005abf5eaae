import Foundation
import RiffleTestSupport
import Testing

/// Search and an artist's top songs as a user has them: the real binary in tmux, the iTunes
/// Search API answered in its own format by a loopback server (`--itunes-url`).
final class SearchHarness: @unchecked Sendable {
  let server: LoopbackHTTPServer
  let home: TemporaryDirectory
  private let lock = NSLock()
  private var _itunes: ITunesServer
  /// Answers that come before iTunes' own (faults), by request number from 0.
  private var _fault: (@Sendable (Int, LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply?)?
  private var count = 0
  var tmux: TmuxSession?

  /// `preview`: the bytes every preview URL answers with (an MP3 fixture unless given).
  init(_ itunes: ITunesServer, home: TemporaryDirectory? = nil, preview: Data? = nil) throws {
    _itunes = itunes
    self.home = try home ?? TemporaryDirectory("riffle-search")
    let preview = try preview ?? Data(contentsOf: TestFiles.fixture("short-1.mp3"))
    let box = Box()
    server = try LoopbackHTTPServer { request in
      guard let harness = box.harness else { return .respond(status: 503, body: Data()) }
      return harness.answer(request, preview: preview)
    }
    box.harness = self
  }

  private final class Box: @unchecked Sendable {
    weak var harness: SearchHarness?
  }

  var fault: (@Sendable (Int, LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply?)? {
    get { lock.withLock { _fault } }
    set { lock.withLock { _fault = newValue } }
  }

  private func answer(_ request: LoopbackHTTPServer.Request, preview: Data)
    -> LoopbackHTTPServer.Reply
  {
    let (fault, itunes, number) = lock.withLock {
      count += 1
      return (_fault, _itunes, count - 1)
    }
    if request.path.hasPrefix("/audio/") { return .file(preview, contentType: "audio/mp4") }
    if let reply = fault?(number, request) { return reply }
    return itunes.reply(to: request, base: server.baseURL) ?? .respond(status: 404, body: Data())
  }

  /// The offsets the searches for `term` asked for, in order.
  func searchOffsets(_ term: String) -> [String] {
    server.requests.map { ITunesServer.query($0.target) }.filter { $0["term"] == term }.map {
      $0["offset"] ?? "-"
    }
  }

  /// Runs `riffle ARGS --itunes-url SERVER --lyrics-url SERVER/lrclib --audio AUDIO`, with
  /// `environment` added to the player's.
  @discardableResult
  func start(
    _ arguments: [String], itunesURL: String? = nil, audio: String = "null",
    environment: [String: String] = [:]
  ) throws -> TmuxSession {
    let session = try TmuxSession(
      command: [TestFiles.riffleBinary] + arguments + [
        "--itunes-url", itunesURL ?? server.baseURL.absoluteString, "--lyrics-url",
        server.url("/lrclib").absoluteString, "--audio", audio,
      ],
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 }
        .merging(environment) { $1 },
      width: 100, height: 30)
    tmux = session
    return session
  }

  deinit {
    tmux?.kill()
    server.stop()
  }

  static func tracks(_ count: Int, term: String) -> [ITunesServer.Track] {
    (1...count).map {
      ITunesServer.Track(
        trackId: $0, artistName: "Band \($0)", trackName: "\(term) \($0)",
        collectionName: "Album \($0)", previewPath: "/audio/\($0)")
    }
  }
}

@Suite("Search end to end (tmux, iTunes format on loopback)")
struct SearchEndToEndTests {
  @Test(
    "/ opens the prompt; typing, Enter; results become pages and keep loading to the third batch")
  func searchAndPageOn() throws {
    let harness = try SearchHarness(
      ITunesServer(songsByTerm: ["neon": SearchHarness.tracks(60, term: "Neon")]))
    let tmux = try harness.start(["search", "first"])
    try tmux.waitFor("No songs found for “first”")
    tmux.sendKeys("/")
    try tmux.waitFor("Search iTunes")
    tmux.sendLiteral("neonx")
    tmux.sendKeys("BSpace")
    try tmux.waitFor("/ neon")
    tmux.sendKeys("Enter")
    let first = try tmux.waitForAll("Neon 1", "1 / 25", "Band 1 · Album 1")
    #expect(!first.contains("Search iTunes"), "the prompt closed")
    #expect(harness.searchOffsets("neon") == ["0"], "only the first batch until the user pages on")

    // Page on: within 5 pages of the end the next 25 come, appended without a jump.
    for _ in 0..<19 { tmux.sendKeys("Right") }
    try tmux.waitForAll("Neon 20", "20 / 50", timeout: 20)
    #expect(harness.searchOffsets("neon") == ["0", "25"])
    for _ in 0..<25 { tmux.sendKeys("Right") }
    try tmux.waitForAll("Neon 45", "45 / 60", timeout: 20)
    #expect(harness.searchOffsets("neon") == ["0", "25", "50"])
    // The third batch was short: the end, and no further request however far one goes.
    for _ in 0..<20 { tmux.sendKeys("Right") }
    try tmux.waitForAll("Neon 60", "60 / 60", timeout: 20)
    #expect(harness.searchOffsets("neon") == ["0", "25", "50"])
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("the whole flow: /, type, Enter, page, y shows the lyrics of the song paged to")
  func searchPageLyrics() throws {
    let harness = try SearchHarness(
      ITunesServer(songsByTerm: ["lantern": SearchHarness.tracks(3, term: "Lantern")]))
    harness.fault = { _, request in
      guard request.path == "/lrclib/api/get" else { return nil }
      let query = ITunesServer.query(request.target)
      guard query["track_name"] == "Lantern 2" else {
        return .respond(
          status: 404, headers: ["Content-Type": "application/json"],
          body: Data(
            #"{"code":404,"name":"TrackNotFound","message":"Failed to find specified track"}"#
              .utf8))
      }
      let body = """
        {"id":5,"trackName":"Lantern 2","artistName":"Band 2","albumName":"Album 2",\
        "duration":215.0,"instrumental":false,"plainLyrics":"Paper light\\nover water",\
        "syncedLyrics":"[00:01.00]Paper light\\n[00:03.00]over water"}
        """
      return .respond(
        status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }
    let tmux = try harness.start(["search", "nothing"])
    try tmux.waitFor("No songs found")
    tmux.sendKeys("/")
    try tmux.waitFor("Search iTunes")
    tmux.sendLiteral("lantern")
    tmux.sendKeys("Enter")
    try tmux.waitForAll("Lantern 1", "1 / 3")
    tmux.sendKeys("Right")
    try tmux.waitForAll("Lantern 2", "2 / 3")
    tmux.sendKeys("y")
    let lyrics = try tmux.waitForAll("Paper light", "over water")
    #expect(lyrics.contains("Lantern 2"))
    let asked = harness.server.requests.filter { $0.path == "/lrclib/api/get" }
    let query = try #require(asked.last.map { ITunesServer.query($0.target) })
    #expect(query["artist_name"] == "Band 2")
    #expect(query["album_name"] == "Album 2")
    #expect(query["duration"] == "216", "the whole recording's length, not the preview's")
    // Paging on with the lyrics open loads the next song's: it has none.
    tmux.sendKeys("Right")
    try tmux.waitForAll("Lantern 3", "No lyrics found")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("a result with missing fields shows placeholders, never a gap")
  func placeholders() throws {
    let harness = try SearchHarness(
      ITunesServer(songsByTerm: [
        "bare": [
          .init(
            trackId: 9, artistName: nil, trackName: nil, collectionName: nil,
            previewPath: "/audio/9")
        ]
      ]))
    let tmux = try harness.start(["search", "bare"])
    try tmux.waitForAll("Untitled", "Unknown artist", "1 / 1")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("rate limited (403): says so, backs off, then shows the results by itself")
  func rateLimitedThenResults() throws {
    let harness = try SearchHarness(
      ITunesServer(songsByTerm: ["x": SearchHarness.tracks(3, term: "Song")]))
    harness.fault = { number, _ in
      number == 0 ? .respond(status: 403, body: Data("<html>Forbidden</html>".utf8)) : nil
    }
    let tmux = try harness.start(["search", "x"])
    try tmux.waitFor("is limiting requests: retrying in 3 s")
    try tmux.waitForAll("Song 1", "1 / 3", timeout: 15)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("no connection: the same plain message and automatic retry as the feed")
  func offline() throws {
    let harness = try SearchHarness(ITunesServer())
    let tmux = try harness.start(["search", "x"], itunesURL: "http://127.0.0.1:9")
    try tmux.waitFor("No connection to 127.0.0.1: retrying in 1 s")
    try tmux.waitFor("retrying in 2 s", timeout: 15)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("a shows the artist's top songs, each once, and says how many repeats were hidden")
  func artist() throws {
    let tracks: [ITunesServer.Track] = [
      .init(
        trackId: 1, artistId: 42, artistName: "Mira Sol", trackName: "Neon Tide",
        previewPath: "/audio/1"),
      .init(
        trackId: 2, artistId: 42, artistName: "Mira Sol", trackName: "Neon Tide (Remastered 2011)",
        previewPath: "/audio/2"),
      .init(
        trackId: 3, artistId: 42, artistName: "Mira Sol", trackName: "Paper Lanterns",
        previewPath: "/audio/3"),
      .init(
        trackId: 4, artistId: 42, artistName: "Mira Sol", trackName: "Paper Lanterns - Live",
        previewPath: "/audio/4"),
    ]
    let harness = try SearchHarness(
      ITunesServer(
        songsByTerm: ["tide": [tracks[0]]], artists: [42: (name: "Mira Sol", tracks: tracks)]))
    let tmux = try harness.start(["search", "tide"])
    try tmux.waitForAll("Neon Tide", "1 / 1")
    tmux.sendKeys("a")
    let page = try tmux.waitForAll("Mira Sol’s top songs · 2 repeats hidden", "1 / 2")
    #expect(page.contains("Neon Tide"))
    tmux.sendKeys("Right")
    try tmux.waitForAll("Paper Lanterns", "2 / 2")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("riffle artist NAME starts on the top songs; Up in the prompt recalls the last search")
  func artistCommandAndHistory() throws {
    let tracks = [
      ITunesServer.Track(
        trackId: 1, artistId: 7, artistName: "Juno Reyes", trackName: "Slow Orbit",
        previewPath: "/audio/1")
    ]
    let home = try TemporaryDirectory("riffle-search")
    let first = try SearchHarness(
      ITunesServer(
        songsByTerm: ["orbit": tracks], artists: [7: (name: "Juno Reyes", tracks: tracks)]),
      home: home)
    let tmux = try first.start(["artist", "Juno", "Reyes"])
    try tmux.waitForAll("Slow Orbit", "Juno Reyes’s top songs")
    tmux.sendKeys("/")
    tmux.sendLiteral("orbit")
    tmux.sendKeys("Enter")
    try tmux.waitFor("Results for “orbit”")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)

    // The next run remembers the search.
    let second = try SearchHarness(ITunesServer(), home: home)
    let again = try second.start(["search", "nothing"])
    try again.waitFor("No songs found")
    again.sendKeys("/")
    try again.waitFor("Search iTunes")
    again.sendKeys("Up")
    try again.waitFor("/ orbit")
    again.sendKeys("Escape")
    try again.waitUntil { !$0.contains("Search iTunes") }
    again.sendKeys("q")
    #expect(try again.waitForExit() == 0)
  }

  @Test("a title with escape sequences and emoji is drawn clean")
  func hostileTitle() throws {
    let harness = try SearchHarness(
      ITunesServer(songsByTerm: [
        "evil": [
          .init(
            trackId: 5, artistName: "Evil\u{1B}]0;pwned\u{07} Band",
            trackName: "Bad\u{1B}[2J Song 🎸",
            previewPath: "/audio/5")
        ]
      ]))
    let tmux = try harness.start(["search", "evil"])
    let page = try tmux.waitForAll("Bad Song 🎸", "Evil Band")
    #expect(!page.contains("pwned"))
    #expect(tmux.paneTitle() != "pwned")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }
}
