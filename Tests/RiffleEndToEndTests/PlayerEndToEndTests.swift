import Foundation
import RiffleTestSupport
import Testing

/// A player session as a user has it: the real binary in tmux, a feed from a loopback server.
final class PlayerHarness {
  let server: LoopbackHTTPServer
  let home: TemporaryDirectory
  var tmux: TmuxSession?

  init(feed: String, extraRoutes: [String: LoopbackHTTPServer.Reply] = [:]) throws {
    let short1 = try Data(contentsOf: TestFiles.fixture("short-1.mp3"))
    let short2 = try Data(contentsOf: TestFiles.fixture("short-2.mp3"))
    var routes: [String: LoopbackHTTPServer.Reply] = [
      "/feed.json": .respond(
        status: 200, headers: ["Content-Type": "application/json"], body: Data(feed.utf8)),
      "/audio/short-1.mp3": .file(short1, contentType: "audio/mpeg"),
      "/audio/short-2.mp3": .file(short2, contentType: "audio/mpeg"),
    ]
    routes.merge(extraRoutes) { $1 }
    server = try LoopbackHTTPServer(handler: LoopbackHTTPServer.routes(routes))
    home = try TemporaryDirectory("riffle-e2e")
  }

  /// Starts riffle on the served feed; `audio` is the --audio value, `arguments` more options
  /// and `environment` more variables.
  @discardableResult
  func start(
    audio: String = "null", width: Int = 80, height: Int = 24, arguments: [String] = [],
    environment: [String: String] = [:]
  ) throws -> TmuxSession {
    let session = try TmuxSession(
      command: [TestFiles.riffleBinary, server.url("/feed.json").absoluteString, "--audio", audio]
        + arguments,
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 }
        .merging(environment) { $1 },
      width: width, height: height)
    tmux = session
    return session
  }

  deinit {
    tmux?.kill()
    server.stop()
  }

  static func song(_ id: String, _ title: String, likes: Int, audio: String) -> String {
    """
    {"id":"\(id)","title":"\(title)","handle":"h\(id)","display_name":"Artist \(id)",\
    "image_url":"/img/\(id).png","is_liked":false,"upvote_count":\(likes),"audio_url":"\(audio)"}
    """
  }

  static let threeSongs = """
    {"songs":[\(song("s1", "First Light", likes: 41, audio: "/audio/short-1.mp3")),\
    \(song("s2", "Second Wind", likes: 7, audio: "audio/short-2.mp3")),\
    \(song("s3", "Third Rail", likes: 0, audio: "/audio/short-1.mp3"))]}
    """
}

@Suite("Player end to end (tmux, loopback HTTP)")
struct PlayerEndToEndTests {
  @Test("first title shows, Right pages, l likes, q exits 0 and gives the screen back")
  func pagingLikingQuitting() throws {
    let harness = try PlayerHarness(feed: PlayerHarness.threeSongs)
    let tmux = try harness.start()
    let first = try tmux.waitFor("First Light")
    #expect(first.contains("Artist s1"))
    #expect(first.contains("@hs1"))
    #expect(first.contains("1 / 3"))
    #expect(first.contains("♡ 41"))

    tmux.sendKeys("Right")
    // The page slides in; wait for it to stand alone.
    let second = try tmux.waitForAll("Second Wind", "2 / 3")
    #expect(second.contains("♡ 7"))

    tmux.sendKeys("l")
    try tmux.waitFor("♥ 8 liked")
    tmux.sendKeys("l")
    try tmux.waitFor("♡ 7")

    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    let requested = harness.server.requests.map(\.path)
    #expect(requested.first == "/feed.json")
    #expect(
      requested.contains("/audio/short-2.mp3"), "the relative audio URL resolved: \(requested)")
  }

  @Test("previous is ignored on the first page and next on the last")
  func endsAreDisabled() throws {
    let harness = try PlayerHarness(feed: PlayerHarness.threeSongs)
    let tmux = try harness.start()
    try tmux.waitFor("First Light")
    tmux.sendKeys("Left")
    tmux.sendKeys("Right", "Right", "Right", "Right")
    let last = try tmux.waitFor("3 / 3")
    #expect(last.contains("Third Rail"))
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("a short song ends and the next one starts by itself")
  func autoAdvance() throws {
    let harness = try PlayerHarness(feed: PlayerHarness.threeSongs)
    let tmux = try harness.start()
    try tmux.waitFor("First Light")
    // short-1.mp3 lasts 2 s; no key is pressed.
    try tmux.waitForAll("Second Wind", "2 / 3", timeout: 8)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("space pauses and plays; the clock stands still while paused")
  func pauseAndPlay() throws {
    let feed = """
      {"songs":[\(PlayerHarness.song("s2", "Second Wind", likes: 1, audio: "/audio/short-2.mp3"))]}
      """
    let harness = try PlayerHarness(feed: feed)
    let tmux = try harness.start()
    try tmux.waitFor("❚❚ Pause")
    tmux.sendKeys("Space")
    let paused = try tmux.waitFor("Paused")
    #expect(paused.contains("▶ Play"))
    Thread.sleep(forTimeInterval: 1.2)
    #expect(tmux.capture().contains("Paused"))
    #expect(!tmux.capture().contains("End of the feed"), "a paused 3 s song must not end")
    tmux.sendKeys("Space")
    try tmux.waitFor("End of the feed", timeout: 8)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("a like survives a restart")
  func likesPersist() throws {
    let harness = try PlayerHarness(feed: PlayerHarness.threeSongs)
    let tmux = try harness.start()
    try tmux.waitFor("♡ 41")
    tmux.sendKeys("l")
    try tmux.waitFor("♥ 42 liked")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    tmux.kill()

    let again = try harness.start()
    let screen = try again.waitFor("First Light")
    #expect(screen.contains("♥ 42 liked"), "screen was:\n\(screen)")
    again.sendKeys("q")
    #expect(try again.waitForExit() == 0)
  }

  @Test("a feed the server refuses shows why, and the player keeps running")
  func feedServerError() throws {
    let harness = try PlayerHarness(
      feed: "", extraRoutes: ["/feed.json": .respond(status: 500, body: Data("boom".utf8))])
    let tmux = try harness.start()
    try tmux.waitFor("Server error 500 from 127.0.0.1")
    tmux.sendKeys("Right", "Space", "l")
    Thread.sleep(forTimeInterval: 0.3)
    #expect(!tmux.hasExited)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("songs without an id or audio are skipped with a note; the rest play")
  func skipsBrokenEntries() throws {
    let feed = """
      {"songs":[{"title":"No Id","audio_url":"/audio/short-1.mp3"},\
      {"id":"x","title":"No Audio"},\
      \(PlayerHarness.song("s2", "Second Wind", likes: 3, audio: "/audio/short-2.mp3"))]}
      """
    let harness = try PlayerHarness(feed: feed)
    let tmux = try harness.start()
    let screen = try tmux.waitFor("Second Wind")
    #expect(screen.contains("1 / 1"))
    #expect(screen.contains("skipped 2 songs"))
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("a song whose audio is not audio says so and the player stays usable")
  func corruptAudio() throws {
    let corrupt = try Data(contentsOf: TestFiles.fixture("corrupt.mp3"))
    let feed = """
      {"songs":[\(PlayerHarness.song("c", "Broken Record", likes: 0, audio: "/audio/corrupt.mp3")),\
      \(PlayerHarness.song("s1", "First Light", likes: 1, audio: "/audio/short-1.mp3"))]}
      """
    let harness = try PlayerHarness(
      feed: feed, extraRoutes: ["/audio/corrupt.mp3": .file(corrupt, contentType: "audio/mpeg")])
    let tmux = try harness.start()
    try tmux.waitFor("not an audio format Riffle can play")
    tmux.sendKeys("Right")
    let next = try tmux.waitFor("First Light")
    #expect(!next.contains("not an audio format"), "the error belongs to the other song")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("a title with escape sequences cannot retitle the pane or colour the page")
  func hostileTitle() throws {
    let hostile = #"Evil\u001b]2;PWNED\u0007\u001b[2J\u001b[31mSong\u202e"#
    let feed = """
      {"songs":[\(PlayerHarness.song("e", hostile, likes: 0, audio: "/audio/short-2.mp3"))]}
      """
    let harness = try PlayerHarness(feed: feed)
    let tmux = try harness.start()
    let before = tmux.paneTitle()
    let screen = try tmux.waitFor("EvilSong")
    #expect(!screen.contains("PWNED"))
    #expect(tmux.paneTitle() == before)
    #expect(!tmux.paneTitle().contains("PWNED"))
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }
}

@Suite("Command line")
struct CommandLineTests {
  @Test("--help describes the source and the audio drivers")
  func help() throws {
    let result = try runProgram(TestFiles.riffleBinary, ["--help"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("--audio"))
    #expect(result.stdout.contains("wav:PATH"))
    #expect(result.stdout.contains("search"))
    #expect(result.stdout.contains("artist"))
    #expect(result.stdout.contains("identify"))
    let play = try runProgram(TestFiles.riffleBinary, ["help", "play"])
    #expect(play.status == 0)
    #expect(play.stdout.contains("--capture"))
    #expect(play.stdout.contains("--audio <driver>"))
    #expect(play.stdout.contains("--itunes-url <url>"))
  }

  @Test("search and artist need words; an --itunes-url that is not http(s) is refused")
  func searchArguments() throws {
    let empty = try runProgram(TestFiles.riffleBinary, ["search", " "])
    #expect(empty.status != 0)
    #expect(empty.stderr.contains("give something to search for"))
    let bad = try runProgram(TestFiles.riffleBinary, ["artist", "x", "--itunes-url", "ftp://x"])
    #expect(bad.status != 0)
    #expect(bad.stderr.contains("--itunes-url must be an http:// or https:// URL"))
  }

  @Test("--version prints the version")
  func version() throws {
    let result = try runProgram(TestFiles.riffleBinary, ["--version"])
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("riffle 0."))
  }

  @Test("an unknown audio driver is refused with a clear message")
  func badDriver() throws {
    let result = try runProgram(TestFiles.riffleBinary, ["--audio", "speakers"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("--audio must be auto, pulse, alsa, null or wav:PATH"))
  }

  @Test("a feed path that does not exist is refused before the screen starts")
  func missingFeed() throws {
    let result = try runProgram(TestFiles.riffleBinary, ["/nonexistent/feed.json"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("no feed at '/nonexistent/feed.json'"))
  }
}
