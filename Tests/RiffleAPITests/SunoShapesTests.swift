import Foundation
import RiffleCore
import RiffleTestSupport
import Testing

@testable import RiffleAPI

private let base = URL(string: "https://studio-api.example.com/api/feed")!

private func decode(_ json: String) throws -> FeedPage {
  try FeedDecoder.decode(Data(json.utf8), base: base)
}

/// A clip as Suno's web API writes one, with the fields Riffle does not read around it.
private func clip(
  _ id: String, title: String = "Walrus Rider", status: String? = "complete",
  audio: String? = nil, artist: String = #""display_name": "Stei Camel""#,
  extra: String = #""upvote_count": 23"#
) -> String {
  let audioField = audio.map { #""audio_url": "\#($0)","# } ?? ""
  let statusField = status.map { #""status": "\#($0)","# } ?? ""
  return #"""
    {"id": "\#(id)", "entity_type": "song_schema", "title": "\#(title)", \#(statusField)
     \#(audioField) "video_url": "https://cdn1.example.com/\#(id).mp4",
     "image_url": "https://cdn2.example.com/\#(id).jpeg", "model_name": "chirp-v3",
     "metadata": {"tags": "sea shanty", "prompt": "Ohhh", "duration": 261.9, "has_vocal": true},
     "handle": "steicamel", \#(artist), "play_count": 40, \#(extra)}
    """#
}

private func playable(_ id: String) -> String {
  clip(id, audio: "https://cdn1.example.com/\(id).mp3")
}

@Suite("Suno as it really answers")
struct SunoShapesTests {
  @Test("A playlist's songs are its playlist_clips[].clip, in order")
  func playlist() throws {
    let page = try decode(
      #"""
      {"entity_type": "playlist_schema", "id": "new_songs", "name": "New Songs",
       "image_url": "https://cdn2.example.com/cover.jpeg", "upvote_count": 9, "reaction": null,
       "playlist_clips": [{"clip": \#(playable("a1")), "relative_index": 1},
                          {"clip": \#(playable("a2")), "relative_index": 2}],
       "num_total_results": 2, "current_page": 0}
      """#)
    #expect(page.songs.map(\.id) == ["a1", "a2"])
    #expect(page.songs[0].title == "Walrus Rider")
    #expect(page.songs[0].displayName == "Stei Camel")
    #expect(page.songs[0].handle == "steicamel")
    #expect(page.songs[0].likeCount == 23)
    #expect(page.songs[0].duration == 261.9)
    #expect(page.songs[0].audioURL.absoluteString == "https://cdn1.example.com/a1.mp3")
    #expect(page.skipped == [] && page.notReady == [])
  }

  @Test("Suno's current_page and num_total_results page on until the results are all seen")
  func sunoPaging() throws {
    func paging(_ current: Int, total: Int, clips: Int) throws -> FeedPaging? {
      let list = (0..<clips).map { playable("c\(current)-\($0)") }.joined(separator: ",")
      return try decode(
        #"{"clips": [\#(list)], "num_total_results": \#(total), "current_page": \#(current)}"#
      ).paging
    }
    // More to come: the next page number, no page size sent (Suno's pages are its own size).
    #expect(try paging(0, total: 45, clips: 20) == FeedPaging(page: 0))
    #expect(try paging(0, total: 45, clips: 20)?.nextPage == 1)
    #expect(try paging(2, total: 45, clips: 20)?.nextPage == 3)
    // All seen, counting from 1 (so a feed counting from 0 is never cut short): the end.
    #expect(try paging(1, total: 2, clips: 2)?.nextPage == nil)
    #expect(try paging(3, total: 45, clips: 20)?.nextPage == nil)
    // An empty page ends it whatever the total says.
    #expect(try paging(4, total: 45, clips: 0)?.nextPage == nil)
    // Envelope paging (page, total_pages) wins where both are given.
    let both = try decode(
      #"{"clips": [\#(playable("x"))], "page": 2, "total_pages": 2, "current_page": 0, "num_total_results": 99}"#
    )
    #expect(both.paging == FeedPaging(page: 2, totalPages: 2))
  }

  @Test("A profile's songs are its clips")
  func profile() throws {
    let page = try decode(
      #"""
      {"handle": "steicamel", "display_name": "Stei Camel", "num_total_results": 2,
       "clips": [\#(playable("p1")), \#(playable("p2"))], "current_page": 0}
      """#)
    #expect(page.songs.map(\.id) == ["p1", "p2"])
  }

  @Test("Home sections: only song items become pages; playlists and follows are left out")
  func sections() throws {
    let page = try decode(
      #"""
      {"sections": [
        {"title": "Trending", "section_type": "clips",
         "items": [\#(playable("t1")), {"clip": \#(playable("t2"))}, \#(playable("t1"))]},
        {"title": "Playlists", "items": [
          {"entity_type": "playlist_schema", "id": "pl", "name": "Mix", "upvote_count": 5,
           "image_url": "https://cdn2.example.com/pl.jpeg"}]},
        {"title": "Follow", "items": [
          {"entity_type": "user_schema", "id": "u1", "handle": "someone",
           "display_name": "Someone"}]},
        {"title": "Fresh", "items": [\#(playable("t3")), 7, "x"]},
        {"title": "No items"}, "not a section"
      ]}
      """#)
    #expect(page.songs.map(\.id) == ["t1", "t2", "t3"])
    #expect(page.skipped == [], "a song in two sections is no fault: \(page.skipped)")
  }

  @Test("A bare array of clips and a clip object alone are pages too")
  func bareArrayAndSingleClip() throws {
    #expect(try decode("[\(playable("b1")), \(playable("b2"))]").songs.map(\.id) == ["b1", "b2"])
    let single = try decode(playable("c1"))
    #expect(single.songs.map(\.id) == ["c1"])
    #expect(single.songs.first?.duration == 261.9, "metadata is read from the root as well")
    #expect(try decode(#"{"clip": \#(playable("c2"))}"#).songs.map(\.id) == ["c2"])
    #expect(throws: FeedError.self) { try decode(#"{"name": "not a clip"}"#) }
  }

  @Test("The artist is display_name or artist_name")
  func artistName() throws {
    let page = try decode(
      "[\(clip("n1", audio: "/a.mp3", artist: #""artist_name": "Ana Ruiz""#))]")
    #expect(page.songs.first?.displayName == "Ana Ruiz")
    let both = try decode(
      "[\(clip("n2", audio: "/a.mp3", artist: #""artist_name": "B", "display_name": "A""#))]")
    #expect(both.songs.first?.displayName == "A")
  }

  @Test("A clip still being made, or without audio, is not ready yet: counted, not played")
  func notReady() throws {
    let page = try decode(
      """
      {"clips": [\(clip("r1", status: "streaming", audio: "https://cdn1.example.com/r1.mp3")),
       \(clip("r2", status: "submitted")), \(clip("r3", status: "complete", audio: "")),
       \(clip("r4", status: "error")), \(playable("ok")),
       \(clip("r5", status: nil, audio: nil))]}
      """)
    #expect(page.songs.map(\.id) == ["ok"])
    #expect(
      page.notReady == [
        "entry 1: not ready yet (streaming)", "entry 2: not ready yet (submitted)",
        "entry 3: not ready yet (no audio)", "entry 4: not ready yet (error)",
      ])
    #expect(page.skipped == ["entry 6: no audio URL"], "a plain feed's song has no status")
  }

  @Test("Upvotes come from upvote_count, else the reaction's counts; a reaction L is a like")
  func reactions() throws {
    let page = try decode(
      """
      [\(clip("x1", audio: "/1.mp3", extra: #""reaction": {"reaction_type": "L", "counts": {"upvote": 12}}"#)),
       \(clip("x2", audio: "/2.mp3", extra: #""reaction": "L", "upvote_count": 4"#)),
       \(clip("x3", audio: "/3.mp3", extra: #""reaction": {"reaction_type": "D", "upvote_count": 2}"#)),
       \(clip("x4", audio: "/4.mp3", extra: #""is_liked": false, "reaction": {"reaction_type": "L"}"#)),
       \(clip("x5", audio: "/5.mp3", extra: #""reaction": null"#))]
      """)
    #expect(page.songs.map(\.likeCount) == [12, 4, 2, 0, 0])
    #expect(page.songs.map(\.isLiked) == [true, true, false, false, false])
  }

  @Test("An HTML page answered with 200 is named as such, not as broken JSON")
  func webPage() throws {
    #expect(throws: FeedError.webPage) {
      try decode("\u{FEFF}  <!DOCTYPE html><html><body><form>Sign in</form></body></html>")
    }
    #expect(FeedError.webPage.userMessage.contains("RIFFLE_TOKEN"))
  }
}

@Suite("The feed's sign-in token")
struct FeedTokenTests {
  @Test("The token goes to the feed's own scheme, host and port only")
  func origin() throws {
    let feed = URL(string: "https://studio-api.example.com/api/feed?page=1")!
    let token = try #require(FeedToken("s3cret", for: feed))
    #expect(
      token.header(for: URL(string: "https://studio-api.example.com/api/x")!) == "Bearer s3cret")
    #expect(token.header(for: URL(string: "https://STUDIO-API.example.com:443/y")!) != nil)
    #expect(token.header(for: URL(string: "https://cdn1.example.com/a.mp3")!) == nil)
    #expect(token.header(for: URL(string: "http://studio-api.example.com/api/x")!) == nil)
    #expect(token.header(for: URL(string: "https://studio-api.example.com:8443/x")!) == nil)
    #expect(FeedToken("s3cret", for: URL(fileURLWithPath: "/tmp/feed.json")) == nil)
    #expect(FeedToken("  ", for: feed) == nil)
    #expect(FeedToken("a\r\nX-Evil: 1", for: feed) == nil, "no header can be smuggled in")
  }

  @Test("Sent to the feed, not carried over a redirect to another host; 401 names the setting")
  func sentAndRefused() throws {
    let server = try LoopbackHTTPServer { request in
      switch request.path {
      case "/feed":
        return .respond(
          status: 200, headers: ["Content-Type": "application/json"],
          body: Data("[\(playable("k1"))]".utf8))
      default:
        return .respond(status: 401, body: Data(#"{"detail": "Unauthorized"}"#.utf8))
      }
    }
    defer { server.stop() }
    let feedURL = server.url("/feed")
    let source = FeedSource(token: FeedToken("tok-123", for: feedURL))
    let loaded = load(source, feedURL)
    #expect((try? loaded?.get())?.songs.map(\.id) == ["k1"])
    #expect(server.requests.last?.headers["authorization"] == "Bearer tok-123")

    let refused = load(source, server.url("/private"))
    guard case .failure(let error)? = refused else {
      Issue.record("a 401 must fail: \(String(describing: refused))")
      return
    }
    #expect(error == .signIn(status: 401, host: "127.0.0.1", tokenSent: true))
    #expect(error.userMessage.contains("token in config.toml or RIFFLE_TOKEN"))
    #expect(!error.userMessage.contains("tok-123"))
    #expect(!error.isTransient)
    let anonymous = load(FeedSource(), server.url("/private"))
    if case .failure(let plain)? = anonymous {
      #expect(plain.userMessage.contains("asks for a sign-in (401)"))
    }
  }

  @Test("A redirect to another host does not carry the token")
  func redirect() throws {
    let holder = PortHolder()
    let server = try LoopbackHTTPServer { request in
      if request.path == "/moved" {
        return .respond(
          status: 302, headers: ["Location": "http://localhost:\(holder.port)/feed"], body: Data())
      }
      return .respond(
        status: 200, headers: ["Content-Type": "application/json"],
        body: Data("[\(playable("k2"))]".utf8))
    }
    defer { server.stop() }
    holder.port = server.port
    let start = server.url("/moved")
    let loaded = load(FeedSource(token: FeedToken("tok-456", for: start)), start)
    #expect((try? loaded?.get())?.songs.map(\.id) == ["k2"])
    let requests = server.requests
    #expect(requests.map(\.path) == ["/moved", "/feed"])
    #expect(requests.first?.headers["authorization"] == "Bearer tok-456")
    #expect(requests.last?.headers["authorization"] == nil, "localhost is another host")
  }
}

private final class PortHolder: @unchecked Sendable {
  var port: UInt16 = 0
}

/// Loads one feed page and waits for it.
private func load(_ source: FeedSource, _ url: URL) -> Result<FeedPage, FeedLoadError>? {
  let done = DispatchSemaphore(value: 0)
  nonisolated(unsafe) var result: Result<FeedPage, FeedLoadError>?
  source.load(url) {
    result = $0
    done.signal()
  }
  guard done.wait(timeout: .now() + 20) == .success else {
    Issue.record("the feed load did not finish")
    return nil
  }
  return result
}
