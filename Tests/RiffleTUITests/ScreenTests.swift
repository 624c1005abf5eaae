import RiffleCore
import Testing

@testable import RiffleTUI

private let red = CellStyle(foreground: .rgb(255, 0, 0))
private let blue = CellStyle(foreground: .rgb(0, 0, 255))

@Suite("Screen: writing text")
struct ScreenPutTests {
  @Test("put writes one cell per character in the style, returns the columns used")
  func putPlain() {
    var screen = Screen(width: 10, height: 2)
    let used = screen.put("Neon", x: 2, y: 1, style: red)
    #expect(used == 4)
    #expect(screen.lines == ["          ", "  Neon    "])
    #expect((2..<6).allSatisfy { screen[$0, 1].style == red })
    #expect(screen[1, 1].style == .plain && screen[6, 1].style == .plain)
  }

  @Test("Text is cut at the right edge with an ellipsis")
  func putCutAtEdge() {
    var screen = Screen(width: 8, height: 1)
    let used = screen.put("Paper Lanterns", x: 2, y: 0, style: red)
    #expect(used == 6)
    #expect(screen.lines == ["  Paper…"])
  }

  @Test("maxWidth cuts earlier than the edge and leaves the rest of the row alone")
  func putMaxWidth() {
    var screen = Screen(width: 12, height: 1)
    screen.put("############", x: 0, y: 0, style: blue)
    let used = screen.put("Slow Orbit", x: 1, y: 0, style: red, maxWidth: 5)
    #expect(used == 5)
    #expect(screen.lines == ["#Slow…######"])
    #expect(screen[6, 0].style == blue)
  }

  @Test("Text that fits exactly is not cut")
  func putExactFit() {
    var screen = Screen(width: 4, height: 1)
    #expect(screen.put("abcd", x: 0, y: 0, style: red) == 4)
    #expect(screen.lines == ["abcd"])
  }

  @Test(
    "Rows and columns off the screen write nothing", arguments: [(0, -1), (0, 3), (5, 0), (9, 1)])
  func putOffScreen(x: Int, y: Int) {
    var screen = Screen(width: 5, height: 3)
    #expect(screen.put("abc", x: x, y: y, style: red) == 0)
    #expect(screen == Screen(width: 5, height: 3))
  }

  @Test("A wide character takes its cell and a continuation cell after it")
  func wideCharacter() {
    var screen = Screen(width: 6, height: 1)
    let used = screen.put("日本", x: 1, y: 0, style: red)
    #expect(used == 4)
    #expect(screen.cells.map(\.text) == [" ", "日", "", "本", "", " "])
    #expect(screen[2, 0].isContinuation && screen[4, 0].isContinuation)
    #expect(screen[2, 0].style == red)
    #expect(screen.lines == [" 日本 "])
    #expect(DisplayWidth.of(screen.lines[0]) == 6)
  }

  @Test("A wide character that would cross the edge is replaced by the ellipsis")
  func wideCharacterAtEdge() {
    var screen = Screen(width: 5, height: 1)
    let used = screen.put("日本語", x: 0, y: 0, style: red)
    #expect(screen.lines == ["日本…"])
    #expect(used == 5)
    var narrow = Screen(width: 4, height: 1)
    narrow.put("日本語", x: 0, y: 0, style: red)
    // "日本" would fill the row but leave no room for the "…": one column stays blank.
    #expect(narrow.lines == ["日… "])
    #expect(!narrow[3, 0].isContinuation)
  }

  @Test("Emoji with a variation selector or a ZWJ sequence fill two cells as one character")
  func emoji() {
    var screen = Screen(width: 8, height: 1)
    #expect(screen.put("🌧️👩‍👩‍👧x", x: 0, y: 0, style: red) == 5)
    #expect(screen.cells.map(\.text) == ["🌧️", "", "👩‍👩‍👧", "", "x", " ", " ", " "])
  }

  @Test("Writing over the right half of a wide character blanks its left half")
  func overwriteRightHalf() {
    var screen = Screen(width: 4, height: 1)
    screen.put("日本", x: 0, y: 0, style: red)
    screen.put("x", x: 1, y: 0, style: blue)
    #expect(screen.cells.map(\.text) == [" ", "x", "本", ""])
    #expect(screen.lines == [" x本"])
  }

  @Test("Writing over the left half of a wide character blanks its right half")
  func overwriteLeftHalf() {
    var screen = Screen(width: 4, height: 1)
    screen.put("日本", x: 0, y: 0, style: red)
    screen.put("x", x: 2, y: 0, style: blue)
    #expect(screen.cells.map(\.text) == ["日", "", "x", " "])
    #expect(DisplayWidth.of(screen.lines[0]) == 4)
  }

  @Test("A wide character written across two wide characters blanks both outer halves")
  func wideOverTwoWide() {
    var screen = Screen(width: 4, height: 1)
    screen.put("日本", x: 0, y: 0, style: red)
    screen.put("中", x: 1, y: 0, style: blue)
    #expect(screen.cells.map(\.text) == [" ", "中", "", " "])
    #expect(screen.lines == [" 中 "])
  }

  @Test("A combining mark stays in the cell of the letter it marks")
  func combiningMarks() {
    var screen = Screen(width: 6, height: 1)
    #expect(screen.put("Cafe\u{301}!", x: 0, y: 0, style: red) == 5)
    #expect(screen[3, 0].text == "e\u{301}")
    #expect(screen[4, 0].text == "!")
    #expect(DisplayWidth.of(screen.lines[0]) == 6)
  }

  @Test("A zero-width character rides on the cell before it")
  func zeroWidthRides() {
    var screen = Screen(width: 4, height: 1)
    #expect(screen.put("a\u{200B}b", x: 0, y: 0, style: red) == 2)
    #expect(screen[0, 0].text == "a\u{200B}")
    #expect(screen[1, 0].text == "b")
  }

  @Test("A combining mark with nothing before it in the text is dropped")
  func loneCombiningMark() {
    var screen = Screen(width: 4, height: 1)
    screen.put("ab", x: 0, y: 0, style: blue)
    #expect(screen.put("\u{301}c", x: 1, y: 0, style: red) == 1)
    #expect(screen[0, 0].text == "a")
    #expect(screen[1, 0].text == "c")
  }

  @Test("Escape sequences, controls and bidi overrides never reach a cell")
  func sanitized() {
    var screen = Screen(width: 30, height: 1)
    let used = screen.put(
      "\u{1B}]0;pwned\u{07}\u{1B}[31mRed\u{1B}[0m\t\u{202E}txet\u{202C}\u{9B}2J\u{7F}!",
      x: 0, y: 0, style: red)
    #expect(screen.text == "Red txet!")
    #expect(used == 9)
    let scalars = screen.cells.flatMap { $0.text.unicodeScalars }
    #expect(!scalars.contains(where: isForbidden))
  }

  @Test("Sanitizing happens before measuring, so escape sequences take no columns")
  func sanitizedBeforeCut() {
    var screen = Screen(width: 5, height: 1)
    screen.put("\u{1B}[38;5;196mabcde", x: 0, y: 0, style: red)
    #expect(screen.lines == ["abcde"])
  }
}

@Suite("Screen: centring, filling, styling")
struct ScreenLayoutTests {
  @Test("putCentered centres in the screen; an odd gap leaves the extra column on the right")
  func centred() {
    var screen = Screen(width: 10, height: 1)
    #expect(screen.putCentered("abc", y: 0, style: red) == 3)
    #expect(screen.lines == ["   abc    "])
  }

  @Test("putCentered centres in a span and measures wide characters by columns")
  func centredInSpan() {
    var screen = Screen(width: 12, height: 1)
    screen.putCentered("日本", x: 2, y: 0, width: 8, style: red)
    #expect(screen.lines == ["    日本    "])
    #expect(screen[4, 0].text == "日")
  }

  @Test("putCentered of text wider than the span starts at the span and is cut to it")
  func centredTooWide() {
    var screen = Screen(width: 10, height: 1)
    screen.putCentered("Terminal too small", x: 1, y: 0, width: 6, style: red)
    #expect(screen.lines == [" Termi…   "])
  }

  @Test("putCentered measures the text as it will be shown, without its escape sequences")
  func centredSanitized() {
    var screen = Screen(width: 9, height: 1)
    screen.putCentered("\u{1B}[1mabc\u{1B}[0m", y: 0, style: red)
    #expect(screen.lines == ["   abc   "])
  }

  @Test("fill is clipped to the screen on every side")
  func fillClipped() {
    var screen = Screen(width: 4, height: 3)
    screen.fill(x: -2, y: -1, width: 4, height: 3, style: blue)
    screen.fill(x: 3, y: 2, width: 9, height: 9, style: red)
    let styles = screen.cells.map { $0.style == blue ? "b" : $0.style == red ? "r" : "." }
    #expect(styles.joined() == "bb..bb.....r")
  }

  @Test("fill with nothing inside the screen changes nothing")
  func fillOutside() {
    var screen = Screen(width: 4, height: 3)
    screen.fill(x: 4, y: 0, width: 2, height: 2, style: blue)
    screen.fill(x: 0, y: -3, width: 2, height: 3, style: blue)
    screen.fill(x: 0, y: 0, width: 0, height: 3, style: blue)
    #expect(screen == Screen(width: 4, height: 3))
  }

  @Test("restyle changes styles on one row, clipped, and keeps the text")
  func restyle() {
    var screen = Screen(width: 5, height: 2)
    screen.put("abcde", x: 0, y: 0, style: red)
    screen.restyle(x: 3, y: 0, width: 9) { $0.bold = true }
    screen.restyle(x: 0, y: 5, width: 9) { $0.bold = true }
    #expect(screen.lines[0] == "abcde")
    #expect(
      screen.cells.map(\.style.bold) == [false, false, false, true, true]
        + Array(repeating: false, count: 5))
  }

  @Test("A screen of zero or negative size has no cells and no lines")
  func emptyScreen() {
    let screen = Screen(width: -3, height: 0)
    #expect(screen.width == 0 && screen.height == 0)
    #expect(screen.cells.isEmpty && screen.lines.isEmpty && screen.text == "")
  }

  @Test("text trims trailing spaces of each row; lines keep them")
  func textAndLines() {
    var screen = Screen(width: 5, height: 2)
    screen.put("ab", x: 1, y: 0, style: red)
    #expect(screen.lines == [" ab  ", "     "])
    #expect(screen.text == " ab\n")
  }
}

@Suite("BufferTerminal")
@MainActor
struct BufferTerminalTests {
  @Test("A progress tick changes only the clock and the bar's few cells")
  func progressTickSendsFewCells() {
    let terminal = BufferTerminal(width: 80, height: 24)
    var state = PageFixture.playing(position: 12)
    terminal.flush(PageView().render(state, width: 80, height: 24))
    #expect(terminal.flushCount == 1)
    state.position = 13
    terminal.flush(PageView().render(state, width: 80, height: 24))
    #expect(terminal.flushCount == 2)
    // "0:12" -> "0:13" is one cell; the knob moves two cells along the 62-cell bar: the old
    // knob and the next cell fill in and the one after becomes the knob.
    #expect(terminal.lastChangedCells == 4)
  }

  @Test("The same screen twice sends nothing the second time")
  func sameScreenSendsNothing() {
    let terminal = BufferTerminal(width: 40, height: 12)
    let screen = PageView().render(PageFixture.playing(), width: 40, height: 12)
    terminal.flush(screen)
    terminal.flush(screen)
    #expect(terminal.lastChangedCells == 0)
    #expect(terminal.screen == screen)
  }

  @Test("A screen of another size counts every cell as changed")
  func newSizeSendsEverything() {
    let terminal = BufferTerminal(width: 40, height: 12)
    terminal.flush(Screen(width: 30, height: 8))
    #expect(terminal.lastChangedCells == 240)
  }

  @Test("The first flush counts only the cells that differ from a blank screen")
  func firstFlushAgainstBlank() {
    let terminal = BufferTerminal(width: 10, height: 2)
    var screen = Screen(width: 10, height: 2)
    screen.put("abc", x: 0, y: 1, style: .plain)
    terminal.flush(screen)
    #expect(terminal.lastChangedCells == 3)
  }

  @Test("Keys are delivered once, in order; resized() blanks the screen at the new size")
  func keysAndResize() {
    let terminal = BufferTerminal(width: 10, height: 2)
    terminal.pendingKeys = [.right, .char(" "), .resize]
    #expect(terminal.readKeys() == [.right, .char(" "), .resize])
    #expect(terminal.readKeys() == [])
    terminal.size = (20, 5)
    terminal.resized()
    #expect(terminal.screen == Screen(width: 20, height: 5))
    #expect(!terminal.restored)
    terminal.restore()
    #expect(terminal.restored)
  }
}

@Suite("Palette")
struct PaletteTests {
  @Test(
    "Pure colours map to the corners of the 6x6x6 cube",
    arguments: [
      ((0, 0, 0), 16), ((255, 0, 0), 196), ((0, 255, 0), 46), ((0, 0, 255), 21),
      ((255, 255, 0), 226), ((0, 255, 255), 51), ((255, 0, 255), 201), ((255, 255, 255), 231),
    ] as [((UInt8, UInt8, UInt8), Int)])
  func pureColours(rgb: (UInt8, UInt8, UInt8), index: Int) {
    #expect(Palette.nearest256(rgb.0, rgb.1, rgb.2) == index)
  }

  @Test(
    "Greys between the cube's steps map to the grey ramp",
    arguments: [
      ((8, 8, 8), 232), ((18, 18, 18), 233), ((128, 128, 128), 244), ((238, 238, 238), 255),
      ((30, 30, 40), 235), ((14, 14, 20), 233),
    ] as [((UInt8, UInt8, UInt8), Int)])
  func greys(rgb: (UInt8, UInt8, UInt8), index: Int) {
    #expect(Palette.nearest256(rgb.0, rgb.1, rgb.2) == index)
  }

  @Test("A colour between cube steps goes to the nearer step, or to a grey when one is nearer")
  func betweenSteps() {
    #expect(Palette.nearest256(114, 0, 0) == 52)  // nearer 95 than 135
    #expect(Palette.nearest256(116, 0, 0) == 88)  // nearer 135 than 95
    // A very dark red is nearer the grey (18, 18, 18) than black or (95, 0, 0).
    #expect(Palette.nearest256(47, 0, 0) == 233)
    #expect(Palette.nearest256(255, 90, 120) == 204)  // the accent colour
    #expect(Palette.nearest256(14, 14, 20) == 233)  // the band
  }

  @Test("nearest256 returns an entry at the least distance of all 240 it can choose from")
  func nearestOfAll() {
    let entries = (16...255).map { index in
      let (r, g, b) = Palette.rgb(of: UInt8(index))
      return (index, Int(r), Int(g), Int(b))
    }
    func distance(_ e: (Int, Int, Int, Int), _ r: Int, _ g: Int, _ b: Int) -> Int {
      (e.1 - r) * (e.1 - r) + (e.2 - g) * (e.2 - g) + (e.3 - b) * (e.3 - b)
    }
    for r in stride(from: 0, through: 255, by: 15) {
      for g in stride(from: 0, through: 255, by: 17) {
        for b in stride(from: 0, through: 255, by: 13) {
          let chosen = Palette.nearest256(UInt8(r), UInt8(g), UInt8(b))
          let best = entries.map { distance($0, r, g, b) }.min()!
          let got = distance(entries[chosen - 16], r, g, b)
          #expect(got == best, "(\(r), \(g), \(b)) -> \(chosen)")
        }
      }
    }
  }

  @Test("Every entry from 16 to 255 maps back to itself")
  func roundTrip() {
    for index in 16...255 {
      let (r, g, b) = Palette.rgb(of: UInt8(index))
      #expect(Palette.nearest256(r, g, b) == index, "entry \(index) = (\(r), \(g), \(b))")
    }
  }

  @Test("The first 16 entries are xterm's theme colours")
  func basicEntries() {
    #expect(Palette.rgb(of: 0) == (0, 0, 0))
    #expect(Palette.rgb(of: 1) == (205, 0, 0))
    #expect(Palette.rgb(of: 9) == (255, 0, 0))
    #expect(Palette.rgb(of: 15) == (255, 255, 255))
  }

  @Test(
    "nearestBasic picks red 1, green 2, blue 4 and their mixes, in ANSI order",
    arguments: [
      ((0, 0, 0), 0), ((255, 0, 0), 1), ((0, 255, 0), 2), ((255, 255, 0), 3), ((0, 0, 255), 4),
      ((255, 0, 255), 5), ((0, 255, 255), 6), ((255, 255, 255), 7), ((100, 100, 100), 0),
      ((240, 240, 245), 7), ((255, 90, 100), 1), ((14, 14, 20), 0),
    ] as [((UInt8, UInt8, UInt8), Int)])
  func basic(rgb: (UInt8, UInt8, UInt8), index: Int) {
    #expect(Palette.nearestBasic(rgb) == index)
  }
}
