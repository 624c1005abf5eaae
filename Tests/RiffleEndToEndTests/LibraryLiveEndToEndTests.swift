import Foundation
import RiffleTestSupport
import Testing

// The library while the player runs, through the real binary in tmux: search as you type
// (results before Enter, the song playing going on), and two neighbours of an album heard
// without a gap in the captured output.

/// A temporary home with a music folder of FLAC files, each a sine tone.
private final class LiveLibrary {
  let home: TemporaryDirectory
  let music: URL

  init(_ prefix: String) throws {
    home = try TemporaryDirectory(prefix)
    music = home.file("Music")
  }

  /// Writes a FLAC file (lossless, no encoder padding) of a tone, tagged.
  func add(
    _ relative: String, hz: Int, seconds: Double, tags: [String: String],
    filter: String? = nil
  ) throws {
    let file = music.appendingPathComponent(relative)
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    var arguments = [
      "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
      "sine=frequency=\(hz):duration=\(seconds):sample_rate=44100",
    ]
    if let filter { arguments += ["-af", filter] }
    arguments += ["-ac", "2", "-c:a", "flac"]
    for (key, value) in tags.sorted(by: { $0.key < $1.key }) {
      arguments += ["-metadata", "\(key)=\(value)"]
    }
    let result = try runProgram("/usr/bin/ffmpeg", arguments + [file.path])
    guard result.status == 0 else { throw TmuxError("ffmpeg: \(result.stderr)") }
  }

  func start(_ arguments: [String]) throws -> TmuxSession {
    try TmuxSession(
      command: [TestFiles.riffleBinary] + arguments,
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 }, width: 100,
      height: 30)
  }
}

@Suite("The library while the player runs (tmux, real files)", .serialized)
struct LibraryLiveEndToEndTests {
  @Test("/ then bj shows Björk as pages before Enter, while Abba plays on; Enter plays Björk")
  func searchAsYouType() throws {
    let library = try LiveLibrary("riffle-live-search")
    try library.add(
      "Abba/Arrival/1.flac", hz: 440, seconds: 30,
      tags: ["title": "Dancing Queen", "artist": "Abba", "album": "Arrival", "track": "1"])
    try library.add(
      "Björk/Post/1.flac", hz: 660, seconds: 30,
      tags: ["title": "Army of Me", "artist": "Björk", "album": "Post", "track": "1"])
    try library.add(
      "Björk/Post/2.flac", hz: 880, seconds: 30,
      tags: ["title": "Hyperballad", "artist": "Björk", "album": "Post", "track": "2"])
    let tmux = try library.start([library.music.path, "--audio", "null"])
    defer { tmux.kill() }
    try tmux.waitForAll("Dancing Queen", "1 / 3")
    tmux.sendKeys("/")
    try tmux.waitFor("Search your library")
    tmux.sendLiteral("bj")
    // Before Enter: the library's results as pages, the song playing named as going on.
    // (All of it waited for: the band is written last.)
    try tmux.waitForAll(
      "Army of Me", "Björk · Post", "2 songs", "1 / 2", "“Dancing Queen” plays on",
      "Enter play  Tab iTunes")
    // Tab: Enter would search iTunes; the pages go back to what plays.
    tmux.sendKeys("Tab")
    // Waited for as a whole (the preview's page and its band note both gone): a capture can
    // land while a frame is half written, its upper rows new and its band not yet.
    let itunes = try tmux.waitUntil {
      $0.contains("Search iTunes") && $0.contains("1 / 3") && !$0.contains("Army of Me")
        && !$0.contains("plays on")
    }
    #expect(itunes.contains("Dancing Queen"))
    tmux.sendKeys("Tab")
    try tmux.waitForAll("Search your library", "Army of Me", "2 songs")
    tmux.sendKeys("Enter")
    try tmux.waitForAll("Army of Me", "Library: “bj”", "1 / 2", "Pause")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("two neighbours of an album, one sine split across two FLAC files, join without a gap")
  func gaplessNeighbours() throws {
    let library = try LiveLibrary("riffle-live-gapless")
    // 441 Hz: a period is exactly 100 samples at 44.1 kHz, so the second file starts in the
    // phase the first one ends in, and the tone runs on across the join.
    let split = 66_150  // 1.5 s
    let tags = ["artist": "Join", "album": "Seam"]
    try library.add(
      "Join/Seam/1.flac", hz: 441, seconds: 3,
      tags: tags.merging(["title": "First Half", "track": "1"]) { $1 },
      filter: "atrim=end_sample=\(split)")
    try library.add(
      "Join/Seam/2.flac", hz: 441, seconds: 3,
      tags: tags.merging(["title": "Second Half", "track": "2"]) { $1 },
      filter: "atrim=start_sample=\(split),asetpts=N/SR/TB")
    let wav = library.home.file("out.wav")
    let tmux = try library.start([library.music.path, "--audio", "wav:\(wav.path)"])
    defer { tmux.kill() }
    try tmux.waitForAll("First Half", "1 / 2")
    try tmux.waitFor("Second Half", timeout: 10)
    try tmux.waitFor("End of the library", timeout: 10)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)

    let capture = try WAVFile.read(wav)
    #expect(capture.channels == 2 && capture.sampleRate == 44_100)
    let left = stride(from: 0, to: capture.samples.count, by: 2).map {
      Double(capture.samples[$0])
    }
    let loud = left.indices.filter { abs(left[$0]) > 200 }
    let first = try #require(loud.first)
    let last = try #require(loud.last)
    // The two halves, whole: 3 s of tone, not a sample more or less (give or take the
    // near-zero samples at its very ends).
    #expect(abs(last - first - 2 * split) < 20, "tone of \(last - first) samples")
    // No silence inside it: every 10 ms (one and a bit periods) has the tone's loudness.
    let tone = left[first...last]
    let peak = tone.map(abs).max() ?? 0
    for window in stride(from: first, to: last - 441, by: 441) {
      let slice = left[window..<window + 441]
      let rms = (slice.map { $0 * $0 }.reduce(0, +) / 441).squareRoot()
      #expect(abs(rms - peak / 2.0.squareRoot()) < peak * 0.05, "at sample \(window - first)")
    }
    // No step at the join: no two samples further apart than the sine's steepest slope allows.
    let steepest = peak * 2 * Double.pi * 441 / 44_100
    let largest = zip(tone, tone.dropFirst()).map { abs($1 - $0) }.max() ?? 0
    #expect(
      largest <= steepest * 1.05 + 2, "a step of \(largest) (the sine's steepest: \(steepest))")
  }

  @Test(
    "on a sound server (a private PulseAudio's null sink, recorded): two album neighbours splitting one sine join without a gap"
  )
  func gaplessOnASoundServer() throws {
    let pulse = try PrivatePulseServer()
    let library = try LiveLibrary("riffle-live-gapless-pulse")
    // 441 Hz: a period is exactly 100 samples at 44.1 kHz, so the second file starts in the
    // phase the first one ends in.
    let split = 88_200  // 2 s
    let tags = ["artist": "Join", "album": "Seam"]
    try library.add(
      "Join/Seam/1.flac", hz: 441, seconds: 3.5,
      tags: tags.merging(["title": "First Half", "track": "1"]) { $1 },
      filter: "atrim=end_sample=\(split)")
    try library.add(
      "Join/Seam/2.flac", hz: 441, seconds: 3.5,
      tags: tags.merging(["title": "Second Half", "track": "2"]) { $1 },
      filter: "atrim=start_sample=\(split),asetpts=N/SR/TB")
    // The sink's monitor, recorded from before the first song starts to after the second ends:
    // what a sound card would have played, in real time.
    let recorded = LockedBox<Result<[Int16], Error>>()
    let recorder = Thread { recorded.set(Result { try pulse.recordSink(seconds: 9) }) }
    recorder.start()
    usleep(500_000)
    let tmux = try TmuxSession(
      command: [TestFiles.riffleBinary, library.music.path, "--audio", "pulse"],
      environment: library.home.xdgEnvironment.merging(pulse.environment) { $1 }.merging([
        "LANG": "C.UTF-8"
      ]) { $1 }, width: 100, height: 30)
    defer { tmux.kill() }
    try tmux.waitForAll("First Half", "1 / 2")
    try tmux.waitFor("Second Half", timeout: 10)
    try tmux.waitFor("End of the library", timeout: 10)
    let capture = try recorded.wait(timeout: 15).get()
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)

    let left = stride(from: 0, to: capture.count - 1, by: 2).map { Double(capture[$0]) }
    let loud = left.indices.filter { abs(left[$0]) > 200 }
    let first = try #require(loud.first, "nothing was heard")
    let last = try #require(loud.last)
    let tone = left[first...last]
    let peak = tone.map(abs).max() ?? 0
    // The monitor may give nothing for a moment after the first stream starts (the tone's
    // start can be missed; `gaplessNeighbours` counts the samples in a WAV capture), but the
    // tone's end, 2 s after the join, is recorded, and the join well inside it.
    #expect(last < left.count - 4_410, "tone to \(last) of \(left.count)")
    #expect(last - first > split + 44_100, "tone of \(last - first) samples")
    // No quiet stretch: every 5 ms (two periods, 200 samples) has the tone's loudness.
    var quiet: [Int] = []
    for window in stride(from: first, to: last - 200, by: 100) {
      let slice = left[window..<window + 200]
      let rms = (slice.map { $0 * $0 }.reduce(0, +) / 200).squareRoot()
      if abs(rms - peak / 2.0.squareRoot()) > peak * 0.1 { quiet.append(window - first) }
    }
    #expect(quiet.isEmpty, "quiet or broken 5 ms windows at samples \(quiet.prefix(10))")
    // No step: no two samples further apart than the sine's steepest slope allows.
    let steepest = peak * 2 * Double.pi * 441 / 44_100
    let largest = zip(tone, tone.dropFirst()).map { abs($1 - $0) }.max() ?? 0
    #expect(
      largest <= steepest * 1.05 + 2, "a step of \(largest) (the sine's steepest: \(steepest))")
  }

  @Test(
    "a file copied into the folder while riffle plays shows up without a restart; one removed goes")
  func watched() throws {
    let library = try LiveLibrary("riffle-live-watch")
    try library.add(
      "Abba/Arrival/1.flac", hz: 440, seconds: 30,
      tags: ["title": "Dancing Queen", "artist": "Abba", "album": "Arrival", "track": "1"])
    try library.add(
      "Abba/Arrival/2.flac", hz: 550, seconds: 30,
      tags: ["title": "Money Money", "artist": "Abba", "album": "Arrival", "track": "2"])
    let tmux = try library.start([library.music.path, "--audio", "null"])
    defer { tmux.kill() }
    try tmux.waitForAll("Dancing Queen", "1 / 2", "Pause")
    // Made elsewhere, then copied in, as a user would.
    let outside = try LiveLibrary("riffle-live-new")
    try outside.add(
      "Believe.flac", hz: 300, seconds: 5,
      tags: ["title": "Believe", "artist": "Cher", "album": "Believe", "track": "1"])
    let cher = library.music.appendingPathComponent("Cher/Believe")
    try FileManager.default.createDirectory(at: cher, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: outside.music.appendingPathComponent("Believe.flac"),
      to: cher.appendingPathComponent("1 Believe.flac"))
    // The pages follow (album order: Cher after Abba), the song playing stays on its page.
    try tmux.waitForAll("Library: 1 new", "Dancing Queen", "1 / 3", "Pause")
    tmux.sendKeys("/")
    tmux.sendLiteral("beli")
    try tmux.waitForAll("Believe", "Cher · Believe", "1 song")
    tmux.sendKeys("Escape")
    try FileManager.default.removeItem(
      at: library.music.appendingPathComponent("Abba/Arrival/2.flac"))
    try tmux.waitForAll("Library: 1 removed", "Dancing Queen", "1 / 2")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test(
    "riffle FOLDER never scanned: the screen at once, Scanning… on the band; seen before: its songs at once"
  )
  func scanBehindTheScreen() throws {
    let library = try LiveLibrary("riffle-live-first-scan")
    try library.add(
      "Many/Songs/000.flac", hz: 440, seconds: 1,
      tags: ["title": "Copy", "artist": "Many", "album": "Songs"])
    let first = library.music.appendingPathComponent("Many/Songs/000.flac")
    for number in 1..<600 {
      try FileManager.default.copyItem(
        at: first,
        to: first.deletingLastPathComponent().appendingPathComponent(
          String(format: "%03d.flac", number)))
    }
    let tmux = try library.start([library.music.path, "--audio", "null"])
    defer { tmux.kill() }
    let early = try tmux.waitFor("Scanning Music…")
    #expect(!early.contains("Scanned:"))
    try tmux.waitForAll("Scanned: 600 songs, 600 new", "Copy", "/ 100", timeout: 60)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)

    // Again: the index has the folder; the songs come from it at once, the rescan is quiet.
    let again = try library.start([library.music.path, "--audio", "null"])
    defer { again.kill() }
    let screen = try again.waitForAll("Copy", "1 / 100")
    #expect(!screen.contains("Scanning"))
    again.sendKeys("q")
    #expect(try again.waitForExit() == 0)
  }
}

/// A value one thread sets and another waits for.
private final class LockedBox<Value>: @unchecked Sendable {
  private let condition = NSCondition()
  private var value: Value?

  func set(_ new: Value) {
    condition.withLock {
      value = new
      condition.broadcast()
    }
  }

  func wait(timeout: Double) throws -> Value {
    let deadline = Date().addingTimeInterval(timeout)
    return try condition.withLock {
      while value == nil {
        guard condition.wait(until: deadline) else { throw TmuxError("nothing came in time") }
      }
      return value!
    }
  }
}
