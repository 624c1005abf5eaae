import Foundation
import Testing

@testable import RiffleCore

@Suite("LRC parsing")
struct LRCParserTests {
  private func times(_ text: String) -> [Double] { LRCParser.parse(text).lines.map(\.time) }
  private func texts(_ text: String) -> [String] { LRCParser.parse(text).lines.map(\.text) }

  @Test("[mm:ss.xx] gives the time in seconds and the text after it")
  func centiseconds() {
    let document = LRCParser.parse("[00:17.12] I feel your breath upon my neck\n")
    #expect(document.lines == [LyricLine(time: 17.12, text: "I feel your breath upon my neck")])
    #expect(document.skipped == 0)
  }

  @Test("[mm:ss], [mm:ss.x], [mm:ss.xxx] and [mm:ss:xx] are read too; minutes may pass 59")
  func timeForms() {
    let text = """
      [01:02]a
      [01:02.5]b
      [01:02.345]c
      [01:02:50]d
      [75:00.00]e
      """
    let parsed = Dictionary(
      uniqueKeysWithValues: LRCParser.parse(text).lines.map { ($0.text, $0.time) })
    let expected: [String: Double] = ["a": 62, "b": 62.5, "c": 62.345, "d": 62.5, "e": 4500]
    #expect(parsed.keys.sorted() == expected.keys.sorted())
    for (text, time) in expected {
      #expect(abs((parsed[text] ?? -1) - time) < 1e-9, "\(text)")
    }
  }

  @Test("A line with several times is sung at each of them, and lines come out in time order")
  func multipleTimestamps() {
    let text = """
      [00:10.00]Verse one
      [00:20.00][01:00.00][00:40.00]Chorus
      [00:30.00]Verse two
      """
    let document = LRCParser.parse(text)
    #expect(document.lines.map(\.time) == [10, 20, 30, 40, 60])
    #expect(document.lines.map(\.text) == ["Verse one", "Chorus", "Verse two", "Chorus", "Chorus"])
  }

  @Test("A positive [offset:] makes every line come sooner; a negative one later")
  func offsets() {
    let sooner = LRCParser.parse("[offset:+500]\n[00:10.00]a\n[00:20.00]b")
    #expect(sooner.lines.map(\.time) == [9.5, 19.5])
    #expect(sooner.offset == 0.5)
    let later = LRCParser.parse("[00:10.00]a\n[offset:-250]\n[00:20.00]b")
    #expect(later.lines.map(\.time) == [10.25, 20.25])
    // A line moved before the start starts at 0.
    #expect(times("[offset:2000]\n[00:01.00]a") == [0])
    #expect(times("[offset: 1000 ]\n[00:05.00]a") == [4])
  }

  @Test("Metadata tags are ignored; an [offset:] that is not a number is skipped")
  func metadataIgnored() {
    let text = """
      [ar:Borislav Slavov]
      [ti:I Want to Live]
      [al:Baldur's Gate 3: Original Soundtrack]
      [by:someone]
      [length: 03:53]
      [offset:soon]
      [00:17.12]Line
      """
    let document = LRCParser.parse(text)
    #expect(document.lines == [LyricLine(time: 17.12, text: "Line")])
    #expect(document.skipped == 1)
    #expect(document.offset == 0)
  }

  @Test("Malformed lines are skipped and counted; the rest of the file still reads")
  func malformedLines() {
    let text = """
      [00:01.00]one
      [00:1x.00]bad seconds
      [00:75.00]seconds past 59
      [00:02.00 unclosed
      [xx:yy]letters
      [00:03.0000]four decimals
      [00:04.]empty fraction
      [:]
      [ar:x] text after metadata
      [00:05.00]five
      """
    let document = LRCParser.parse(text)
    #expect(document.lines.map(\.text) == ["one", "five"])
    #expect(document.skipped == 8)
  }

  @Test("Blank lines, CRLF and a byte-order mark do not matter; timed empty lines are pauses")
  func blankLinesAndLineEnds() {
    let text = "\u{FEFF}[00:01.00]one\r\n\r\n   \r\n[00:02.00]\r\n[00:03.00]  three  \r\n"
    #expect(texts(text) == ["one", "", "three"])
    #expect(times(text) == [1, 2, 3])
  }

  @Test("Word times of enhanced LRC are taken out of the text")
  func enhancedWordTimes() {
    #expect(texts("[00:01.00]<00:01.00> Hello <00:01.50> world") == ["Hello world"])
    #expect(texts("[00:01.00]a <b> c") == ["a <b> c"])
  }

  @Test("Lines at the same time keep the order of the file")
  func equalTimesKeepOrder() {
    #expect(
      texts("[00:05.00]first\n[00:01.00]early\n[00:05.00]second") == [
        "early", "first", "second",
      ])
  }

  @Test("Text without any tag is kept apart as untimed text")
  func untimedText() {
    let document = LRCParser.parse("Just words\nMore words")
    #expect(document.lines.isEmpty)
    #expect(document.untimedText == ["Just words", "More words"])
    #expect(Lyrics.fromLRC("Just words\nMore words") == .plain(["Just words", "More words"]))
    #expect(Lyrics.fromLRC("[ar:x]\n\n") == nil)
    #expect(Lyrics.fromLRC("") == nil)
  }

  @Test("Plain text keeps blank lines between verses and drops those at the ends")
  func plainText() {
    #expect(
      Lyrics.fromPlainText("\n\nOne\r\nTwo\n\nThree  \n\n") == .plain(["One", "Two", "", "Three"]))
    #expect(Lyrics.fromPlainText(" \n \n") == nil)
  }
}

@Suite("The current lyrics line")
struct CurrentLineTests {
  static let lyrics = SyncedLyrics([
    LyricLine(time: 5, text: "a"), LyricLine(time: 10, text: "b"), LyricLine(time: 10, text: "c"),
    LyricLine(time: 20.5, text: "d"),
  ])

  @Test("Before the first line there is no current line")
  func beforeFirst() {
    #expect(Self.lyrics.currentIndex(at: 0) == nil)
    #expect(Self.lyrics.currentIndex(at: 4.999) == nil)
  }

  @Test("A line is current from its time until the next one starts")
  func atAndBetween() {
    #expect(Self.lyrics.currentIndex(at: 5) == 0)
    #expect(Self.lyrics.currentIndex(at: 9.99) == 0)
    // Two lines at one time: the later in the file is current (the first is passed at once).
    #expect(Self.lyrics.currentIndex(at: 10) == 2)
    #expect(Self.lyrics.currentIndex(at: 20.49) == 2)
    #expect(Self.lyrics.currentIndex(at: 20.5) == 3)
    #expect(Self.lyrics.currentIndex(at: 10_000) == 3)
  }

  @Test("The binary search agrees with a linear scan at every tenth of a second")
  func agreesWithLinearScan() {
    let lines = (0..<200).map { LyricLine(time: Double($0 * 37 % 311) / 3, text: "\($0)") }
    let lyrics = SyncedLyrics(lines)
    for step in 0...1100 {
      let t = Double(step) / 10
      let linear = lyrics.lines.lastIndex { $0.time <= t }
      #expect(lyrics.currentIndex(at: t) == linear, "at \(t)")
    }
  }

  @Test("The next change is the start of the next line, none after the last")
  func nextChange() {
    #expect(Self.lyrics.nextChange(after: 0) == 5)
    #expect(Self.lyrics.nextChange(after: 5) == 10)
    #expect(Self.lyrics.nextChange(after: 12) == 20.5)
    #expect(Self.lyrics.nextChange(after: 20.5) == nil)
    #expect(SyncedLyrics([]).currentIndex(at: 3) == nil)
    #expect(SyncedLyrics([]).nextChange(after: 3) == nil)
  }
}
