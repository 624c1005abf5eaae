import Foundation
import RiffleTestSupport
import Testing

/// A feed of one song in a temporary folder, its cover a smooth two-way gradient (made with
/// ImageMagick): in true colour the cover shows thousands of colours, in 256 a few hundred.
struct GradientFeed {
  let home: TemporaryDirectory
  let feed: URL

  /// `second` adds a song whose cover is one flat colour. `noise` makes the first cover random
  /// noise instead of a gradient: detail at pixel level, which no cell can show.
  /// `config` is written as config.toml.
  init(
    title: String = "Gradient Song", second: String? = nil, noise: Bool = false,
    config: String? = nil
  ) throws {
    home = try TemporaryDirectory("riffle-real")
    if let config {
      let folder = home.url.appendingPathComponent("config/riffle")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try Data(config.utf8).write(to: folder.appendingPathComponent("config.toml"))
    }
    let folder = home.file("feed")
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("covers"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: TestFiles.catalog.appendingPathComponent("audio/riffle-001.mp3"),
      to: folder.appendingPathComponent("a.mp3"))
    let cover = folder.appendingPathComponent("covers/g.png").path
    let made = try runProgram(
      XvfbDisplay.which("convert")!,
      noise
        ? ["-size", "320x320", "xc:gray", "-seed", "7", "+noise", "Random", cover]
        : [
          "-size", "256x256", "gradient:#ff2000-#2000ff", "(", "-size", "256x256",
          "gradient:#000000-#00ff00", "-rotate", "90", ")", "-compose", "plus", "-composite",
          cover,
        ])
    guard made.status == 0 else { throw XvfbDisplay.Unavailable(description: made.stderr) }
    var songs = """
      {"id":"g1","title":"\(title)","handle":"grad","display_name":"Smooth Artist",\
      "image_url":"covers/g.png","audio_url":"a.mp3","duration":30}
      """
    if let second {
      let flat = try runProgram(
        XvfbDisplay.which("convert")!,
        ["-size", "64x64", "xc:#3060a0", folder.appendingPathComponent("covers/f.png").path])
      guard flat.status == 0 else { throw XvfbDisplay.Unavailable(description: flat.stderr) }
      songs += """
        ,{"id":"f2","title":"\(second)","handle":"flat","display_name":"Flat Artist",\
        "image_url":"covers/f.png","audio_url":"a.mp3","duration":30}
        """
    }
    feed = folder.appendingPathComponent("songs.json")
    try Data("{\"songs\":[\(songs)]}".utf8).write(to: feed)
  }

  var environment: [String: String] {
    // TMUX empty: a test runner inside tmux must not make the player think it runs in tmux.
    home.xdgEnvironment.merging(["LANG": "C.UTF-8", "TMUX": ""]) { $1 }
  }
  var log: URL { home.url.appendingPathComponent("cache/riffle/riffle.log") }

  /// The line the player logged about its colours, once it has.
  func colourLine(within seconds: Double = 10) -> String? {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if let text = try? String(contentsOf: log, encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("colour: ") })
      {
        return String(line)
      }
      usleep(50_000)
    }
    return nil
  }
}

/// Starts an X server for one test, or skips the test with the reason there is none.
func xDisplay(needing programs: [String]) throws -> XvfbDisplay {
  do {
    return try XvfbDisplay.start(needing: programs)
  } catch let unavailable as XvfbDisplay.Unavailable {
    try Test.cancel("skipped: \(unavailable.description)")
  }
}

/// The real-terminal tests, one at a time: each starts an X server and a terminal drawing in
/// software, and the picture tests wait on the terminal's answers.
@Suite("Real terminals under Xvfb", .serialized)
struct XvfbEndToEndTests {}

/// Screens in real terminal emulators on a private X server, checked in screenshots.
extension XvfbEndToEndTests {
  @Suite("True colour in xterm")
  struct RealTerminalEndToEndTests {
    /// The cover's part of an 80x24 xterm in DejaVu Sans Mono 10 (8x17-pixel cells): rows 2 to
    /// 15, columns 2 to 77, clear of the header and the band.
    static let coverRegion = (x: 16, y: 34, width: 600, height: 220)

    /// Screenshots until the cover region stops changing (the cover has faded in), then its
    /// distinct colours.
    static func settledColours(on display: XvfbDisplay) throws -> Int {
      var last = -1
      let deadline = Date().addingTimeInterval(10)
      while Date() < deadline {
        let shot = try display.screenshot()
        let count = try XvfbDisplay.distinctColours(
          in: shot, x: coverRegion.x, y: coverRegion.y, width: coverRegion.width,
          height: coverRegion.height)
        // One colour is the empty screen or the gradient stand-in's first frame.
        if count > 20 && count == last { return count }
        last = count
        usleep(300_000)
      }
      return last
    }

    @Test("xterm-256color with COLORTERM=truecolor shows the cover in true colour")
    func xtermTrueColour() throws {
      let display = try xDisplay(needing: ["xterm"])
      let feed = try GradientFeed()
      // Stopped before the feed goes: the player writes its session as it ends.
      defer { display.stop() }
      try display.xterm(
        [TestFiles.riffleBinary, feed.feed.path, "--audio", "null"],
        environment: feed.environment.merging(["COLORTERM": "truecolor"]) { $1 })
      let line = feed.colourLine()
      #expect(line == "colour: true colour through xterm-direct (COLORTERM=truecolor)")
      let colours = try Self.settledColours(on: display)
      #expect(colours > 3000, "distinct colours in the cover: \(colours)")
    }

    @Test("without COLORTERM the same xterm stays in 256 colours (what the count tells apart)")
    func xterm256() throws {
      let display = try xDisplay(needing: ["xterm"])
      let feed = try GradientFeed()
      // Stopped before the feed goes: the player writes its session as it ends.
      defer { display.stop() }
      try display.xterm(
        [TestFiles.riffleBinary, feed.feed.path, "--audio", "null"],
        environment: feed.environment.merging(["COLORTERM": ""]) { $1 })
      #expect(feed.colourLine() == "colour: 256 colours")
      let colours = try Self.settledColours(on: display)
      #expect(colours > 20 && colours < 1500, "distinct colours in the cover: \(colours)")
    }

    @Test("color = \"256\" in config.toml keeps 256 colours under COLORTERM=truecolor")
    func forced256() throws {
      let display = try xDisplay(needing: ["xterm"])
      let feed = try GradientFeed()
      // Stopped before the feed goes: the player writes its session as it ends.
      defer { display.stop() }
      let config = feed.home.url.appendingPathComponent("config/riffle")
      try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
      try Data("[display]\ncolor = \"256\"\n".utf8).write(
        to: config.appendingPathComponent("config.toml"))
      try display.xterm(
        [TestFiles.riffleBinary, feed.feed.path, "--audio", "null"],
        environment: feed.environment.merging(["COLORTERM": "truecolor"]) { $1 })
      #expect(feed.colourLine() == "colour: 256 colours (color = \"256\")")
      let colours = try Self.settledColours(on: display)
      #expect(colours > 20 && colours < 1500, "distinct colours in the cover: \(colours)")
    }
  }

}

/// kitty under Xvfb: the cover as a real picture under the page, the text over it, nothing
/// left after q.
extension XvfbEndToEndTests {
  @Suite("kitty pictures")
  struct KittyPictureEndToEndTests {
    /// Distinct colours in 36x36-pixel patches of the cover (kitty at 11 pt: 9x18-pixel cells,
    /// the window at the top left). Cells show at most a few colours in a patch (two per cell,
    /// a few more at glyph edges); a picture of a gradient shows a hundred and more.
    static func patchColours(
      _ shot: URL, at points: [(Int, Int)] = [(100, 40), (200, 80), (300, 120), (500, 60)]
    ) throws -> [Int] {
      try points.map { x, y in
        try XvfbDisplay.distinctColours(in: shot, x: x, y: y, width: 36, height: 36)
      }
    }

    static let forceKitty = "[display]\npictures = \"kitty\"\n"

    /// Screenshots until every patch shows a picture (or 10 s pass); the last counts.
    static func waitForPicture(on display: XvfbDisplay) throws -> [Int] {
      var counts: [Int] = []
      let deadline = Date().addingTimeInterval(10)
      repeat {
        counts = try patchColours(display.screenshot())
        if counts.allSatisfy({ $0 > 80 }) { break }
        usleep(200_000)
      } while Date() < deadline
      return counts
    }

    @Test("kitty: the cover is a picture at pixel resolution, the title over it, gone after q")
    func picture() throws {
      let display = try xDisplay(needing: ["kitty"])
      let feed = try GradientFeed(title: "Kitty Gradient")
      // Stopped before the feed goes: the player writes its session as it ends.
      defer { display.stop() }
      // Started once kitty has settled: the question gets 100 ms, and a kitty still starting on
      // a busy machine's software OpenGL may answer later (the player then draws symbols).
      try display.kitty(
        [
          "sh", "-c",
          "sleep 1; '\(TestFiles.riffleBinary)' '\(feed.feed.path)' --audio null;"
            + " echo riffle-exited $?; sleep 60",
        ], environment: feed.environment)
      try display.waitForKittyText("Kitty Gradient", "Smooth Artist", "1 / 1")
      let log = try String(contentsOf: feed.log, encoding: .utf8)
      #expect(
        log.contains("pictures: kitty graphics (the terminal answered its query in "), "\(log)")
      let counts = try Self.waitForPicture(on: display)
      #expect(counts.allSatisfy { $0 > 80 }, "colours per patch: \(counts)")
      // The text is drawn over the picture, not under it.
      #expect(display.kittyText()?.contains("Kitty Gradient") == true)

      try display.kittySend("q")
      let after = try display.waitForKittyText("riffle-exited 0")
      #expect(!after.contains("Kitty Gradient"))
      usleep(300_000)
      let left = try Self.patchColours(display.screenshot())
      #expect(left.allSatisfy { $0 == 1 }, "colours per patch after q: \(left)")
    }

    @Test("kitty: paging replaces the picture cleanly, paging back sends nothing again")
    func paging() throws {
      let display = try xDisplay(needing: ["kitty"])
      // Forced: this is about paging, not the question at start (see `picture`).
      let feed = try GradientFeed(
        title: "First Gradient", second: "Second Flat", config: Self.forceKitty)
      // Stopped before the feed goes: the player writes its session as it ends.
      defer { display.stop() }
      try display.kitty(
        [
          "sh", "-c",
          "'\(TestFiles.riffleBinary)' '\(feed.feed.path)' --audio null; echo riffle-exited $?;"
            + " sleep 60",
        ], environment: feed.environment)
      try display.waitForKittyText("First Gradient", "1 / 2")
      #expect(try Self.waitForPicture(on: display).allSatisfy { $0 > 80 })
      try display.kittySend("\u{1B}[C")
      try display.waitForKittyText("Second Flat", "2 / 2")
      // The flat cover: one colour in every patch once the picture is up, none of the gradient.
      var counts: [Int] = []
      let deadline = Date().addingTimeInterval(10)
      repeat {
        usleep(200_000)
        counts = try Self.patchColours(display.screenshot())
      } while !counts.allSatisfy({ $0 == 1 }) && Date() < deadline
      #expect(counts.allSatisfy { $0 == 1 }, "colours per patch on the flat page: \(counts)")
      try display.kittySend("\u{1B}[D")
      try display.waitForKittyText("First Gradient", "1 / 2")
      #expect(try Self.waitForPicture(on: display).allSatisfy { $0 > 80 })
      // Played on for a few clock ticks: no picture is sent for them.
      usleep(2_500_000)
      try display.kittySend("q")
      try display.waitForKittyText("riffle-exited 0")
      let log = try String(contentsOf: feed.log, encoding: .utf8)
      let sent = log.split(separator: "\n").last {
        $0.hasPrefix("pictures: ") && $0.hasSuffix("bytes")
      }
      #expect(sent?.hasPrefix("pictures: 2 sent, ") == true, "\(log)")
    }

    @Test("kitty: after a resize the old picture is gone (an overlay shows cells, no picture)")
    func resize() throws {
      let display = try xDisplay(needing: ["kitty"])
      let feed = try GradientFeed(title: "Resized Gradient", config: Self.forceKitty)
      // Stopped before the feed goes: the player writes its session as it ends.
      defer { display.stop() }
      try display.kitty(
        [TestFiles.riffleBinary, feed.feed.path, "--audio", "null"], environment: feed.environment)
      try display.waitForKittyText("Resized Gradient")
      #expect(try Self.waitForPicture(on: display).allSatisfy { $0 > 80 })
      try display.kittyCommand([
        "resize-os-window", "--unit", "cells", "--width", "100", "--height", "30",
      ])
      // The new size's picture comes (the cover is made again for 100x30).
      let deadline = Date().addingTimeInterval(10)
      var text = ""
      repeat {
        usleep(200_000)
        text = display.kittyText() ?? ""
      } while !text.split(separator: "\n").contains(where: { $0.count >= 95 }) && Date() < deadline
      #expect(
        text.split(separator: "\n").contains { $0.count >= 95 },
        "not resized to 100 columns: \(text)")
      #expect(try Self.waitForPicture(on: display).allSatisfy { $0 > 80 })
      // Help hides the picture: were the old size's picture left behind, the patches would still
      // show a picture's hundreds of colours instead of the cells' few.
      try display.kittySend("?")
      try display.waitForKittyText("show / hide this help")
      usleep(500_000)
      // Away from the help's text (its glyphs alone give a patch a hundred colours): cover cells
      // around the box, and the box's blank top rows.
      let cells = try Self.patchColours(
        display.screenshot(), at: [(100, 40), (200, 80), (300, 62), (500, 60)])
      #expect(cells.allSatisfy { $0 < 60 }, "colours per patch under help: \(cells)")
    }

    @Test("kitty with pictures = \"symbols\": cells only, a few colours per patch")
    func symbols() throws {
      let display = try xDisplay(needing: ["kitty"])
      let feed = try GradientFeed(title: "Kitty Symbols")
      // Stopped before the feed goes: the player writes its session as it ends.
      defer { display.stop() }
      let config = feed.home.url.appendingPathComponent("config/riffle")
      try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
      try Data("[display]\npictures = \"symbols\"\n".utf8).write(
        to: config.appendingPathComponent("config.toml"))
      try display.kitty(
        [TestFiles.riffleBinary, feed.feed.path, "--audio", "null"], environment: feed.environment)
      try display.waitForKittyText("Kitty Symbols")
      usleep(1_000_000)
      let counts = try Self.patchColours(display.screenshot())
      #expect(counts.allSatisfy { $0 > 3 && $0 < 60 }, "colours per patch: \(counts)")
    }
  }

}

/// The start-up question asked of a terminal without kitty graphics (tmux answers DA1 itself and
/// ignores kitty's query): the page draws at once, no answer or query shows as text.
@Suite("Picture queries in a terminal without pictures")
struct PictureQueryEndToEndTests {
  @Test("tmux (told it is not tmux) answers only DA1: symbols, no stray text, keys work")
  func noKitty() throws {
    let feed = try GradientFeed(title: "Asked Song")
    let started = Date()
    let session = try TmuxSession(
      command: [TestFiles.riffleBinary, feed.feed.path, "--audio", "null"],
      environment: feed.environment.merging(["TMUX": "", "TERM": "xterm-256color"]) { $1 })
    defer { session.kill() }
    let screen = try session.waitForAll("Asked Song", "1 / 1")
    #expect(Date().timeIntervalSince(started) < 5)
    for stray in ["Gi=31", "AAAA", "62;", "?1;2c", "_G"] {
      #expect(!screen.contains(stray), "\(screen)")
    }
    let log = try String(contentsOf: feed.log, encoding: .utf8)
    let line = log.split(separator: "\n").first { $0.hasPrefix("pictures: ") }
    #expect(line?.hasPrefix("pictures: symbols: the terminal answered in ") == true, "\(log)")
    #expect(line?.hasSuffix("ms, without kitty graphics") == true)
    session.sendKeys("q")
    #expect(try session.waitForExit() == 0)
  }
}

/// xterm as a VT340 (sixel, 1024 colour registers) under Xvfb: the cover as a sixel picture
/// between the header and the band, replaced on paging, drawn again on paging back.
extension XvfbEndToEndTests {
  @Suite("Sixel pictures")
  struct SixelPictureEndToEndTests {
    /// Patches inside the picture (rows 1 to 16 of 80x24 cells of 8x17 pixels).
    static func patchColours(_ shot: URL) throws -> [Int] {
      try [(100, 40), (200, 80), (300, 120), (500, 60)].map { x, y in
        try XvfbDisplay.distinctColours(in: shot, x: x, y: y, width: 36, height: 36)
      }
    }

    static func waitFor(
      on display: XvfbDisplay, _ condition: ([Int]) -> Bool
    ) throws -> [Int] {
      var counts: [Int] = []
      let deadline = Date().addingTimeInterval(10)
      repeat {
        counts = try patchColours(display.screenshot())
        if condition(counts) { break }
        usleep(200_000)
      } while Date() < deadline
      return counts
    }

    @Test("xterm -ti vt340: a sixel cover, replaced cleanly on paging, sent again on paging back")
    func sixel() throws {
      let display = try xDisplay(needing: ["xterm", "xdotool"])
      // Noise: a sixel shows it pixel by pixel (about a hundred colours in a 36x36 patch, within
      // its palette of 256); cells of 8x17 pixels show a few dozen at most.
      let feed = try GradientFeed(
        title: "Sixel Noise", second: "Sixel Flat", noise: true,
        config: "[display]\npictures = \"sixel\"\n")
      // Stopped before the feed goes: the player writes its session as it ends.
      defer { display.stop() }
      try display.xterm(
        [TestFiles.riffleBinary, feed.feed.path, "--audio", "null"],
        options: ["-ti", "vt340", "-xrm", "XTerm*numColorRegisters: 1024"],
        environment: feed.environment.merging(["COLORTERM": "truecolor"]) { $1 })
      // Measured: 97 or 98 colours a patch as sixel, 37 to 48 as true-colour cells.
      let noise = try Self.waitFor(on: display) { $0.allSatisfy { $0 > 72 } }
      #expect(noise.allSatisfy { $0 > 72 }, "colours per patch: \(noise)")
      let log = try String(contentsOf: feed.log, encoding: .utf8)
      #expect(log.contains("pictures: sixel (pictures = \"sixel\")"), "\(log)")
      try display.key("Right")
      let flat = try Self.waitFor(on: display) { $0.allSatisfy { $0 <= 2 } }
      #expect(flat.allSatisfy { $0 <= 2 }, "the flat cover, none of the gradient: \(flat)")
      try display.key("Left")
      let back = try Self.waitFor(on: display) { $0.allSatisfy { $0 > 72 } }
      #expect(back.allSatisfy { $0 > 72 }, "colours per patch: \(back)")
      usleep(1_500_000)
      try display.key("q")
      let deadline = Date().addingTimeInterval(10)
      var sent: Substring?
      repeat {
        usleep(100_000)
        let text = (try? String(contentsOf: feed.log, encoding: .utf8)) ?? ""
        sent = text.split(separator: "\n").last {
          $0.hasPrefix("pictures: ") && $0.hasSuffix("bytes")
        }
      } while sent == nil && Date() < deadline
      // Three pages shown, three pictures drawn; the clock's ticks drew none.
      #expect(sent?.hasPrefix("pictures: 3 sent, ") == true, "\(sent ?? "no line")")
    }
  }
}
