import Foundation
import RiffleTestSupport
import Testing

/// A loopback Radio Browser: `/json/stations/search` answers `directory` (stations whose
/// streams are a catalog song served at the pace of a station from `/stream.mp3`).
private func radioBrowser(_ directory: @escaping @Sendable (UInt16) -> Data) throws
  -> LoopbackHTTPServer
{
  let song = try Data(
    contentsOf: TestFiles.catalog.appendingPathComponent("audio/riffle-002.mp3"))
  let box = ServerPort()
  let server = try LoopbackHTTPServer { request in
    switch request.path {
    case "/json/stations/search":
      return .respond(
        status: 200, headers: ["Content-Type": "application/json"], body: directory(box.port))
    case "/stream.mp3":
      return .throttled(song, contentType: "audio/mpeg", bytesPerSecond: 48_000)
    default:
      return .respond(status: 404, body: Data())
    }
  }
  box.port = server.port
  return server
}

private final class ServerPort: @unchecked Sendable {
  var port: UInt16 = 0
}

@Suite("riffle radio end to end (a loopback Radio Browser)", .serialized)
struct RadioSearchEndToEndTests {
  @Test("radio search opens the stations as pages; l keeps one; riffle radio plays the kept")
  func searchAndKeep() throws {
    let server = try radioBrowser { port in
      Data(
        """
        [{"name": "Loop Jazz", "url_resolved": "http://127.0.0.1:\(port)/stream.mp3",
          "tags": "jazz,swing", "country": "Iceland", "codec": "MP3", "bitrate": 128},
         {"name": "Loop \\u001b]0;owned\\u0007Blues", "url_resolved": "http://127.0.0.1:\(port)/stream.mp3?b",
          "tags": "blues"},
         {"name": "Broken", "url_resolved": "ftp://127.0.0.1/x"}]
        """.utf8)
    }
    defer { server.stop() }
    let home = try TemporaryDirectory("riffle-radio-search")
    let environment = home.xdgEnvironment.merging([
      "LANG": "C.UTF-8", "RIFFLE_RADIO_BROWSER_URL": server.baseURL.absoluteString,
    ]) { $1 }
    let tmux = try TmuxSession(
      command: [TestFiles.riffleBinary, "radio", "search", "loop", "--audio", "null"],
      environment: environment)
    defer { tmux.kill() }
    let shown = try tmux.waitForAll("Radio: \u{201C}loop\u{201D}", "Loop Jazz", "1 / 2", "0:02")
    #expect(shown.contains("jazz, swing"))
    #expect(shown.contains("LIVE"))
    let search = try #require(server.requests.first { $0.path == "/json/stations/search" })
    #expect(search.formQuery["name"] == "loop")
    #expect(search.headers["user-agent"]?.hasPrefix("Riffle/") == true)
    // The second station's hostile name is cleaned.
    tmux.sendKeys("Right")
    let blues = try tmux.waitForAll("2 / 2", "blues")
    #expect(blues.contains("Loop"))
    #expect(!tmux.captureWithEscapes().contains("\u{1B}]0;owned"))
    tmux.sendKeys("Left")
    _ = try tmux.waitFor("1 / 2")
    tmux.sendKeys("l")
    _ = try tmux.waitFor("Kept in your stations")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    let kept = try String(contentsOf: home.file("data/riffle/stations.json"), encoding: .utf8)
    #expect(kept.contains("Loop Jazz"))

    let favourites = try TmuxSession(
      command: [TestFiles.riffleBinary, "radio", "--audio", "null"], environment: environment)
    defer { favourites.kill() }
    let mine = try favourites.waitForAll("Your stations", "Loop Jazz", "1 / 1", "0:01")
    #expect(mine.contains("\u{2665}"))
    favourites.sendKeys("q")
    #expect(try favourites.waitForExit() == 0)
  }

  @Test("a directory that answers nonsense says so; the player keeps running")
  func malformedDirectory() throws {
    let server = try radioBrowser { _ in Data("<html><body>502 Bad Gateway</body></html>".utf8) }
    defer { server.stop() }
    let home = try TemporaryDirectory("riffle-radio-search")
    let tmux = try TmuxSession(
      command: [TestFiles.riffleBinary, "radio", "search", "loop", "--audio", "null"],
      environment: home.xdgEnvironment.merging([
        "LANG": "C.UTF-8", "RIFFLE_RADIO_BROWSER_URL": server.baseURL.absoluteString,
      ]) { $1 })
    defer { tmux.kill() }
    _ = try tmux.waitFor("Unexpected answer")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }
}
