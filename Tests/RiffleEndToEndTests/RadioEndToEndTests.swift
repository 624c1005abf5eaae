import Foundation
import RiffleTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Starts Riffle on `url` until the page shows `texts` (the mount appears once ffmpeg has
/// connected, so the first tries may find nothing to play).
private func tuneIn(
  _ url: String, home: TemporaryDirectory, extra: [String: String] = [:], until texts: String...
) throws -> TmuxSession? {
  for _ in 0..<20 {
    let tmux = try TmuxSession(
      command: [TestFiles.riffleBinary, url, "--audio", "null"],
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"].merging(extra) { $1 }) { $1 })
    if (try? tmux.waitUntil(timeout: 8) { screen in texts.allSatisfy { screen.contains($0) } })
      != nil
    {
      return tmux
    }
    tmux.kill()
    Thread.sleep(forTimeInterval: 0.5)
  }
  return nil
}

@Suite("Live radio end to end (Debian's icecast2, ffmpeg as the source)", .serialized)
struct RadioEndToEndTests {
  @Test("a station plays as one live page: name, genre, time listened, LIVE; its ICY title shows")
  func stationPage() throws {
    let station = try IcecastStation(name: "Loopback FM", genre: "Synthwave")
    let home = try TemporaryDirectory("riffle-radio")
    // LRCLIB on loopback knows the song the station will name.
    let record = Data(
      #"{"id":7,"trackName":"Night Drive","artistName":"Mira Sol","duration":200,"instrumental":false,"plainLyrics":"Headlights on the water\nand the radio on","syncedLyrics":null}"#
        .utf8)
    let lrclib = try LoopbackHTTPServer { request in
      request.path == "/api/get" && request.formQuery["track_name"] == "Night Drive"
        && request.formQuery["artist_name"] == "Mira Sol" && request.formQuery["album_name"] == nil
        ? .respond(status: 200, headers: ["Content-Type": "application/json"], body: record)
        : .respond(status: 404, body: Data(#"{"name":"TrackNotFound"}"#.utf8))
    }
    defer { lrclib.stop() }
    let tmux = try #require(
      try tuneIn(
        station.streamURL, home: home,
        extra: ["RIFFLE_LYRICS_URL": lrclib.baseURL.absoluteString],
        until: "Loopback FM", "Synthwave", "0:03"))
    defer { tmux.kill() }
    let shown = tmux.capture()
    #expect(shown.contains("Loopback FM \u{00B7} live"))
    // No length: the clock counts what was heard and the end says the stream is live.
    #expect(shown.contains("LIVE"))
    // The station names a song through Icecast's admin endpoint: the page follows.
    #expect(try station.setTitle("Mira Sol - Night Drive"))
    let titled = try tmux.waitForAll("Night Drive", "Mira Sol", timeout: 10)
    #expect(titled.contains("Loopback FM"))
    // y looks up the words of the song the station names.
    tmux.sendKeys("y")
    _ = try tmux.waitFor("Headlights on the water", timeout: 10)
    tmux.sendKeys("y")
    // Hostile text from the station never reaches the terminal as control characters.
    #expect(try station.setTitle("Juno Reyes - Slow \u{1B}[31mOrbit\u{07}"))
    let next = try tmux.waitForAll("Slow Orbit", "Juno Reyes", timeout: 10)
    #expect(!next.contains("Night Drive"))
    #expect(!tmux.captureWithEscapes().contains("\u{1B}[31mOrbit"))
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("a station that drops reconnects by itself, saying so, and plays again when it is back")
  func reconnects() throws {
    let station = try IcecastStation(name: "Loopback FM", genre: "Synthwave")
    let home = try TemporaryDirectory("riffle-radio")
    let trace = home.url.appendingPathComponent("trace.log")
    let tmux = try #require(
      try tuneIn(
        station.streamURL, home: home, extra: ["RIFFLE_TRACE": trace.path],
        until: "Loopback FM", "0:02"))
    defer { tmux.kill() }
    station.stop()
    let dropped = try tmux.waitFor("Reconnecting", timeout: 15)
    #expect(dropped.contains("Loopback FM"))
    try station.start()
    // Sound again: a second first sample in the trace, and the band stops saying it.
    let samples = {
      ((try? String(contentsOf: trace, encoding: .utf8)) ?? "").split(separator: "\n")
        .filter { $0.contains(" sample ") }.count
    }
    let deadline = Date().addingTimeInterval(40)
    while samples() < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.25) }
    #expect(samples() >= 2, "the station never played again")
    _ = try tmux.waitUntil(timeout: 5) { !$0.contains("Reconnecting") }
    // Pause lets go of the stream; play connects again (a new request, a new first sample).
    tmux.sendKeys("Space")
    _ = try tmux.waitFor("Paused", timeout: 5)
    tmux.sendKeys("Space")
    let again = samples() + 1
    let rejoin = Date().addingTimeInterval(10)
    while samples() < again && Date() < rejoin { Thread.sleep(forTimeInterval: 0.25) }
    #expect(samples() >= again, "play after a pause did not rejoin the stream")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }
}

@Suite("Live radio: streams that are not", .serialized)
struct BadStreamEndToEndTests {
  /// A loopback server with an M3U naming `/stream` on itself, which `reply` answers.
  private func server(_ reply: LoopbackHTTPServer.Reply) throws -> LoopbackHTTPServer {
    let box = PortBox()
    let server = try LoopbackHTTPServer { request in
      request.path == "/listen"
        ? .respond(
          status: 200, headers: ["Content-Type": "audio/x-mpegurl"],
          body: Data("#EXTM3U\n#EXTINF:-1,Quiet FM\nhttp://127.0.0.1:\(box.port)/stream\n".utf8))
        : reply
    }
    box.port = server.port
    return server
  }

  @Test("a server that accepts and sends nothing is reported within about 10 s, and tried again")
  func silentServer() throws {
    let server = try server(.hang)
    defer { server.stop() }
    let home = try TemporaryDirectory("riffle-radio")
    let tmux = try TmuxSession(
      command: [TestFiles.riffleBinary, server.url("/listen").absoluteString, "--audio", "null"],
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 })
    defer { tmux.kill() }
    _ = try tmux.waitFor("Quiet FM", timeout: 10)
    let started = Date()
    let shown = try tmux.waitFor("sent no audio", timeout: 16)
    #expect(Date().timeIntervalSince(started) < 14)
    #expect(shown.contains("Reconnecting in"))
    // The player keeps running.
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("a stream that is really a 2 MB web page says so and is not tried again")
  func webPage() throws {
    let page = Data(
      ("<!DOCTYPE html><html><body>"
        + String(repeating: "<p>not a radio station</p>", count: 80_000)
        + "</body></html>").utf8)
    let server = try server(
      .respond(status: 200, headers: ["Content-Type": "audio/mpeg"], body: page))
    defer { server.stop() }
    let home = try TemporaryDirectory("riffle-radio")
    let tmux = try TmuxSession(
      command: [TestFiles.riffleBinary, server.url("/listen").absoluteString, "--audio", "null"],
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 })
    defer { tmux.kill() }
    let shown = try tmux.waitFor("Cannot play", timeout: 15)
    #expect(shown.contains("not an audio format"))
    #expect(!shown.contains("Reconnecting"))
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }
}

/// The loopback server's port, known once it listens (its handler is made before).
private final class PortBox: @unchecked Sendable {
  var port: UInt16 = 0
}
