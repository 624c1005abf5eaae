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
}
