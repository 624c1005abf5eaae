import Foundation
import RiffleTestSupport
import Testing

@Suite("Terminal types end to end")
struct TerminalTypesEndToEndTests {
  /// Each TERM people use: the page draws, wide text stays aligned, keys work, q gives the
  /// terminal back. tmux shows what the program sent whatever TERM the program was told.
  @Test(
    "the page works under each TERM",
    arguments: [
      "xterm-256color", "tmux-256color", "screen-256color", "xterm-direct", "xterm", "linux",
    ])
  func page(term: String) throws {
    let feed = """
      {"songs":[\(PlayerHarness.song("w", "夜に駆ける 🎵 Night", likes: 5, audio: "/audio/short-2.mp3")),\
      \(PlayerHarness.song("s1", "First Light", likes: 41, audio: "/audio/short-1.mp3"))]}
      """
    let harness = try PlayerHarness(feed: feed)
    let session = try TmuxSession(
      command: [
        TestFiles.riffleBinary, harness.server.url("/feed.json").absoluteString, "--audio", "null",
      ],
      environment: harness.home.xdgEnvironment.merging(["TERM": term, "LANG": "C.UTF-8"]) { $1 })
    harness.tmux = session
    let screen = try session.waitForAll("夜に駆ける 🎵 Night", "1 / 2")
    // The right edge of the header is where it should be: wide text did not shift the grid.
    let header = screen.split(separator: "\n").first.map(String.init) ?? ""
    #expect(header.hasSuffix("1 / 2"), "header: \(header)")
    session.sendKeys("Right")
    try session.waitForAll("First Light", "2 / 2")
    session.sendKeys("q")
    #expect(try session.waitForExit() == 0)
  }

  @Test("under LC_ALL=C wide titles still draw (the player picks a UTF-8 locale itself)")
  func asciiLocale() throws {
    let feed = """
      {"songs":[\(PlayerHarness.song("w", "夜に駆ける", likes: 5, audio: "/audio/short-2.mp3"))]}
      """
    let harness = try PlayerHarness(feed: feed)
    let session = try TmuxSession(
      command: [
        TestFiles.riffleBinary, harness.server.url("/feed.json").absoluteString, "--audio", "null",
      ],
      environment: harness.home.xdgEnvironment.merging(["LC_ALL": "C", "LANG": "C"]) { $1 })
    harness.tmux = session
    try session.waitForAll("夜に駆ける", "1 / 1")
    session.sendKeys("q")
    #expect(try session.waitForExit() == 0)
  }
}
