import Foundation
import RiffleAPI
import RiffleCore
import RiffleTestSupport
import Testing

@Suite("Stations: playlists and live answers")
struct StationTests {
  @Test("M3U and PLS name the stream and its title; other text is not a playlist")
  func playlists() throws {
    let m3u = "#EXTM3U\n#EXTINF:-1,Night FM\nhttp://radio.example:8000/night.mp3\n"
    let found = try #require(try StationPlaylist.parse(Data(m3u.utf8))?.get())
    #expect(found.url.absoluteString == "http://radio.example:8000/night.mp3")
    #expect(found.name == "Night FM")
    let bare = "http://radio.example/a.aac\r\nhttp://radio.example/b.aac\r\n"
    #expect(try StationPlaylist.parse(Data(bare.utf8))?.get().url.lastPathComponent == "a.aac")
    let pls =
      "[playlist]\nNumberOfEntries=1\nFile1=https://radio.example/live\nTitle1=Day\u{1B}[2J FM\n"
    let day = try #require(try StationPlaylist.parse(Data(pls.utf8))?.get())
    #expect(day.url.absoluteString == "https://radio.example/live")
    #expect(day.name == nil || day.name == "Day FM")
    #expect(StationPlaylist.parse(Data(#"{"songs":[]}"#.utf8)) == nil)
    #expect(StationPlaylist.parse(Data("<rss/>".utf8)) == nil)
    guard
      case .failure? = StationPlaylist.parse(Data("[playlist]\nFile1=file:///etc/passwd\n".utf8))
    else {
      Issue.record("a playlist of a local file was accepted")
      return
    }
  }

  @Test("an audio answer is a station at once: one page from its icy headers, never read whole")
  func liveAnswer() throws {
    // 2 MB of "audio" sent slowly: a feed load that read it whole would take minutes.
    let stream = Data(repeating: 0xFF, count: 2_000_000)
    let server = try LoopbackHTTPServer { request in
      switch request.path {
      case "/live":
        return .throttled(stream, contentType: "audio/mpeg", bytesPerSecond: 16_000)
      case "/html":
        return .throttled(
          Data(String(repeating: "<p>not a stream</p>", count: 100_000).utf8),
          contentType: "text/html", bytesPerSecond: 2_000_000)
      default:
        return .respond(status: 404, body: Data())
      }
    }
    defer { server.stop() }
    let feeds = FeedSource()
    let began = Date()
    let page = try load(feeds, server.url("/live")).get()
    #expect(Date().timeIntervalSince(began) < 3)
    #expect(page.songs.count == 1)
    #expect(page.songs[0].title == "127.0.0.1")
    #expect(page.songs[0].displayName == "Live radio")
    guard case .station(let url, _)? = page.kind else {
      Issue.record("not a station: \(String(describing: page.kind))")
      return
    }
    #expect(url == server.url("/live"))
    // A 2 MB HTML page is a document, refused as a feed with a message.
    guard case .failure(let error) = load(feeds, server.url("/html")) else {
      Issue.record("an HTML page was taken for songs")
      return
    }
    #expect(!error.userMessage.isEmpty)
  }

  private func load(_ feeds: FeedSource, _ url: URL) -> Result<SourcePage, FeedLoadError> {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<SourcePage, FeedLoadError>?
    feeds.loadPage(url, cursor: nil) {
      result = $0
      done.signal()
    }
    done.wait()
    return result!
  }
}
