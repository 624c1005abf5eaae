import Foundation
import RiffleAPI
import RiffleCore
import Testing

/// RSS in the shape big hosts publish: iTunes and Podcasting 2.0 namespaces, CDATA with HTML
/// entities, enclosure lengths, durations as seconds and as HH:MM:SS, relative URLs, and the
/// items oldest first (the parser puts the newest first).
let sampleRSS = """
  <?xml version="1.0" encoding="UTF-8"?>
  <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
    xmlns:content="http://purl.org/rss/1.0/modules/content/"
    xmlns:podcast="https://podcastindex.org/namespace/1.0"
    xmlns:media="http://search.yahoo.com/mrss/">
  <channel>
    <title>Night &amp; Day Radio</title>
    <itunes:author>Riffle Tests</itunes:author>
    <itunes:image href="/art/show.jpg"/>
    <image><url>https://cdn.example/ignored.jpg</url><title>x</title></image>
    <item>
      <title>Episode 1: Beginnings</title>
      <guid isPermaLink="false">ep-1</guid>
      <pubDate>Mon, 02 Mar 2026 08:00:00 +0000</pubDate>
      <enclosure url="audio/ep1.mp3" length="1234567" type="audio/mpeg"/>
      <itunes:duration>1:02:03</itunes:duration>
      <description><![CDATA[<p>First &amp; foremost: <b>hello</b>&nbsp;world&#8217;s end.</p><p>Second paragraph.</p><script>alert(1)</script>]]></description>
    </item>
    <item>
      <title>Episode 2 &#8211; Middle</title>
      <guid>ep-2</guid>
      <pubDate>Tue, 3 Mar 2026 09:30:00 GMT</pubDate>
      <enclosure url="https://cdn.example/ep2.mp3" length="0" type="audio/mpeg"/>
      <itunes:duration>3600</itunes:duration>
      <itunes:image href="https://cdn.example/ep2.jpg"/>
      <podcast:chapters url="/chapters/ep2.json" type="application/json+chapters"/>
      <content:encoded>&lt;ul&gt;&lt;li&gt;One&lt;/li&gt;&lt;li&gt;Two&lt;/li&gt;&lt;/ul&gt;</content:encoded>
      <description>short</description>
    </item>
    <item>
      <title>Trailer without audio</title>
      <guid>trailer</guid>
    </item>
    <item>
      <title>Episode 3</title>
      <guid>ep-3</guid>
      <pubDate>Wed, 04 Mar 2026 10:00:00 +0100</pubDate>
      <enclosure url="https://cdn.example/ep3.m4a" type="audio/x-m4a"/>
      <itunes:duration>62:03</itunes:duration>
      <media:thumbnail url="https://cdn.example/ep3-thumb.jpg"/>
    </item>
  </channel>
  </rss>
  """

@Suite("Podcast feeds (RSS and Atom through XMLParser)")
struct PodcastFeedTests {
  let base = URL(string: "https://feeds.example/shows/night/rss")!

  @Test("RSS: episodes newest first, fields, relative URLs, skipped items")
  func rss() throws {
    let feed = try PodcastFeedParser.parse(Data(sampleRSS.utf8), base: base)
    #expect(feed.title == "Night & Day Radio")
    #expect(feed.author == "Riffle Tests")
    #expect(feed.imageURL?.absoluteString == "https://feeds.example/art/show.jpg")
    #expect(feed.episodes.map(\.id) == ["ep-3", "ep-2", "ep-1"])
    #expect(feed.skipped == ["item 3: no audio enclosure"])

    let first = feed.episodes[2]
    #expect(first.title == "Episode 1: Beginnings")
    #expect(first.audioURL.absoluteString == "https://feeds.example/shows/night/audio/ep1.mp3")
    #expect(first.audioLength == 1_234_567)
    #expect(first.duration == 3723)
    #expect(first.notes == "First & foremost: hello world\u{2019}s end.\n\nSecond paragraph.")
    #expect(first.published == Date(timeIntervalSince1970: 1_772_438_400))

    let second = feed.episodes[1]
    #expect(second.title == "Episode 2 \u{2013} Middle")
    #expect(second.audioLength == nil)
    #expect(second.duration == 3600)
    #expect(second.imageURL?.absoluteString == "https://cdn.example/ep2.jpg")
    #expect(second.chaptersURL?.absoluteString == "https://feeds.example/chapters/ep2.json")
    // content:encoded wins over a short description.
    #expect(second.notes == "\u{2022} One\n\u{2022} Two")

    let third = feed.episodes[0]
    #expect(third.duration == 3723)
    #expect(third.imageURL?.absoluteString == "https://cdn.example/ep3-thumb.jpg")
  }

  @Test("episodes become songs: show as artist, show art where the episode has none")
  func songs() throws {
    let songs = try PodcastFeedParser.parse(Data(sampleRSS.utf8), base: base).songs
    #expect(songs.map(\.id) == ["podcast:ep-3", "podcast:ep-2", "podcast:ep-1"])
    #expect(songs.allSatisfy { $0.displayName == "Night & Day Radio" })
    #expect(songs[2].imageURL?.absoluteString == "https://feeds.example/art/show.jpg")
    #expect(songs[2].notes?.hasPrefix("First & foremost") == true)
    #expect(songs[2].released != nil)
    #expect(songs[0].notes == nil)
  }

  @Test("Atom: entries with enclosure links")
  func atom() throws {
    let atom = """
      <?xml version="1.0" encoding="utf-8"?>
      <feed xmlns="http://www.w3.org/2005/Atom">
        <title>Atom Show</title>
        <logo>https://cdn.example/logo.png</logo>
        <entry>
          <title>Old</title><id>urn:a:1</id><updated>2025-01-01T00:00:00Z</updated>
          <link rel="enclosure" href="https://cdn.example/1.mp3" length="10" type="audio/mpeg"/>
          <summary>Plain &lt;b&gt;text&lt;/b&gt;</summary>
        </entry>
        <entry>
          <title>New</title><id>urn:a:2</id><published>2025-02-01T00:00:00.500Z</published>
          <link rel="alternate" href="https://example.com/page"/>
          <link rel="enclosure" href="/2.mp3" type="audio/mpeg"/>
        </entry>
      </feed>
      """
    let feed = try PodcastFeedParser.parse(Data(atom.utf8), base: base)
    #expect(feed.title == "Atom Show")
    #expect(feed.imageURL?.absoluteString == "https://cdn.example/logo.png")
    #expect(feed.episodes.map(\.title) == ["New", "Old"])
    #expect(feed.episodes[0].audioURL.absoluteString == "https://feeds.example/2.mp3")
    #expect(feed.episodes[1].notes == "Plain text")
  }

  @Test("an HTML error page, invalid XML and other XML give clear errors")
  func badInput() {
    let html = "<!DOCTYPE html><html><head><title>404</title></head><body>Not found</body></html>"
    #expect(throws: PodcastFeedError.htmlPage) {
      try PodcastFeedParser.parse(Data(html.utf8), base: base)
    }
    #expect(throws: PodcastFeedError.htmlPage) {
      try PodcastFeedParser.parse(Data("<html><body><p>oops".utf8), base: base)
    }
    do {
      _ = try PodcastFeedParser.parse(Data("<rss><channel><title>x</channel>".utf8), base: base)
      Issue.record("invalid XML was accepted")
    } catch {
      guard case .invalidXML = error else {
        Issue.record("\(error)")
        return
      }
      #expect(error.userMessage.hasPrefix("The feed is not valid XML"))
    }
    #expect(throws: PodcastFeedError.notAFeed(root: "svg")) {
      try PodcastFeedParser.parse(Data("<svg><g/></svg>".utf8), base: base)
    }
  }

  @Test("a remote feed cannot point at local files; control characters are dropped")
  func hostileText() throws {
    // Raw C0 controls are not XML at all (libxml2 refuses them); C1 controls and bidi
    // overrides are, and must not reach the screen.
    let rss = """
      <rss><channel><title>Evil&#x9B;2J &#x202E;Show</title>
      <item><title>A</title><guid>1</guid>
      <enclosure url="file:///etc/passwd" type="audio/mpeg"/></item>
      <item><title>B&#x85;&#x9B;31m</title><guid>2</guid><enclosure url="/a.mp3"/>
      <description>&lt;p&gt;x&#x9B;1;1Hy&lt;/p&gt;</description></item>
      </channel></rss>
      """
    let feed = try PodcastFeedParser.parse(Data(rss.utf8), base: base)
    #expect(feed.episodes.map(\.id) == ["2"])
    #expect(feed.skipped.count == 1)
    let shown = [feed.title, feed.episodes[0].title, feed.episodes[0].notes]
    for text in shown {
      #expect(
        !text.unicodeScalars.contains {
          ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}"
        }, "\(text.debugDescription)")
    }
    #expect(feed.episodes[0].notes == "xy")
    #expect(throws: PodcastFeedError.self) {
      try PodcastFeedParser.parse(
        Data("<rss><channel><title>\u{1B}[2J</title></channel></rss>".utf8), base: base)
    }
  }

  @Test("bytes that are not UTF-8 in a UTF-8 document are refused, not handed to FoundationXML")
  func invalidUTF8() throws {
    // Found by the fuzz target: one byte 0xF9 in an element's name made FoundationXML trap.
    var bytes = Array(sampleRSS.utf8)
    // The "u" of "xmlns:itunes" on line 2.
    let at = bytes.firstIndex(of: UInt8(ascii: "u"))!
    bytes[at] = 0xF9
    #expect(throws: PodcastFeedError.invalidXML(line: 2, reason: "not UTF-8")) {
      try PodcastFeedParser.parse(Data(bytes), base: base)
    }
    // Declared Latin-1, the same byte is a letter: libxml2 converts it.
    let latin1 =
      Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><channel><title>Caf".utf8)
      + Data([0xE9]) + Data("</title></channel></rss>".utf8)
    #expect(try PodcastFeedParser.parse(latin1, base: base).title == "Caf\u{E9}")
  }

  @Test("entity expansion (a billion laughs) is refused by libxml2, quickly")
  func billionLaughs() {
    var dtd = "<!ENTITY e0 \"" + String(repeating: "a", count: 100) + "\">"
    for level in 1..<10 {
      dtd += "<!ENTITY e\(level) \"" + String(repeating: "&e\(level - 1);", count: 10) + "\">"
    }
    let xml = "<!DOCTYPE rss [\(dtd)]><rss><channel><title>&e9;</title></channel></rss>"
    let began = Date()
    #expect(throws: PodcastFeedError.self) {
      try PodcastFeedParser.parse(Data(xml.utf8), base: base)
    }
    #expect(Date().timeIntervalSince(began) < 2)
  }

  @Test("itunes:duration as seconds, MM:SS and HH:MM:SS; nonsense is nil")
  func durations() {
    #expect(PodcastFeedParser.duration("3600") == 3600)
    #expect(PodcastFeedParser.duration(" 90.5 ") == 90.5)
    #expect(PodcastFeedParser.duration("62:03") == 3723)
    #expect(PodcastFeedParser.duration("01:02:03") == 3723)
    for bad in ["", "abc", "1:2:3:4", "-5", "1:75", "1e9", "::", "1.5:00", "0"] {
      #expect(PodcastFeedParser.duration(bad) == nil, "\(bad)")
    }
  }

  @Test("dates as RSS and Atom write them")
  func dates() {
    let expected = Date(timeIntervalSince1970: 1_772_438_400)  // 2026-03-02 08:00 UTC
    #expect(PodcastFeedParser.date("Mon, 02 Mar 2026 08:00:00 +0000") == expected)
    #expect(PodcastFeedParser.date("2 Mar 2026 08:00:00 GMT") == expected)
    #expect(PodcastFeedParser.date("Mon, 02 Mar 2026 09:00:00 +0100") == expected)
    #expect(PodcastFeedParser.date("2026-03-02T08:00:00Z") == expected)
    #expect(PodcastFeedParser.date("yesterday") == nil)
  }

  @Test("only XML is taken for a podcast; JSON feeds are not")
  func sniffing() {
    #expect(PodcastFeedParser.looksLikeXML(Data("\u{FEFF}  \n<?xml?>".utf8)))
    #expect(PodcastFeedParser.looksLikeXML(Data("<rss/>".utf8)))
    #expect(!PodcastFeedParser.looksLikeXML(Data(#"{"songs":[]}"#.utf8)))
    #expect(!PodcastFeedParser.looksLikeXML(Data()))
  }

  @Test("Podcasting 2.0 chapters: in time order, toc false left out, nonsense skipped")
  func chapters() throws {
    let json = #"""
      {"version":"1.2.0","chapters":[{"startTime":65.5,"title":"B\u001b[2J"},{"startTime":0,
      "title":"A"},{"startTime":-3,"title":"bad"},{"startTime":"x"},{"startTime":9,"toc":false},
      {"startTime":70}]}
      """#
    let chapters = try LyricsSource.chapters(Data(json.utf8))
    #expect(chapters.map(\.start) == [0, 65.5, 70])
    #expect(chapters.map(\.title) == ["A", "B", "Chapter"])
    #expect(throws: (any Error).self) { try LyricsSource.chapters(Data("<html>".utf8)) }
  }

  @Test("HTML notes: blocks, entities, white space, wrapping")
  func htmlText() {
    #expect(HTMLText.plain("a<br>b<br/>c") == "a\nb\nc")
    #expect(
      HTMLText.plain("<style>p{}</style>x &lt;y&gt; &#x41;&unknown; &") == "x <y> A&unknown; &")
    #expect(HTMLText.plain("  lots   of\t space  ") == "lots of space")
    #expect(HTMLText.plain("unclosed <b") == "unclosed <b")
    #expect(HTMLText.lines("one two three four", width: 9) == ["one two", "three", "four"])
    #expect(HTMLText.lines("a\n\nb", width: 9) == ["a", "", "b"])
  }
}

@Suite("Podcast subscriptions file")
struct PodcastSubscriptionsTests {
  @Test("added shows are kept, the same URL once; a damaged file is never overwritten")
  func keepsAndRefuses() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "riffle-subs-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("podcasts.json")
    let store = PodcastSubscriptions(file: file)
    #expect(try store.all().isEmpty)
    try store.add(PodcastSubscription(url: "https://a.example/rss", title: "A"))
    try store.add(PodcastSubscription(url: "https://b.example/rss", title: "B", etag: "\"1\""))
    try store.add(PodcastSubscription(url: "https://a.example/rss", title: "A2"))
    #expect(try PodcastSubscriptions(file: file).all().map(\.title) == ["A2", "B"])
    #expect(try PodcastSubscriptions(file: file).all()[1].etag == "\"1\"")

    try Data("{not json".utf8).write(to: file)
    #expect(throws: PodcastStoreError.self) {
      try store.add(PodcastSubscription(url: "https://c.example/rss", title: "C"))
    }
    #expect(try Data(contentsOf: file) == Data("{not json".utf8))
  }
}

@Suite("Episode positions")
struct EpisodePositionsTests {
  @Test("kept across instances, resumed, marked played near the end")
  func positions() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "riffle-positions-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("episode-positions.json")
    let store = EpisodePositions(file: file)
    store.note("podcast:a", position: 600, duration: 3600)
    store.note("podcast:b", position: 2, duration: 3600)
    store.note("podcast:c", position: 3580, duration: 3600)
    store.flush()
    let again = EpisodePositions(file: file)
    #expect(again.resumePoint("podcast:a") == 600)
    // Barely begun: from the start.
    #expect(again.resumePoint("podcast:b") == nil)
    // Within 30 s of the end: played, and so from the start again.
    #expect(again.entry("podcast:c")?.played == true)
    #expect(again.entry("podcast:c")?.position == 0)
    #expect(again.resumePoint("podcast:c") == nil)
    again.markPlayed("podcast:a")
    again.flush()
    #expect(EpisodePositions(file: file).entry("podcast:a")?.played == true)
  }
}
