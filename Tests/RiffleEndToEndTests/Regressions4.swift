import Foundation
import RiffleTestSupport
import Testing

// Bugs found in review, each pinned by the test that first showed it; all fixed, kept so
// they stay fixed. Helpers are in InputEndToEndTests.swift.

@Suite("Regressions of issue 4 end to end (tmux)", .serialized)
struct EndToEndRegressions4Tests {
  /// The xterm terminfo entries (xterm, xterm-256color, xterm-direct) describe the SGR mouse
  /// prefix as the key `kmous=\E[<`. NCursesTerminal turns ncurses' mouse off (`mousemask(0)`)
  /// but keeps `keypad` on, so ncurses still matches "ESC [ <" as KEY_MOUSE itself and
  /// EscapeDecoder never sees the report: under these TERMs no click, drag or wheel does
  /// anything. (tmux-256color, screen-256color and linux describe kmous as "\E[M", which an SGR
  /// report does not match, so there the mouse works; see InputEndToEndTests.clicks.)
  @Test(
    "A click on Next pages under the xterm terminfo entries",
    arguments: ["xterm-256color", "xterm", "xterm-direct"])
  func clickUnderXterm(term: String) throws {
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: PlayerHarness.longRoutes)
    let tmux = try harness.start(term: term)
    try tmux.waitForAll("First Light", "1 / 3", "Next ▶|")
    tmux.sendLiteral(sgrClick(Layout80x24.next.lowerBound + 2, Layout80x24.controlsRow))
    try tmux.waitForAll("Second Wind", "2 / 3")
    tmux.sendLiteral("\u{1B}[<64;40;5M")
    try tmux.waitForAll("First Light", "1 / 3")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  /// Where the terminfo entry does not name a key the terminal sends (Ctrl+Delete, CSI 3;5~, is
  /// in neither linux nor screen-256color), ncurses hands over its bytes and EscapeDecoder,
  /// which cannot name it either, passes them on as keys: ESC, "[", "3", ";", "5", "~". "[" is
  /// "seek back 10 s", so Ctrl+Delete jumps the song back. (Unit test with the cause:
  /// RiffleTUITests/Regressions4.swift.)
  @Test(
    "A key the terminfo does not describe does not seek back",
    arguments: ["linux", "screen-256color"])
  func unknownSequenceDoesNotSeek(term: String) throws {
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: PlayerHarness.longRoutes)
    let tmux = try harness.start(term: term)
    let paused = try startPaused(tmux)
    let start = try #require(clock(paused))
    tmux.sendKeys("]", "]")
    try tmux.waitUntil { clock($0) == start + 20 }
    // Ctrl+Delete, "]", then "?": once the help shows, everything before it was read.
    tmux.sendLiteral("\u{1B}[3;5~")
    tmux.sendKeys("]", "?")
    let after = try tmux.waitFor("show / hide this help")
    #expect(clock(after) == start + 30, "Ctrl+Delete moved the clock:\n\(after)")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }
}
