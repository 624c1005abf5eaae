import Foundation
import RiffleLibrary
import RiffleTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The player over a library of 100,000 songs: start to first frame beside the bundled
/// catalog's start in the same run, and search as you type from the key to its frame.
extension SystemFigures {
  /// A home whose library index holds 100,000 generated songs, and ahead of them (in album
  /// order) one album of real files, so the first page plays as it would.
  private func libraryHome() throws -> (home: TemporaryDirectory, first: String) {
    let home = try TemporaryDirectory("riffle-bench-library-start")
    let index = try LibraryIndex(url: home.file("data/riffle/library.sqlite"))
    try LibraryFigures.fill(index, songs: 100_000)
    let audio = TestFiles.catalog.appendingPathComponent("audio")
    let sources = try FileManager.default.contentsOfDirectory(atPath: audio.path).filter {
      $0.hasSuffix(".mp3")
    }.sorted()
    guard let source = sources.first else { throw BenchError("no MP3 in the catalog") }
    let album = home.file("music/Aardvark Ensemble/Alpha")
    try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
    var real: [(path: String, info: TrackInfo)] = []
    for track in 1...10 {
      let file = album.appendingPathComponent("\(track).mp3")
      try FileManager.default.copyItem(at: audio.appendingPathComponent(source), to: file)
      var info = TrackInfo(title: "Opening Number \(track)")
      info.artist = "Aardvark Ensemble"
      info.album = "Alpha"
      info.track = track
      info.duration = 30
      real.append((file.path, info))
    }
    try index.insert(real)
    return (home, "Opening Number 1")
  }

  /// `riffle library` (100,000 songs) and `riffle` (the bundled catalog) from exec to their
  /// first complete frame, alternated in the same run and measured alike.
  func libraryStartFigures() throws -> [Bench.Row] {
    let binary = try riffleBinary()
    let (home, first) = try libraryHome()
    let pulse = try PrivatePulseServer()
    defer { pulse.stop() }
    var library: [Double] = []
    var catalog: [Double] = []
    for _ in 0..<max(runs, 5) {
      let fresh = try TemporaryDirectory("riffle-bench-start")
      for (folder, arguments, title) in [
        (fresh, [binary, "--audio", "pulse"], "Glass Harbor"),
        (home, [binary, "library", "--audio", "pulse"], first),
      ] {
        // Each start from the beginning, not where the last run was quit.
        try? FileManager.default.removeItem(at: folder.file("data/riffle/session.json"))
        var env = folder.xdgEnvironment.merging(pulse.environment) { $1 }
        env["HOME"] = folder.url.path
        env["TERM"] = "tmux-256color"
        let time = try timeToOutput(
          command: arguments, environment: env,
          until: { $0.contains(title) && $0.contains("0:00") })
        if title == first { library.append(time) } else { catalog.append(time) }
      }
    }
    let (keys, cpu) = try keyToFrame(home: home, pulse: pulse)
    let difference = Self.median(library) - Self.median(catalog)
    return [
      Bench.Row(
        figure: "start to first complete frame, 100,000-song library",
        value: Self.median(library), peerName: "bundled catalog",
        peerValue: Self.median(catalog), format: Self.milliseconds,
        target: "within 10 ms of the catalog's",
        method: String(
          format:
            "riffle library (the index's first page: one indexed query with LIMIT) against "
            + "riffle (bundled catalog), alternated in one run, each measured as \"start to "
            + "first complete frame\" (exec to the title and clock arriving on an 80x24 pty), "
            + "--audio pulse; median of %d; difference %+.1f ms", max(runs, 5),
          difference * 1000)),
      Bench.Row(
        figure: "search as you type, key to frame, 100,000 songs",
        value: String(
          format: "median %.2f ms (CPU %.2f ms), p95 %.2f ms",
          Self.median(keys) * 1000, Self.median(cpu) * 1000,
          keys.sorted()[Int(Double(keys.count) * 0.95)] * 1000),
        target: "median < 5 ms",
        method:
          "riffle library in tmux (100x30), `/` then every prefix of 12 words typed a key at a "
          + "time (\(keys.count) keys): from the player's `input` mark (stdin readable) to its "
          + "`frame` mark (the frame with the key's results written to the terminal), "
          + "RIFFLE_TRACE marks on CLOCK_MONOTONIC; paused; CPU: the process's threads' run "
          + "time over the same key (/proc/PID/task/*/schedstat)"),
    ]
  }

  /// Seconds from each typed key's arrival to the frame that shows its results.
  private func keyToFrame(home: TemporaryDirectory, pulse: PrivatePulseServer) throws
    -> (wall: [Double], cpu: [Double])
  {
    try? FileManager.default.removeItem(at: home.file("data/riffle/session.json"))
    let trace = TraceFile(url: home.file("trace"))
    var env = home.xdgEnvironment.merging(pulse.environment) { $1 }
    env["RIFFLE_TRACE"] = trace.url.path
    env["LANG"] = "C.UTF-8"
    let tmux = try TmuxSession(
      command: [try riffleBinary(), "library", "--audio", "null"], environment: env,
      width: 100, height: 30)
    defer { tmux.kill() }
    _ = try tmux.waitFor("Opening Number 1", timeout: 20)
    guard let pid = poll(timeout: 10, { trace.pid }) else { throw BenchError("no pid") }
    var cpu: [Double] = []
    /// Sends `key` and waits for its frame; the time between them.
    func press(literal key: String? = nil, named: String? = nil) throws -> Double {
      let inputs = trace.marks().filter { $0.words == ["input"] }.count
      let cpuBefore = Self.processCPU(pid)
      if let key { tmux.sendLiteral(key) } else if let named { tmux.sendKeys(named) }
      let measured = poll(timeout: 5) { () -> Double? in
        let marks = trace.marks()
        var seen = 0
        for (at, mark) in marks.enumerated() where mark.words == ["input"] {
          seen += 1
          guard seen > inputs else { continue }
          return marks[(at + 1)...].first { $0.words == ["frame"] }.map { $0.time - mark.time }
        }
        return nil
      }
      guard let measured else { throw BenchError("no frame for \(key ?? named ?? "")") }
      if key != nil, let cpuBefore, let cpuAfter = Self.processCPU(pid) {
        cpu.append(cpuAfter - cpuBefore)
      }
      usleep(20_000)
      return measured
    }
    // Paused, so the playing thread's decoding is not counted with the keys.
    _ = try press(named: "Space")
    _ = try press(literal: "/")
    cpu = []
    var times: [Double] = []
    for word in [
      "björk", "velvet", "midnight", "sigur", "river", "electric", "garden", "jazz", "åsa",
      "night", "silver", "the ocean",
    ] {
      for character in word { times.append(try press(literal: String(character))) }
      _ = try press(named: "C-u")
    }
    return (times, cpu)
  }

  /// Seconds the player's threads have run on a core, all together (the main queue runs on a
  /// worker thread once `dispatchMain()` has ended the main one): `/proc/PID/task/*/schedstat`.
  static func processCPU(_ pid: pid_t) -> Double? {
    let tasks = "/proc/\(pid)/task"
    guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks) else {
      return nil
    }
    var total = 0.0
    for thread in threads {
      guard
        let text = try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8),
        let ns = text.split(separator: " ").first.flatMap({ Double($0) })
      else { continue }
      total += ns
    }
    return total / 1e9
  }
}
