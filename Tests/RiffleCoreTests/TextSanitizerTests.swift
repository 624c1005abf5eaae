import Testing

@testable import RiffleCore

@Suite("Sanitizing text from servers")
struct TextSanitizerTests {
  private func clean(_ text: String) -> String { TextSanitizer.sanitize(text) }

  @Test("Plain text and the empty string pass unchanged")
  func plainText() {
    #expect(clean("Neon Tide (Extended Mix) - Mira Sol") == "Neon Tide (Extended Mix) - Mira Sol")
    #expect(clean("") == "")
  }

  @Test("CSI colour sequences are removed whole")
  func csiColour() {
    #expect(clean("\u{1B}[1;31mRed\u{1B}[0m Song") == "Red Song")
    #expect(clean("\u{1B}[38;2;255;0;128mPink") == "Pink")
  }

  @Test("CSI sequences with private parameters are removed whole")
  func csiPrivate() {
    #expect(clean("\u{1B}[?25lHidden cursor\u{1B}[?25h") == "Hidden cursor")
    #expect(clean("\u{1B}[2J\u{1B}[HCleared") == "Cleared")
  }

  @Test("A CSI cut short by a line break ends there and the line break goes too")
  func csiBrokenByControl() {
    #expect(clean("\u{1B}[31\nAfter") == "After")
  }

  @Test("An OSC window title ended by BEL is removed whole")
  func oscWithBel() {
    #expect(clean("\u{1B}]0;pwned\u{07}Song") == "Song")
  }

  @Test("An OSC window title ended by ESC backslash is removed whole")
  func oscWithStringTerminator() {
    #expect(clean("\u{1B}]2;owned by a feed\u{1B}\\Song") == "Song")
  }

  @Test("An OSC 8 hyperlink keeps only its visible text")
  func oscHyperlink() {
    let text = "\u{1B}]8;;https://evil.example/\u{1B}\\click me\u{1B}]8;;\u{1B}\\ now"
    #expect(clean(text) == "click me now")
  }

  @Test("An OSC 52 clipboard write is removed whole")
  func oscClipboard() {
    #expect(clean("Title\u{1B}]52;c;cm0gLXJmIH4K\u{07}") == "Title")
  }

  @Test("Text right after an OSC terminator is kept, first character included")
  func textAfterOscKept() {
    #expect(clean("\u{1B}]0;x\u{07}A") == "A")
    #expect(clean("\u{1B}]0;x\u{1B}\\B") == "B")
    #expect(clean("a\u{1B}]0;x\u{07}b\u{1B}]0;y\u{1B}\\c") == "abc")
  }

  @Test("An OSC that is never terminated swallows the rest")
  func oscUnterminated() {
    #expect(clean("Song\u{1B}]0;title that never ends") == "Song")
  }

  @Test("A DCS string (sixel) is removed whole")
  func dcs() {
    #expect(clean("\u{1B}Pq#0;2;0;0;0#1;2;100;100;0~~@@\u{1B}\\After") == "After")
  }

  @Test("SOS, PM and APC strings are removed whole")
  func otherStrings() {
    #expect(clean("a\u{1B}Xsos\u{1B}\\b\u{1B}^pm\u{07}c\u{1B}_apc\u{1B}\\d") == "abcd")
  }

  @Test("The one-byte C1 CSI is removed with its parameters")
  func c1Csi() {
    #expect(clean("\u{9B}31mRed") == "Red")
    #expect(clean("x\u{9B}2Jy") == "xy")
  }

  @Test("The one-byte C1 OSC and DCS are removed up to ST")
  func c1Strings() {
    #expect(clean("\u{9D}0;title\u{9C}Song") == "Song")
    #expect(clean("\u{90}q#0\u{9C}Song") == "Song")
  }

  @Test("A lone ESC at the end is dropped")
  func loneEscAtEnd() {
    #expect(clean("Song\u{1B}") == "Song")
    #expect(clean("\u{1B}") == "")
  }

  @Test("Two-byte escapes such as ESC c (reset) and ESC 7 are removed with their final byte")
  func twoByteEscapes() {
    #expect(clean("\u{1B}cReset") == "Reset")
    #expect(clean("\u{1B}7saved\u{1B}8") == "saved")
  }

  @Test("An escape with intermediate bytes (ESC ( B) is removed whole")
  func escapeWithIntermediates() {
    #expect(clean("\u{1B}(BText") == "Text")
    #expect(clean("\u{1B}#8Fill") == "Fill")
  }

  @Test("Tabs, line breaks and line separators become spaces")
  func whitespaceBecomesSpaces() {
    #expect(clean("Line one\nLine two\tTab") == "Line one Line two Tab")
    #expect(clean("a\r\nb") == "a  b")
    #expect(clean("a\u{0B}b\u{0C}c\u{85}d\u{2028}e\u{2029}f") == "a b c d e f")
  }

  @Test("DEL, NUL, BEL and other control characters are dropped")
  func controlsDropped() {
    #expect(clean("A\u{7F}B") == "AB")
    #expect(clean("A\u{00}B\u{07}C\u{08}D") == "ABCD")
    #expect(clean("x\u{84}y\u{9A}z") == "xyz")
  }

  @Test("Bidi overrides, embeddings and marks are dropped")
  func bidiOverridesDropped() {
    #expect(clean("invoice\u{202E}gpj.exe") == "invoicegpj.exe")
    #expect(clean("\u{202A}a\u{202B}b\u{202C}c\u{202D}d") == "abcd")
    #expect(clean("a\u{200E}b\u{200F}c\u{061C}d") == "abcd")
  }

  @Test("Bidi isolates are dropped")
  func bidiIsolatesDropped() {
    let text = "\u{2066}left\u{2069} \u{2067}right\u{2069} \u{2068}first\u{2069}"
    #expect(clean(text) == "left right first")
  }

  @Test("Emoji, flags and CJK pass untouched, joiners and selectors included")
  func emojiAndCJKUntouched() {
    let text = "🎵 夜に駆ける 👩‍👩‍👧 🇯🇵 ❤️ 한국어 Ａ"
    let cleaned = clean(text)
    #expect(cleaned == text)
    #expect(Array(cleaned.unicodeScalars) == Array(text.unicodeScalars))
  }

  @Test("Combining marks stay on their letters")
  func combiningMarksKept() {
    let text = "Cafe\u{301} Bjo\u{308}rk"
    #expect(Array(clean(text).unicodeScalars) == Array(text.unicodeScalars))
  }

  @Test("Arabic and Hebrew text is kept; only the direction controls go")
  func rtlTextKept() {
    #expect(clean("שלום \u{202E}مرحبا") == "שלום مرحبا")
  }
}
