import Testing

@testable import RiffleApp

@Suite("config.toml: [notifications]")
struct NotificationsConfigTests {
  @Test("off by default, on with enabled = true, off again with false")
  func enabled() {
    #expect(Config().notifications == false)
    #expect(Config.parse("").0.notifications == false)
    let (on, problems) = Config.parse("[notifications]\nenabled = true\n")
    #expect(problems == [])
    #expect(on.notifications == true)
    #expect(Config.parse("[notifications]\nenabled = false\n").0.notifications == false)
  }

  @Test("a wrong value or an unknown key is named with its line; the rest applies")
  func mistakes() {
    let text = """
      [theme]
      accent = 200
      [notifications]
      enabled = "yes"
      sound = true
      """
    let (config, problems) = Config.parse(text)
    #expect(config.notifications == false)
    #expect(config.theme.accent == .palette(200))
    #expect(
      problems == [
        Config.Problem(line: 4, message: "'enabled' must be true or false"),
        Config.Problem(line: 5, message: "unknown notification setting 'sound'"),
      ])
  }

  @Test("notifications must be a table")
  func notATable() {
    let (_, problems) = Config.parse("notifications = true\n")
    #expect(problems == [Config.Problem(line: 1, message: "[notifications] must be a table")])
  }
}
