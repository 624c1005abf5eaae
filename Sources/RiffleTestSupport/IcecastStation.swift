import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A free TCP port on 127.0.0.1, from the kernel.
public func freeLoopbackPort() throws -> UInt16 {
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
public final class IcecastStation {
  public let folder: TemporaryDirectory
  public let port: UInt16
  public let name: String
  public let genre: String
  /// The file the source plays on repeat (a catalog song unless the test names one).
  public let song: String
  private var server: ChildProcess?
  private var source: ChildProcess?

  public init(name: String, genre: String, song: String? = nil) throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/icecast2") else {
      throw TmuxError("icecast2 is not installed (scripts/setup-debian.sh installs it)")
    }
    self.name = name
    self.genre = genre
    self.song = song ?? TestFiles.catalog.appendingPathComponent("audio/riffle-002.mp3").path
    folder = try TemporaryDirectory("riffle-icecast")
    port = try freeLoopbackPort()
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
  public func start() throws {
    server = try ChildProcess(
      "/usr/sbin/runuser",
      [
        "-u", "icecast2", "--", "/usr/bin/icecast2", "-c",
        folder.file("icecast.xml").path,
      ])
    Thread.sleep(forTimeInterval: 0.5)
    source = try ChildProcess(
      "/usr/bin/ffmpeg",
      [
        "-nostdin", "-loglevel", "error", "-re", "-stream_loop", "-1", "-i", song, "-c:a",
        "libmp3lame", "-b:a", "128k", "-content_type", "audio/mpeg", "-ice_name", name,
        "-ice_genre", genre, "-f", "mp3", "icecast://source:sourcepw@127.0.0.1:\(port)/live.mp3",
      ])
  }

  /// Stops the source and the server: every listener's connection drops.
  public func stop() {
    source?.stop()
    server?.stop()
    source = nil
    server = nil
  }

  /// Waits until the mount is up (ffmpeg has connected); false when it is not within `timeout`.
  public func waitForMount(timeout: TimeInterval = 15) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    let status = folder.file("status.json").path
    while Date() < deadline {
      let fetched = try? ChildProcess.run(
        "/usr/bin/curl",
        ["-sf", "-o", status, "--max-time", "2", "http://127.0.0.1:\(port)/status-json.xsl"])
      if fetched == 0, let text = try? String(contentsOfFile: status, encoding: .utf8),
        text.contains("/live.mp3")
      {
        return true
      }
      Thread.sleep(forTimeInterval: 0.25)
    }
    return false
  }

  public var streamURL: String { "http://127.0.0.1:\(port)/live.mp3" }

  /// Sets the title the stream's ICY metadata names, as a station's software does: through
  /// Icecast's admin metadata endpoint. True when Icecast took it.
  @discardableResult
  public func setTitle(_ title: String) throws -> Bool {
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
