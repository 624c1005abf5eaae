import RiffleTUI
import Testing

@testable import RiffleApp

@Suite("config.toml: [display]")
struct DisplayConfigTests {
  @Test("color is auto by default; each mode can be forced, as text or as a number")
  func color() {
    #expect(Config().color == .auto)
    for (text, setting) in [
      ("\"truecolor\"", ColorSetting.trueColor), ("\"256\"", .palette256), ("16", .basic16),
      ("\"8\"", .basic8), ("\"AUTO\"", .auto),
    ] {
      let (config, problems) = Config.parse("[display]\ncolor = \(text)\n")
      #expect(problems == [], "\(text)")
      #expect(config.color == setting, "\(text)")
    }
  }

  @Test("pictures: auto by default, kitty, sixel, iterm or symbols; anything else is named")
  func pictures() {
    #expect(Config().pictures == .auto)
    #expect(Config.parse("[display]\npictures = \"kitty\"\n").0.pictures == .kitty)
    #expect(Config.parse("[display]\npictures = \"Symbols\"\n").0.pictures == .symbols)
    #expect(Config.parse("[display]\npictures = \"sixel\"\n").0.pictures == .sixel)
    #expect(Config.parse("[display]\npictures = \"iterm\"\n").0.pictures == .iterm)
    let (config, problems) = Config.parse("[display]\npictures = \"ascii\"\n")
    #expect(config.pictures == .auto)
    #expect(
      problems == [
        Config.Problem(
          line: 2,
          message: "'pictures' must be \"auto\", \"kitty\", \"sixel\", \"iterm\" or \"symbols\"")
      ])
  }

  @Test("a wrong colour or an unknown key is named with its line")
  func mistakes() {
    let (config, problems) = Config.parse("[display]\ncolor = \"million\"\nsparkle = 1\n")
    #expect(config.color == .auto)
    #expect(
      problems == [
        Config.Problem(
          line: 2, message: "'color' must be \"auto\", \"truecolor\", \"256\", \"16\" or \"8\""),
        Config.Problem(line: 3, message: "unknown display setting 'sparkle'"),
      ])
    #expect(
      Config.parse("display = 1\n").1 == [
        Config.Problem(line: 1, message: "[display] must be a table")
      ])
  }
}
