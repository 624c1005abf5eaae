import Foundation
import RiffleAPI
import Testing

@testable import RiffleApp

@Suite("config.toml: [scrobble.listenbrainz] and [scrobble.lastfm]")
struct ScrobbleConfigTests {
  @Test("none set: no scrobbling")
  func none() {
    #expect(Config().scrobble.isEmpty)
    #expect(Config.parse("[theme]\naccent = 3\n").0.scrobble.isEmpty)
  }

  @Test("ListenBrainz with a token, the default server unless url is set")
  func listenBrainz() {
    let (config, problems) = Config.parse("[scrobble.listenbrainz]\ntoken = \"abc-123\"\n")
    #expect(problems == [])
    #expect(config.scrobble == ScrobbleSettings(listenBrainz: .init(token: "abc-123")))
    #expect(
      config.scrobble.listenBrainz?.url.absoluteString == "https://api.listenbrainz.org")

    let (custom, _) = Config.parse(
      "[scrobble.listenbrainz]\ntoken = \"t\"\nurl = \"http://127.0.0.1:8080/lb\"\n")
    #expect(custom.scrobble.listenBrainz?.url.absoluteString == "http://127.0.0.1:8080/lb")
  }

  @Test("Last.fm with api_key, secret and session_key; both services at once")
  func both() {
    let text = """
      [scrobble.listenbrainz]
      token = "lb"

      [scrobble.lastfm]
      api_key = "key"
      secret = "sec"
      session_key = "sk"
      url = "https://fm.example"
      """
    let (config, problems) = Config.parse(text)
    #expect(problems == [])
    #expect(
      config.scrobble
        == ScrobbleSettings(
          listenBrainz: .init(token: "lb"),
          lastFM: .init(
            apiKey: "key", secret: "sec", sessionKey: "sk",
            url: URL(string: "https://fm.example")!)))
    #expect(config.scrobble.kinds == [.listenBrainz, .lastFM])
    // However the config is printed, no credential shows.
    var dumped = ""
    dump(config, to: &dumped)
    for secret in ["\"lb\"", "\"key\"", "\"sec\"", "\"sk\""] {
      #expect(!dumped.contains(secret))
      #expect(!String(reflecting: config).contains(secret))
    }
    #expect(ScrobbleSettings.LastFM.defaultURL.absoluteString == "https://ws.audioscrobbler.com")
  }

  @Test("a missing credential or a wrong url leaves that service off, said with its line")
  func mistakes() {
    let text = """
      [scrobble.listenbrainz]
      token = ""
      [scrobble.lastfm]
      api_key = "key"
      secret = "top-secret"
      url = "ftp://nope"
      colour = "red"
      """
    let (config, problems) = Config.parse(text)
    #expect(config.scrobble.isEmpty)
    #expect(
      problems == [
        Config.Problem(line: 1, message: "[scrobble.listenbrainz] needs a non-empty 'token'"),
        Config.Problem(
          line: nil,
          message: "scrobbling to listenbrainz is off until [scrobble.listenbrainz] is fixed"),
        Config.Problem(line: 7, message: "unknown setting 'colour' in [scrobble.lastfm]"),
        Config.Problem(
          line: 6, message: "'url' in [scrobble.lastfm] must be an http:// or https:// URL"),
        Config.Problem(line: 3, message: "[scrobble.lastfm] needs a non-empty 'session_key'"),
        Config.Problem(
          line: nil, message: "scrobbling to lastfm is off until [scrobble.lastfm] is fixed"),
      ])
    // No problem ever quotes a value: it may be a secret.
    #expect(!problems.contains { $0.description.contains("top-secret") })
  }

  @Test("wrong types and unknown services are named; the rest applies")
  func wrongTypes() {
    let text = """
      [scrobble.listenbrainz]
      token = 42
      [scrobble.librefm]
      token = "x"
      [scrobble.lastfm]
      api_key = "k"
      secret = "s"
      session_key = "sk"
      """
    let (config, problems) = Config.parse(text)
    #expect(config.scrobble.listenBrainz == nil)
    #expect(config.scrobble.lastFM?.sessionKey == "sk")
    #expect(
      problems.contains(
        Config.Problem(line: 2, message: "'token' in [scrobble.listenbrainz] must be a string")))
    #expect(
      problems.contains(
        Config.Problem(
          line: 3,
          message: "unknown scrobbling service 'librefm' (listenbrainz and lastfm are known)")))
    #expect(Config.parse("scrobble = 1\n").1.count == 1)
  }
}
