import Foundation
import RiffleCore
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
    // Cover art may fill the margins with its glyphs once it arrives (with 8 colours chafa draws
    // symbols), so the check is where "1 / 2" ends: 4 columns from the right edge of 80.
    let header = screen.split(separator: "\n").first.map(String.init) ?? ""
    let end = header.range(of: "1 / 2").map { DisplayWidth.of(String(header[..<$0.upperBound])) }
    #expect(end == 76, "header: \(header)")
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

@Suite("Cover art end to end")
struct CoverArtEndToEndTests {
  static func blocks(_ screen: String, rows: Int) -> Int {
    screen.split(separator: "\n", omittingEmptySubsequences: false).prefix(rows).joined()
      .unicodeScalars.filter { (0x2580...0x259F).contains($0.value) }.count
  }

  @Test("a cover from the server fills the page; a broken one gets a generated cover")
  func coversShow() throws {
    let png = try Data(
      contentsOf: TestFiles.catalog.appendingPathComponent("covers/riffle-001.png"))
    let feed = """
      {"songs":[\(PlayerHarness.song("a", "With Art", likes: 1, audio: "/audio/short-2.mp3")),\
      \(PlayerHarness.song("b", "Broken Art", likes: 2, audio: "/audio/short-2.mp3"))]}
      """
    let harness = try PlayerHarness(
      feed: feed,
      extraRoutes: [
        "/img/a.png": .file(png, contentType: "image/png"),
        "/img/b.png": .respond(status: 200, body: Data("this is not an image".utf8)),
      ])
    let tmux = try harness.start()
    try tmux.waitFor("With Art")
    let art = try tmux.waitUntil(timeout: 10) { Self.blocks($0, rows: 14) > 40 }
    #expect(Self.blocks(art, rows: 14) > 40, "no cover drawn:\n\(art)")
    #expect(harness.server.requests.contains { $0.path == "/img/a.png" })
    tmux.sendKeys("Right")
    try tmux.waitForAll("Broken Art", "2 / 2")
    let placeholder = try tmux.waitUntil(timeout: 10) {
      $0.contains("Broken Art") && Self.blocks($0, rows: 14) > 40
    }
    #expect(!placeholder.contains("Cannot"), "a broken cover is not an error:\n\(placeholder)")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }
}
