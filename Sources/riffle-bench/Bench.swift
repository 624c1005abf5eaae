import Foundation
import RiffleCore
import RiffleTUI
import RiffleTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `riffle-bench`: Riffle's figures, each with its method. Run it from a release build
/// (`scripts/bench.sh`); it prints a table and changes nothing.
@main
enum Bench {
  static func main() throws {
    var arguments = Array(CommandLine.arguments.dropFirst())
    let soak = arguments.contains("--soak")
    var runs = 3
    if let at = arguments.firstIndex(of: "--runs"), at + 1 < arguments.count {
      runs = max(1, Int(arguments[at + 1]) ?? runs)
      arguments.removeSubrange(at...(at + 1))
    }
    arguments.removeAll { $0 == "--soak" }
    var which = Set(arguments.isEmpty ? ["all"] : arguments)
    if soak { which.insert("soak") }
    func wants(_ part: String) -> Bool {
      which.contains(part) || (which.contains("all") && part != "soak")
    }
    var rows: [Row] = []
    // One part failing (a peer missing, a timeout) costs its rows, not the table.
    func part(_ name: String, _ body: () throws -> [Row]) {
      guard wants(name) else { return }
      var new: [Row]
      do {
        new = try body()
      } catch {
        new = [Row(figure: name, value: "failed", target: "-", method: "\(error)")]
      }
      rows += new
      // Progress on stderr, so a long run shows its figures as they come.
      FileHandle.standardError.write(Data((Row.table(new) + "\n").utf8))
    }
    // Figures that watch the real binary go first, while the machine is quietest.
    let system = try SystemFigures(runs: runs)
    part("cpu") { try system.playbackCPU() }
    part("idle") { try system.idleFigures() }
    part("start") { try system.startFigures() }
    part("first-sample") { try system.firstSampleFigures() }
    part("memory") { try system.memoryFigures() }
    part("episode") { try system.episodeMemoryFigures() }
    part("decode") { try system.decodeFigures() }
    part("radio") { try system.radioFigures() }
    part("render") { renderFigures() }
    part("terminal") { try terminalFigures() }
    part("library") { try LibraryFigures.figures(runs: runs) }
    part("library-search") { try LibraryFigures.searchFigures() }
    part("library-start") { try system.libraryStartFigures() }
    part("soak") { try system.soakFigures() }
    print(Row.table(rows))
  }

  /// One line of the results table: Riffle's figure and, where a peer program does the same
  /// thing, the peer's figure from the same run and Riffle's as a multiple of it.
  struct Row {
    var figure: String
    var value: String
    var peer: String = ""
    var ratio: String = ""
    var target: String
    var method: String

    init(
      figure: String, value: String, peer: String = "", ratio: String = "", target: String,
      method: String
    ) {
      self.figure = figure
      self.value = value
      self.peer = peer
      self.ratio = ratio
      self.target = target
      self.method = method
    }

    /// A row comparing `value` with `peerValue` (same unit) through `format`.
    init(
      figure: String, value: Double, peerName: String, peerValue: Double?,
      format: (Double) -> String, target: String, method: String
    ) {
      self.init(
        figure: figure, value: format(value),
        peer: peerValue.map { "\(peerName) \(format($0))" } ?? "",
        ratio: peerValue.map { $0 > 0 ? String(format: "%.2fx", value / $0) : "-" } ?? "",
        target: target, method: method)
    }

    /// The rows as a Markdown table (what docs/performance.md keeps).
    static func table(_ rows: [Row]) -> String {
      let header = "| figure | Riffle | peer (same run) | ratio | target | method |"
      let rule = "| --- | --- | --- | --- | --- | --- |"
      let lines = rows.map {
        "| \($0.figure) | \($0.value) | \($0.peer) | \($0.ratio) | \($0.target) | \($0.method) |"
      }
      return ([header, rule] + lines).joined(separator: "\n")
    }
  }

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
  }

  static func time(_ body: () -> Void) -> Double {
    var start = timespec()
    var end = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    body()
    clock_gettime(CLOCK_MONOTONIC, &end)
    return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
  }

  static func timeThrowing(_ body: () throws -> Void) throws -> Double {
    let start = monotonic()
    try body()
    return monotonic() - start
  }

  static func sampleState() -> PlayerState {
    var state = PlayerState()
    state.songs = (1...12).map { i in
      Song(
        id: "bench-\(i)", title: "Benchmark Song \(i) — A Fairly Long Title",
        displayName: "Artist \(i)",
        handle: "artist\(i)", audioURL: URL(fileURLWithPath: "/dev/null"), likeCount: 1234 * i)
    }
    state.source = PageSource(kind: .feed(URL(fileURLWithPath: "/dev/null")))
    state.index = 3
    state.playback = .playing
    state.position = 42
    state.duration = 187
    return state
  }

  /// A catalog cover, from the source tree this binary was built from.
  static func sampleCover() -> RGBAImage? {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Resources/Catalog/covers/riffle-001.png")
    return (try? Data(contentsOf: file)).flatMap { try? ImageDecoder.decode($0) }
  }

  /// Time to draw a page, and the cells a progress tick changes.
  static func renderFigures() -> [Row] {
    var rows: [Row] = []
    let view = PageView()
    let cover = sampleCover()
    for (w, h) in [(80, 24), (200, 60)] {
      let state = sampleState()
      var cells: CoverCells?
      if let cover {
        for mode in [ColorMode.trueColor, .palette256] {
          var chafa: [Double] = []
          for _ in 0..<3 {
            chafa.append(time { cells = CoverArt.render(cover, width: w, height: h, mode: mode) })
          }
          rows.append(
            Row(
              figure: "cover to cells (chafa, \(mode.rawValue)), \(w)x\(h)",
              value: String(format: "%.1f ms", median(chafa) * 1000), target: "off the main queue",
              method: "CoverArt.render of a 320x320 PNG, median of 3; done once per song and size"))
        }
        // As the app caches them: rendered once, band rows darkened once.
        cells = CoverArt.darkened(
          CoverArt.render(cover, width: w, height: h, mode: .trueColor),
          by: PageView.bandDarkening, rows: (h - PageView.bandHeight)..<h)
      }
      var samples: [Double] = []
      for _ in 0..<9 {
        let t = time {
          for _ in 0..<20 { _ = view.render(state, width: w, height: h) { _ in cells } }
        }
        samples.append(t / 20)
      }
      rows.append(
        Row(
          figure: "page change to frame drawn, \(w)x\(h), with art",
          value: String(format: "%.3f ms", median(samples) * 1000), target: "< 2 ms",
          method: "PageView.render of a new page over cached cover cells, median of 9 x 20"))

      // A second of playback at the 100 ms tick, as cells handed to the terminal.
      let terminal = BufferTerminal(width: w, height: h)
      var playing = state
      terminal.flush(view.render(playing, width: w, height: h))
      var changed = 0
      for tick in 1...10 {
        playing.position = 42 + Double(tick) / 10
        terminal.flush(view.render(playing, width: w, height: h))
        changed += terminal.lastChangedCells
      }
      rows.append(
        Row(
          figure: "cells sent per second of playback, \(w)x\(h)", value: "\(changed)",
          target: "few", method: "BufferTerminal diff over 10 ticks of 100 ms"))
    }
    return rows
  }

  /// Bytes the real binary writes to a terminal while a song plays: it runs under script(1)
  /// in a 200x60 pty on the bundled catalog with the null driver; the first 2 s (start-up,
  /// first frame) are left out.
  static func terminalFigures() throws -> [Row] {
    let binary = try riffleBinary()
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "riffle-bench-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let typescript = dir.appendingPathComponent("typescript")
    func bytesAfter(_ seconds: Double) throws -> Int {
      let command =
        "stty cols 200 rows 60; XDG_CACHE_HOME=\(dir.path)/cache XDG_DATA_HOME=\(dir.path)/data "
        + "XDG_CONFIG_HOME=\(dir.path)/config TERM=xterm-256color exec \(binary) --audio null"
      let script = try ChildProcess(
        "/usr/bin/script", ["-q", "-f", "-c", command, typescript.path])
      Thread.sleep(forTimeInterval: seconds)
      script.stop()
      return (try? Data(contentsOf: typescript).count) ?? 0
    }
    let warm = try bytesAfter(2)
    let long = try bytesAfter(12)
    let perSecond = Double(max(0, long - warm)) / 10
    return [
      Row(
        figure: "terminal bytes/s while playing, 200x60",
        value: String(format: "%.0f B/s", perSecond),
        target: "< 1 KB/s",
        method: "riffle under script(1), bytes after 12 s minus after 2 s, over 10 s")
    ]
  }
}
