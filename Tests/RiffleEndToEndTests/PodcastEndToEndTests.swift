import Foundation
import RiffleTestSupport
import Testing

// Podcasts through the real binary in tmux, against a loopback server that publishes RSS the
// way big hosts do. The feed is served at the same `/feed.json` address as the song feed: what
// it is comes from the answer, not from the URL.

/// A show of two episodes (the newer listed last), enclosures on the same server, one relative.
private let showRSS = """
  <?xml version="1.0" encoding="UTF-8"?>
  <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
    xmlns:content="http://purl.org/rss/1.0/modules/content/"
    xmlns:podcast="https://podcastindex.org/namespace/1.0">
  <channel>
    <title>Loopback Hour</title>
    <itunes:image href="/img/show.png"/>
    <item>
      <title>Older Episode</title>
      <guid>old</guid>
      <pubDate>Mon, 02 Mar 2026 08:00:00 +0000</pubDate>
      <enclosure url="/audio/short-2.mp3" length="40000" type="audio/mpeg"/>
      <itunes:duration>2</itunes:duration>
    </item>
    <item>
      <title>Newest Episode</title>
      <guid>new</guid>
      <pubDate>Wed, 04 Mar 2026 10:00:00 +0000</pubDate>
      <enclosure url="audio/short-1.mp3" length="40000" type="audio/mpeg"/>
      <itunes:duration>00:00:02</itunes:duration>
      <podcast:chapters url="/chapters/new.json" type="application/json+chapters"/>
      <description><![CDATA[<p>Show notes: guests &amp; <b>links</b>&#8230;</p><p>Second paragraph here.</p>]]></description>
    </item>
  </channel>
  </rss>
  """

@Suite("Podcasts end to end (tmux, loopback RSS)")
struct PodcastEndToEndTests {
  @Test("an RSS answer opens the episodes newest first, with the show, day and notes")
  func opensEpisodes() throws {
    let harness = try PlayerHarness(
      feed: "{}",
      extraRoutes: [
        "/feed.json": .respond(
          status: 200, headers: ["Content-Type": "application/rss+xml"], body: Data(showRSS.utf8)),
        "/chapters/new.json": .respond(
          status: 200, headers: ["Content-Type": "application/json+chapters"],
          body: Data(
            (#"{"version":"1.2.0","chapters":[{"startTime":65,"title":"The middle"},"#
              + #"{"startTime":0,"title":"Intro"},{"startTime":30,"title":"Ad","toc":false}]}"#)
              .utf8)),
      ])
    let tmux = try harness.start()
    let page = try tmux.waitForAll("Newest Episode", "Loopback Hour", "4 Mar 2026", "1 / 2")
    #expect(page.contains("0:02"), "the length from itunes:duration:\n\(page)")
    tmux.sendKeys("y")
    let notes = try tmux.waitForAll("Show notes: guests & links\u{2026}", "Second paragraph here.")
    #expect(!notes.contains("<p>"))
    let chapters = try tmux.waitForAll("Chapters", "0:00  Intro", "1:05  The middle")
    #expect(!chapters.contains("Ad"))
    tmux.sendKeys("y")
    tmux.sendKeys("Right")
    _ = try tmux.waitForAll("Older Episode", "2 Mar 2026", "2 / 2")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("an HTML error page and invalid XML as a feed: a clear message, the player runs on")
  func badFeeds() throws {
    let html = "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>"
    let harness = try PlayerHarness(
      feed: "{}",
      extraRoutes: [
        "/feed.json": .respond(
          status: 200, headers: ["Content-Type": "text/html"], body: Data(html.utf8)),
        "/broken.xml": .respond(
          status: 200, headers: ["Content-Type": "application/rss+xml"],
          body: Data("<rss><channel><title>Cut".utf8)),
      ])
    let tmux = try harness.start()
    _ = try tmux.waitFor("The address gave a web page, not a feed")
    tmux.kill()

    let broken = try TmuxSession(
      command: [
        TestFiles.riffleBinary, harness.server.url("/broken.xml").absoluteString, "--audio", "null",
      ],
      environment: harness.home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 })
    defer { broken.kill() }
    _ = try broken.waitFor("The feed is not valid XML")
    broken.sendKeys("q")
    #expect(try broken.waitForExit() == 0)
  }

  @Test("podcast add, list, and podcasts: every show's newest, refreshed with conditional GETs")
  func subscriptions() throws {
    let short = try Data(contentsOf: TestFiles.fixture("short-1.mp3"))
    @Sendable func show(_ name: String, _ day: Int) -> Data {
      Data(
        """
        <rss version="2.0"><channel><title>\(name)</title><item><title>\(name) Episode</title>\
        <guid>\(name)-1</guid><pubDate>0\(day) Mar 2026 08:00:00 +0000</pubDate>\
        <enclosure url="/audio.mp3" type="audio/mpeg"/></item></channel></rss>
        """.utf8)
    }
    let log = RequestLog()
    let lastModified = "Wed, 04 Mar 2026 08:00:00 GMT"
    let server = try LoopbackHTTPServer { request in
      log.add(request)
      switch request.path {
      case "/alpha.rss":
        // Validated by its ETag.
        if request.headers["if-none-match"] == "\"alpha-1\"" {
          return .respond(status: 304, headers: ["ETag": "\"alpha-1\""], body: Data())
        }
        return .respond(
          status: 200, headers: ["Content-Type": "application/rss+xml", "ETag": "\"alpha-1\""],
          body: show("Alpha", 2))
      case "/beta.rss":
        // Validated by its date.
        if request.headers["if-modified-since"] == lastModified {
          return .respond(status: 304, body: Data())
        }
        return .respond(
          status: 200,
          headers: ["Content-Type": "application/rss+xml", "Last-Modified": lastModified],
          body: show("Beta", 4))
      case "/page.html":
        return .respond(
          status: 200, headers: ["Content-Type": "text/html"],
          body: Data("<!DOCTYPE html><html><body>Sign in</body></html>".utf8))
      case "/audio.mp3":
        return .file(short, contentType: "audio/mpeg")
      default:
        return .respond(status: 404, body: Data())
      }
    }
    defer { server.stop() }
    let home = try TemporaryDirectory("riffle-podcasts")
    let environment = home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 }
    func riffle(_ arguments: [String]) throws -> (status: Int32, output: String) {
      let out = home.file("out-\(UUID().uuidString)")
      _ = FileManager.default.createFile(atPath: out.path, contents: nil)
      let handle = try FileHandle(forWritingTo: out)
      let child = try ChildProcess(
        TestFiles.riffleBinary, arguments, environment: environment,
        stdout: handle.fileDescriptor)
      let status = child.wait()
      try handle.close()
      return (status, try String(contentsOf: out, encoding: .utf8))
    }

    #expect(
      try riffle(["podcast", "add", server.url("/alpha.rss").absoluteString]).output
        == "Following Alpha: 1 episodes\n")
    #expect(try riffle(["podcast", "add", server.url("/beta.rss").absoluteString]).status == 0)
    // A web page is not followed, and costs nothing of what was.
    #expect(try riffle(["podcast", "add", server.url("/page.html").absoluteString]).status == 2)
    let list = try riffle(["podcast", "list"]).output
    #expect(list.contains("Alpha\n  \(server.url("/alpha.rss").absoluteString)"))
    #expect(list.contains("Beta"))
    #expect(!list.contains("page.html"))
    #expect(log.count("/alpha.rss") == 1)

    let tmux = try TmuxSession(
      command: [TestFiles.riffleBinary, "podcasts", "--audio", "null"], environment: environment)
    defer { tmux.kill() }
    // Newest first across shows: Beta (4 March), then Alpha (2 March).
    _ = try tmux.waitForAll("Beta Episode", "Your podcasts", "1 / 2")
    tmux.sendKeys("Right")
    _ = try tmux.waitForAll("Alpha Episode", "2 Mar 2026", "2 / 2")
    // Both were asked again with their validators, and answered 304 from the copy kept.
    let refreshes = log.all.filter { $0.path.hasSuffix(".rss") }.suffix(2)
    #expect(refreshes.contains { $0.headers["if-none-match"] == "\"alpha-1\"" })
    #expect(refreshes.contains { $0.headers["if-modified-since"] == lastModified })
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }
}

extension PodcastEndToEndTests {
  @Test("an episode resumes where it was left after a restart")
  func resumesAfterRestart() throws {
    let audio = try Data(
      contentsOf: TestFiles.catalog.appendingPathComponent("audio/riffle-006.mp3"))
    let rss = """
      <rss version="2.0"><channel><title>Resume Show</title><item><title>Long Talk</title>\
      <guid>talk</guid><enclosure url="/talk.mp3" type="audio/mpeg"/></item></channel></rss>
      """
    let harness = try PlayerHarness(
      feed: "{}",
      extraRoutes: [
        "/feed.json": .respond(
          status: 200, headers: ["Content-Type": "application/rss+xml"], body: Data(rss.utf8)),
        "/talk.mp3": .file(audio, contentType: "audio/mpeg"),
      ])
    let first = try harness.start()
    _ = try first.waitFor("Long Talk")
    let deadline = Date().addingTimeInterval(15)
    while (elapsedSeconds(onScreen: first.capture()) ?? 0) < 6 && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.2)
    }
    first.sendKeys("q")
    #expect(try first.waitForExit() == 0)
    let saved = try JSONSerialization.jsonObject(
      with: Data(contentsOf: harness.home.file("data/riffle/episode-positions.json")))
    let entry = (saved as? [String: Any])?["podcast:talk"] as? [String: Any]
    let position = entry?["position"] as? Double ?? 0
    #expect(position >= 5.5 && position < 12, "saved \(String(describing: saved))")

    // Started again: the clock starts where the first run left off, not at 0:00.
    let second = try harness.start()
    _ = try second.waitFor("Long Talk")
    var shown: Int?
    let again = Date().addingTimeInterval(10)
    while shown == nil && Date() < again {
      shown = elapsedSeconds(onScreen: second.capture()).flatMap { $0 > 0 ? $0 : nil }
      Thread.sleep(forTimeInterval: 0.1)
    }
    #expect((shown ?? 0) >= Int(position) && (shown ?? 0) <= Int(position) + 3, "\(shown ?? -1)")
    second.sendKeys("q")
    #expect(try second.waitForExit() == 0)
  }
}

extension PodcastEndToEndTests {
  @Test(
    "podcast download keeps the newest episode; it plays from there with the server's audio gone")
  func offline() throws {
    let audio = try Data(contentsOf: TestFiles.fixture("short-1.mp3"))
    let rss = """
      <rss version="2.0"><channel><title>Offline Show</title>\
      <item><title>Kept Episode</title><guid>kept</guid>\
      <pubDate>Wed, 04 Mar 2026 08:00:00 +0000</pubDate>\
      <enclosure url="/kept.mp3" type="audio/mpeg"/></item>\
      <item><title>Missing Episode</title><guid>gone</guid>\
      <pubDate>Mon, 02 Mar 2026 08:00:00 +0000</pubDate>\
      <enclosure url="/gone.mp3" type="audio/mpeg"/></item></channel></rss>
      """
    let online = Flag(true)
    let server = try LoopbackHTTPServer { request in
      switch request.path {
      case "/show.rss":
        return .respond(
          status: 200, headers: ["Content-Type": "application/rss+xml"], body: Data(rss.utf8))
      case "/kept.mp3" where online.value:
        return .file(audio, contentType: "audio/mpeg")
      default:
        return .respond(status: 404, body: Data("not found".utf8))
      }
    }
    defer { server.stop() }
    let home = try TemporaryDirectory("riffle-offline")
    let environment = home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 }
    let out = home.file("out")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    let handle = try FileHandle(forWritingTo: out)
    let child = try ChildProcess(
      TestFiles.riffleBinary,
      ["podcast", "download", server.url("/show.rss").absoluteString],
      environment: environment, stdout: handle.fileDescriptor)
    #expect(child.wait() == 0)
    try handle.close()
    let said = try String(contentsOf: out, encoding: .utf8)
    let size = String(format: "%.1f MB", Double(audio.count) / 1_048_576)
    #expect(said.contains("Kept Kept Episode (\(size))"), "\(said)")
    #expect(said.contains("Audio cache: \(size) of 512.0 MB"), "\(said)")

    online.value = false
    let tmux = try TmuxSession(
      command: [TestFiles.riffleBinary, server.url("/show.rss").absoluteString, "--audio", "null"],
      environment: environment)
    defer { tmux.kill() }
    _ = try tmux.waitForAll("Kept Episode", "0:01")
    // The one not kept fails as any 404 does, and the player runs on.
    tmux.sendKeys("Right")
    _ = try tmux.waitForAll("Missing Episode", "404")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }
}

/// A value shared with a server's threads.
private final class Flag: @unchecked Sendable {
  private let lock = NSLock()
  private var current: Bool
  init(_ value: Bool) { current = value }
  var value: Bool {
    get { lock.withLock { current } }
    set { lock.withLock { current = newValue } }
  }
}

/// The requests a loopback server saw, from its threads.
private final class RequestLog: @unchecked Sendable {
  private let lock = NSLock()
  private var requests: [LoopbackHTTPServer.Request] = []

  func add(_ request: LoopbackHTTPServer.Request) { lock.withLock { requests.append(request) } }
  var all: [LoopbackHTTPServer.Request] { lock.withLock { requests } }
  func count(_ path: String) -> Int { all.filter { $0.path == path }.count }
}
