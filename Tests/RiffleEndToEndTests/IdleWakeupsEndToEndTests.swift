import Foundation
import RiffleTestSupport
import Testing

/// A paused or idle player sleeps: no thread of the real binary wakes while nothing happens.
///
/// Wake-ups are read as the benchmark reads them: the context switches (voluntary and
/// involuntary) of each thread in /proc/PID/task/*/status. A sleeping thread gains none however
/// loaded the machine is, so the count does not depend on load; the wait before the window
/// only lets work that ends by itself finish (libdispatch's idle worker threads exit 5 s after
/// their last job, each waking once to do so). The output is a WAV file, which the engine keeps
/// open while paused; a sound server's stream would be closed 1 s into the pause.
/// Before the fix libdispatch's thread-pool monitor woke the process once a second for good
/// (see BackgroundWork), 4 or more wake-ups in the window.
@Suite("Paused and idle wake-ups end to end (tmux, loopback HTTP)", .serialized)
struct IdleWakeupsEndToEndTests {
  /// Seconds to wait after the player falls quiet, and seconds to count over.
  static let settle = 7.0
  static let window = 4.0
  /// Allowed for a library's own housekeeping (one wake, not one a second). A thread that exits
  /// in the window is not counted: it is gone at the end.
  static let tolerance = 1

  @Test("paused, after lyrics were looked up: no thread wakes")
  func paused() throws {
    let notFound =
      #"{"code":404,"name":"TrackNotFound","message":"Failed to find specified track"}"#
    var routes = try PlayerHarness.longRoutes
    routes["/lrclib/api/get"] = .respond(
      status: 404, headers: ["Content-Type": "application/json"], body: Data(notFound.utf8))
    let harness = try PlayerHarness(feed: PlayerHarness.longFeed, extraRoutes: routes)
    let trace = harness.home.file("trace")
    let tmux = try harness.start(
      audio: "wav:\(harness.home.file("out.wav").path)",
      arguments: ["--lyrics-url", harness.server.url("/lrclib").absoluteString],
      environment: ["RIFFLE_TRACE": trace.path])
    let pid = try #require(CrashSafetyEndToEndTests.startedPID(number: 1, in: trace))
    try tmux.waitFor("First Light", timeout: 20)
    try Self.waitForMark("sample", in: trace)
    tmux.sendKeys("y")
    try tmux.waitFor("No lyrics found for this song", timeout: 20)
    tmux.sendKeys("Space")
    try tmux.waitFor("Paused", timeout: 10)
    let woke = try Self.wakeups(of: pid)
    #expect(woke.total <= Self.tolerance, "woke while paused: \(woke.detail)")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("idle on a page after the last song, after i listened: no thread wakes")
  func idleAfterTheLastSongAndListening() throws {
    // Three songs, so that fingerprinting them runs on more than one thread.
    let harness = try PlayerHarness(feed: PlayerHarness.threeSongs)
    let trace = harness.home.file("trace")
    let clip = harness.home.file("room.wav")
    try Recording.stranger(seconds: 3, to: clip)
    let tmux = try harness.start(
      audio: "wav:\(harness.home.file("out.wav").path)",
      arguments: ["--capture", "file:\(clip.path)"], environment: ["RIFFLE_TRACE": trace.path])
    let pid = try #require(CrashSafetyEndToEndTests.startedPID(number: 1, in: trace))
    try tmux.waitFor("First Light", timeout: 20)
    try Self.waitForMark("sample", in: trace)
    // Listening fingerprints the feed (BackgroundWork.forEach) while it records.
    tmux.sendKeys("i")
    try tmux.waitFor("No song matched", timeout: 90)
    // The fixtures last about 2 s each; after the third the play button offers Play again.
    try tmux.waitForAll("Third Rail", "3 / 3", "▶ Play", timeout: 30)
    let woke = try Self.wakeups(of: pid)
    #expect(woke.total <= Self.tolerance, "woke while idle: \(woke.detail)")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  /// Waits until the trace holds a line whose event is `event`.
  static func waitForMark(_ event: String, in trace: URL, timeout: Double = 20) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !TraceFile(url: trace).marks().contains(where: { $0.words.first == event }) {
      guard Date() < deadline else { throw TmuxError("no \(event) mark in the trace") }
      usleep(50_000)
    }
  }

  /// Context switches of every thread of `pid` over `window`, after `settle`: the total (threads
  /// that lived through the window, plus all of those that started in it) and per thread.
  static func wakeups(of pid: pid_t) throws -> (total: Int, detail: String) {
    usleep(UInt32(settle * 1_000_000))
    let before = try #require(ProcessUsage.read(pid), "the player is not running")
    usleep(UInt32(window * 1_000_000))
    let after = try #require(ProcessUsage.read(pid), "the player ended")
    let woken = after.woken(since: before)
    let detail = woken.map { "\($0.thread) \($0.name): \($0.count)" }
    return (
      after.switches(since: before), detail.isEmpty ? "none" : detail.joined(separator: ", ")
    )
  }
}
