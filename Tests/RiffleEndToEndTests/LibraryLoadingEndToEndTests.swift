import Foundation
import RiffleTestSupport
import Testing

/// libcurl, libpulse-simple, libsystemd and FFmpeg are opened when first needed, not at start
/// (see CLinux.h): what the real binary has mapped, read from /proc/PID/maps. MPRIS loading
/// libsystemd when there is a bus is covered by the desktop tests.
@Suite("C libraries load when first needed, in the real binary (tmux)", .serialized)
struct LibraryLoadingEndToEndTests {
  @Test(
    "The bundled catalog plays with no libcurl, PulseAudio, FFmpeg or, without a bus, libsystemd; a search loads curl"
  )
  func curlOnFirstSearch() throws {
    let harness = try SearchHarness(
      ITunesServer(songsByTerm: ["neon": SearchHarness.tracks(3, term: "Neon")]))
    let trace = harness.home.file("trace")
    let catalog = TestFiles.catalog.appendingPathComponent("songs.json").path
    // No session bus: no DBUS_SESSION_BUS_ADDRESS, and a runtime folder without a bus socket.
    let tmux = try harness.start(
      [catalog],
      environment: [
        "RIFFLE_TRACE": trace.path, "DBUS_SESSION_BUS_ADDRESS": "",
        "XDG_RUNTIME_DIR": harness.home.url.path,
      ])
    let pid = try #require(CrashSafetyEndToEndTests.startedPID(number: 1, in: trace))
    try tmux.waitFor("Glass Harbor", timeout: 20)
    // Playing: the feed, the song and its cover were all read from files.
    try IdleWakeupsEndToEndTests.waitForMark("sample", in: trace)
    let playing = try Self.mappedLibraries(of: pid)
    #expect(!playing.contains { $0.hasPrefix("libcurl") }, "\(playing)")
    #expect(!playing.contains { $0.hasPrefix("libpulse") }, "\(playing)")
    #expect(!playing.contains { $0.hasPrefix("libavformat") }, "\(playing)")
    #expect(!playing.contains { $0.hasPrefix("libsystemd") }, "no bus to connect to: \(playing)")
    #expect(playing.contains { $0.hasPrefix("libmpg123") }, "\(playing)")

    tmux.sendKeys("/")
    try tmux.waitFor("Search iTunes")
    tmux.sendKeys("neon", "Enter")
    try tmux.waitForAll("Neon 1", "1 / 3", timeout: 20)
    let searched = try Self.mappedLibraries(of: pid)
    #expect(searched.contains { $0.hasPrefix("libcurl.so.4") }, "\(searched)")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  /// The file names of the shared libraries mapped into `pid`.
  static func mappedLibraries(of pid: pid_t) throws -> Set<String> {
    // Read to the end: /proc files say they are empty, and a sized read stops at the first page.
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps"))
    defer { try? handle.close() }
    let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    return Set(
      maps.split(separator: "\n").compactMap { line in
        guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last,
          path.hasPrefix("/"), path.contains(".so")
        else { return nil }
        return String(path.split(separator: "/").last ?? "")
      })
  }
}
