import Foundation
import RiffleCore
import Testing

@testable import RiffleAPI

// Bugs found by review, each pinned by the test that first showed it.

@Suite("Regressions in RiffleAPI")
struct APIRegressionTests {
  /// `JSONValue.int` guards with `d <= Double(Int.max)`, but `Double(Int.max)` rounds up to
  /// 2^63, so 2^63 (written in JSON as 9223372036854775807 or ...808) passes the guard and
  /// `Int(d)` traps: one number in a feed crashes the player. Run in a child process so the
  /// crash fails this test instead of killing the test run.
  @Test("An upvote_count of Int.max does not crash the decoder")
  func hugeUpvoteCountDoesNotCrash() async {
    await #expect(processExitsWith: .success) {
      let json = #"""
        {"songs": [{"id": "a", "audio_url": "https://cdn1.example.com/a.mp3",
                    "upvote_count": 9223372036854775807}]}
        """#
      let page = try? FeedDecoder.decode(
        Data(json.utf8), base: URL(string: "https://cdn.example.com/feed.json")!)
      // Either clamped or treated as missing is fine; crashing is not.
      let count = page?.songs.first?.likeCount ?? -1
      exit(count >= 0 ? 0 : 1)
    }
  }

  @Test("JSONValue.int of 2^63 is nil instead of trapping")
  func intOfTwoToThe63() async {
    await #expect(processExitsWith: .success) {
      let value = JSONValue.number(9_223_372_036_854_775_808.0)
      exit(value.int == nil ? 0 : 1)
    }
  }

  /// `JSONValue.double` rejects non-finite numbers but accepts the strings "inf", "infinity"
  /// and "1e999", which `Double(String)` parses as +infinity, so a song gets an infinite
  /// duration (the clock then shows 0:00 and the progress bar never moves).
  @Test(
    "A duration written as infinite text is unknown, like an infinite number",
    arguments: [#""inf""#, #""Infinity""#, #""1e999""#])
  func infiniteDurationText(raw: String) throws {
    let json = #"{"songs": [{"id": "a", "audio_url": "a.mp3", "duration": \#(raw)}]}"#
    let page = try FeedDecoder.decode(
      Data(json.utf8), base: URL(string: "https://cdn.example.com/feed.json")!)
    #expect(page.songs.count == 1)
    #expect(page.songs.first?.duration == nil)
  }

  /// Numeric ids go through `Double`, which holds integers exactly only up to 2^53. Two
  /// distinct 64-bit ids (snowflake style) collapse to the same text, so the second song is
  /// skipped as a repeat; and the text is in exponent form ("1.7900000000000001e+18").
  @Test("Large numeric ids keep every digit and stay distinct")
  func largeNumericIDs() throws {
    let json = #"""
      {"songs": [
        {"id": 1790000000000000001, "audio_url": "https://cdn1.example.com/1.mp3"},
        {"id": 1790000000000000002, "audio_url": "https://cdn1.example.com/2.mp3"}
      ]}
      """#
    let page = try FeedDecoder.decode(
      Data(json.utf8), base: URL(string: "https://cdn.example.com/feed.json")!)
    #expect(page.songs.map(\.id) == ["1790000000000000001", "1790000000000000002"])
    #expect(page.skipped == [])
  }
}
