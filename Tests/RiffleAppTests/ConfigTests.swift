import Foundation
import RiffleCore
import RiffleTUI
import RiffleTestSupport
import Testing

@testable import RiffleApp

/// The whole documented file (docs/configuration.md), with a few values changed from the defaults.
private let documentedFile = """
  lyrics_url = "https://lyrics.example.org"

  [keys]
  previous = ["Left", "h"]
  next = ["Right", "n"]
  play_pause = "Space"
  like = "f"
  help = "?"
  quit = "x"
  seek_back = ["[", "Shift+Left"]
  seek_forward = ["]", "Shift+Right"]
  retry = "r"
  restart = "Home"
  lyrics = "y"
  lyrics_up = "Up"
  lyrics_down = ["Down", "j"]
  lyrics_page_up = "PageUp"
  lyrics_page_down = "PageDown"

  [theme]
  text = "#f0f0f5"
  muted = "#AAAAB9"
  accent = "ff0080"
  band = 236
  error = "#ff6e5a"
  progress = 15
  progress_track = "#50505f"
  """

/// The actions a key map gives for each key, in a form that compares whole.
private func table(_ keyMap: KeyMap) -> [Key: PlayerAction] { keyMap.bindings }

/// The standard bindings with some keys moved: `changes` maps a key to its action, or to nil to
/// unbind it.
private func standard(with changes: [Key: PlayerAction?]) -> [Key: PlayerAction] {
  var bindings = KeyMap.standard.bindings
  for (key, action) in changes { bindings[key] = action }
  return bindings
}

@Suite("Config: a valid file")
struct ConfigValidTests {
  @Test("Every documented setting is applied: keys as a string or a list, hex and palette colours")
  func fullFile() {
    let (config, problems) = Config.parse(documentedFile)
    #expect(problems == [])
    #expect(
      table(config.keyMap)
        == standard(with: [
          .char("h"): .previous, .char("n"): .next, .char("l"): nil, .char("L"): nil,
          .char("f"): .toggleLike, .char("q"): nil, .char("Q"): nil, .char("x"): .quit,
          .char("j"): .scrollLyrics(1),
        ]))
    var theme = Theme.standard
    theme.text = .rgb(0xF0, 0xF0, 0xF5)
    theme.muted = .rgb(0xAA, 0xAA, 0xB9)
    theme.accent = .rgb(0xFF, 0x00, 0x80)
    theme.band = .palette(236)
    theme.error = .rgb(0xFF, 0x6E, 0x5A)
    theme.progress = .palette(15)
    theme.progressTrack = .rgb(0x50, 0x50, 0x5F)
    #expect(config.theme == theme)
    #expect(config.lyricsURL == URL(string: "https://lyrics.example.org"))
  }

  @Test("Keys given for an action replace its defaults; other actions keep theirs")
  func replacesDefaults() {
    let (config, problems) = Config.parse("[keys]\nlike = \"f\"\n")
    #expect(problems == [])
    #expect(
      table(config.keyMap)
        == standard(with: [.char("f"): .toggleLike, .char("l"): nil, .char("L"): nil]))
  }

  @Test("A key bound to another action moves from its old action to the new one")
  func rebindingMovesKey() {
    let (config, problems) = Config.parse("[keys]\nnext = \"l\"\n")
    #expect(problems == [])
    // "l" pages now; like keeps only "L"; Right no longer pages (next's keys were replaced).
    #expect(
      table(config.keyMap) == standard(with: [.char("l"): .next, .right: nil]))
    #expect(config.keyMap.names(for: .toggleLike) == ["L"])
  }

  @Test("Two actions may swap keys")
  func swap() {
    let (config, problems) = Config.parse(
      """
      [keys]
      previous = "Right"
      next = "Left"
      """)
    #expect(problems == [])
    #expect(config.keyMap.action(for: .right) == .previous)
    #expect(config.keyMap.action(for: .left) == .next)
  }

  @Test("Only a theme: the keys stay the standard ones")
  func themeOnly() {
    let (config, problems) = Config.parse("[theme]\naccent = 205\n")
    #expect(problems == [])
    #expect(table(config.keyMap) == KeyMap.standard.bindings)
    var theme = Theme.standard
    theme.accent = .palette(205)
    #expect(config.theme == theme)
  }

  @Test("Comments and blank lines are fine")
  func comments() {
    let (config, problems) = Config.parse(
      """
      # my riffle

      [keys]   
      # paging with vi keys
      next = ["l", "Right"]   # and the arrow
      """)
    #expect(problems == [])
    #expect(config.keyMap.action(for: .char("l")) == .next)
  }
}

@Suite("Config: problems, each with its line, the rest applied")
struct ConfigProblemTests {
  /// A file with one mistake on line 4, in `section`, and good settings around it.
  private func withMistake(_ line: String, section: String) -> String {
    section == "keys"
      ? "[theme]\naccent = 205\n[keys]\n\(line)\nlike = \"f\"\n"
      : "[keys]\nlike = \"f\"\n[theme]\n\(line)\naccent = 205\n"
  }

  /// The good settings of `withMistake` were applied.
  private func expectRestApplied(
    _ config: Config, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(config.keyMap.action(for: .char("f")) == .toggleLike, sourceLocation: sourceLocation)
    #expect(config.theme.accent == .palette(205), sourceLocation: sourceLocation)
  }

  @Test("An unknown section")
  func unknownSection() {
    let text = """
      [keys]
      like = "f"

      [colours]
      accent = "#ffffff"
      [theme]
      accent = 205
      """
    let (config, problems) = Config.parse(text)
    #expect(problems.count == 1)
    #expect(problems.first?.line == 4)
    #expect(problems.first?.message.contains("colours") == true)
    #expect(problems.first?.description.hasPrefix("config.toml line 4: ") == true)
    expectRestApplied(config)
  }

  @Test("An unknown setting before any section")
  func unknownTopLevel() {
    let (config, problems) = Config.parse("volume = 3\n[theme]\naccent = 205\n[keys]\nlike = \"f\"")
    #expect(problems.map(\.line) == [1])
    #expect(problems.first?.message.contains("volume") == true)
    expectRestApplied(config)
  }

  @Test("An unknown action")
  func unknownAction() {
    let (config, problems) = Config.parse(
      """
      [keys]
      like = "f"
      next = "n"
      teleport = "t"
      [theme]
      accent = 205
      """)
    #expect(problems.count == 1)
    #expect(problems.first?.line == 4)
    #expect(problems.first?.message == "unknown action 'teleport'")
    expectRestApplied(config)
    #expect(config.keyMap.action(for: .char("n")) == .next)
    #expect(config.keyMap.action(for: .char("t")) == nil)
  }

  @Test("An unknown key name leaves that action's keys as they were")
  func unknownKeyName() {
    let (config, problems) = Config.parse(
      """
      [keys]
      like = "f"

      next = "Hyper+N"
      [theme]
      accent = 205
      """)
    #expect(problems.count == 1)
    #expect(problems.first?.line == 4)
    #expect(problems.first?.message.contains("'Hyper+N'") == true)
    expectRestApplied(config)
    #expect(config.keyMap.action(for: .right) == .next)
  }

  @Test("In a list, an unknown key name is reported and the good names still bind")
  func unknownKeyInList() {
    let (config, problems) = Config.parse("[keys]\nnext = [\"n\", \"Meta+Q\", \"Right\"]\n")
    #expect(problems.count == 1)
    #expect(problems.first?.line == 2)
    #expect(config.keyMap.action(for: .char("n")) == .next)
    #expect(config.keyMap.action(for: .right) == .next)
  }

  @Test(
    "A bad colour keeps the default colour",
    arguments: ["\"#12345\"", "\"#gggggg\"", "\"red\"", "256", "-1", "1.5", "true"])
  func badColour(value: String) {
    let (config, problems) = Config.parse(
      """
      [keys]
      like = "f"
      [theme]
      muted = \(value)
      accent = 205
      """)
    #expect(problems.count == 1, "\(problems)")
    #expect(problems.first?.line == 4, "\(problems)")
    #expect(config.theme.muted == Theme.standard.muted)
    expectRestApplied(config)
  }

  @Test("An unknown colour name")
  func unknownColourName() {
    let (config, problems) = Config.parse(withMistake("sparkle = \"#ffffff\"", section: "theme"))
    #expect(problems.count == 1)
    #expect(problems.first?.line == 4)
    expectRestApplied(config)
  }

  @Test("A key that is not a string or a list of strings")
  func keyOfWrongType() {
    let (config, problems) = Config.parse(withMistake("quit = 7", section: "keys"))
    #expect(problems.count == 1)
    #expect(problems.first?.line == 4)
    #expect(config.keyMap.action(for: .char("q")) == .quit)
    expectRestApplied(config)
  }

  @Test("Several problems are each reported with their own line")
  func severalProblems() {
    let (config, problems) = Config.parse(
      """
      [keys]
      like = "f"
      teleport = "t"
      next = "Hyper+N"
      [theme]
      accent = 205
      glow = 3
      """)
    #expect(Set(problems.compactMap(\.line)) == [3, 4, 7])
    #expect(problems.count == 3)
    expectRestApplied(config)
  }

  @Test(
    "A TOML syntax error gives the parser's line and the defaults",
    arguments: [
      ("[keys]\nlike = \"f\"\nnext = \n", 3),
      ("[keys\nlike = \"f\"\n", 1),
      ("[keys]\nlike = \"f\"\n\n\nnext = [\"n\"\n", 5),
      ("[theme]\naccent = #ff0000\n", 2),
    ])
  func syntaxError(text: String, line: Int) {
    let (config, problems) = Config.parse(text)
    #expect(config == Config())
    #expect(problems.count == 1)
    #expect(problems.first?.line == line, "\(problems)")
    #expect(problems.first?.description.hasPrefix("config.toml line \(line): ") == true)
  }

  @Test("An empty file, or only comments, gives the defaults and no problem")
  func emptyFile() {
    for text in ["", "\n\n", "# nothing yet\n"] {
      let (config, problems) = Config.parse(text)
      #expect(config == Config())
      #expect(problems == [])
    }
  }
}

@Suite("Config: reading the file")
struct ConfigFileTests {
  @Test("A missing file gives the defaults and no problem")
  func missingFile() throws {
    let folder = try TemporaryDirectory("riffle-config")
    let (config, problems) = Config.load(from: folder.file("config.toml"))
    #expect(config == Config())
    #expect(problems == [])
  }

  @Test("A file is read and applied")
  func readsFile() throws {
    let folder = try TemporaryDirectory("riffle-config")
    try Data("[keys]\nlike = \"f\"\nfoo = \"x\"\n".utf8).write(to: folder.file("config.toml"))
    let (config, problems) = Config.load(from: folder.file("config.toml"))
    #expect(config.keyMap.action(for: .char("f")) == .toggleLike)
    #expect(problems.map(\.line) == [3])
  }

  @Test("Bytes that are not UTF-8 give the defaults and one problem saying so")
  func notUTF8() throws {
    let folder = try TemporaryDirectory("riffle-config")
    var bytes = Data("[keys]\nlike = \"".utf8)
    bytes.append(contentsOf: [0xFF, 0xFE, 0xC3])
    bytes.append(contentsOf: Data("\"\n".utf8))
    try bytes.write(to: folder.file("config.toml"))
    let (config, problems) = Config.load(from: folder.file("config.toml"))
    #expect(config == Config())
    #expect(problems.count == 1)
    #expect(problems.first?.description.contains("UTF-8") == true)
  }

  @Test("A folder where the file should be is reported, and the defaults used")
  func folderInstead() throws {
    let folder = try TemporaryDirectory("riffle-config")
    try FileManager.default.createDirectory(
      at: folder.file("config.toml"), withIntermediateDirectories: true)
    let (config, problems) = Config.load(from: folder.file("config.toml"))
    #expect(config == Config())
    #expect(problems.count == 1)
  }
}

@Suite("Key names")
struct KeyNameTests {
  @Test(
    "Every documented key name, in any case",
    arguments: [
      ("Space", Key.char(" ")), ("Left", .left), ("Right", .right), ("Up", .up), ("Down", .down),
      ("Shift+Left", .shiftLeft), ("Shift+Right", .shiftRight), ("Home", .home), ("End", .end),
      ("PageUp", .pageUp), ("PageDown", .pageDown), ("Enter", .enter), ("Return", .enter),
      ("Tab", .tab), ("Escape", .escape), ("Esc", .escape), ("Backspace", .backspace),
    ])
  func documentedNames(name: String, key: Key) {
    #expect(Config.keyFromName(name) == key)
    #expect(Config.keyFromName(name.lowercased()) == key)
    #expect(Config.keyFromName(name.uppercased()) == key)
  }

  @Test("F1 to F24, and nothing past them")
  func functionKeys() {
    for n in 1...24 {
      #expect(Config.keyFromName("F\(n)") == .function(n))
      #expect(Config.keyFromName("f\(n)") == .function(n))
    }
    for bad in ["F0", "F25", "F-1", "Fx", "F1.5", "F 1"] {
      #expect(Config.keyFromName(bad) == nil, "\(bad)")
    }
    // A lone "F" or "f" is that letter.
    #expect(Config.keyFromName("F") == .char("F"))
    #expect(Config.keyFromName("f") == .char("f"))
  }

  @Test("A single character is that character, case kept")
  func characters() {
    for name in ["l", "L", "?", "[", "]", "n", "1", "é", "ß"] {
      #expect(Config.keyFromName(name) == .char(Character(name)))
    }
  }

  @Test("Names that are no key", arguments: ["", " ", "\t", "ab", "Ctrl+C", "Shift+Up", "\u{1B}"])
  func notKeys(name: String) {
    #expect(Config.keyFromName(name) == nil)
  }

  @Test("names(for:) lists arrows first, then plain characters, then capitals, then named keys")
  func namesOrder() {
    #expect(KeyMap.standard.names(for: .toggleLike) == ["l", "L"])
    #expect(KeyMap.standard.names(for: .quit) == ["q", "Q"])
    #expect(KeyMap.standard.names(for: .seek(by: -10)) == ["[", "Shift+←"])
    #expect(KeyMap.standard.names(for: .seek(by: 10)) == ["]", "Shift+→"])
    #expect(KeyMap.standard.names(for: .togglePlay) == ["space"])
    #expect(KeyMap.standard.names(for: .next) == ["→"])
    #expect(KeyMap.standard.names(for: .seekTo(0)) == ["Home"])
    let map = KeyMap(bindings: [
      .home: .next, .char("N"): .next, .function(5): .next, .char("n"): .next, .right: .next,
      .pageDown: .next, .char("?"): .next, .end: .previous,
    ])
    #expect(map.names(for: .next) == ["→", "?", "n", "N", "F5", "Home", "PgDn"])
    #expect(map.names(for: .toggleLike) == [])
  }
}

@Suite("The help overlay lists the keys as bound")
struct ConfigHelpTests {
  /// The help box's rows at 80x24, as "keys | what" pairs read from the cells.
  private func helpRows(_ config: Config) -> [(keys: String, text: String)] {
    var state = PlayerState()
    state.source = PageSource(kind: .feed(URL(string: "https://example.com/feed.json")!))
    state.songs = [
      Song(
        id: "s1", title: "Neon Tide", displayName: "Mira Sol", handle: "mirasol",
        audioURL: URL(string: "https://cdn1.example.com/s1.mp3")!, duration: 35)
    ]
    state.playback = .playing
    state.duration = 35
    state.overlay = .help
    let screen = PageView(theme: config.theme, keyMap: config.keyMap).render(
      state, width: 80, height: 24)
    // The box is 77 wide, centred, in two columns: keys at columns 4 and 40 (10 wide), what
    // they do at 15 and 51 (24 wide).
    return screen.lines.flatMap { line -> [(keys: String, text: String)] in
      let cells = Array(line)
      guard cells.count == 80 else { return [] }
      return [4, 40].compactMap { left in
        let keys = String(cells[left..<left + 10]).trimmingCharacters(in: .whitespaces)
        let text = String(cells[left + 11..<left + 35]).trimmingCharacters(in: .whitespaces)
        return keys.isEmpty || text.isEmpty ? nil : (keys, text)
      }
    }
  }

  @Test("Rebound keys show in the help, the old ones do not")
  func reboundKeysListed() {
    let (config, problems) = Config.parse(
      """
      [keys]
      previous = "h"
      next = ["n", "Right"]
      like = "f"
      quit = "x"
      seek_back = "Shift+Left"
      """)
    #expect(problems == [])
    let rows = helpRows(config)
    let byText = Dictionary(rows.map { ($0.text, $0.keys) }, uniquingKeysWith: { a, _ in a })
    #expect(byText["previous song"] == "h", "\(rows)")
    // Every key of a command is listed, not only its first (next is bound to two).
    #expect(byText["next song"] == "→ n", "\(rows)")
    #expect(byText["like / unlike"] == "f", "\(rows)")
    #expect(byText["quit"] == "x", "\(rows)")
    #expect(byText["play / pause"] == "space", "\(rows)")
    #expect(byText["back 10 s"] == "Shift+←", "\(rows)")
    #expect(!rows.contains { ["l", "q"].contains($0.keys) }, "\(rows)")
  }

  @Test("With the standard keys the help lists them")
  func standardKeysListed() {
    let rows = helpRows(Config())
    let byText = Dictionary(rows.map { ($0.text, $0.keys) }, uniquingKeysWith: { a, _ in a })
    #expect(byText["previous song"] == "←", "\(rows)")
    #expect(byText["next song"] == "→", "\(rows)")
    #expect(byText["like / unlike"] == "l L", "\(rows)")
    #expect(byText["back 10 s"] == "[ Shift+←", "\(rows)")
    #expect(byText["forward 10 s"] == "] Shift+→", "\(rows)")
    #expect(byText["quit"] == "q Q", "\(rows)")
  }

  @Test(
    "A table header not starting with a key is reported with its line, not handed to the parser",
    arguments: [
      "[+eys]", "[[ %x]]", "[ \u{7F}a]", "[\u{0}]", "[", "[[ ", "[\r", "[\u{616}\u{624}\"[[",
      "[\u{301}a]\r",
    ])
  func malformedTableHeader(_ header: String) {
    let (config, problems) = Config.parse("# settings\n\n\(header)\nnext = \"n\"\n")
    #expect(config == Config())
    #expect(problems.map(\.line) == [3])
    #expect(problems.first?.message.contains("malformed table header") == true)
  }

  @Test(
    "A bracket closing what it did not open is reported with its line, not handed to the parser",
    arguments: [
      ("[keys]\nnext = [\"Right\",}]\n", 2),
      // The fuzz target's input that aborted the parser.
      (
        "[keys]\nnext = [\"Right\",}]\nlik=1}]\nlike = \"Ctrl-\"\"[theme]\naccent = \"#]zzzzz\"\n"
          + "backretryground = 998\nunknown = 1\n[[key]C]\n", 2
      ),
      ("[keys]\nnext = [\n  \"Right\",\n  \"l\" # ] }\n}\n", 5),
      ("[theme]\naccent = { a = 1 ]\n", 2),
      ("a = \"\"\"\n]\n\"\"\"\nb = [ [ 1 }, 2 ]\n", 4),
    ])
  func mismatchedBracket(_ text: String, line: Int) {
    let (config, problems) = Config.parse(text)
    #expect(config == Config())
    #expect(problems.map(\.line) == [line])
    #expect(problems.first?.message.contains("a bracket closes what it did not open") == true)
  }

  @Test("Brackets inside strings and comments, nested arrays and inline tables pass the check")
  func balancedBrackets() {
    for text in [
      "[keys]\nnext = [\"Right\", \"]\", \"}\"]  # ] }\n",
      "a = [[1, 2], [3, {b = 4}]]\n[theme]\nc = { d = [1, 2], e = \"}\" }\n",
      "a = '''\n] }\n'''\nb = \"\"\"\n\\\"\"\" ] \"\"\"\n",
      "a = [\n  1,\n  [2],\n]\n[[t]]\nx = 1\n",
    ] {
      #expect(Config.mismatchedBracket(in: text) == nil, "\(text)")
    }
  }

  @Test("Line ends of \\r\\n count lines as \\n does, and a bad header there is found")
  func crlfHeaders() {
    #expect(Config.malformedTableHeader(in: "[keys]\r\nnext = \"n\"\r\n[+eys]\r\n") == 3)
    #expect(Config.malformedTableHeader(in: "[keys]\r\nnext = \"n\"\r\n[theme]\r\n") == nil)
  }

  @Test("Headers that start with a key, a quote or a bracket pass the check")
  func wellFormedHeaders() {
    for text in ["[keys]", "  [[a]]", "[ \"quoted\" ]", "['lit']", "[_x-1]", "[]", "["] {
      #expect(Config.malformedTableHeader(in: text) == nil, "\(text)")
    }
  }
}

@Suite("Config: service URLs")
struct ConfigServiceURLTests {
  @Test("itunes_url sets the search catalog's base URL")
  func itunesURL() {
    let (config, problems) = Config.parse("itunes_url = \"http://127.0.0.1:8080/api\"\n")
    #expect(problems == [])
    #expect(config.itunesURL?.absoluteString == "http://127.0.0.1:8080/api")
  }

  @Test("token is read; a wrong one is reported without repeating its value")
  func token() {
    #expect(Config.parse("token = \"abc.def\"\n").0.token == "abc.def")
    let (config, problems) = Config.parse("\ntoken = 12345678\n")
    #expect(config.token == nil)
    #expect(
      problems.map(\.description) == [
        "config.toml line 2: 'token' must be a non-empty string (no token is sent)"
      ])
  }

  @Test("an itunes_url that is not http(s) is reported with its line and left at the default")
  func badURL() {
    let (config, problems) = Config.parse("\nitunes_url = \"ftp://x\"\n")
    #expect(config.itunesURL == nil)
    #expect(
      problems.map(\.description) == [
        "config.toml line 2: 'itunes_url' must be an http:// or https:// URL (using the default)"
      ])
  }
}
