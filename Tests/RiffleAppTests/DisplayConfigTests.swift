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
