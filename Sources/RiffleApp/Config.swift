import Foundation
import RiffleAPI
import RiffleCore
import RiffleTUI
import TOMLKit

/// The user's settings from `$XDG_CONFIG_HOME/riffle/config.toml`: key bindings and colours.
///
/// ```toml
/// [keys]
/// next = ["Right", "n"]       # replaces the default keys of that action
/// like = "f"
///
/// [theme]
/// accent = "#ff5a78"          # or a palette number, 0-255
///
/// [notifications]
/// enabled = true              # a desktop notification when a song starts (off by default)
///
/// [library]
/// folders = ["/home/me/Music"]  # the library's folders (`riffle library add PATH`)
///
/// [scrobble.listenbrainz]     # either, both or none
/// token = "..."               # from the ListenBrainz profile page
/// url = "https://api.listenbrainz.org"          # optional
///
/// [scrobble.lastfm]
/// api_key = "..."
/// secret = "..."
/// session_key = "..."
/// url = "https://ws.audioscrobbler.com"         # optional
/// ```
///
/// Top-level settings: `itunes_url = "https://itunes.apple.com"` (the search catalog) and
/// `lyrics_url = "https://lrclib.net"` (the LRCLIB server lyrics come from), and
/// `token = "..."`, the sign-in token sent to the feed's own host (`RIFFLE_TOKEN` overrides it).
///
/// Whatever cannot be understood is reported with its line and left at its default; the rest
/// of the file still applies.
public struct Config: Equatable, Sendable {
  public var keyMap: KeyMap
  public var theme: Theme
  /// The iTunes Search API's base URL, when the file sets one.
  public var itunesURL: URL?
  /// `lyrics_url`: the LRCLIB server, when the file names one.
  public var lyricsURL: URL?
  /// `radio_browser_url`: the Radio Browser server stations are searched on.
  public var radioBrowserURL: URL?
  /// Desktop notifications on song change (`[notifications] enabled`).
  public var notifications = false
  /// The library's folders (`[library] folders`), absolute paths.
  public var libraryFolders: [String] = []
  /// The colour depth (`[display] color`): auto, or a forced mode.
  public var color = ColorSetting.auto
  /// How covers are shown (`[display] pictures`): auto, kitty, sixel, iterm or symbols.
  public var pictures = PictureSetting.auto
  /// `token`: the feed's sign-in token, sent as `Authorization: Bearer` to its host only.
  public var token: String?
  /// Where listens are scrobbled (`[scrobble.listenbrainz]`, `[scrobble.lastfm]`).
  public var scrobble = ScrobbleSettings()
  /// The Subsonic-compatible servers of `[[servers]]` (see Config+Servers.swift).
  public var servers: [SubsonicServerSettings] = []

  public init(
    keyMap: KeyMap = .standard, theme: Theme = .standard, itunesURL: URL? = nil,
    lyricsURL: URL? = nil
  ) {
    self.keyMap = keyMap
    self.theme = theme
    self.itunesURL = itunesURL
    self.lyricsURL = lyricsURL
  }

  public static func == (a: Config, b: Config) -> Bool {
    a.theme == b.theme && a.keyMap.bindings == b.keyMap.bindings && a.itunesURL == b.itunesURL
      && a.lyricsURL == b.lyricsURL && a.notifications == b.notifications
      && a.libraryFolders == b.libraryFolders && a.color == b.color
      && a.pictures == b.pictures && a.token == b.token && a.scrobble == b.scrobble
      && a.servers == b.servers
      && a.radioBrowserURL == b.radioBrowserURL
  }

  /// Settings that hold a base URL, and where each goes.
  static var urlSettings: [(name: String, path: WritableKeyPath<Config, URL?>)] {
    [("itunes_url", \.itunesURL), ("lyrics_url", \.lyricsURL)]
      + [("radio_browser_url", \.radioBrowserURL)]
  }

  /// An http(s) URL for a service, or nil.
  public static func serviceURL(_ text: String) -> URL? {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https", url.host != nil
    else { return nil }
    return url
  }

  /// The base URL of a service: the command-line flag, then the environment variable, then
  /// the config file, then the default. A flag or variable that is not an http(s) URL is an
  /// error naming where it came from.
  public static func resolveServiceURL(
    flag: (name: String, value: String?), environment: (name: String, value: String?),
    file: URL?, fallback: URL
  ) throws(ServiceURLError) -> URL {
    for (source, value) in [flag, environment] {
      guard let value, !value.isEmpty else { continue }
      guard let url = serviceURL(value) else {
        throw ServiceURLError(
          message: "\(source) must be an http:// or https:// URL, not '\(value)'")
      }
      return url
    }
    return file ?? fallback
  }

  /// A base URL given on the command line or in the environment that cannot be used.
  public struct ServiceURLError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }

    public init(message: String) {
      self.message = message
    }
  }

  /// Something in the file that was not used, with the line it is on.
  public struct Problem: Equatable, Sendable, CustomStringConvertible {
    public var line: Int?
    public var message: String
    public var description: String {
      line.map { "config.toml line \($0): \(message)" } ?? "config.toml: \(message)"
    }
  }

  /// Reads a config file's text. Never fails: problems come back beside the config.
  public static func parse(_ text: String) -> (Config, [Problem]) {
    var config = Config()
    var problems: [Problem] = []
    if let line = malformedTableHeader(in: text) {
      return (config, [Problem(line: line, message: "malformed table header (using the defaults)")])
    }
    if let line = mismatchedBracket(in: text) {
      return (
        config,
        [Problem(line: line, message: "a bracket closes what it did not open (using the defaults)")]
      )
    }
    let table: TOMLTable
    do {
      table = try TOMLTable(string: text)
    } catch let error as TOMLParseError {
      return (
        config,
        [
          Problem(
            line: error.source.begin.line, message: "\(error.description) (using the defaults)")
        ]
      )
    } catch {
      return (config, [Problem(line: nil, message: "\(error); using the defaults")])
    }
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)

    let urlNames = Set(urlSettings.map(\.name))
    let sections: Set = [
      "keys", "theme", "notifications", "library", "display", "scrobble", "servers",
    ]
    let plain: Set = ["token"]
    for key in table.keys
    where !sections.contains(key) && !urlNames.contains(key) && !plain.contains(key) {
      problems.append(
        Problem(line: lineOf(key, section: nil, in: lines), message: "unknown setting '\(key)'"))
    }
    for (name, path) in urlSettings {
      guard let value = table[name] else { continue }
      if let text = value.string, let url = serviceURL(text) {
        config[keyPath: path] = url
      } else {
        problems.append(
          Problem(
            line: lineOf(name, section: nil, in: lines),
            message: "'\(name)' must be an http:// or https:// URL (using the default)"))
      }
    }
    if let value = table["token"] {
      if let text = value.string?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
        config.token = text
      } else {
        // The value itself is never repeated: it is a secret.
        problems.append(
          Problem(
            line: lineOf("token", section: nil, in: lines),
            message: "'token' must be a non-empty string (no token is sent)"))
      }
    }

    if let keys = table["keys"] {
      if let keysTable = keys.table {
        applyKeys(keysTable, lines: lines, to: &config.keyMap, problems: &problems)
      } else {
        problems.append(
          Problem(line: lineOf("keys", section: nil, in: lines), message: "[keys] must be a table"))
      }
    }
    if let theme = table["theme"] {
      if let themeTable = theme.table {
        applyTheme(themeTable, lines: lines, to: &config.theme, problems: &problems)
      } else {
        problems.append(
          Problem(
            line: lineOf("theme", section: nil, in: lines), message: "[theme] must be a table"))
      }
    }
    if let notifications = table["notifications"] {
      applyNotifications(notifications, lines: lines, to: &config, problems: &problems)
    }
    if let library = table["library"] {
      applyLibrary(library, lines: lines, to: &config, problems: &problems)
    }
    if let display = table["display"] {
      applyDisplay(display, lines: lines, to: &config, problems: &problems)
    }
    if let scrobble = table["scrobble"] {
      config.scrobble = parseScrobble(scrobble, lines: lines, problems: &problems)
    }
    if let servers = table["servers"] {
      config.servers = parseServers(servers, lines: lines, problems: &problems)
    }
    return (config, problems)
  }

  /// The line of a table header whose key does not start with a key character or a quote.
  ///
  /// toml++ (under TOMLKit) asserts on such a header instead of reporting it: a debug build
  /// aborts and a release build runs into undefined behaviour. Found by the `config` fuzz
  /// target with `[+eys]`.
  /// Read by Unicode scalar, as the parser reads: as Characters, `[` and a combining mark after
  /// it are one character, and so are `\r\n`, which hid such headers from the check.
  static func malformedTableHeader(in text: String) -> Int? {
    let scalars = text.unicodeScalars
    func startsKey(_ rest: Substring.UnicodeScalarView.SubSequence) -> Bool {
      // At the end of the text the parser reports the end itself; at the end of a line toml++
      // asserts (`[` then a newline, found by the config fuzz target).
      guard let first = rest.first else { return rest.endIndex == scalars.endIndex }
      return first.isASCII
        && (first.properties.isAlphabetic || ("0"..."9").contains(first)
          || "_-\"'".unicodeScalars.contains(first) || first == "]")
    }
    var number = 0
    for line in scalars.split(separator: "\n", omittingEmptySubsequences: false) {
      number += 1
      var rest = line.drop { $0 == " " || $0 == "\t" }
      guard rest.first == "[" else { continue }
      rest = rest.dropFirst()
      if rest.first == "[" { rest = rest.dropFirst() }
      rest = rest.drop { $0 == " " || $0 == "\t" }
      if !startsKey(rest) { return number }
    }
    return nil
  }

  /// The line of a `}` that closes an array, or a `]` that closes an inline table, in a value.
  ///
  /// toml++ asserts on `}` where an array's next value should be (`next = ["Right",}]`): the
  /// process aborts, in release builds too. Found by the `config` fuzz target. Valid TOML never
  /// has such a bracket, so the file is refused before the parser sees it. Strings and comments
  /// are skipped; a line starting with `[` while nothing is open is a table header (checked by
  /// `malformedTableHeader`).
  static func mismatchedBracket(in text: String) -> Int? {
    let scalars = Array(text.unicodeScalars)
    var open: [Unicode.Scalar] = []
    var line = 1
    var lineStart = true
    var index = 0
    func skipToLineEnd() {
      while index < scalars.count, scalars[index] != "\n" { index += 1 }
    }
    /// Skips a string starting at `index` (its opening quote), counting the lines it spans.
    func skipString() {
      let quote = scalars[index]
      let triple =
        index + 2 < scalars.count && scalars[index + 1] == quote && scalars[index + 2] == quote
      index += triple ? 3 : 1
      while index < scalars.count {
        let scalar = scalars[index]
        if scalar == "\\" && quote == "\"" {
          if index + 1 < scalars.count, scalars[index + 1] == "\n" { line += 1 }
          index += 2
          continue
        }
        if scalar == "\n" {
          if !triple { return }  // unterminated: the parser reports it
          line += 1
        }
        if scalar == quote {
          if !triple {
            index += 1
            return
          }
          if index + 2 < scalars.count, scalars[index + 1] == quote, scalars[index + 2] == quote {
            index += 3
            return
          }
        }
        index += 1
      }
    }
    while index < scalars.count {
      let scalar = scalars[index]
      switch scalar {
      case "\n":
        line += 1
        lineStart = true
        index += 1
        continue
      case " ", "\t", "\r":
        index += 1
        continue
      default:
        break
      }
      defer { lineStart = false }
      switch scalar {
      case "[" where lineStart && open.isEmpty:
        skipToLineEnd()
      case "#":
        skipToLineEnd()
      case "\"", "'":
        skipString()
      case "[", "{":
        open.append(scalar)
        index += 1
      case "]", "}":
        if let last = open.last {
          guard (last == "[") == (scalar == "]") else { return line }
          open.removeLast()
        }
        index += 1
      default:
        index += 1
      }
    }
    return nil
  }

  /// Reads the file if there is one; a missing file is no problem.
  public static func load(from file: URL) -> (Config, [Problem]) {
    guard FileManager.default.fileExists(atPath: file.path) else { return (Config(), []) }
    guard let data = try? Data(contentsOf: file) else {
      return (Config(), [Problem(line: nil, message: "cannot read \(file.path)")])
    }
    guard let text = String(data: data, encoding: .utf8) else {
      return (Config(), [Problem(line: nil, message: "not UTF-8 text; using the defaults")])
    }
    return parse(text)
  }

  private static func applyKeys(
    _ table: TOMLTable, lines: [String], to keyMap: inout KeyMap, problems: inout [Problem]
  ) {
    for name in table.keys.sorted() {
      let line = lineOf(name, section: "keys", in: lines)
      guard let action = Command.named(name)?.action else {
        problems.append(Problem(line: line, message: "unknown action '\(name)'"))
        continue
      }
      let value = table[name]
      var names: [String] = []
      if let single = value?.string {
        names = [single]
      } else if let array = value?.array {
        names = array.compactMap { $0.string }
        if names.count != array.count {
          problems.append(Problem(line: line, message: "keys for '\(name)' must be strings"))
        }
      } else {
        problems.append(
          Problem(line: line, message: "'\(name)' takes a key name or a list of key names"))
        continue
      }
      var keys: [Key] = []
      for keyName in names {
        if let key = keyFromName(keyName) {
          keys.append(key)
        } else {
          problems.append(Problem(line: line, message: "unknown key '\(keyName)' for '\(name)'"))
        }
      }
      guard !keys.isEmpty else { continue }
      // The new keys replace the action's defaults, and take their keys from other actions.
      keyMap.rebind(action, to: keys)
    }
  }

  private static func applyTheme(
    _ table: TOMLTable, lines: [String], to theme: inout Theme, problems: inout [Problem]
  ) {
    let slots: [(String, WritableKeyPath<Theme, Color>)] = [
      ("text", \.text), ("muted", \.muted), ("accent", \.accent), ("band", \.band),
      ("error", \.error), ("progress", \.progress), ("progress_track", \.progressTrack),
    ]
    for name in table.keys.sorted() {
      let line = lineOf(name, section: "theme", in: lines)
      guard let slot = slots.first(where: { $0.0 == name })?.1 else {
        problems.append(Problem(line: line, message: "unknown colour '\(name)'"))
        continue
      }
      let value = table[name]
      if let text = value?.string, let color = colorFromHex(text) {
        theme[keyPath: slot] = color
      } else if let index = value?.int, (0...255).contains(index) {
        theme[keyPath: slot] = .palette(UInt8(index))
      } else {
        problems.append(
          Problem(line: line, message: "'\(name)' must be \"#rrggbb\" or a palette number 0-255"))
      }
    }
  }

  private static func applyLibrary(
    _ value: any TOMLValueConvertible, lines: [String], to config: inout Config,
    problems: inout [Problem]
  ) {
    guard let table = value.table else {
      problems.append(
        Problem(
          line: lineOf("library", section: nil, in: lines), message: "[library] must be a table"))
      return
    }
    for name in table.keys.sorted() {
      let line = lineOf(name, section: "library", in: lines)
      guard name == "folders" else {
        problems.append(Problem(line: line, message: "unknown library setting '\(name)'"))
        continue
      }
      guard let array = table[name]?.array else {
        problems.append(
          Problem(line: line, message: "'folders' must be a list of paths (ignored)"))
        continue
      }
      for item in array {
        if let path = item.string, path.hasPrefix("/") {
          if !config.libraryFolders.contains(path) { config.libraryFolders.append(path) }
        } else {
          problems.append(
            Problem(line: line, message: "'folders' holds something not an absolute path (ignored)")
          )
        }
      }
    }
  }

  /// `value` as a TOML basic string: quoted, with backslash, quote and control characters
  /// escaped.
  static func tomlString(_ value: String) -> String {
    var escaped = ""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\\": escaped += "\\\\"
      case "\"": escaped += "\\\""
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        escaped += String(format: "\\u%04X", scalar.value)
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return "\"\(escaped)\""
  }

  /// The config file's text with `[library] folders` set to `folders`: the section is written
  /// anew (it holds nothing else), everything else in the file is kept as it was, comments too.
  public static func settingLibraryFolders(_ folders: [String], in text: String) -> String {
    let quoted = folders.map { "  \(tomlString($0))," }
    let section = (["[library]", "folders = ["] + quoted + ["]"]).joined(separator: "\n")
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if let start = lines.firstIndex(where: {
      $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ", with: "") == "[library]"
    }) {
      // The section runs to the next table header; the lines of a list never start with "[".
      var end = start + 1
      while end < lines.count, !lines[end].trimmingCharacters(in: .whitespaces).hasPrefix("[") {
        end += 1
      }
      lines.replaceSubrange(start..<end, with: [section, ""])
      return lines.joined(separator: "\n")
    }
    var result = text
    if !result.isEmpty && !result.hasSuffix("\n") { result += "\n" }
    if !result.isEmpty { result += "\n" }
    return result + section + "\n"
  }

  private static func applyNotifications(
    _ value: any TOMLValueConvertible, lines: [String], to config: inout Config,
    problems: inout [Problem]
  ) {
    guard let table = value.table else {
      problems.append(
        Problem(
          line: lineOf("notifications", section: nil, in: lines),
          message: "[notifications] must be a table"))
      return
    }
    for name in table.keys.sorted() {
      let line = lineOf(name, section: "notifications", in: lines)
      guard name == "enabled" else {
        problems.append(Problem(line: line, message: "unknown notification setting '\(name)'"))
        continue
      }
      guard let enabled = table[name]?.bool else {
        problems.append(Problem(line: line, message: "'enabled' must be true or false"))
        continue
      }
      config.notifications = enabled
    }
  }

  private static func applyDisplay(
    _ value: any TOMLValueConvertible, lines: [String], to config: inout Config,
    problems: inout [Problem]
  ) {
    guard let table = value.table else {
      problems.append(
        Problem(
          line: lineOf("display", section: nil, in: lines), message: "[display] must be a table"))
      return
    }
    for name in table.keys.sorted() {
      let line = lineOf(name, section: "display", in: lines)
      switch name {
      case "color":
        // A number is taken as well as its text: color = 256.
        let text = table[name]?.string ?? table[name]?.int.map(String.init)
        guard let text, let setting = ColorSetting(rawValue: text.lowercased()) else {
          problems.append(
            Problem(
              line: line,
              message: "'color' must be \"auto\", \"truecolor\", \"256\", \"16\" or \"8\""))
          continue
        }
        config.color = setting
      case "pictures":
        guard let text = table[name]?.string,
          let setting = PictureSetting(rawValue: text.lowercased())
        else {
          problems.append(
            Problem(
              line: line,
              message:
                "'pictures' must be \"auto\", \"kitty\", \"sixel\", \"iterm\" or \"symbols\""))
          continue
        }
        config.pictures = setting
      default:
        problems.append(Problem(line: line, message: "unknown display setting '\(name)'"))
      }
    }
  }

  /// `[scrobble.listenbrainz]` and `[scrobble.lastfm]`. A service whose table lacks a
  /// credential or has a wrong URL is left off (listens to the default server with a token
  /// meant for another would only be refused). Problems never quote a value: they may be
  /// secrets.
  static func parseScrobble(
    _ value: any TOMLValueConvertible, lines: [String], problems: inout [Problem]
  ) -> ScrobbleSettings {
    var settings = ScrobbleSettings()
    guard let table = value.table else {
      problems.append(
        Problem(
          line: lineOf("scrobble", section: nil, in: lines),
          message: "[scrobble] must hold [scrobble.listenbrainz] or [scrobble.lastfm] tables"))
      return settings
    }
    for name in table.keys.sorted() where name != "listenbrainz" && name != "lastfm" {
      problems.append(
        Problem(
          line: lineOf("scrobble.\(name)", section: nil, in: lines)
            ?? lineOf(name, section: "scrobble", in: lines),
          message: "unknown scrobbling service '\(name)' (listenbrainz and lastfm are known)"))
    }
    /// The service's strings by name, `nil` when the table is unusable.
    func strings(_ service: String, required: [String]) -> ([String: String], URL?)? {
      let section = "scrobble.\(service)"
      guard let value = table[service] else { return nil }
      guard let entries = value.table else {
        problems.append(
          Problem(
            line: lineOf(service, section: "scrobble", in: lines),
            message: "[\(section)] must be a table"))
        return nil
      }
      var found: [String: String] = [:]
      var usable = true
      for name in entries.keys.sorted() {
        let line = lineOf(name, section: section, in: lines)
        guard required.contains(name) || name == "url" else {
          problems.append(Problem(line: line, message: "unknown setting '\(name)' in [\(section)]"))
          continue
        }
        guard let text = entries[name]?.string else {
          problems.append(
            Problem(line: line, message: "'\(name)' in [\(section)] must be a string"))
          usable = false
          continue
        }
        found[name] = text.trimmingCharacters(in: .whitespaces)
      }
      var url: URL?
      if let text = found["url"] {
        url = serviceURL(text)
        if url == nil {
          problems.append(
            Problem(
              line: lineOf("url", section: section, in: lines),
              message: "'url' in [\(section)] must be an http:// or https:// URL"))
          usable = false
        }
      }
      for name in required where found[name]?.isEmpty ?? true {
        if found[name] == nil && entries[name] != nil { continue }  // reported as not a string
        problems.append(
          Problem(
            line: lineOf(section, section: nil, in: lines),
            message: "[\(section)] needs a non-empty '\(name)'"))
        usable = false
      }
      guard usable else {
        problems.append(
          Problem(line: nil, message: "scrobbling to \(service) is off until [\(section)] is fixed")
        )
        return nil
      }
      return (found, url)
    }
    if let (found, url) = strings("listenbrainz", required: ["token"]) {
      settings.listenBrainz = ScrobbleSettings.ListenBrainz(
        token: found["token"]!, url: url ?? ScrobbleSettings.ListenBrainz.defaultURL)
    }
    if let (found, url) = strings("lastfm", required: ["api_key", "secret", "session_key"]) {
      settings.lastFM = ScrobbleSettings.LastFM(
        apiKey: found["api_key"]!, secret: found["secret"]!, sessionKey: found["session_key"]!,
        url: url ?? ScrobbleSettings.LastFM.defaultURL)
    }
    return settings
  }

  /// "Space", "Left", "Shift+Right", "F5", "q", ...
  public static func keyFromName(_ name: String) -> Key? {
    // The names help shows (Key.displayName) are taken too, so a key copied from it works.
    switch name.lowercased() {
    case "space": return .char(" ")
    case "left", "←": return .left
    case "right", "→": return .right
    case "up", "↑": return .up
    case "down", "↓": return .down
    case "shift+left", "shift+←": return .shiftLeft
    case "shift+right", "shift+→": return .shiftRight
    case "home": return .home
    case "end": return .end
    case "pageup", "pgup": return .pageUp
    case "pagedown", "pgdn": return .pageDown
    case "enter", "return": return .enter
    case "tab": return .tab
    case "escape", "esc": return .escape
    case "backspace": return .backspace
    default: break
    }
    if name.count == 1, let ch = name.first, !ch.isWhitespace,
      !ch.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
    {
      return .char(ch)
    }
    if name.lowercased().hasPrefix("f"), let n = Int(name.dropFirst()), (1...24).contains(n) {
      return .function(n)
    }
    return nil
  }

  static func colorFromHex(_ text: String) -> Color? {
    var hex = Substring(text)
    if hex.hasPrefix("#") { hex = hex.dropFirst() }
    guard hex.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
    return .rgb(UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
  }

  /// The 1-based line where `key = ...` stands in `[section]` (or before any section).
  static func lineOf(_ key: String, section: String?, in lines: [String]) -> Int? {
    var current: String? = nil
    for (i, raw) in lines.enumerated() {
      // A comment may follow a header or a value ("[keys]  # vi keys").
      let uncommented =
        raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        .first.map(String.init) ?? raw
      let line = uncommented.trimmingCharacters(in: .whitespaces)
      if line.hasPrefix("[") {
        current = line.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
        if section == nil && current == key { return i + 1 }
        continue
      }
      guard current == section else { continue }
      let name = line.split(separator: "=", maxSplits: 1).first.map {
        $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t\"'"))
      }
      if name == key { return i + 1 }
    }
    return nil
  }
}
