import RiffleCore
import Testing

@testable import RiffleTUI

// Bugs found in review, each pinned by the test that first showed it; all fixed, kept so
// they stay fixed.

@Suite("Regressions in RiffleTUI")
struct TUIRegressionTests {
  /// `put` clears the other half of a wide character it overwrites (`clearWideNeighbours`), but
  /// `fill` does not: filling over the right half of "日" leaves "日" with no continuation
  /// after it, and filling over the left half leaves a continuation with no "日" before it.
  @Test(
    "fill over half of a wide character blanks the other half",
    arguments: [(0, 1), (1, 1), (1, 2)])
  func fillOverHalfAWideCharacter(x: Int, width: Int) {
    var screen = Screen(width: 6, height: 1)
    screen.put("日本語", x: 0, y: 0, style: .plain)
    screen.fill(x: x, y: 0, width: width, height: 1, style: CellStyle(background: .rgb(9, 9, 9)))
    #expect(brokenWideCell(in: screen) == nil, "\(screen.cells.map(\.text))")
    #expect(DisplayWidth.of(screen.lines[0]) == 6)
  }

  /// What the `fill` bug does to a page. At 47x9 the help box (columns 3 to 42) is filled over
  /// the title row, whose CJK characters start at column 2: the box's left edge keeps "夜" in
  /// column 2 without its second cell, and its right edge leaves the second cell of a
  /// character in column 43 without its first. ncurses is then told to draw a space into the
  /// right half of "夜" and to draw nothing at column 43, so the terminal shows a clipped glyph
  /// on the left and whatever the previous frame left on the right.
  @Test("The help box over a CJK title leaves no wide character cut in half")
  func helpOverWideTitle() {
    var state = Scene.wideTitle.state
    state.overlay = .help
    let screen = PageView().render(state, width: 47, height: 9)
    let lines = screen.lines
    let wrongRows = lines.indices.filter { DisplayWidth.of(lines[$0]) != 47 }
    #expect(wrongRows.isEmpty, "rows wider or narrower than 47: \(wrongRows)")
    #expect(brokenWideCell(in: screen) == nil)
  }

  /// The help box is `min(height - 2, rows + 4)` high and draws a key row only while it is above
  /// the box's last line. With seven bindings (since "[ ]" and "r" were added) a 12-row
  /// terminal gets a 10-row box with room for six: "q quit" is cut, and the hint line below,
  /// cut to 36 columns, ends before "q quit" too, so nothing on screen says how to quit.
  @Test("The help overlay at 40x12 lists every key, quit included")
  func helpListsQuitAt40x12() {
    var state = Scene.playing.state
    state.overlay = .help
    let screen = PageView().render(state, width: 40, height: 12)
    #expect(screen.text.contains("quit"), "\n\(screen.text)")
  }

  /// A zero-width character that is its own grapheme (U+200B ZERO WIDTH SPACE, U+2060 WORD
  /// JOINER) is appended to the cell before it. After a wide character that cell is the
  /// continuation cell, whose text is "" by definition: appending makes it an ordinary cell, so
  /// `NCursesTerminal.flush` draws it at the wide character's second column instead of skipping
  /// it. ZWSP after CJK text is common: it marks where a line may break.
  @Test("A zero-width character after a wide one leaves the continuation cell alone")
  func zeroWidthAfterWide() {
    var screen = Screen(width: 4, height: 1)
    screen.put("日\u{200B}x", x: 0, y: 0, style: .plain)
    #expect(screen[1, 0].isContinuation)
    #expect(screen[2, 0].text == "x")
    #expect(brokenWideCell(in: screen) == nil)
  }

  /// `put` at a negative x (text scrolled in from the left, as a marquee would) measures its
  /// room as `width - max(0, x)`, i.e. as if the text started at column 0, then writes from
  /// column x. So the cut comes |x| columns early: the "…" lands at column 7 of 10 and columns
  /// 8 and 9 keep whatever was there. No view passes a negative x today.
  @Test("Text starting left of the screen is cut at the right edge, not before it")
  func negativeX() {
    var screen = Screen(width: 10, height: 1)
    screen.put("##########", x: 0, y: 0, style: .plain)
    screen.put("abcdefghijklmnop", x: -2, y: 0, style: .plain)
    #expect(screen.lines == ["cdefghijk…"])
  }
}
