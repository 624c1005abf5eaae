import Foundation
import RiffleAPI
import Testing

@testable import RiffleApp

@Suite("config.toml: [[servers]]")
struct ServerConfigTests {
  @Test("two servers: a password and an API key, with the optional settings")
  func servers() {
    let text = """
      [[servers]]
      name = "home"
      url = "http://127.0.0.1:4533"
      user = "joe"
      password = "sesame"
      format = "opus"
      max_bit_rate = 128

      [[servers]]
      name = "far-away"
      url = "https://music.example/navidrome"
      api_key = "k-123"
      allow_plain_password = true
      """
    let (config, problems) = Config.parse(text)
    #expect(problems == [])
    #expect(
      config.servers == [
        SubsonicServerSettings(
          name: "home", url: URL(string: "http://127.0.0.1:4533")!, user: "joe",
          credential: .password("sesame"), format: "opus", maxBitRate: 128),
        SubsonicServerSettings(
          name: "far-away", url: URL(string: "https://music.example/navidrome")!, user: "",
          credential: .apiKey("k-123"), allowPlainPassword: true),
      ])
  }

  @Test("a server with a problem is left out and said why, never quoting a secret")
  func problems() {
    let cases: [(String, String)] = [
      (#"name = "a b"\#nurl = "http://h"\#nuser = "u"\#npassword = "s3cret""#, "letters, digits"),
      (#"name = "h"\#nurl = "ftp://h"\#nuser = "u"\#npassword = "s3cret""#, "'url' must be"),
      (#"name = "h"\#nurl = "http://h"\#nuser = "u""#, "'password' or an 'api_key'"),
      (
        #"name = "h"\#nurl = "http://h"\#nuser = "u"\#npassword = "s3cret"\#napi_key = "s3cret""#,
        "either 'password' or 'api_key'"
      ),
      (#"name = "h"\#nurl = "http://h"\#npassword = "s3cret""#, "needs a 'user'"),
      (#"name = "h"\#nurl = "http://h"\#nuser = "u"\#npassword = 5"#, "'password' must be"),
      (
        #"name = "h"\#nurl = "http://h"\#nuser = "u"\#npassword = "s3cret"\#nmax_bit_rate = "x""#,
        "'max_bit_rate'"
      ),
    ]
    for (body, expected) in cases {
      let (config, problems) = Config.parse("[[servers]]\n" + body + "\n")
      #expect(config.servers.isEmpty, "\(body)")
      #expect(problems.contains { $0.message.contains(expected) }, "\(body): \(problems)")
      #expect(!problems.contains { $0.message.contains("s3cret") })
    }
    let (_, unknown) = Config.parse(
      "[[servers]]\nname = \"h\"\nurl = \"http://h\"\nuser = \"u\"\npassword = \"p\"\ncolour = 1\n")
    #expect(unknown.contains { $0.message.contains("unknown setting 'colour'") })
    let twice = "[[servers]]\nname = \"h\"\nurl = \"http://h\"\nuser = \"u\"\npassword = \"p\"\n"
    let (config, taken) = Config.parse(twice + twice)
    #expect(config.servers.count == 1)
    #expect(taken.contains { $0.message.contains("taken") })
  }

  @Test("riffle server add writes a table that reads back, odd passwords and all")
  func added() {
    let password = "a \"quoted\" \\ pass\u{7}word"
    let text = Config.addingServer(
      name: "home", url: "http://127.0.0.1:4040", user: "joe", password: password,
      to: "[theme]\naccent = 3")
    #expect(text.hasPrefix("[theme]\naccent = 3\n\n[[servers]]\n"))
    let (config, problems) = Config.parse(text)
    #expect(problems == [])
    #expect(config.servers.first?.credential == .password(password))
    #expect(config.servers.first?.user == "joe")
  }
}
