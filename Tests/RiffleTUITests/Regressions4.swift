import RiffleCore
import Testing

@testable import RiffleTUI

// Bugs found in review, each pinned by the test that first showed it; all fixed, kept so
// they stay fixed.

@Suite("Regressions of issue 4 in RiffleTUI")
struct TUIRegressions4Tests {
  /// `EscapeDecoder.sequence` returns nil for a sequence it cannot name, and `decode` then passes
  /// the ESC and every byte after it on as ordinary keys. The first of those bytes is always "[",
  /// which `KeyMap.standard` binds to "seek back 10 s". So a key the terminfo entry does not
  /// describe (Ctrl+Delete is CSI 3;5~ in xterm), a malformed mouse report, or a report that a
  /// read cut in two (the decoder keeps nothing between reads, so both halves arrive loose)
  /// moves the song back 10 s; a cut report's "M"/"m" and digits arrive as keys too. The brief
  /// for these: a bad sequence may at worst drop itself.
  @Test(
    "The bytes of an escape sequence never reach the key map as keys",
    arguments: [
      "\u{1B}[3;5~",  // Ctrl+Delete, not in every terminfo
      "\u{1B}[99~",  // no such key
      "\u{1B}[<0;10M",  // a mouse report with two numbers
      "\u{1B}[<0;10;5",  // the first half of a report cut by the end of a read
      "\u{1B}[" + String(repeating: "1;", count: 20) + "9~",  // 40+ characters of junk
    ])
  func sequenceBytesAreNotKeys(sequence: String) {
    let keys = EscapeDecoder.decode(rawKeys(sequence))
    let actions = keys.compactMap { KeyMap.standard.action(for: $0) }
    #expect(actions.isEmpty, "\(sequence.debugDescription) -> \(keys) -> \(actions)")
    #expect(!keys.contains(.char("[")), "\(sequence.debugDescription) -> \(keys)")
  }

  /// `MouseEvent.parseSGR` tests bit 64 (wheel) and bit 32 (motion) and takes the button from
  /// the low two bits, but never looks at bit 128, which xterm sets for buttons 8 to 11 (a
  /// mouse's back and forward thumb buttons): code 128 comes out as a press of button 0, the
  /// left button. So the back button over "Next" pages, and over the bar seeks.
  @Test("The back and forward thumb buttons (codes 128 to 131) are not a left click")
  func extraButtonsAreNotLeft() throws {
    for code in 128...131 {
      let keys = EscapeDecoder.decode(rawKeys("\u{1B}[<\(code);50;22M"))
      #expect(keys != [.mouse(MouseEvent(.press(button: 0), x: 49, y: 21))], "code \(code)")
      guard case .mouse(let event) = keys.first else { continue }
      var input = PointerInput()
      let state = PageFixture.playing()
      let layout = try #require(PageLayout.make(width: 80, height: 24, state: state))
      let press = input.handle(event, layout: layout, state: state)
      let release = input.handle(
        MouseEvent(.release, x: 49, y: 21), layout: layout, state: state)
      #expect(press == nil && release == nil, "code \(code): \(String(describing: release))")
    }
  }
}
