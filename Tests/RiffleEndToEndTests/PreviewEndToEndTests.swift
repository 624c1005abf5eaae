import Foundation
import RiffleAudio
import RiffleTestSupport
import Testing

/// Songs in M4A (AAC), as iTunes previews come, played by the real binary from a loopback server.
@Suite("M4A previews end to end (tmux, loopback HTTP, wav output)", .serialized)
struct PreviewEndToEndTests {
  /// What Riffle's own decoder makes of the bytes: what the WAV must hold.
  private func decoded(_ bytes: Data) throws -> [Int16] {
    try DecoderFactory.decodeAll(bytes).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
  }

  /// The total time at the right end of the progress row.
  private func totalTime(_ screen: String) -> String? {
    screen.split(separator: "\n").first { $0.contains("●") }?
      .split(separator: " ").last.map(String.init)
  }

  /// Starts riffle on a feed of one song served throttled at `/previews/ID.m4a`, playing into
  /// a WAV file.
  private func start(
    _ bytes: Data, id: String, title: String, bytesPerSecond: Int
  ) throws -> (harness: PlayerHarness, tmux: TmuxSession, wav: URL) {
    let path = "/previews/\(id).m4a"
    let feed = "{\"songs\":[\(PlayerHarness.song(id, title, likes: 0, audio: path))]}"
    let harness = try PlayerHarness(
      feed: feed,
      extraRoutes: [
        path: .throttled(bytes, contentType: "audio/mp4", bytesPerSecond: bytesPerSecond)
      ])
    let wav = harness.home.file("played.wav")
    return (harness, try harness.start(audio: "wav:\(wav.path)"), wav)
  }

  @Test("an M4A served slowly plays to the WAV exactly as decoded, with its total time shown")
  func previewPlaysWhole() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("short.m4a"))
    let (harness, tmux, wav) = try start(
      bytes, id: "p1", title: "Preview Song", bytesPerSecond: 30_000)
    defer { withExtendedLifetime(harness) {} }
    try tmux.waitFor("Preview Song")
    let playing = try tmux.waitUntil(timeout: 15) { totalTime($0) == "0:04" }
    #expect(!playing.contains("Cannot play"), "screen:\n\(playing)")
    let ended = try tmux.waitFor("End of the feed", timeout: 30)
    #expect(!ended.contains("Cannot play") && !ended.contains("damaged"), "screen:\n\(ended)")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)

    let played = try WAVFile.read(wav)
    #expect(played.sampleRate == 44_100 && played.channels == 2)
    let expected = try decoded(bytes)
    #expect(played.samples.count == expected.count, "\(played.frames) frames played")
    #expect(played.samples == expected, "the WAV differs from the decoded M4A")
  }

  @Test("] on an M4A beyond its download jumps 10 s with a Range request and plays on exactly")
  func previewSeek() throws {
    let dir = try TemporaryDirectory()
    let m4a = try TestFiles.encodeM4A(
      TestFiles.catalog.appendingPathComponent("audio/riffle-003.mp3"), into: dir)
    let bytes = try Data(contentsOf: m4a)
    let (harness, tmux, wav) = try start(
      bytes, id: "p2", title: "Long Preview", bytesPerSecond: 24_000)
    let before = try FaultHarness.waitForClock(tmux, atLeast: 1, timeout: 15)
    let from = try #require(FaultHarness.clock(before))
    #expect(totalTime(before) == "0:15", "screen:\n\(before)")
    tmux.sendKeys("]")
    let after = try FaultHarness.waitForClock(tmux, atLeast: from + 9, timeout: 5)
    let to = try #require(FaultHarness.clock(after))
    #expect((from + 9...from + 12).contains(to), "] moved the clock from \(from) s to \(to) s")
    let ended = try tmux.waitFor("End of the feed", timeout: 30)
    #expect(!ended.contains("Cannot play"), "screen:\n\(ended)")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)

    let ranges = harness.server.requests.filter { $0.target == "/previews/p2.m4a" }
      .compactMap { $0.headers["range"] }
    #expect(ranges.contains { $0 != "bytes=0-" }, "no Range request: \(ranges)")
    // The WAV is the song's start up to the key, then the song from the new point to its end.
    let whole = try decoded(bytes)
    let played = try WAVFile.read(wav).samples
    let head = zip(played, whole).prefix { $0 == $1 }.count / 2 * 2
    let jumpedTo = whole.count - (played.count - head)
    #expect(played[head...].elementsEqual(whole[jumpedTo...]), "the song after the seek differs")
    let seconds = Double(jumpedTo / 2) / 44_100
    #expect(
      seconds > Double(from) + 9 && seconds < Double(from) + 13,
      "jumped to \(seconds) s from about \(from) s")
  }

  @Test("a searched song's iTunes preview (M4A) plays to the WAV exactly as decoded")
  func searchedPreviewPlays() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("short.m4a"))
    let harness = try SearchHarness(
      ITunesServer(songsByTerm: ["tide": SearchHarness.tracks(1, term: "Tide")]), preview: bytes)
    let wav = harness.home.file("played.wav")
    let tmux = try harness.start(["search", "tide"], audio: "wav:\(wav.path)")
    // The page shows the preview's own length once it plays, not the whole recording's.
    let playing = try tmux.waitUntil(timeout: 15) { totalTime($0) == "0:04" }
    #expect(playing.contains("Tide 1"))
    let ended = try tmux.waitFor("End of the results", timeout: 30)
    #expect(!ended.contains("Cannot play"), "screen:\n\(ended)")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    #expect(try WAVFile.read(wav).samples == decoded(bytes), "the WAV differs from the preview")
  }
}
