import RiffleCore
import Testing

@testable import RiffleTUI

/// Keys as ncurses hands over bytes it has no terminfo entry for: ESC as `.escape`, every other
/// byte as its character (through the terminal's own mapping).
func rawKeys(_ bytes: String) -> [Key] {
  bytes.unicodeScalars.map { NCursesTerminal.key(forChar: $0.value) }
}

/// Decodes what the terminal sent in one read.
private func decode(_ bytes: String) -> [Key] {
  EscapeDecoder.decode(rawKeys(bytes))
}

private func mouse(_ kind: MouseEvent.Kind, _ x: Int, _ y: Int) -> Key {
  .mouse(MouseEvent(kind, x: x, y: y))
}

@Suite("EscapeDecoder: SGR mouse reports")
struct EscapeDecoderMouseTests {
  @Test("A press reports its button at 0-based cells")
  func press() {
    #expect(decode("\u{1B}[<0;10;5M") == [mouse(.press(button: 0), 9, 4)])
    #expect(decode("\u{1B}[<1;1;1M") == [mouse(.press(button: 1), 0, 0)])
    #expect(decode("\u{1B}[<2;80;24M") == [mouse(.press(button: 2), 79, 23)])
  }

  @Test("A release ends in a lower-case m, whatever button code it carries")
  func release() {
    #expect(decode("\u{1B}[<0;10;5m") == [mouse(.release, 9, 4)])
    #expect(decode("\u{1B}[<3;7;2m") == [mouse(.release, 6, 1)])
    #expect(decode("\u{1B}[<2;7;2m") == [mouse(.release, 6, 1)])
  }

  @Test("Motion with a button held is a drag")
  func drag() {
    #expect(decode("\u{1B}[<32;12;5M") == [mouse(.drag, 11, 4)])
    #expect(decode("\u{1B}[<34;1;3M") == [mouse(.drag, 0, 2)])
  }

  @Test("The wheel: 64 is up, 65 is down")
  func wheel() {
    #expect(decode("\u{1B}[<64;1;1M") == [mouse(.wheelUp, 0, 0)])
    #expect(decode("\u{1B}[<65;3;4M") == [mouse(.wheelDown, 2, 3)])
  }

  @Test(
    "Shift (4), Meta (8) and Ctrl (16) change nothing about what the event is",
    arguments: [4, 8, 16, 4 | 8 | 16])
  func modifiersIgnored(modifiers: Int) {
    #expect(decode("\u{1B}[<\(0 | modifiers);10;5M") == [mouse(.press(button: 0), 9, 4)])
    #expect(decode("\u{1B}[<\(1 | modifiers);10;5M") == [mouse(.press(button: 1), 9, 4)])
    #expect(decode("\u{1B}[<\(0 | modifiers);10;5m") == [mouse(.release, 9, 4)])
    #expect(decode("\u{1B}[<\(32 | modifiers);10;5M") == [mouse(.drag, 9, 4)])
    #expect(decode("\u{1B}[<\(64 | modifiers);10;5M") == [mouse(.wheelUp, 9, 4)])
    #expect(decode("\u{1B}[<\(65 | modifiers);10;5M") == [mouse(.wheelDown, 9, 4)])
  }

  @Test("Columns and rows past 223 (where the old X10 encoding stops) are read as they are")
  func largeCoordinates() {
    #expect(decode("\u{1B}[<0;400;120M") == [mouse(.press(button: 0), 399, 119)])
  }

  @Test("Several reports in one read come out as several events, keys between them kept")
  func severalInOneRead() {
    let read =
      "\u{1B}[<0;10;22M\u{1B}[<32;8;22M\u{1B}[<32;3;22Mq\u{1B}[<0;3;22m\u{1B}[<65;1;1M "
    #expect(
      decode(read) == [
        mouse(.press(button: 0), 9, 21), mouse(.drag, 7, 21), mouse(.drag, 2, 21), .char("q"),
        mouse(.release, 2, 21), mouse(.wheelDown, 0, 0), .char(" "),
      ])
  }

  @Test("A report with a zero or missing coordinate is not a mouse event")
  func invalidCoordinates() {
    for bad in ["<0;0;5", "<0;5;0", "<0;5", "<0;5;5;5", "<x;5;5", "<0;-1;5"] {
      let keys = decode("\u{1B}[\(bad)M")
      #expect(!keys.contains { if case .mouse = $0 { true } else { false } }, "\(bad): \(keys)")
    }
  }
}

@Suite("EscapeDecoder: escape, cursor and editing keys")
struct EscapeDecoderKeyTests {
  @Test("A lone ESC stays Escape, at the end of a read or between keys")
  func loneEscape() {
    #expect(decode("\u{1B}") == [.escape])
    #expect(decode("q\u{1B}") == [.char("q"), .escape])
    #expect(decode("\u{1B}\u{1B}") == [.escape, .escape])
    #expect(EscapeDecoder.decode([.escape, .left, .enter]) == [.escape, .left, .enter])
  }

  @Test("ESC followed by an ordinary character is Escape, then that character")
  func escapeThenCharacter() {
    #expect(decode("\u{1B}x") == [.escape, .char("x")])
    #expect(decode("\u{1B}q") == [.escape, .char("q")])
    #expect(decode("\u{1B} ") == [.escape, .char(" ")])
  }

  @Test("Keys with no escape pass through unchanged")
  func plainKeys() {
    let keys: [Key] = [.char("l"), .right, .char("["), .enter, .function(5), .resize]
    #expect(EscapeDecoder.decode(keys) == keys)
    #expect(EscapeDecoder.decode([]) == [])
  }

  @Test(
    "Home in each form terminals send it",
    arguments: ["\u{1B}[H", "\u{1B}[1~", "\u{1B}[7~", "\u{1B}OH", "\u{1B}[1;2H"])
  func home(sequence: String) {
    #expect(decode(sequence) == [.home])
    #expect(decode(sequence + "q") == [.home, .char("q")])
  }

  @Test(
    "End in each form terminals send it",
    arguments: ["\u{1B}[F", "\u{1B}[4~", "\u{1B}[8~", "\u{1B}OF", "\u{1B}[1;2F"])
  func end(sequence: String) {
    #expect(decode(sequence) == [.end])
    #expect(decode(sequence + "q") == [.end, .char("q")])
  }

  @Test("Shift+Left and Shift+Right as xterm sends them (CSI 1;2D and CSI 1;2C)")
  func shiftArrows() {
    #expect(decode("\u{1B}[1;2D") == [.shiftLeft])
    #expect(decode("\u{1B}[1;2C") == [.shiftRight])
    #expect(decode("\u{1B}[1;2C\u{1B}[1;2C\u{1B}[1;2D") == [.shiftRight, .shiftRight, .shiftLeft])
  }

  @Test("Plain arrows, in normal (CSI) and application (SS3) mode")
  func arrows() {
    #expect(decode("\u{1B}[D\u{1B}[C\u{1B}[A\u{1B}[B") == [.left, .right, .up, .down])
    #expect(decode("\u{1B}OD\u{1B}OC\u{1B}OA\u{1B}OB") == [.left, .right, .up, .down])
  }

  @Test("Page Up and Page Down (CSI 5~ and CSI 6~)")
  func pageKeys() {
    #expect(decode("\u{1B}[5~") == [.pageUp])
    #expect(decode("\u{1B}[6~") == [.pageDown])
    #expect(decode("\u{1B}[5~\u{1B}[6~l") == [.pageUp, .pageDown, .char("l")])
  }
}

@Suite("EscapeDecoder: malformed and cut-off input")
struct EscapeDecoderMalformedTests {
  /// Every key of `following` comes out, in order, at the end: the bad part before it may have
  /// been dropped or passed on, but it did not swallow what came after it.
  private func expectKeeps(
    _ following: [Key], after bad: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let out = EscapeDecoder.decode(rawKeys(bad) + following)
    #expect(
      Array(out.suffix(following.count)) == following, "\(bad.debugDescription) -> \(out)",
      sourceLocation: sourceLocation)
  }

  @Test(
    "A malformed sequence does not eat the keys after it",
    arguments: [
      "\u{1B}[<0;10M",  // two numbers
      "\u{1B}[<a;b;cM",  // not numbers
      "\u{1B}[<0;0;0M",  // zero coordinates
      "\u{1B}[99~",  // no such key
      "\u{1B}[1;2X",  // unknown final
      "\u{1B}O~",  // SS3 with a non-key final
      "\u{1B}[",  // introducer only
      "\u{1B}[<0;10;5",  // cut off before its final
    ])
  func malformedKeepsFollowing(bad: String) {
    expectKeeps([.char("q")], after: bad)
    expectKeeps([.char(" "), .char("l")], after: bad)
    expectKeeps([.mouse(MouseEvent(.press(button: 0), x: 2, y: 2))], after: bad)
    expectKeeps([.right, .enter], after: bad)
  }

  @Test("A report cut off by the next report still lets that report through whole")
  func truncatedThenComplete() {
    let out = decode("\u{1B}[<0;10\u{1B}[<0;3;3Mq")
    #expect(out.suffix(2) == [mouse(.press(button: 0), 2, 2), .char("q")])
    let cutByKey = decode("\u{1B}[1;\u{1B}[1;2C")
    #expect(cutByKey.last == .shiftRight)
  }

  @Test("A sequence cut off at the end of a read produces no mouse event and no named key")
  func truncatedAtEnd() {
    for cut in ["\u{1B}[<0;10;5", "\u{1B}[1;2", "\u{1B}[<", "\u{1B}O"] {
      let out = decode(cut)
      #expect(out.first == .escape, "\(cut.debugDescription) -> \(out)")
      #expect(
        !out.contains { key in
          switch key {
          case .mouse, .home, .end, .shiftLeft, .shiftRight, .left, .right, .pageUp, .pageDown:
            return true
          default:
            return false
          }
        }, "\(cut.debugDescription) -> \(out)")
    }
  }

  @Test("A junk sequence of 32 characters or more does not eat the keys after it")
  func longJunk() {
    let junk = "\u{1B}[" + String(repeating: "1;", count: 20) + "9"
    #expect(junk.count > 32)
    expectKeeps([.char("q")], after: junk + "~")
    expectKeeps([.char("q")], after: junk)
    // The decoder stops looking after 32 characters: a real sequence right after is whole.
    let out = decode(junk + "~\u{1B}[1;2C\u{1B}[<0;5;6M")
    #expect(out.suffix(2) == [.shiftRight, mouse(.press(button: 0), 4, 5)])
  }
}

@Suite("EscapeDecoder: a read that ends inside a sequence waits for the rest")
struct EscapeDecoderCutOffTests {
  @Test(
    "An ESC, or an ESC and a CSI or SS3 start with parameters, ends inside a sequence",
    arguments: [
      "\u{1B}", "\u{1B}[", "\u{1B}[1", "\u{1B}[1;2", "\u{1B}O", "q\u{1B}[1;", "\u{1B}[<0;1",
    ])
  func inside(_ bytes: String) {
    #expect(EscapeDecoder.endsInsideSequence(rawKeys(bytes)))
  }

  @Test(
    "Whole sequences, plain keys and an ESC followed by a key are not cut off",
    arguments: [
      "", "q", "\u{1B}[1;2C", "\u{1B}[C", "\u{1B}OH", "\u{1B}q", "\u{1B}[1;2Cq", "\u{1B}[1x",
    ])
  func notInside(_ bytes: String) {
    #expect(!EscapeDecoder.endsInsideSequence(rawKeys(bytes)))
  }

  @Test("An SGR mouse report after ncurses' own prefix is open until its M or m")
  func mouseReport() {
    #expect(EscapeDecoder.endsInsideSequence([.mousePrefix] + rawKeys("0;12")))
    #expect(!EscapeDecoder.endsInsideSequence([.mousePrefix] + rawKeys("0;12;5M")))
  }

  @Test("The pieces read together decode as one Shift+Right, as the reader joins them")
  func piecesJoined() {
    let first = rawKeys("\u{1B}")
    #expect(EscapeDecoder.endsInsideSequence(first))
    let second = first + rawKeys("[1;")
    #expect(EscapeDecoder.endsInsideSequence(second))
    #expect(EscapeDecoder.decode(second + rawKeys("2C")) == [.shiftRight])
  }
}

@Suite("EscapeDecoder: terminal answers that come late")
struct EscapeDecoderLateAnswerTests {
  @Test("a kitty graphics answer after the start-up wait is dropped whole, keys around it kept")
  func kittyAnswer() {
    #expect(decode("q\u{1B}_Gi=31;OK\u{1B}\\l") == [.char("q"), .char("l")])
    #expect(decode("\u{1B}_Gi=31;ENOTSUPPORTED:x\u{1B}\\") == [])
    // Cut off by the end of the read: dropped to there.
    #expect(decode("\u{1B}_Gi=31;O") == [])
    // An ESC inside ends it there and stays a key of its own.
    #expect(decode("\u{1B}_Gi\u{1B}[C") == [.right])
  }

  @Test("a device attributes answer after the wait is dropped, not typed as 'c'")
  func deviceAttributes() {
    #expect(decode("\u{1B}[?62;4;22c") == [])
    #expect(decode("\u{1B}[>1;4000;15cq") == [.char("q")])
    // A lower-case final without ? or > is not an answer: the old rule (dropped, kept as key).
    #expect(decode("\u{1B}[1c") == [.char("c")])
  }
}
