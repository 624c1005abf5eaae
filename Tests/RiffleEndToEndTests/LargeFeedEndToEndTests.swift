import Foundation
import RiffleTestSupport
import Testing

@Suite("A large feed end to end (tmux, loopback HTTP)", .serialized)
struct LargeFeedEndToEndTests {
  /// A paging envelope of `count` songs in every entry shape, every 1000th entry a clip not
  /// ready yet (status "queued", no audio);
  /// titles carry escapes, and unknown members of every type sit between the known ones.
  static func feed(count: Int) -> String {
    var entries: [String] = []
    entries.reserveCapacity(count)
    for i in 0..<count {
      if i % 1000 == 999 {
        entries.append(#"{"id": "broken-\#(i)", "title": "No Audio", "status": "queued"}"#)
        continue
      }
      let audio = i % 2 == 0 ? "/audio/short-1.mp3" : "audio/short-2.mp3"
      let song =
        #"{"id": "song-\#(i)", "title": "Caf\u00e9 \ud83c\udfb5 No. \#(i)", "#
        + #""display_name": "Artist \#(i % 97)", "handle": "@artist\#(i % 97)", "#
        + #""metadata": {"tags": ["a", {"b": null}], "duration": 2.0}, "#
        + #""audio_url": "\#(audio)", "upvote_count": \#(i % 5000)}"#
      entries.append(i % 3 == 0 ? #"{"clip": \#(song), "relative_index": 1.0}"# : song)
    }
    return #"{"songs": [\#(entries.joined(separator: ",\n"))], "page": 0, "total_pages": 1, "#
      + #""extra": {"nested": [[[]]], "text": "\"}{]["}}"#
  }

  @Test("a feed of 100,000 songs loads over HTTP, pages and plays, its unready entries noted")
  func largeFeed() throws {
    let harness = try PlayerHarness(feed: Self.feed(count: 100_000))
    let tmux = try harness.start()
    // A debug build on a busy machine decodes slowly: give the load time. The status line is
    // waited for too: under load tmux can show the first frame half drawn (title and counter
    // there, the controls and the status line not yet).
    let first = try tmux.waitForAll(
      "Café 🎵 No. 0", "1 / 99900", "100 songs not ready yet", "Next ▶|", timeout: 90)
    #expect(first.contains("Artist 0"))
    #expect(first.contains("@artist0"))
    tmux.sendKeys("Right")
    let second = try tmux.waitForAll("Café 🎵 No. 1", "2 / 99900", timeout: 20)
    #expect(second.contains("♡ 1"))
    _ = try tmux.waitUntil(timeout: 20) { _ in
      harness.server.requests.contains { $0.path == "/audio/short-2.mp3" }
    }
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit(timeout: 20) == 0)
  }
}
