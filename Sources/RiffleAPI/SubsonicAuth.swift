import Foundation
import RiffleCore

/// A Subsonic API version ("1.16.1"), compared part by part.
public struct SubsonicVersion: Comparable, Sendable, CustomStringConvertible {
  public var parts: [Int]

  public init?(_ text: String) {
    let parts = text.split(separator: ".").map { Int($0) }
    guard !parts.isEmpty, parts.count <= 4, parts.allSatisfy({ $0 != nil }) else { return nil }
    self.parts = parts.map { $0! }
  }

  public var description: String { parts.map(String.init).joined(separator: ".") }

  public static func < (a: SubsonicVersion, b: SubsonicVersion) -> Bool {
    for i in 0..<max(a.parts.count, b.parts.count) {
      let (x, y) = (i < a.parts.count ? a.parts[i] : 0, i < b.parts.count ? b.parts[i] : 0)
      if x != y { return x < y }
    }
    return false
  }

  public static func == (a: SubsonicVersion, b: SubsonicVersion) -> Bool { !(a < b) && !(b < a) }

  /// The first version that takes salted tokens (`t`, `s`).
  public static let tokens = SubsonicVersion("1.13.0")!
}

/// How Riffle signs in to a Subsonic-compatible server, and the query items that say it.
///
/// - An OpenSubsonic API key (`api_key`) goes as `apiKey` where the server offers the
///   `apiKeyAuthentication` extension.
/// - A password goes as a salted token (`t = md5(password + salt)`, `s = salt`) to servers of
///   API 1.13.0 and later (Navidrome, Airsonic-Advanced, Gonic).
/// - Older servers (Supysonic answers 1.12.0) take only the password itself, hex-encoded
///   (`p=enc:...`), which anyone on the way can read back: sent only over https, to a loopback
///   address, or when the server's `allow_plain_password = true` says the user accepts it.
public struct SubsonicAuth: Sendable {
  public enum Credential: Sendable, Equatable {
    case password(String)
    case apiKey(String)
  }

  /// The server's name in config.toml, for messages.
  public var server: String
  public var user: String
  public var credential: Credential
  public var allowPlainPassword: Bool

  public init(
    server: String, user: String, credential: Credential, allowPlainPassword: Bool = false
  ) {
    self.server = server
    self.user = user
    self.credential = credential
    self.allowPlainPassword = allowPlainPassword
  }

  /// What the server said of itself in its `ping`.
  public struct ServerInfo: Sendable {
    public var version: SubsonicVersion
    /// OpenSubsonic extensions offered (`apiKeyAuthentication`, ...).
    public var extensions: Set<String>

    public init(version: SubsonicVersion, extensions: Set<String> = []) {
      self.version = version
      self.extensions = extensions
    }
  }

  /// The query items that sign a request to the server at `base`; `salt` is fresh for each.
  public func queryItems(for server: ServerInfo, base: URL, salt: String) throws(SubsonicError)
    -> [URLQueryItem]
  {
    switch credential {
    case .apiKey(let key):
      guard server.extensions.contains("apiKeyAuthentication") else {
        throw .apiKeyNotOffered(server: self.server)
      }
      return [URLQueryItem(name: "apiKey", value: key)]
    case .password(let password):
      if server.version >= SubsonicVersion.tokens {
        return [
          URLQueryItem(name: "u", value: user),
          URLQueryItem(name: "t", value: Self.token(password: password, salt: salt)),
          URLQueryItem(name: "s", value: salt),
        ]
      }
      guard allowPlainPassword || Self.isPrivateWay(base) else {
        throw .tooOldForTokens(server: self.server, version: server.version.description)
      }
      return [
        URLQueryItem(name: "u", value: user),
        URLQueryItem(name: "p", value: "enc:" + Self.hex(Array(password.utf8))),
      ]
    }
  }

  /// `md5(password + salt)` in lowercase hex, as the API defines the token.
  public static func token(password: String, salt: String) -> String {
    MD5.hex(password + salt)
  }

  /// A fresh salt: 12 random hex digits.
  public static func salt() -> String {
    hex((0..<6).map { _ in UInt8.random(in: 0...255) })
  }

  /// True where a readable password does not cross a network: https, or a loopback address.
  static func isPrivateWay(_ url: URL) -> Bool {
    if url.scheme?.lowercased() == "https" { return true }
    guard let host = url.host?.lowercased() else { return false }
    return host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
  }

  static func hex(_ bytes: [UInt8]) -> String {
    bytes.map { byte in
      let text = String(byte, radix: 16)
      return byte < 16 ? "0" + text : text
    }.joined()
  }
}

/// What a Subsonic server refused, in words that name the setting to change.
public enum SubsonicError: Error, Equatable, Sendable {
  /// `status="failed"` with one of the API's error codes.
  case failed(server: String, code: Int, message: String)
  /// The server speaks an API older than 1.13.0 and the password would go readable.
  case tooOldForTokens(server: String, version: String)
  case apiKeyNotOffered(server: String)
  /// A page that is not the API (a sign-in page, a proxy's page).
  case notTheAPI(server: String)

  public var userMessage: String {
    switch self {
    case .failed(let server, let code, let message):
      let said = message.isEmpty ? "" : " (\(TextSanitizer.sanitize(message).prefix(80)))"
      switch code {
      case 10: return "\(server): a required parameter is missing\(said)"
      case 20: return "\(server) wants a newer client than Riffle\(said)"
      case 30:
        return "\(server) is too old for Riffle's requests\(said): update the server"
      case 40:
        return "\(server): wrong user or password: set user and password for it in config.toml"
      case 41:
        return
          "\(server) refuses tokens for this (LDAP) user: set allow_plain_password = true for it in config.toml, over https"
      case 42:
        return "\(server) does not take this way of signing in: set password or api_key for it"
      case 43: return "\(server): give either password or api_key for it in config.toml, not both"
      case 44: return "\(server) refused the API key: set a new api_key for it in config.toml"
      case 50: return "\(server): this user may not do that\(said)"
      case 60: return "\(server): the server's trial is over\(said)"
      case 70: return "\(server): not found\(said)"
      default: return "\(server) failed (error \(code))\(said)"
      }
    case .tooOldForTokens(let server, let version):
      return
        "\(server) speaks Subsonic API \(version), too old for tokens: the password would cross the network readable; use https, or set allow_plain_password = true for it in config.toml"
    case .apiKeyNotOffered(let server):
      return
        "\(server) does not take API keys: set password for it in config.toml instead of api_key"
    case .notTheAPI(let server):
      return
        "\(server) answered with something else than the Subsonic API (a sign-in page?): check its url in config.toml"
    }
  }

  /// True when trying again later may work: none of these.
  public var isTransient: Bool { false }
}

/// Reads the envelope every Subsonic JSON answer has: `{"subsonic-response": {"status",
/// "version", "type", "openSubsonic", "error": {"code", "message"}, ...}}`.
public enum SubsonicEnvelope {
  /// The response object of a successful answer, or why there is none.
  public static func open(_ data: Data, server: String) throws(SubsonicError) -> JSONValue {
    if FeedDecoder.looksLikeWebPage(data) { throw .notTheAPI(server: server) }
    guard let root = try? JSONValue.parse(data), let response = root["subsonic-response"],
      case .object = response
    else { throw .notTheAPI(server: server) }
    if response["status"]?.text == "ok" { return response }
    let error = response["error"]
    throw .failed(
      server: server, code: error?["code"]?.int ?? 0, message: error?["message"]?.text ?? "")
  }

  /// What `ping` says of the server: its API version and, for OpenSubsonic servers, nothing
  /// more here (extensions come from `getOpenSubsonicExtensions`).
  public static func serverInfo(_ response: JSONValue) -> SubsonicAuth.ServerInfo? {
    guard let version = response["version"]?.text.flatMap(SubsonicVersion.init) else {
      return nil
    }
    return SubsonicAuth.ServerInfo(version: version)
  }
}
