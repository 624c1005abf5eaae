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
/// as its own user), fed by ffmpeg as the source client with a catalog song on repeat.
private final class IcecastStation {
  let folder: TemporaryDirectory
  let port: UInt16
  private var server: ChildProcess?
  private var source: ChildProcess?

  init(name: String, genre: String) throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/icecast2") else {
      throw TmuxError("icecast2 is not installed (scripts/setup-debian.sh installs it)")
    }
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

  var streamURL: String { "http://127.0.0.1:\(port)/live.mp3" }

  deinit {
    source?.stop()
    server?.stop()
  }
}

@Suite("Live radio end to end (Debian's icecast2, ffmpeg as the source)", .serialized)
struct RadioEndToEndTests {
  @Test("a station's stream plays as one live page: its name and genre, time listened, no end")
  func stationPage() throws {
    let station = try IcecastStation(name: "Loopback FM", genre: "Synthwave")
    let home = try TemporaryDirectory("riffle-radio")
    // The mount appears once ffmpeg has connected.
    var page = ""
    for _ in 0..<20 {
      let tmux = try TmuxSession(
        command: [TestFiles.riffleBinary, station.streamURL, "--audio", "null"],
        environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 })
      if let shown = try? tmux.waitForAll("Loopback FM", "Synthwave", "0:03", timeout: 8) {
        page = shown
        #expect(shown.contains("Loopback FM \u{00B7} live"))
        // No length: the clock counts what was heard and the end says it does not know.
        #expect(shown.contains("-:--"))
        tmux.sendKeys("q")
        #expect(try tmux.waitForExit() == 0)
        break
      }
      tmux.kill()
      Thread.sleep(forTimeInterval: 0.5)
    }
    #expect(!page.isEmpty, "the station never played")
  }
}
