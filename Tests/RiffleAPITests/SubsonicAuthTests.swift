import Foundation
import Testing

@testable import RiffleAPI

private let navidrome = SubsonicAuth.ServerInfo(version: SubsonicVersion("1.16.1")!)
private let supysonic = SubsonicAuth.ServerInfo(version: SubsonicVersion("1.12.0")!)

private func items(
  _ auth: SubsonicAuth, _ server: SubsonicAuth.ServerInfo, _ base: String, salt: String = "c19b2d"
) throws -> [String: String] {
  var out: [String: String] = [:]
  for item in try auth.queryItems(for: server, base: URL(string: base)!, salt: salt) {
    out[item.name] = item.value
  }
  return out
}

@Suite("Subsonic sign-in")
struct SubsonicAuthTests {
  @Test("MD5 gives RFC 1321's digests")
  func md5() {
    #expect(MD5.hex("") == "d41d8cd98f00b204e9800998ecf8427e")
    #expect(MD5.hex("abc") == "900150983cd24fb0d6963f7d28e17f72")
    #expect(
      MD5.hex("The quick brown fox jumps over the lazy dog") == "9e107d9d372bb6826bd81d3542a419d6")
    // Across the 56-byte padding boundary and several blocks.
    #expect(
      MD5.hex(String(repeating: "1234567890", count: 8))
        == "57edf4a22be3c955ac49da2e2107b67a")
  }

  @Test("the API's documented example: password sesame, salt c19b2d")
  func documentedToken() throws {
    #expect(
      SubsonicAuth.token(password: "sesame", salt: "c19b2d") == "26719a1196d2a940705a59634eb18eab")
    let auth = SubsonicAuth(server: "home", user: "joe", credential: .password("sesame"))
    #expect(
      try items(auth, navidrome, "http://music.lan:4533")
        == ["u": "joe", "t": "26719a1196d2a940705a59634eb18eab", "s": "c19b2d"])
    let salt = SubsonicAuth.salt()
    #expect(salt.count == 12 && salt.allSatisfy(\.isHexDigit))
    #expect(SubsonicAuth.salt() != salt)
  }

  @Test("a server older than 1.13 gets p=enc: only over https, on loopback, or when allowed")
  func plainPassword() throws {
    let auth = SubsonicAuth(server: "old", user: "joe", credential: .password("sesame"))
    #expect(try items(auth, supysonic, "http://127.0.0.1:5000")["p"] == "enc:736573616d65")
    #expect(try items(auth, supysonic, "https://music.example.com")["p"] == "enc:736573616d65")
    #expect(throws: SubsonicError.tooOldForTokens(server: "old", version: "1.12.0")) {
      try items(auth, supysonic, "http://music.lan:5000")
    }
    var allowed = auth
    allowed.allowPlainPassword = true
    #expect(try items(allowed, supysonic, "http://music.lan:5000")["p"] == "enc:736573616d65")
    #expect(
      SubsonicError.tooOldForTokens(server: "old", version: "1.12.0").userMessage.contains(
        "allow_plain_password"))
  }

  @Test("an API key goes only where the server offers it")
  func apiKey() throws {
    let auth = SubsonicAuth(server: "nd", user: "joe", credential: .apiKey("k-1"))
    var offering = navidrome
    offering.extensions = ["apiKeyAuthentication"]
    #expect(try items(auth, offering, "http://music.lan") == ["apiKey": "k-1"])
    #expect(throws: SubsonicError.apiKeyNotOffered(server: "nd")) {
      try items(auth, navidrome, "http://music.lan")
    }
  }

  @Test("versions compare part by part")
  func versions() {
    #expect(SubsonicVersion("1.12.0")! < SubsonicVersion.tokens)
    #expect(SubsonicVersion("1.13")! == SubsonicVersion.tokens)
    #expect(SubsonicVersion("1.16.1")! > SubsonicVersion("1.9.0")!)
    #expect(SubsonicVersion("one.two") == nil)
  }

  @Test("each documented error code, an HTML page with 200 and a foreign JSON say what to do")
  func errors() throws {
    func failure(_ code: Int) -> SubsonicError? {
      let body = #"""
        {"subsonic-response":{"status":"failed","version":"1.16.1",
         "error":{"code":\#(code),"message":"said \u001b[31mred"}}}
        """#
      do {
        _ = try SubsonicEnvelope.open(Data(body.utf8), server: "home")
        return nil
      } catch {
        return error
      }
    }
    let expected: [Int: String] = [
      0: "failed (error 0)", 10: "required parameter", 20: "newer client",
      30: "update the server", 40: "set user and password", 41: "allow_plain_password",
      42: "set password or api_key", 43: "not both", 44: "set a new api_key",
      50: "may not do that", 60: "trial is over", 70: "not found",
    ]
    for (code, words) in expected {
      let message = failure(code)?.userMessage ?? ""
      #expect(message.hasPrefix("home"), "\(code): \(message)")
      #expect(message.contains(words), "\(code): \(message)")
      #expect(!message.contains("\u{1B}"), "server text is sanitized")
    }
    #expect(throws: SubsonicError.notTheAPI(server: "home")) {
      try SubsonicEnvelope.open(Data("<html><form>Login</form></html>".utf8), server: "home")
    }
    #expect(throws: SubsonicError.notTheAPI(server: "home")) {
      try SubsonicEnvelope.open(Data(#"{"songs":[]}"#.utf8), server: "home")
    }
    let ok = try SubsonicEnvelope.open(
      Data(#"{"subsonic-response":{"status":"ok","version":"1.12.0"}}"#.utf8), server: "home")
    #expect(SubsonicEnvelope.serverInfo(ok)?.version == SubsonicVersion("1.12.0"))
  }
}
