import Foundation
import RiffleApp
import RiffleCore
import RiffleTUI
import Testing

@Suite("Config: the lyrics server and keys")
struct LyricsConfigTests {
  static let fallback = URL(string: "https://lrclib.net")!

  @Test("lyrics_url before any table names the server")
  func lyricsURLFromFile() {
    let (config, problems) = Config.parse(
      "lyrics_url = \"http://127.0.0.1:8080/lrclib\"\n[keys]\nlyrics = \"v\"\n")
    #expect(problems.isEmpty)
    #expect(config.lyricsURL == URL(string: "http://127.0.0.1:8080/lrclib"))
    #expect(config.keyMap.action(for: .char("v")) == .toggleLyrics)
    #expect(config.keyMap.action(for: .char("y")) == nil)
  }

  @Test("A lyrics_url that is not an http(s) address is reported with its line and not used")
  func badLyricsURL() {
    for value in ["\"ftp://example.com\"", "\"lrclib.net\"", "42", "\"file:///tmp/x\""] {
      let (config, problems) = Config.parse("\n\nlyrics_url = \(value)\n")
      #expect(config.lyricsURL == nil, "\(value)")
      #expect(
        problems.map(\.description) == [
          "config.toml line 3: 'lyrics_url' must be an http:// or https:// URL (using the default)"
        ], "\(value)")
    }
  }

  @Test("The flag wins over the environment, which wins over the file, then the default")
  func precedence() throws {
    let file = URL(string: "https://file.example")!
    func resolve(_ flag: String?, _ env: String?, _ file: URL?) throws -> URL {
      try Config.resolveServiceURL(
        flag: ("--lyrics-url", flag), environment: ("RIFFLE_LYRICS_URL", env), file: file,
        fallback: Self.fallback)
    }
    #expect(try resolve("http://flag.example", "http://env.example", file).host == "flag.example")
    #expect(try resolve(nil, "http://env.example", file).host == "env.example")
    #expect(try resolve(nil, "", file) == file)
    #expect(try resolve(nil, nil, nil) == Self.fallback)
  }

  @Test("A bad flag or environment value is an error naming where it came from")
  func badValues() {
    #expect(
      throws: Config.ServiceURLError(
        message: "--lyrics-url must be an http:// or https:// URL, not 'nope'")
    ) {
      try Config.resolveServiceURL(
        flag: ("--lyrics-url", "nope"), environment: ("RIFFLE_LYRICS_URL", nil), file: nil,
        fallback: Self.fallback)
    }
    #expect(
      throws: Config.ServiceURLError(
        message: "RIFFLE_LYRICS_URL must be an http:// or https:// URL, not 'file:///x'")
    ) {
      try Config.resolveServiceURL(
        flag: ("--lyrics-url", nil), environment: ("RIFFLE_LYRICS_URL", "file:///x"), file: nil,
        fallback: Self.fallback)
    }
  }

  @Test("Scroll keys can be rebound, and y is in the default map")
  func scrollKeys() {
    #expect(KeyMap.standard.action(for: .char("y")) == .toggleLyrics)
    #expect(KeyMap.standard.action(for: .pageDown) == .pageLyrics(1))
    let (config, problems) = Config.parse(
      "[keys]\nlyrics_down = \"j\"\nlyrics_up = \"k\"\nlyrics_page_down = \"J\"\nlyrics_page_up = \"K\"\n"
    )
    #expect(problems.isEmpty)
    #expect(config.keyMap.action(for: .char("j")) == .scrollLyrics(1))
    #expect(config.keyMap.action(for: .char("k")) == .scrollLyrics(-1))
    #expect(config.keyMap.action(for: .char("J")) == .pageLyrics(1))
    #expect(config.keyMap.action(for: .char("K")) == .pageLyrics(-1))
    #expect(config.keyMap.action(for: .down) == nil)
  }
}
