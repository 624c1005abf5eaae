import Foundation
import Testing

@testable import RiffleCore

// Bugs found by review, each pinned by the test that first showed it.

@Suite("Regressions in RiffleCore")
struct CoreRegressionTests {
  /// xterm and other VT parsers abort a control string when an ESC that is not part of ESC \
  /// arrives, and start a new escape sequence with it. `skipString` returns the byte after that
  /// ESC as ordinary text, so the rest of the next sequence leaks onto the screen as "[31m".
  @Test("An OSC cut short by the next escape sequence leaves no part of that sequence")
  func oscInterruptedByEscape() {
    #expect(TextSanitizer.sanitize("\u{1B}]0;title\u{1B}[31mRed") == "Red")
    #expect(TextSanitizer.sanitize("\u{1B}]0;a\u{1B}]0;b\u{07}Song") == "Song")
  }

  /// The same for a CSI: an ESC inside it ends it, and the ESC is dropped with it, so the
  /// following sequence's "]0;pwn" is printed as text.
  @Test("A CSI cut short by the next escape sequence leaves no part of that sequence")
  func csiInterruptedByEscape() {
    #expect(TextSanitizer.sanitize("\u{1B}[31\u{1B}]0;pwn\u{07}Song") == "Song")
    #expect(TextSanitizer.sanitize("\u{1B}[1\u{1B}[0mSong") == "Song")
  }

  /// A song whose feed gave no title is stored with title "" (FeedDecoder's placeholder), so
  /// the error reads "Cannot play “”: …". The "this song" fallback only covers the case with no
  /// song at all.
  @Test("A playback failure of an untitled song says 'this song', not empty quotes")
  func playbackFailedUntitled() {
    var state = Fixture.loaded(at: 0, playID: 1, playback: .loading)
    state.songs[0].title = ""
    var store = ReducerTestStore(state)
    store.send(.playbackFailed(playID: 1, "HTTP 404")) {
      $0.playback = .failed("HTTP 404")
      $0.message = .init(.error, "Cannot play this song: HTTP 404")
    }
  }
}
