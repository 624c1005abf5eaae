import Foundation
import RiffleTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A free TCP port on 127.0.0.1, from the kernel.
private func freePort() throws -> UInt16 {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
    }
  }
  guard bound else { throw TmuxError("no free port") }
  return UInt16(bigEndian: address.sin_port)
}

/// Debian's icecast2 on loopback with a config of its own (it refuses to run as root: started
/// as its own user), fed by ffmpeg as the source client with a catalog song on repeat. Both can
/// be stopped and started again on the same port (a station that drops and comes back).
private final class IcecastStation {
  let folder: TemporaryDirectory
  let port: UInt16
  let name: String
  let genre: String
  private var server: ChildProcess?
  private var source: ChildProcess?

  init(name: String, genre: String) throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/icecast2") else {
      throw TmuxError("icecast2 is not installed (scripts/setup-debian.sh installs it)")
    }
    self.name = name
    self.genre = genre
    folder = try TemporaryDirectory("riffle-icecast")
    port = try freePort()
    let config = """
      <icecast>
        <limits><clients>10</clients><sources>2</sources><burst-size>65536</burst-size></limits>
        <authentication><source-password>sourcepw</source-password>
          <admin-user>admin</admin-user><admin-password>adminpw</admin-password></authentication>
        <hostname>127.0.0.1</hostname>
        <listen-socket><port>\(port)</port><bind-address>127.0.0.1</bind-address></listen-socket>
        <paths><basedir>/usr/share/icecast2</basedir><logdir>\(folder.url.path)</logdir>
          <webroot>/usr/share/icecast2/web</webroot><adminroot>/usr/share/icecast2/admin</adminroot>
        </paths>
        <logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog>
          <loglevel>2</loglevel></logging>
        <security><chroot>0</chroot></security>
      </icecast>
      """
    try config.write(to: folder.file("icecast.xml"), atomically: true, encoding: .utf8)
    // The server writes its logs as its own user.
    _ = try ChildProcess.run("/bin/chown", ["-R", "icecast2", folder.url.path])
    _ = try ChildProcess.run("/bin/chmod", ["755", folder.url.path])
    try start()
  }

  /// Starts the server, then the source.
  func start() throws {
    server = try ChildProcess(
      "/usr/sbin/runuser",
      [
        "-u", "icecast2", "--", "/usr/bin/icecast2", "-c",
        folder.file("icecast.xml").path,
      ])
    Thread.sleep(forTimeInterval: 0.5)
    let song = TestFiles.catalog.appendingPathComponent("audio/riffle-002.mp3").path
    source = try ChildProcess(
      "/usr/bin/ffmpeg",
      [
        "-nostdin", "-loglevel", "error", "-re", "-stream_loop", "-1", "-i", song, "-c:a",
        "libmp3lame", "-b:a", "128k", "-content_type", "audio/mpeg", "-ice_name", name,
        "-ice_genre", genre, "-f", "mp3", "icecast://source:sourcepw@127.0.0.1:\(port)/live.mp3",
      ])
  }

  /// Stops the source and the server: every listener's connection drops.
  func stop() {
    source?.stop()
    server?.stop()
    source = nil
    server = nil
  }

  var streamURL: String { "http://127.0.0.1:\(port)/live.mp3" }

  /// Sets the title the stream's ICY metadata names, as a station's software does: through
  /// Icecast's admin metadata endpoint. True when Icecast took it.
  @discardableResult
  func setTitle(_ title: String) throws -> Bool {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    let song = title.addingPercentEncoding(withAllowedCharacters: allowed) ?? title
    let url =
      "http://127.0.0.1:\(port)/admin/metadata?mount=/live.mp3&mode=updinfo&song=\(song)"
    return try ChildProcess.run(
      "/usr/bin/curl", ["-sf", "-o", "/dev/null", "-u", "admin:adminpw", url]) == 0
  }

  deinit {
    stop()
  }
}

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
    let tmux = try #require(
      try tuneIn(station.streamURL, home: home, until: "Loopback FM", "Synthwave", "0:03"))
    defer { tmux.kill() }
    let shown = tmux.capture()
    #expect(shown.contains("Loopback FM \u{00B7} live"))
    // No length: the clock counts what was heard and the end says the stream is live.
    #expect(shown.contains("LIVE"))
    // The station names a song through Icecast's admin endpoint: the page follows.
    #expect(try station.setTitle("Mira Sol - Night Drive"))
    let titled = try tmux.waitForAll("Night Drive", "Mira Sol", timeout: 10)
    #expect(titled.contains("Loopback FM"))
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
