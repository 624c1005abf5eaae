import Foundation
import RiffleAPI
import TOMLKit

/// `[[servers]]`: the Subsonic-compatible servers `riffle server NAME` opens.
///
/// ```toml
/// [[servers]]
/// name = "home"                      # letters, digits and -: riffle server home
/// url = "https://music.example.org"  # the server's base URL (rest/... goes after it)
/// user = "me"
/// password = "..."                   # or api_key = "..." (OpenSubsonic servers)
/// allow_plain_password = false       # servers older than API 1.13 over http to another host
/// format = "mp3"                     # optional: what stream sends (mp3, opus, raw, ...)
/// max_bit_rate = 192                 # optional, kbit/s
/// ```
extension Config {
  static let serverKeys: Set = [
    "name", "url", "user", "password", "api_key", "allow_plain_password", "format",
    "max_bit_rate",
  ]

  /// The servers of `[[servers]]`; one with a problem is left out and said why (never quoting
  /// a password or key).
  static func parseServers(
    _ value: any TOMLValueConvertible, lines: [String], problems: inout [Problem]
  ) -> [SubsonicServerSettings] {
    let header = lines.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("[[servers") }
      .map { $0 + 1 }
    guard let array = value.array else {
      problems.append(
        Problem(line: header, message: "servers must be [[servers]] tables, one per server"))
      return []
    }
    var servers: [SubsonicServerSettings] = []
    for (number, item) in array.enumerated() {
      let which = "server \(number + 1) of [[servers]]"
      guard let table = item.table else {
        problems.append(Problem(line: header, message: "\(which) is not a table"))
        continue
      }
      var usable = true
      func problem(_ text: String) {
        problems.append(Problem(line: header, message: "\(which): \(text)"))
      }
      for key in table.keys.sorted() where !serverKeys.contains(key) {
        problem("unknown setting '\(key)'")
      }
      func text(_ key: String) -> String? {
        guard let value = table[key] else { return nil }
        guard let string = value.string?.trimmingCharacters(in: .whitespaces), !string.isEmpty
        else {
          problem("'\(key)' must be a non-empty string")
          usable = false
          return nil
        }
        return string
      }
      let name = text("name")
      let url = text("url")
      let user = text("user")
      let password = text("password")
      let apiKey = text("api_key")
      let format = text("format")
      guard let name, SubsonicServerSettings.isValidName(name) else {
        problem("needs a 'name' of letters, digits and - (it is what riffle server NAME takes)")
        continue
      }
      let server = "server \u{201C}\(name)\u{201D}"
      func refuse(_ text: String) {
        problems.append(Problem(line: header, message: "\(server): \(text) (left out)"))
        usable = false
      }
      var base: URL?
      if let url {
        base = serviceURL(url)
        if base == nil { refuse("'url' must be an http:// or https:// URL") }
      } else {
        refuse("needs a 'url'")
      }
      if user == nil && apiKey == nil { refuse("needs a 'user'") }
      let credential: SubsonicAuth.Credential?
      switch (password, apiKey) {
      case (let password?, nil): credential = .password(password)
      case (nil, let key?): credential = .apiKey(key)
      case (nil, nil):
        refuse("needs a 'password' or an 'api_key'")
        credential = nil
      case (_?, _?):
        refuse("give either 'password' or 'api_key', not both")
        credential = nil
      }
      var allowPlain = false
      if let value = table["allow_plain_password"] {
        if let flag = value.bool {
          allowPlain = flag
        } else {
          refuse("'allow_plain_password' must be true or false")
        }
      }
      var maxBitRate: Int?
      if let value = table["max_bit_rate"] {
        if let rate = value.int, rate >= 0 {
          maxBitRate = rate == 0 ? nil : rate
        } else {
          refuse("'max_bit_rate' must be a number of kbit/s")
        }
      }
      if servers.contains(where: { $0.name.lowercased() == name.lowercased() }) {
        refuse("the name is taken by an earlier server")
      }
      guard usable, let base, let credential else { continue }
      servers.append(
        SubsonicServerSettings(
          name: name, url: base, user: user ?? "", credential: credential,
          allowPlainPassword: allowPlain, format: format, maxBitRate: maxBitRate))
    }
    return servers
  }

  /// config.toml's text with one more `[[servers]]` table at its end (the rest kept as it was).
  public static func addingServer(
    name: String, url: String, user: String, password: String, to text: String
  ) -> String {
    let quoted = tomlString
    var result = text
    if !result.isEmpty && !result.hasSuffix("\n") { result += "\n" }
    if !result.isEmpty { result += "\n" }
    return result
      + [
        "[[servers]]", "name = \(quoted(name))", "url = \(quoted(url))", "user = \(quoted(user))",
        "password = \(quoted(password))",
      ].joined(separator: "\n") + "\n"
  }
}
