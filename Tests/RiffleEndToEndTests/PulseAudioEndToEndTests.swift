import Foundation
import RiffleTestSupport
import Testing

/// The PulseAudio output as a desktop has it: the real binary in tmux playing through a private
/// PulseAudio server's null sink, heard from the sink's monitor (`PrivatePulseServer`).
@Suite("PulseAudio output end to end (a private server, tmux)", .serialized)
struct PulseAudioEndToEndTests {
  @Test("--audio pulse is heard on the server; a pause closes the stream and Space reopens it")
  func playsPausesAndResumes() throws {
    let pulse = try PrivatePulseServer()
    let harness = try PlayerHarness(
      feed: PlayerHarness.longFeed, extraRoutes: try PlayerHarness.longRoutes)
    let trace = harness.home.file("trace")
    let tmux = try harness.start(
      audio: "pulse", environment: pulse.environment.merging(["RIFFLE_TRACE": trace.path]) { $1 })
    try tmux.waitFor("First Light", timeout: 20)
    try IdleWakeupsEndToEndTests.waitForMark("sample", in: trace)
    try Self.waitForStreams(on: pulse, named: ["Riffle playback"])
    #expect(try pulse.waitUntilHeard() > 1_000, "the song is heard")

    // A stream held open while paused keeps the server waking: it closes 1 s into a pause.
    tmux.sendKeys("Space")
    try tmux.waitFor("Paused", timeout: 10)
    try Self.waitForStreams(on: pulse, named: [])

    tmux.sendKeys("Space")
    try Self.waitForStreams(on: pulse, named: ["Riffle playback"])
    #expect(try pulse.waitUntilHeard() > 1_000, "heard again after Space")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  /// Waits until the server's playback streams are exactly `names`.
  static func waitForStreams(
    on pulse: PrivatePulseServer, named names: [String], timeout: Double = 15
  ) throws {
    let deadline = Date().addingTimeInterval(timeout)
    var streams = try pulse.playbackStreams()
    while streams != names {
      guard Date() < deadline else {
        throw TmuxError("the server's streams were \(streams), not \(names)")
      }
      usleep(100_000)
      streams = try pulse.playbackStreams()
    }
  }
}
