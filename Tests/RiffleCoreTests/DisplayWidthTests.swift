import Testing

@testable import RiffleCore

@Suite("Display width")
struct DisplayWidthTests {
  @Test("ASCII takes one column per character")
  func ascii() {
    #expect(DisplayWidth.of("Neon Tide") == 9)
    #expect(DisplayWidth.of("") == 0)
    #expect(DisplayWidth.of(Character("a")) == 1)
  }

  @Test("CJK, kana, hangul and fullwidth letters take two columns each")
  func wideScripts() {
    #expect(DisplayWidth.of("夜に駆ける") == 10)
    #expect(DisplayWidth.of(Character("日")) == 2)
    #expect(DisplayWidth.of(Character("한")) == 2)
    #expect(DisplayWidth.of(Character("Ａ")) == 2)
    #expect(DisplayWidth.of(Character("\u{3000}")) == 2)
  }

  @Test("Emoji shown as emoji take two columns")
  func emoji() {
    #expect(DisplayWidth.of(Character("🎵")) == 2)
    #expect(DisplayWidth.of(Character("👍🏽")) == 2)
    #expect(DisplayWidth.of(Character("❤️")) == 2)
    #expect(DisplayWidth.of(Character("1️⃣")) == 2)
    #expect(DisplayWidth.of("Neon Tide 🎵") == 12)
  }

  @Test("A text-style symbol without the emoji selector takes one column")
  func textStyleSymbol() {
    #expect(DisplayWidth.of(Character("☺")) == 1)
    #expect(DisplayWidth.of(Character("♪")) == 1)
  }

  @Test("A ZWJ family counts once as two columns")
  func zwjFamily() {
    let family: Character = "👩‍👩‍👧"
    #expect(family.unicodeScalars.count == 5)
    #expect(DisplayWidth.of(family) == 2)
    #expect(DisplayWidth.of("👩‍👩‍👧👨‍💻") == 4)
  }

  @Test("A flag counts once as two columns")
  func flag() {
    #expect(DisplayWidth.of(Character("🇯🇵")) == 2)
    #expect(DisplayWidth.of("🇯🇵🇧🇷") == 4)
  }

  @Test("An e with a combining acute takes one column, like a precomposed é")
  func combining() {
    #expect(DisplayWidth.of("e\u{301}") == 1)
    #expect(DisplayWidth.of("\u{E9}") == 1)
    #expect(DisplayWidth.of("Cafe\u{301}") == 4)
    #expect(DisplayWidth.of("日\u{301}") == 2)
  }

  @Test("Controls, zero-width spaces and lone combining marks take no columns")
  func zeroWidth() {
    #expect(DisplayWidth.of(Character("\u{07}")) == 0)
    #expect(DisplayWidth.of(Character("\u{200B}")) == 0)
    #expect(DisplayWidth.of(Character("\u{301}")) == 0)
    #expect(DisplayWidth.of(scalar: "\u{0}") == 0)
    #expect(DisplayWidth.of(scalar: "\u{9B}") == 0)
  }

  @Test("Text that fits comes back unchanged")
  func truncateFits() {
    #expect(DisplayWidth.truncate("Neon Tide", to: 9) == "Neon Tide")
    #expect(DisplayWidth.truncate("Neon Tide", to: 80) == "Neon Tide")
    #expect(DisplayWidth.truncate("夜に駆ける", to: 10) == "夜に駆ける")
    #expect(DisplayWidth.truncate("", to: 0) == "")
  }

  @Test("Text that does not fit is cut and ends in an ellipsis within the width")
  func truncateAscii() {
    let cut = DisplayWidth.truncate("Paper Lanterns", to: 8)
    #expect(cut == "Paper L…")
    #expect(DisplayWidth.of(cut) == 8)
  }

  @Test("Cutting never splits a wide character and never goes over the width")
  func truncateWide() {
    #expect(DisplayWidth.truncate("夜に駆ける", to: 5) == "夜に…")
    #expect(DisplayWidth.truncate("夜に駆ける", to: 6) == "夜に…")
    #expect(DisplayWidth.truncate("夜に駆ける", to: 7) == "夜に駆…")
    #expect(DisplayWidth.truncate("夜に駆ける", to: 2) == "…")
    #expect(DisplayWidth.truncate("a夜", to: 2) == "a…")
  }

  @Test("Cutting keeps emoji sequences and combining marks whole")
  func truncateClusters() {
    let family = "👩‍👩‍👧"
    #expect(DisplayWidth.truncate(family + " and friends", to: 3) == family + "…")
    #expect(DisplayWidth.truncate("🇯🇵🇧🇷", to: 3) == "🇯🇵…")
    let cafe = "Cafe\u{301} au lait"
    let cut = DisplayWidth.truncate(cafe, to: 5)
    #expect(Array(cut.unicodeScalars) == Array("Cafe\u{301}…".unicodeScalars))
  }

  @Test("Width zero or less gives the empty string")
  func truncateZero() {
    #expect(DisplayWidth.truncate("Neon Tide", to: 0) == "")
    #expect(DisplayWidth.truncate("Neon Tide", to: -3) == "")
  }

  @Test("Width one gives just the ellipsis unless one narrow character fits")
  func truncateOne() {
    #expect(DisplayWidth.truncate("Neon Tide", to: 1) == "…")
    #expect(DisplayWidth.truncate("夜", to: 1) == "…")
    #expect(DisplayWidth.truncate("N", to: 1) == "N")
  }

  @Test(
    "Cut text never exceeds the width and is a prefix of the original",
    arguments: [
      "Neon Tide", "夜に駆ける", "👩‍👩‍👧 family 🇯🇵", "Cafe\u{301} au lait", "a夜b駆c", "🎵🎵🎵🎵",
    ])
  func truncateProperty(text: String) {
    for width in 0...14 {
      let cut = DisplayWidth.truncate(text, to: width)
      #expect(DisplayWidth.of(cut) <= width, "width \(width): \(cut)")
      if cut != text && !cut.isEmpty {
        #expect(cut.hasSuffix("…"))
        #expect(text.hasPrefix(String(cut.dropLast())), "width \(width): \(cut)")
        // As long as the cut leaves room, the ellipsis is the only thing that could not fit,
        // but for spaces dropped before it ("Neon…", never "Neon …").
        let kept = cut.dropLast()
        #expect(kept.last?.isWhitespace != true, "width \(width): space before the ellipsis")
        let rest = text.dropFirst(kept.count).drop { $0.isWhitespace }
        let skipped = text.dropFirst(kept.count).count - rest.count
        let next = rest.first.map(DisplayWidth.of) ?? 0
        #expect(
          DisplayWidth.of(cut) - 1 + skipped + next > width - 1, "width \(width): cut too early")
      }
    }
  }
}
