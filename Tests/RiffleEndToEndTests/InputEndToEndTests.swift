import Foundation
import RiffleTestSupport
import Testing

// Issue 4's input through the real binary in tmux: mouse reports as the terminal sends them
// (SGR, typed into the pane with `send-keys -l`), resizes, keys that terminfo may not describe,
// config.toml, and the terminal given back with mouse reporting off.
//
// This target does not link RiffleTUI, so `PageLayout.make` cannot be called here. The 80x24
// layout below is the one `PageLayoutTests.at80x24` pins, and every test first checks that the
// screen shows the control where the layout says, so a moved control fails here rather than
// clicking beside it.

/// The page at 80x24 with "m:ss" clocks, in 1-based cells as a mouse report gives them.
enum Layout80x24 {
  static let controlsRow = 22
  static let previous = 25...31  // "|◀ Prev"
  static let playPause = 37...44  // "❚❚ Pause"
  static let next = 50...56  // "Next ▶|"
  static let likeRow = 20
  static let heart = 5
  static let progressRow = 21
  /// The bar between "    0:00 " and " 0:37    ".
  static let bar = 10...71
}

/// A left click: press and release on one cell, 1-based.
func sgrClick(_ x: Int, _ y: Int) -> String {
  "\u{1B}[<0;\(x);\(y)M\u{1B}[<0;\(x);\(y)m"
}

/// Press at the first column, drag through the others, release at the last (1-based, one row).
private func drag(_ columns: [Int], y: Int) -> String {
  guard let first = columns.first, let last = columns.last else { return "" }
  return "\u{1B}[<0;\(first);\(y)M"
    + columns.dropFirst().map { "\u{1B}[<32;\($0);\(y)M" }.joined()
    + "\u{1B}[<0;\(last);\(y)m"
}

/// Where `text` starts on a captured screen, 1-based. The rows searched hold narrow characters
/// only, so a column is a count of characters.
private func locate(_ text: String, in screen: String) -> (x: Int, y: Int)? {
  for (row, line) in screen.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
    guard let range = line.range(of: text) else { continue }
    let before = line[line.startIndex..<range.lowerBound]
    guard
      before.unicodeScalars.allSatisfy({ $0.value < 0x1100 || (0x2500..<0x2800).contains($0.value) }
      )
    else { return nil }
    return (before.count + 1, row + 1)
  }
  return nil
}

/// The elapsed clock in seconds, read from the row that holds the progress knob.
func clock(_ screen: String) -> Int? {
  guard let line = screen.split(separator: "\n").first(where: { $0.contains("●") }),
    let token = line.split(separator: " ").first
  else { return nil }
  let parts = token.split(separator: ":").compactMap { Int($0) }
  return parts.count == 2 ? parts[0] * 60 + parts[1] : nil
}

/// The screen's line `row` (1-based), or "".
private func line(_ row: Int, of screen: String) -> String {
  let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
  return row - 1 < lines.count ? String(lines[row - 1]) : ""
}

/// Quotes a word for /bin/sh.
private func shellQuoted(_ word: String) -> String {
  "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

extension PlayerHarness {
  /// Three songs of 37 s each (a catalog song), so none ends during a test.
  static let longFeed = """
    {"songs":[\(song("s1", "First Light", likes: 41, audio: "/audio/long.mp3")),\
    \(song("s2", "Second Wind", likes: 7, audio: "/audio/long.mp3")),\
    \(song("s3", "Third Rail", likes: 0, audio: "/audio/long.mp3"))]}
    """

  static var longRoutes: [String: LoopbackHTTPServer.Reply] {
    get throws {
      let long = try Data(
        contentsOf: TestFiles.catalog.appendingPathComponent("audio/riffle-004.mp3"))
      return ["/audio/long.mp3": .file(long, contentType: "audio/mpeg")]
    }
  }

  /// Starts riffle on the served feed with a chosen TERM, optionally through `wrapper`
  /// (a command line that takes the riffle invocation as its last word).
  @discardableResult
  func start(
    term: String, width: Int = 80, height: Int = 24, wrapper: ((String) -> [String])? = nil
  ) throws -> TmuxSession {
    let riffle = [
      TestFiles.riffleBinary, server.url("/feed.json").absoluteString, "--audio", "null",
    ]
    let command = wrapper.map { $0(riffle.map(shellQuoted).joined(separator: " ")) } ?? riffle
    let session = try TmuxSession(
      command: command,
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8", "TERM": term]) { $1 },
      width: width, height: height)
    tmux = session
    return session
  }

  /// Writes `text` as the user's config.toml.
  func writeConfig(_ text: String) throws {
    let folder = home.url.appendingPathComponent("config/riffle")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: folder.appendingPathComponent("config.toml"))
  }
}

/// Waits until the player is playing song 1 and pauses it, so the clock stands still and no
/// timer redraws the screen. Returns the paused screen, once it shows the song's length.
///
/// "❚❚ Pause" shows as soon as the song is asked for, before the decoder has read its length,
/// and a seek is ignored until the length is known (the total reads "-:--" until then). Under
/// load Space can land first; the seeks a test sends next must wait for the length.
@discardableResult
func startPaused(_ tmux: TmuxSession) throws -> String {
  try tmux.waitForAll("First Light", "❚❚ Pause")
  tmux.sendKeys("Space")
  return try tmux.waitUntil {
    $0.contains("Paused") && $0.contains("▶ Play") && !$0.contains("-:--")
  }
}

@Suite("Input end to end (tmux)", .serialized)
struct InputEndToEndTests {
  @Test(
    "A click on Next pages, on Prev goes back, on the heart likes",
    arguments: ["tmux-256color", "screen-256color", "linux"])
  func clicks(term: String) throws {
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: PlayerHarness.longRoutes)
    let tmux = try harness.start(term: term)
    let first = try tmux.waitForAll("First Light", "1 / 3", "♡ 41")
    let next = try #require(locate("Next ▶|", in: first), "\(first)")
    #expect(next.x == Layout80x24.next.lowerBound && next.y == Layout80x24.controlsRow)
    let heart = try #require(locate("♡ 41", in: first))
    #expect(heart.x == Layout80x24.heart && heart.y == Layout80x24.likeRow)

    tmux.sendLiteral(sgrClick(Layout80x24.next.lowerBound + 2, Layout80x24.controlsRow))
    try tmux.waitForAll("Second Wind", "2 / 3")
    tmux.sendLiteral(sgrClick(Layout80x24.next.upperBound, Layout80x24.controlsRow))
    try tmux.waitForAll("Third Rail", "3 / 3")
    tmux.sendLiteral(sgrClick(Layout80x24.previous.lowerBound, Layout80x24.controlsRow))
    try tmux.waitForAll("Second Wind", "2 / 3")

    tmux.sendLiteral(sgrClick(Layout80x24.heart, Layout80x24.likeRow))
    let liked = try tmux.waitFor("♥ 8 liked")
    #expect(liked.contains("2 / 3"), "a click is one action: \(liked)")
    // No stray key from the report's bytes: still on page 2, still playing.
    #expect(liked.contains("❚❚ Pause"))

    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("A click on Play/Pause pauses and plays")
  func clickPlayPause() throws {
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: PlayerHarness.longRoutes)
    let tmux = try harness.start(term: "tmux-256color")
    let screen = try tmux.waitForAll("First Light", "❚❚ Pause")
    let label = try #require(locate("❚❚ Pause", in: screen))
    #expect(label.x == Layout80x24.playPause.lowerBound && label.y == Layout80x24.controlsRow)
    tmux.sendLiteral(sgrClick(Layout80x24.playPause.lowerBound + 3, Layout80x24.controlsRow))
    try tmux.waitForAll("Paused", "▶ Play")
    tmux.sendLiteral(sgrClick(Layout80x24.playPause.upperBound, Layout80x24.controlsRow))
    try tmux.waitUntil { !$0.contains("Paused") && $0.contains("❚❚ Pause") }
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("A click and a drag on the progress bar move the clock there")
  func seekWithTheBar() throws {
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: PlayerHarness.longRoutes)
    let tmux = try harness.start(term: "tmux-256color")
    let paused = try startPaused(tmux)
    let row = line(Layout80x24.progressRow, of: paused)
    #expect(row.contains("●"), "the bar is on row \(Layout80x24.progressRow): \(paused)")
    #expect(try #require(clock(paused)) < 5)
    let bar = Layout80x24.bar
    #expect(
      Array(row)[bar.lowerBound - 1..<bar.upperBound].allSatisfy { "━●─".contains($0) }, "\(row)")

    // 37 s over 62 columns: column 31 of the bar (1-based 41) is 31/61 of the song, 18.8 s.
    tmux.sendLiteral(
      drag([bar.lowerBound, 20, 30, bar.lowerBound + 31], y: Layout80x24.progressRow))
    let moved = try tmux.waitUntil { clock($0) == 18 }
    #expect(moved.contains("Paused"), "seeking keeps the pause")
    // The knob went with it, to 31/61 of the bar (or one column short of it, rounding down).
    let knob = Array(line(Layout80x24.progressRow, of: moved)).firstIndex(of: "●")
    #expect(knob == bar.lowerBound + 30 || knob == bar.lowerBound + 29, "\(moved)")

    tmux.sendLiteral(sgrClick(bar.lowerBound, Layout80x24.progressRow))
    try tmux.waitUntil { clock($0) == 0 }
    tmux.sendLiteral(sgrClick(bar.upperBound - 6, Layout80x24.progressRow))
    // Column 55 of 61: 33.3 s.
    try tmux.waitUntil { clock($0) == 33 }
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("Dragging the page left pages forward, right pages back; the wheel pages")
  func swipeAndWheel() throws {
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: PlayerHarness.longRoutes)
    let tmux = try harness.start(term: "tmux-256color")
    try tmux.waitForAll("First Light", "1 / 3")
    tmux.sendLiteral(drag(Array((30...60).reversed()), y: 5))
    try tmux.waitForAll("Second Wind", "2 / 3")
    tmux.sendLiteral(drag(Array(30...40), y: 5))
    try tmux.waitForAll("First Light", "1 / 3")
    tmux.sendLiteral("\u{1B}[<65;40;5M")
    try tmux.waitForAll("Second Wind", "2 / 3")
    tmux.sendLiteral("\u{1B}[<64;40;5M")
    try tmux.waitForAll("First Light", "1 / 3")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("A resize redraws at once at the new size; too small shows a notice; the player runs on")
  func resize() throws {
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: PlayerHarness.longRoutes)
    let tmux = try harness.start(term: "tmux-256color")
    // Paused, nothing redraws by itself: what changes on screen is the resize's doing.
    try startPaused(tmux)

    tmux.resize(width: 120, height: 40)
    let big = try tmux.waitUntil(timeout: 5) { line(40 - 6, of: $0).hasPrefix("    First Light") }
    // The page number ends 4 columns from the new right edge.
    #expect(locate("1 / 3", in: big).map { $0.x } == 120 - 4 - 5 + 1, "\(big)")
    #expect(line(40 - 2, of: big).contains("Next ▶|"))

    tmux.resize(width: 20, height: 6)
    let small = try tmux.waitFor("Terminal too small", timeout: 5)
    #expect(!small.contains("First Light"))

    tmux.resize(width: 80, height: 24)
    let back = try tmux.waitUntil(timeout: 5) { line(24 - 6, of: $0).hasPrefix("    First Light") }
    #expect(!back.contains("too small"))
    #expect(line(Layout80x24.controlsRow, of: back).contains("|◀ Prev"))
    #expect(locate("1 / 3", in: back).map { $0.x } == 80 - 4 - 5 + 1, "\(back)")
    // Still running: it plays on, and the clock moves.
    let before = try #require(clock(back))
    tmux.sendKeys("Space")
    try tmux.waitUntil { ($0.contains("❚❚ Pause")) && (clock($0) ?? 0) > before }
    #expect(!tmux.hasExited)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test(
    "Shift+Right and Shift+Left as xterm sends them seek 10 s; Home goes to the start",
    arguments: ["tmux-256color", "screen-256color", "linux"])
  func shiftArrows(term: String) throws {
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: PlayerHarness.longRoutes)
    let tmux = try harness.start(term: term)
    let paused = try startPaused(tmux)
    let start = try #require(clock(paused))
    tmux.sendLiteral("\u{1B}[1;2C")
    try tmux.waitUntil { clock($0) == start + 10 }
    tmux.sendLiteral("\u{1B}[1;2C")
    try tmux.waitUntil { clock($0) == start + 20 }
    tmux.sendLiteral("\u{1B}[1;2D")
    try tmux.waitUntil { clock($0) == start + 10 }
    // Home as xterm sends it in normal cursor mode (CSI H), which none of these terminfo
    // entries names.
    tmux.sendLiteral("\u{1B}[H")
    let home = try tmux.waitUntil { clock($0) == 0 }
    #expect(home.contains("First Light") && home.contains("Paused"))
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test(
    "A Shift+Right that arrives in pieces, 40 ms apart, is still one key, and a lone Esc is Esc")
  func sequenceInPieces() throws {
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: PlayerHarness.longRoutes)
    // screen-256color names no Shift+Right: the sequence reaches Riffle's own decoder, and the
    // pieces come further apart than ncurses' 25 ms escape delay.
    let tmux = try harness.start(term: "screen-256color")
    let paused = try startPaused(tmux)
    let start = try #require(clock(paused))
    // (Not "[1;": tmux reads an argument ending in ";" as the end of its command.)
    // Four pieces: 120 ms and more from the first to the last, so the wait must be per piece.
    for piece in ["\u{1B}", "[1", ";2", "C"] {
      tmux.sendLiteral(piece)
      usleep(40_000)
    }
    try tmux.waitUntil { clock($0) == start + 10 }
    // A lone Esc, with nothing after it, still closes the search prompt.
    tmux.sendKeys("/")
    try tmux.waitFor("Search iTunes")
    tmux.sendLiteral("\u{1B}")
    let closed = try tmux.waitUntil { !$0.contains("Search iTunes") }
    #expect(clock(closed) == start + 10)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("config.toml binds n to next, and a bad line is named on screen")
  func config() throws {
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: PlayerHarness.longRoutes)
    try harness.writeConfig(
      """
      [keys]
      next = ["Right", "n"]
      teleport = "t"
      """)
    let tmux = try harness.start(term: "tmux-256color")
    let first = try tmux.waitForAll("First Light", "config.toml line 3")
    #expect(first.contains("unknown action 'teleport'"), "\(first)")
    tmux.sendKeys("n")
    let second = try tmux.waitForAll("Second Wind", "2 / 3")
    #expect(!second.contains("config.toml"), "the notice goes with the next key")
    tmux.sendKeys("Right")
    try tmux.waitForAll("Third Rail", "3 / 3")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("like and next rebound in config.toml: the hint line and the help show the bound keys")
  func reboundKeysOnScreen() throws {
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: PlayerHarness.longRoutes)
    try harness.writeConfig(
      """
      [keys]
      like = "f"
      next = ["Right", "n"]
      """)
    let tmux = try harness.start(term: "tmux-256color", width: 100, height: 30)
    let page = try tmux.waitForAll("First Light", "f like")
    let hints = page.split(separator: "\n").first { $0.contains("? help") } ?? ""
    #expect(hints.contains("f like") && !hints.contains("l like"), "hint line: \(hints)")
    tmux.sendKeys("?")
    let help = try tmux.waitFor("show / hide this help")
    let rows = help.split(separator: "\n").map(String.init)
    let likeRow = rows.first { $0.contains("like / unlike") } ?? ""
    let nextRow = rows.first { $0.contains("next song") } ?? ""
    #expect(likeRow.contains(" f "), "the help's like row: \(likeRow)")
    #expect(!likeRow.contains(" l "), "l no longer likes: \(likeRow)")
    #expect(nextRow.contains("→ n"), "both keys of next: \(nextRow)")
    // And the keys do what the screen says.
    tmux.sendKeys("?", "n")
    try tmux.waitForAll("Second Wind", "2 / 3")
    tmux.sendKeys("f")
    try tmux.waitFor("liked")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("A config with a TOML error names its line and the default keys work")
  func brokenConfig() throws {
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: PlayerHarness.longRoutes)
    try harness.writeConfig("[keys]\nnext = \"n\"\nlike = \n")
    let tmux = try harness.start(term: "tmux-256color")
    try tmux.waitForAll("First Light", "config.toml line 3")
    // "n", then "?": once the help shows, "n" was read, and it did not page.
    tmux.sendKeys("n", "?")
    let help = try tmux.waitFor("show / hide this help")
    #expect(help.contains("1 / 3"), "n is not bound: the defaults are used")
    tmux.sendKeys("?", "Right")
    try tmux.waitForAll("Second Wind", "2 / 3")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("q exits 0 and switches mouse reporting off again")
  func mouseOffAtExit() throws {
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: PlayerHarness.longRoutes)
    let typescript = harness.home.file("typescript")
    // script(1) records every byte riffle writes to its terminal.
    let tmux = try harness.start(term: "tmux-256color") { riffle in
      ["script", "-q", "-e", "-f", "-c", riffle, typescript.path]
    }
    try tmux.waitForAll("First Light", "1 / 3")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    let output = String(decoding: try Data(contentsOf: typescript), as: UTF8.self)
    for mode in ["1000", "1002", "1006"] {
      let on = try #require(output.range(of: "\u{1B}[?\(mode)h", options: .backwards), "\(mode)")
      let off = try #require(output.range(of: "\u{1B}[?\(mode)l", options: .backwards), "\(mode)")
      #expect(on.lowerBound < off.lowerBound, "mode \(mode) is switched off after it was on")
    }
  }
}
