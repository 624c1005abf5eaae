import Foundation
import RiffleAudio
import RiffleTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Figures of the real binary and of peer programs, measured side by side in one run: a
/// private PulseAudio server paces the audio, tmux is the terminal, `/proc` gives the costs.
final class SystemFigures {
  let runs: Int
  let media: TemporaryDirectory
  /// 60 s of 192 kbps MP3 (a catalog song looped and re-encoded), and its feed.
  let song: URL
  let songFeed: URL
  /// The same 60 s as AAC in MP4, for the decode figure.
  let aacSong: URL

  init(runs: Int) throws {
    self.runs = runs
    media = try TemporaryDirectory("riffle-bench-media")
    song = media.file("bench-192k.mp3")
    aacSong = media.file("bench-aac.m4a")
    let source = TestFiles.catalog.appendingPathComponent("audio/riffle-002.mp3").path
    for (output, codec) in [
      (song, ["-c:a", "libmp3lame", "-b:a", "192k"]), (aacSong, ["-c:a", "aac", "-b:a", "192k"]),
    ] {
      let made = try ChildProcess.run(
        "/usr/bin/ffmpeg",
        ["-v", "error", "-y", "-stream_loop", "2", "-i", source, "-t", "60", "-ar", "44100"]
          + codec + [output.path])
      guard made == 0 else { throw BenchError("ffmpeg could not make \(output.lastPathComponent)") }
    }
    songFeed = media.file("one-song.json")
    try Self.feed(count: 1, audio: song.lastPathComponent).write(to: songFeed)
  }

  /// A feed of `count` songs sharing one audio file (relative to the feed) and one cover.
  static func feed(count: Int, audio: String, cover: String? = nil) -> Data {
    var json = "{\"songs\": ["
    json.reserveCapacity(count * 260)
    for i in 0..<count {
      if i > 0 { json += ",\n" }
      json +=
        "{\"id\": \"bench-\(i)\", \"title\": \"Benchmark Song \(i)\", \"handle\": \"artist\(i % 97)\", "
        + "\"display_name\": \"Artist \(i % 97)\", \"upvote_count\": \(i * 7 % 5000), "
        + "\"audio_url\": \"\(audio)\", \"duration\": 60"
        + (cover.map { ", \"image_url\": \"\($0)\"" } ?? "") + "}"
    }
    return Data((json + "]}").utf8)
  }

  static func median(_ values: [Double]) -> Double { Bench.median(values) }

  static func percent(_ value: Double) -> String { String(format: "%.2f%%", value * 100) }
  static func milliseconds(_ value: Double) -> String { String(format: "%.1f ms", value * 1000) }
  static func megabytes(_ value: Double) -> String { String(format: "%.1f MB", value / 1_048_576) }

  // MARK: - CPU while playing

  /// Share of one core over 20 s of playback, for the player and for the sound server.
  func playbackCPU() throws -> [Bench.Row] {
    var riffle: [Double] = []
    var riffleServer: [Double] = []
    var mpg123: [Double] = []
    var mpg123Server: [Double] = []
    let window = 20.0
    for _ in 0..<runs {
      do {
        let pulse = try PrivatePulseServer()
        let run = try PlayerRun(
          arguments: [songFeed.path, "--audio", "pulse"], environment: pulse.environment)
        defer { run.stop() }
        let pid = try run.pid()
        try run.waitForSample(1)
        let (player, server) = try measureCPU([pid, pulse.pid], after: 2, over: window)
        riffle.append(player)
        riffleServer.append(server)
      }
      do {
        let pulse = try PrivatePulseServer()
        let process = try ChildProcess(
          "/usr/bin/mpg123", ["-q", "-o", "pulse", song.path], environment: pulse.environment)
        defer { process.stop() }
        let (player, server) = try measureCPU([process.pid, pulse.pid], after: 2, over: window)
        mpg123.append(player)
        mpg123Server.append(server)
      }
    }
    let method =
      "whole process, every thread's time on a CPU (/proc/PID/task/*/schedstat, ns) over 20 s "
      + "(from 2 s after the first sample), 60 s 192 kbps MP3, private PulseAudio null sink; "
      + "median of \(runs)"
    return [
      Bench.Row(
        figure: "CPU playing MP3 (one core)", value: Self.median(riffle), peerName: "mpg123",
        peerValue: Self.median(mpg123), format: Self.percent, target: "<= 1.5x mpg123",
        method: "riffle --audio pulse in tmux vs mpg123 -q -o pulse; " + method),
      Bench.Row(
        figure: "PulseAudio server CPU while it plays", value: Self.median(riffleServer),
        peerName: "for mpg123", peerValue: Self.median(mpg123Server), format: Self.percent,
        target: "<= mpg123's", method: "the private server's own time on a CPU, same windows"),
    ]
  }

  /// CPU share of each process over `seconds`, after waiting `after` seconds.
  private func measureCPU(_ pids: [pid_t], after: Double, over seconds: Double) throws -> (
    Double, Double
  ) {
    sleep(seconds: after)
    let start = pids.map { ProcessUsage.read($0) }
    let t0 = monotonic()
    sleep(seconds: seconds)
    let end = pids.map { ProcessUsage.read($0) }
    let elapsed = monotonic() - t0
    guard let a0 = start[0], let a1 = end[0], let b0 = start[1], let b1 = end[1] else {
      throw BenchError("a process ended while it was measured")
    }
    return (a1.runTime(since: a0) / elapsed, b1.runTime(since: b0) / elapsed)
  }

  // MARK: - Paused and idle

  /// CPU and wake-ups of the player while paused, and while idle on a page after the feed's
  /// last song ended.
  func idleFigures() throws -> [Bench.Row] {
    let window = 10.0
    var pausedRates: [Double] = []
    var pausedCPU: [Double] = []
    var idleRates: [Double] = []
    var idleCPU: [Double] = []
    let shortFeed = media.file("short-song.json")
    let short = media.file("short.mp3")
    if !FileManager.default.fileExists(atPath: short.path) {
      try FileManager.default.copyItem(at: TestFiles.fixture("short-1.mp3"), to: short)
    }
    try Self.feed(count: 1, audio: short.lastPathComponent).write(to: shortFeed)
    for _ in 0..<runs {
      let pulse = try PrivatePulseServer()
      do {
        let run = try PlayerRun(
          arguments: [songFeed.path, "--audio", "pulse"], environment: pulse.environment)
        defer { run.stop() }
        let pid = try run.pid()
        try run.waitForSample(1)
        sleep(seconds: 1)
        run.tmux.sendKeys("Space")
        try run.tmux.waitFor("Paused", timeout: 10)
        // The engine closes the PulseAudio stream 1 s into a pause (a handful of context
        // switches of the playback thread, once); the window starts after it, as the idle one
        // starts after the stream closed at the end of the song.
        let (rate, cpu) = try wakeups(pid, after: 2, over: window)
        pausedRates.append(rate)
        pausedCPU.append(cpu)
      }
      do {
        let run = try PlayerRun(
          arguments: [shortFeed.path, "--audio", "pulse"], environment: pulse.environment)
        defer { run.stop() }
        let pid = try run.pid()
        try run.waitForSample(1)
        // The fixture lasts about 2 s; after it the feed has nothing more to play.
        let (rate, cpu) = try wakeups(pid, after: 5, over: window)
        idleRates.append(rate)
        idleCPU.append(cpu)
      }
    }
    let method =
      "context switches (voluntary + involuntary) of every thread, /proc/PID/task/*/status, "
      + "and utime+stime, over \(Int(window)) s; median of \(runs)"
    return [
      Bench.Row(
        figure: "wake-ups/s paused", value: String(format: "%.1f", Self.median(pausedRates)),
        target: "0",
        method: "paused with Space 1 s into a song (--audio pulse), from 2 s after (past the "
          + "stream's close 1 s into the pause); " + method),
      Bench.Row(
        figure: "CPU paused", value: Self.percent(Self.median(pausedCPU)), target: "~0",
        method: "the same window"),
      Bench.Row(
        figure: "wake-ups/s idle on a page", value: String(format: "%.1f", Self.median(idleRates)),
        target: "0", method: "after the only song of the feed ended; " + method),
      Bench.Row(
        figure: "CPU idle on a page", value: Self.percent(Self.median(idleCPU)), target: "~0",
        method: "the same window"),
    ]
  }

  private func wakeups(_ pid: pid_t, after: Double, over seconds: Double) throws -> (
    Double, Double
  ) {
    sleep(seconds: after)
    guard let start = ProcessUsage.read(pid) else { throw BenchError("the player ended") }
    let t0 = monotonic()
    sleep(seconds: seconds)
    guard let end = ProcessUsage.read(pid) else { throw BenchError("the player ended") }
    let elapsed = monotonic() - t0
    if ProcessInfo.processInfo.environment["RIFFLE_BENCH_THREADS"] != nil {
      // Which threads woke: context switches per thread over the window, by name.
      for (thread, name, woke) in end.woken(since: start) {
        FileHandle.standardError.write(Data("thread \(thread) \(name): \(woke)\n".utf8))
      }
    }
    return (Double(end.switches(since: start)) / elapsed, (end.cpu - start.cpu) / elapsed)
  }

  // MARK: - Start-up

  /// From starting the program to its first complete frame, against cmus.
  func startFigures() throws -> [Bench.Row] {
    let binary = try riffleBinary()
    let firstTitle = "Glass Harbor"
    var riffle: [Double] = []
    var cmus: [Double] = []
    let bus = try PrivateSessionBus()
    defer { bus.stop() }
    let pulse = try PrivatePulseServer()
    for _ in 0..<max(runs, 5) {
      let folder = try TemporaryDirectory("riffle-bench-start")
      var env = folder.xdgEnvironment.merging(pulse.environment) { $1 }
      env["HOME"] = folder.url.path
      env["TERM"] = "tmux-256color"
      // Complete: the first song's title and its clock and progress bar ("0:00") drawn.
      riffle.append(
        try timeToOutput(
          command: [binary, "--audio", "pulse"], environment: env,
          until: { $0.contains(firstTitle) && $0.contains("0:00") }))
      // Without a session bus cmus waits for Enter, and probing for JACK first prints an error
      // and waits too: give it a bus and the pulse output.
      env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
      let rc = folder.url.appendingPathComponent("config/cmus")
      try FileManager.default.createDirectory(at: rc, withIntermediateDirectories: true)
      try Data("set output_plugin=pulse\n".utf8).write(to: rc.appendingPathComponent("rc"))
      // cmus draws its whole first screen at once, its status line last.
      cmus.append(
        try timeToOutput(
          command: ["/usr/bin/cmus"], environment: env, until: { $0.contains("all from library") }))
    }
    return [
      Bench.Row(
        figure: "start to first complete frame", value: Self.median(riffle), peerName: "cmus",
        peerValue: Self.median(cmus), format: Self.milliseconds, target: "<= 25 ms",
        method: "exec to the bytes of the frame arriving on an 80x24 pty (script(1); timed from "
          + "a mark the shell prints just before exec, so script's and stty's own start, 15 ms "
          + "here, is left out); Riffle: "
          + "the first song's title and clock drawn (bundled catalog, --audio pulse); cmus: its "
          + "status line drawn (empty library, pulse output, private D-Bus session bus); median of \(max(runs, 5))"
      )
    ]
  }

  /// What the shell in the pty prints just before it execs the program measured.
  static let execMark = "riffle-bench: exec"

  /// Seconds from `command`'s exec in a pty until its output satisfies `until`.
  ///
  /// Timed from the mark the shell prints just before `exec`, as it arrives through the pty:
  /// starting script(1), its shell and stty takes 15 ms or more here before either player runs,
  /// and is neither's start. The pty's own delay is on both ends, so it cancels out.
  func timeToOutput(
    command: [String], environment: [String: String], until: (String) -> Bool
  ) throws -> Double {
    let quoted = command.map { "'\($0)'" }.joined(separator: " ")
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw BenchError("pipe failed") }
    let spawned = monotonic()
    let shell = "stty cols 80 rows 24; printf '\(Self.execMark)'; exec \(quoted)"
    let child = try ChildProcess(
      "/usr/bin/script", ["-q", "-f", "-c", shell, "/dev/null"],
      environment: environment, stdout: fds[1])
    close(fds[1])
    defer {
      close(fds[0])
      child.stop()
    }
    var seen = Data()
    var execAt: Double?
    let fd = fds[0]
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = spawned + 20
    while monotonic() < deadline {
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard Glibc.poll(&poller, 1, 100) > 0 else { continue }
      let n = read(fd, &buffer, buffer.count)
      guard n > 0 else { break }
      let now = monotonic()
      seen.append(contentsOf: buffer[0..<n])
      let text = String(decoding: seen, as: UTF8.self)
      guard let markEnd = text.range(of: Self.execMark)?.upperBound else { continue }
      if execAt == nil { execAt = now }
      if until(String(text[markEnd...])), let execAt { return now - execAt }
    }
    throw BenchError("\(command[0]) drew no complete frame within 20 s")
  }

  // MARK: - First sample

  /// From arriving on a page to its first PCM handed to the output.
  func firstSampleFigures() throws -> [Bench.Row] {
    let catalog = TestFiles.catalog
    let files = try FileManager.default.subpathsOfDirectory(atPath: catalog.path).filter {
      $0.hasSuffix(".json") || $0.hasSuffix(".mp3") || $0.hasSuffix(".png")
    }
    var table: [String: Data] = [:]
    for path in files {
      table["/" + path] = try Data(contentsOf: catalog.appendingPathComponent(path))
    }
    let bytes = table
    // 1.5x the catalog's 128 kbps: 24 kB/s.
    let throttled = try LoopbackHTTPServer { request in
      guard let data = bytes[request.path] else { return .respond(status: 404, body: Data()) }
      return request.path.hasSuffix(".mp3")
        ? .throttled(data, contentType: "audio/mpeg", bytesPerSecond: 24_000)
        : .file(data, contentType: "application/octet-stream")
    }
    let plain = try LoopbackHTTPServer { request in
      bytes[request.path].map { .file($0, contentType: "application/octet-stream") }
        ?? .respond(status: 404, body: Data())
    }
    defer {
      plain.stop()
      throttled.stop()
    }
    let sources: [(String, String)] = [
      ("local file", catalog.appendingPathComponent("songs.json").path),
      ("loopback HTTP", plain.url("/songs.json").absoluteString),
      ("HTTP at 1.5x the bitrate", throttled.url("/songs.json").absoluteString),
    ]
    var rows: [Bench.Row] = []
    for (name, source) in sources {
      var delays: [Double] = []
      for _ in 0..<runs {
        let pulse = try PrivatePulseServer()
        let run = try PlayerRun(
          arguments: [source, "--audio", "pulse"], environment: pulse.environment)
        defer { run.stop() }
        try run.waitForSample(1)
        // Pages 2 to 4: each is arrived on with Right while the one before plays.
        for id in 2...4 {
          run.tmux.sendKeys("Right")
          let sample = try run.waitForSample(id)
          guard let asked = run.trace.time(of: "play", "\(id)") else { continue }
          delays.append(sample - asked)
          sleep(seconds: 0.5)
        }
      }
      rows.append(
        Bench.Row(
          figure: "page to first sample, \(name)",
          value: Self.milliseconds(Self.median(delays)),
          target: name.hasPrefix("HTTP at") ? "-" : "< 100 ms",
          method:
            "RIFFLE_TRACE marks: play request to first PCM handed to the PulseAudio stream, pages "
            + "2-4 of the bundled catalog, median of \(delays.count)"))
    }
    return rows
  }

  // MARK: - Memory

  /// Resident memory playing the first song of feeds of 10, 10,000 and 100,000 songs.
  func memoryFigures() throws -> [Bench.Row] {
    var rows: [Bench.Row] = []
    try FileManager.default.copyItem(
      at: TestFiles.catalog.appendingPathComponent("covers/riffle-001.png"),
      to: media.file("cover.png"))
    for count in [10, 10_000, 100_000] {
      let feed = media.file("feed-\(count).json")
      try Self.feed(count: count, audio: song.lastPathComponent, cover: "cover.png").write(to: feed)
      var resident: [Double] = []
      var peak: [Double] = []
      for _ in 0..<runs {
        let run = try PlayerRun(arguments: [feed.path, "--audio", "null"])
        defer { run.stop() }
        let pid = try run.pid()
        try run.waitForSample(1, timeout: 60)
        sleep(seconds: 3)
        guard let usage = ProcessUsage.read(pid) else { throw BenchError("the player ended") }
        resident.append(Double(usage.resident))
        peak.append(Double(usage.peakResident))
      }
      let target = count == 100_000 ? "150 MB" : "30 MB"
      rows.append(
        Bench.Row(
          figure: "resident memory, feed of \(count) songs",
          value:
            "\(Self.megabytes(Self.median(resident))) (peak \(Self.megabytes(Self.median(peak))))",
          target: target,
          method:
            "VmRSS (VmHWM) 3 s into the first song, --audio null, 80x24 tmux; median of \(runs)"))
    }
    return rows
  }

  /// Resident memory while a podcast episode of an hour plays from a loopback server, against
  /// a 3-minute one from the same server: the download is bounded (`SongBuffer`), so the hour
  /// costs what 3 minutes do plus the buffer, never its 57 MB.
  func episodeMemoryFigures() throws -> [Bench.Row] {
    let source = TestFiles.catalog.appendingPathComponent("audio/riffle-002.mp3").path
    var files: [String: Data] = [:]
    for (name, seconds) in [("hour.mp3", 3600), ("three-minutes.mp3", 180)] {
      let file = media.file(name)
      let made = try ChildProcess.run(
        "/usr/bin/ffmpeg",
        [
          "-v", "error", "-y", "-stream_loop", "-1", "-i", source, "-t", "\(seconds)", "-ar",
          "44100", "-c:a", "libmp3lame", "-b:a", "128k", file.path,
        ])
      guard made == 0 else { throw BenchError("ffmpeg could not make \(name)") }
      files["/" + name] = try Data(contentsOf: file)
    }
    var routes: [String: LoopbackHTTPServer.Reply] = [:]
    for (path, data) in files {
      routes[path] = .file(data, contentType: "audio/mpeg")
      let rss = """
        <rss version="2.0"><channel><title>Bench Show</title><item><title>Episode</title>\
        <guid>\(path)</guid><enclosure url="\(path)" length="\(data.count)" type="audio/mpeg"/>\
        </item></channel></rss>
        """
      routes[path + ".rss"] = .respond(
        status: 200, headers: ["Content-Type": "application/rss+xml"], body: Data(rss.utf8))
    }
    let server = try LoopbackHTTPServer(handler: LoopbackHTTPServer.routes(routes))
    defer { server.stop() }
    var rows: [Bench.Row] = []
    for (path, label) in [("/three-minutes.mp3", "3-minute"), ("/hour.mp3", "1-hour")] {
      var resident: [Double] = []
      var peak: [Double] = []
      for _ in 0..<runs {
        let run = try PlayerRun(arguments: [
          server.url(path + ".rss").absoluteString, "--audio", "null",
        ])
        defer { run.stop() }
        let pid = try run.pid()
        try run.waitForSample(1, timeout: 60)
        // Long enough for an unbounded download of the hour to have arrived whole.
        sleep(seconds: 15)
        guard let usage = ProcessUsage.read(pid) else { throw BenchError("the player ended") }
        resident.append(Double(usage.resident))
        peak.append(Double(usage.peakResident))
      }
      let size = Self.megabytes(Double(files[path]!.count))
      rows.append(
        Bench.Row(
          figure: "resident memory, \(label) podcast episode (\(size) MP3)",
          value:
            "\(Self.megabytes(Self.median(resident))) (peak \(Self.megabytes(Self.median(peak))))",
          target: "1-hour within 3-minute + 16 MB",
          method:
            "VmRSS (VmHWM) 15 s into the episode from a loopback RSS feed, --audio null; median of \(runs)"
        ))
    }
    return rows
  }

  // MARK: - Decoding

  /// Decoding speed in multiples of real time, in process, against the reference programs.
  func decodeFigures() throws -> [Bench.Row] {
    func inProcess(_ file: URL) throws -> Double? {
      let data = try Data(contentsOf: file)
      let kind = AudioSniffer.kind(of: data)
      guard (try? DecoderFactory.make(for: kind)) != nil else { return nil }
      var times: [Double] = []
      let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 32_768, alignment: 16)
      defer { scratch.deallocate() }
      for _ in 0..<5 {
        var frames = 0
        let seconds = try Bench.timeThrowing {
          let decoder = try DecoderFactory.make(for: kind)
          var offset = 0
          while offset < data.count {
            let end = min(data.count, offset + 16_384)
            try decoder.feed(data.subdata(in: offset..<end))
            offset = end
            loop: while true {
              switch try decoder.decode(into: scratch) {
              case .pcm(let count): frames += count / PCMFormat.bytesPerFrame
              case .needMore, .done: break loop
              }
            }
          }
        }
        times.append(Double(frames) / Double(PCMFormat.sampleRate) / seconds)
      }
      return Self.median(times)
    }
    func program(_ path: String, _ arguments: [String]) throws -> Double {
      var times: [Double] = []
      for _ in 0..<5 {
        let start = monotonic()
        guard try ChildProcess.run(path, arguments) == 0 else { throw BenchError("\(path) failed") }
        times.append(60 / (monotonic() - start))
      }
      return Self.median(times)
    }
    let speed = { (x: Double) in String(format: "%.0fx", x) }
    var rows: [Bench.Row] = []
    if let mp3 = try inProcess(song) {
      rows.append(
        Bench.Row(
          figure: "decode speed MP3, x real time", value: mp3, peerName: "mpg123 -t",
          peerValue: try program("/usr/bin/mpg123", ["-q", "-t", song.path]), format: speed,
          target: "-",
          method: "MP3Decoder (mpg123 feed API, 16 KB pieces) in process vs mpg123 -t (wall "
            + "clock, start-up included), 60 s at 192 kbps; median of 5"))
    }
    let ffmpegPeer = try program(
      "/usr/bin/ffmpeg", ["-v", "error", "-i", aacSong.path, "-f", "null", "-"])
    if let aac = try inProcess(aacSong) {
      rows.append(
        Bench.Row(
          figure: "decode speed AAC, x real time", value: aac, peerName: "ffmpeg",
          peerValue: ffmpegPeer, format: speed, target: "-",
          method: "the AAC decoder in process vs ffmpeg -f null (wall clock), 60 s; median of 5"))
    } else {
      rows.append(
        Bench.Row(
          figure: "decode speed AAC, x real time", value: "n/a",
          peer: "ffmpeg \(speed(ffmpegPeer))", target: "-",
          method: "no AAC decoder in DecoderFactory yet; the row fills in when there is one"))
    }
    return rows
  }

  // MARK: - Soak

  /// The bundled catalog on repeat for ten minutes (RIFFLE_SOAK_MINUTES to change), resident
  /// memory sampled every 10 s; growth is the last sample less the one after the first minute.
  func soakFigures() throws -> [Bench.Row] {
    let minutes = Double(ProcessInfo.processInfo.environment["RIFFLE_SOAK_MINUTES"] ?? "") ?? 10
    let catalog = TestFiles.catalog
    let songs =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: catalog.appendingPathComponent("songs.json"))) as? [String: Any]
    let entries = songs?["songs"] as? [[String: Any]] ?? []
    // Enough copies (distinct ids, absolute URLs) to outlast the soak.
    var repeated: [[String: Any]] = []
    let copies = Int(minutes * 60 / 180) + 2
    for copy in 0..<copies {
      for var entry in entries {
        entry["id"] = "\(entry["id"] ?? "")-\(copy)"
        for key in ["audio_url", "image_url"] {
          if let relative = entry[key] as? String {
            entry[key] = catalog.appendingPathComponent(relative).absoluteString
          }
        }
        repeated.append(entry)
      }
    }
    let feed = media.file("soak.json")
    try JSONSerialization.data(withJSONObject: ["songs": repeated]).write(to: feed)
    let pulse = try PrivatePulseServer()
    let run = try PlayerRun(
      arguments: [feed.path, "--audio", "pulse"], environment: pulse.environment)
    defer { run.stop() }
    let pid = try run.pid()
    try run.waitForSample(1)
    let start = monotonic()
    var samples: [(Double, Int)] = []
    while monotonic() - start < minutes * 60 {
      sleep(seconds: 10)
      guard let usage = ProcessUsage.read(pid) else { throw BenchError("the player ended") }
      samples.append((monotonic() - start, usage.resident))
    }
    let base = samples.first { $0.0 >= 60 }?.1 ?? samples.first?.1 ?? 0
    let last = samples.last?.1 ?? 0
    let songsPlayed = run.trace.marks().filter { $0.words.first == "sample" }.count
    return [
      Bench.Row(
        figure: "soak: resident memory growth over \(Int(minutes)) min",
        value: String(format: "%+.2f MB", Double(last - base) / 1_048_576), target: "< 2 MB",
        method: "bundled catalog on repeat (--audio pulse, \(songsPlayed) songs started), VmRSS "
          + "every 10 s: last less the sample at 1 min (\(Self.megabytes(Double(base))) -> "
          + "\(Self.megabytes(Double(last))))")
    ]
  }
}

/// A private D-Bus session bus: cmus waits for Enter at start without one.
final class PrivateSessionBus {
  let folder: TemporaryDirectory
  let child: ChildProcess
  let address: String

  init() throws {
    folder = try TemporaryDirectory("riffle-bench-dbus")
    let socket = folder.file("bus").path
    address = "unix:path=\(socket)"
    child = try ChildProcess(
      "/usr/bin/dbus-daemon", ["--session", "--nofork", "--address=\(address)"])
    guard poll(timeout: 10, { FileManager.default.fileExists(atPath: socket) ? true : nil }) != nil
    else { throw BenchError("dbus-daemon did not start") }
  }

  func stop() { child.stop() }
}
