import Foundation
import RiffleTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A real Subsonic server on loopback: Supysonic from PyPI (it speaks API 1.12.0, so Riffle
/// signs in with the hex password, allowed on loopback), installed once into a virtual
/// environment under .build, serving a folder of songs ffmpeg makes, with its ListenBrainz
/// forwarding pointed at a loopback server so that the scrobbles it takes can be seen.
private final class Supysonic {
  static let user = "alice"
  static let password = "pa ss+w\u{00F6}rd"
  /// (artist, album, title, hz, seconds, year of the file's date: Supysonic's "newest")
  static let songs: [(String, String, String, Int, Int, Int)] = [
    ("Mira Sol", "Dawn", "First Light", 440, 5, 2024),
    ("Mira Sol", "Dawn", "Second Sun", 550, 3, 2024),
    ("Kai Verne", "Middle", "Between", 330, 3, 2022),
    ("Kai Verne", "Old Roads", "Dust", 220, 3, 2020),
  ]

  let folder: TemporaryDirectory
  let port: UInt16
  let listenBrainz: LoopbackHTTPServer
  private var server: ChildProcess?

  /// The virtual environment with supysonic and waitress, made on first use.
  static func environment() throws -> URL {
    let venv = TestFiles.repoRoot.appendingPathComponent(".build/supysonic-venv")
    let server = venv.appendingPathComponent("bin/supysonic-server").path
    if FileManager.default.isExecutableFile(atPath: server) { return venv }
    try? FileManager.default.removeItem(at: venv)
    let made = try runProgram("/usr/bin/python3", ["-m", "venv", venv.path])
    guard made.status == 0 else {
      throw Unavailable("python3 -m venv failed (python3-venv missing?): \(made.stderr)")
    }
    let pip = try runProgram(
      venv.appendingPathComponent("bin/pip").path,
      ["install", "--quiet", "supysonic", "waitress"])
    guard pip.status == 0, FileManager.default.isExecutableFile(atPath: server) else {
      try? FileManager.default.removeItem(at: venv)
      throw Unavailable("pip cannot install supysonic and waitress: \(pip.stderr.suffix(300))")
    }
    return venv
  }

  struct Unavailable: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

  init(songs: [(String, String, String, Int, Int, Int)] = Supysonic.songs) throws {
    let venv = try Self.environment()
    folder = try TemporaryDirectory("riffle-supysonic")
    listenBrainz = try LoopbackHTTPServer { _ in
      .respond(status: 200, body: Data(#"{"status":"ok"}"#.utf8))
    }
    let music = folder.file("music")
    let cover = TestFiles.fixture("cover.jpg").path
    for (number, song) in songs.enumerated() {
      let (artist, album, title, hz, seconds, year) = song
      let albumFolder = music.appendingPathComponent("\(artist)/\(album)")
      try FileManager.default.createDirectory(at: albumFolder, withIntermediateDirectories: true)
      let file = albumFolder.appendingPathComponent("\(number) \(title).mp3")
      let encoded = try runProgram(
        "/usr/bin/ffmpeg",
        [
          "-loglevel", "error", "-y", "-f", "lavfi", "-i",
          "sine=frequency=\(hz):duration=\(seconds)",
          "-i", cover, "-map", "0:a", "-map", "1:v", "-c:v", "copy", "-disposition:v",
          "attached_pic", "-id3v2_version", "3", "-ac", "2", "-ar", "44100", "-b:a", "128k",
          "-metadata", "title=\(title)", "-metadata", "artist=\(artist)", "-metadata",
          "album=\(album)", "-metadata", "track=\(number + 1)", file.path,
        ])
      guard encoded.status == 0 else { throw TmuxError("ffmpeg: \(encoded.stderr)") }
      if title == "First Light" {
        // Supysonic's getLyrics reads a .txt beside the song.
        try "Morning breaks over the hill\nand the day begins\n".write(
          to: file.deletingPathExtension().appendingPathExtension("txt"), atomically: true,
          encoding: .utf8)
      }
      // Supysonic's newest albums are those of the newest files.
      var date = DateComponents(calendar: Calendar(identifier: .gregorian), year: year, month: 6)
      date.timeZone = TimeZone(identifier: "UTC")
      try FileManager.default.setAttributes(
        [.modificationDate: date.date!], ofItemAtPath: file.path)
    }
    port = try freeLoopbackPort()
    try """
    [base]
    database_uri = sqlite:///\(folder.file("supysonic.db").path)
    [webapp]
    cache_dir = \(folder.file("cache").path)
    [daemon]
    socket = \(folder.file("daemon.sock").path)
    run_watcher = no
    [listenbrainz]
    api_url = \(listenBrainz.baseURL.absoluteString)
    """.write(to: folder.file("supysonic.conf"), atomically: true, encoding: .utf8)
    let bin = venv.appendingPathComponent("bin")
    cli = bin.appendingPathComponent("supysonic-cli").path
    let python = bin.appendingPathComponent("python").path
    for arguments in [
      ["user", "add", Self.user, "-p", Self.password], ["folder", "add", "music", music.path],
      ["folder", "scan", "music"],
    ] {
      try command(arguments)
    }
    // The user's ListenBrainz token (the web page's "link" would ask ListenBrainz itself).
    let linked = try runProgram(
      python,
      [
        "-c",
        "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"update user set listenbrainz_session='lb-token' where name=?\", (sys.argv[2],)); c.commit()",
        folder.file("supysonic.db").path, Self.user,
      ])
    guard linked.status == 0 else { throw TmuxError("linking ListenBrainz: \(linked.stderr)") }
    server = try ChildProcess(
      "/bin/sh",
      [
        "-c", "cd \"$0\" && exec \"$@\"", folder.url.path,
        bin.appendingPathComponent("supysonic-server").path, "-S", "waitress", "-h", "127.0.0.1",
        "-p", "\(port)",
      ])
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      if let answer = try? api("ping"), answer.contains("\"ok\"") { return }
      Thread.sleep(forTimeInterval: 0.2)
    }
    throw TmuxError("supysonic-server did not answer on port \(port)")
  }

  private let cli: String

  /// Runs supysonic-cli in the server's folder (it reads supysonic.conf from there).
  func command(_ arguments: [String]) throws {
    let result = try runProgram(
      "/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", folder.url.path, cli] + arguments)
    guard result.status == 0 else { throw TmuxError("supysonic-cli \(arguments): \(result)") }
  }

  deinit {
    server?.stop()
    listenBrainz.stop()
  }

  var url: String { "http://127.0.0.1:\(port)" }

  /// A signed-in request made with curl, as another client of the server would.
  func api(_ endpoint: String, _ query: String = "") throws -> String {
    let hex = Array(Self.password.utf8).map { String(format: "%02x", $0) }.joined()
    let result = try runProgram(
      "/usr/bin/curl",
      [
        "-s", "--max-time", "5",
        "\(url)/rest/\(endpoint)?v=1.12.0&c=test&f=json&u=\(Self.user)&p=enc:\(hex)\(query)",
      ])
    return result.stdout
  }

  /// Titles of what Supysonic passed on to ListenBrainz, by listen type.
  func forwarded(_ type: String) -> [String] {
    listenBrainz.requests.compactMap { request in
      guard let json = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
        json["listen_type"] as? String == type,
        let payload = json["payload"] as? [[String: Any]]
      else { return nil }
      return (payload.first?["track_metadata"] as? [String: Any])?["track_name"] as? String
    }
  }
}

/// A home for the player with the server in its config.toml, added as a user would.
private func home(
  for server: Supysonic, password: String, url: String? = nil
) throws -> TemporaryDirectory {
  let home = try TemporaryDirectory("riffle-subsonic-home")
  let add = Process()
  add.executableURL = URL(fileURLWithPath: TestFiles.riffleBinary)
  add.arguments = ["server", "add", "home", url ?? server.url, Supysonic.user]
  add.environment = ProcessInfo.processInfo.environment.merging(home.xdgEnvironment) { $1 }
  let input = Pipe()
  add.standardInput = input
  add.standardOutput = FileHandle.nullDevice
  try add.run()
  input.fileHandleForWriting.write(Data((password + "\n").utf8))
  try input.fileHandleForWriting.close()
  add.waitUntilExit()
  guard add.terminationStatus == 0 else { throw TmuxError("riffle server add failed") }
  return home
}

@Suite("Subsonic end to end (a real Supysonic on loopback)", .serialized)
struct SubsonicEndToEndTests {
  fileprivate static func server(
    songs: [(String, String, String, Int, Int, Int)] = Supysonic.songs
  ) throws -> Supysonic {
    do {
      return try Supysonic(songs: songs)
    } catch let error as Supysonic.Unavailable {
      try Test.cancel("skipped: \(error.description)")
    }
  }

  @Test(
    "albums newest first as pages, b opens one, its songs play and star, search, scrobbles reach the server, no secret written"
  )
  func browseAndPlay() throws {
    let server = try Self.server()
    let home = try home(for: server, password: Supysonic.password)
    let config = home.url.appendingPathComponent("config/riffle/config.toml")
    let mode = try FileManager.default.attributesOfItem(atPath: config.path)[.posixPermissions]
    #expect((mode as? NSNumber)?.intValue == 0o600, "config.toml holds a password: 0600")
    let list = try runProgram(
      TestFiles.riffleBinary, ["server", "list"], environment: home.xdgEnvironment)
    #expect(list.stdout.contains("home  \(server.url)  alice  password"), "\(list)")
    #expect(!list.stdout.contains(Supysonic.password))
    let closed = "http://127.0.0.1:9"
    let doctor = try runProgram(
      TestFiles.riffleBinary, ["doctor"],
      environment: home.xdgEnvironment.merging([
        "RIFFLE_ITUNES_URL": closed, "RIFFLE_LYRICS_URL": closed,
      ]) { $1 })
    #expect(
      doctor.stdout.contains(
        "OK    server home: Subsonic API 1.12.0, signed in with the hex password"),
      "\(doctor.stdout)")

    let wav = home.file("out.wav")
    let tmux = try TmuxSession(
      command: [TestFiles.riffleBinary, "server", "home", "--audio", "wav:\(wav.path)"],
      // Lyrics the server has not are asked of LRCLIB: here, a closed port on loopback.
      environment: home.xdgEnvironment.merging([
        "LANG": "C.UTF-8", "RIFFLE_LYRICS_URL": "http://127.0.0.1:9",
      ]) { $1 }, width: 100, height: 30)
    defer { tmux.kill() }
    // The newest album first, one page each; nothing plays on an album's page.
    try tmux.waitForAll("home \u{00B7} newest albums", "Dawn", "Mira Sol \u{00B7} 2 songs", "1 / 3")
    try tmux.waitFor("b or Space opens it")
    tmux.sendKeys("Right")
    try tmux.waitForAll("Middle", "2 / 3")
    tmux.sendKeys("Right")
    try tmux.waitForAll("Old Roads", "3 / 3")
    tmux.sendKeys("Left", "Left")
    try tmux.waitForAll("Dawn", "1 / 3")
    // b opens the album: its songs in order, the first playing.
    tmux.sendKeys("b")
    try tmux.waitForAll("First Light", "Mira Sol \u{00B7} Dawn", "1 / 2", "0:01")
    // Its lyrics come from the server.
    tmux.sendKeys("y")
    try tmux.waitFor("Morning breaks over the hill")
    tmux.sendKeys("y")
    // Now playing reached the server, and past half the song a listen.
    tmux.sendKeys("l")
    try tmux.waitFor("\u{2665}")
    try tmux.waitFor("Second Sun", timeout: 10)
    var deadline = Date().addingTimeInterval(8)
    while Date() < deadline, !server.forwarded("single").contains("First Light") {
      Thread.sleep(forTimeInterval: 0.2)
    }
    #expect(server.forwarded("playing_now").contains("First Light"))
    #expect(
      server.forwarded("single").contains("First Light"), "a listen: \(server.forwarded("single"))")
    // The star is on the server, as another client reads it.
    deadline = Date().addingTimeInterval(5)
    var starred = ""
    while Date() < deadline {
      starred = try server.api("getStarred2")
      if starred.contains("First Light") { break }
      Thread.sleep(forTimeInterval: 0.2)
    }
    #expect(starred.contains("First Light"), "starred on the server: \(starred)")
    // / searches the server.
    tmux.sendKeys("/")
    try tmux.waitForAll("Search home", "Tab iTunes")
    tmux.sendLiteral("Dust")
    tmux.sendKeys("Enter")
    try tmux.waitForAll("home: \u{201C}Dust\u{201D}", "Dust", "Kai Verne \u{00B7} Old Roads")
    // a: the artist's songs on the server, album by album.
    tmux.sendKeys("a")
    try tmux.waitForAll("Kai Verne \u{00B7} home", "Between")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)

    // What was heard came from the server: the first song whole.
    let heard = try WAVFile.read(wav)
    #expect(heard.seconds >= 4.5, "heard \(heard.seconds) s")
    #expect(heard.rms > 0.02, "heard sound, not silence: rms \(heard.rms)")

    // The session comes back from the server's credential-free addresses: its song, paused.
    let again = try TmuxSession(
      command: [TestFiles.riffleBinary, "--audio", "null"],
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 }, width: 100,
      height: 30)
    defer { again.kill() }
    try again.waitForAll("Kai Verne \u{00B7} home", "Between", "Play")
    again.sendKeys("q")
    #expect(try again.waitForExit() == 0)

    // No secret in any file Riffle wrote but config.toml: log, cache, session, likes.
    let hex = Array(Supysonic.password.utf8).map { String(format: "%02x", $0) }.joined()
    let secrets = [Supysonic.password, hex, "p=enc:", "&t=", "&s="]
    let files = FileManager.default.enumerator(at: home.url, includingPropertiesForKeys: nil)!
    var read = 0
    for case let file as URL in files where file.lastPathComponent != "config.toml" {
      guard let data = try? Data(contentsOf: file) else { continue }
      read += 1
      let text = String(decoding: data, as: UTF8.self)
      for secret in secrets {
        #expect(!text.contains(secret), "\(secret) in \(file.path)")
      }
    }
    #expect(read >= 3, "the log, the session and a cached cover or song were read: \(read)")
  }

  @Test("a slow server leaves the screen answering; a sign-in page answered with 200 is named")
  func slowServerAndSignInPage() throws {
    // Signs in (API 1.16: tokens), then never answers for the albums.
    let slow = try LoopbackHTTPServer { request in
      if request.path == "/rest/getAlbumList2" { return .hang }
      return .respond(
        status: 200,
        body: Data(#"{"subsonic-response":{"status":"ok","version":"1.16.1"}}"#.utf8))
    }
    defer { slow.stop() }
    let page = try LoopbackHTTPServer { _ in
      .respond(
        status: 200, headers: ["Content-Type": "text/html"],
        body: Data("<!DOCTYPE html><html><body><form>Sign in</form></body></html>".utf8))
    }
    defer { page.stop() }
    for (server, check) in [(slow, "slow"), (page, "page")] {
      let home = try TemporaryDirectory("riffle-subsonic-home")
      let config = home.url.appendingPathComponent("config/riffle")
      try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
      try """
      [[servers]]
      name = "home"
      url = "\(server.baseURL.absoluteString)"
      user = "joe"
      password = "sesame"
      """.write(to: config.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
      let tmux = try TmuxSession(
        command: [TestFiles.riffleBinary, "server", "home", "--audio", "null"],
        environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 }, width: 120,
        height: 24)
      defer { tmux.kill() }
      if check == "slow" {
        try tmux.waitFor("Asking home for its albums")
        tmux.sendKeys("?")
        try tmux.waitFor("start of the song")
        tmux.sendKeys("?")
      } else {
        try tmux.waitFor("something else than the Subsonic API")
      }
      tmux.sendKeys("q")
      #expect(try tmux.waitForExit() == 0)
    }
  }

  @Test("a wrong password says so and names the setting; the screen still answers")
  func wrongPassword() throws {
    let server = try Self.server()
    let home = try home(for: server, password: "not-the-password")
    let tmux = try TmuxSession(
      command: [TestFiles.riffleBinary, "server", "home", "--audio", "null"],
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 }, width: 120,
      height: 24)
    defer { tmux.kill() }
    try tmux.waitForAll("home: wrong user or password", "config.toml")
    // riffle doctor says the same (its other services on a closed port: no waiting on them).
    let closed = "http://127.0.0.1:9"
    let doctor = try runProgram(
      TestFiles.riffleBinary, ["doctor"],
      environment: home.xdgEnvironment.merging([
        "RIFFLE_ITUNES_URL": closed, "RIFFLE_LYRICS_URL": closed,
      ]) { $1 })
    #expect(
      doctor.stdout.contains("FAIL  server home: home: wrong user or password"), "\(doctor.stdout)")
    tmux.sendKeys("?")
    try tmux.waitFor("start of the song")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }
}

/// Between Riffle and Supysonic: passes every request on with curl (its Range header too),
/// notes what Supysonic answered, and sends a whole song's body slowly, as a distant server
/// would, so that a seek lands beyond what has arrived.
private final class ThrottlingProxy: @unchecked Sendable {
  struct Passed: Sendable {
    var path: String
    var range: String?
    var status: Int
    var contentRange: String?
  }

  let server: LoopbackHTTPServer
  private let lock = NSLock()
  private var _passed: [Passed] = []
  var passed: [Passed] { lock.withLock { _passed } }

  init(to upstream: String, bytesPerSecond: Int, folder: TemporaryDirectory) throws {
    let box = Box()
    server = try LoopbackHTTPServer { request in
      let id = UUID().uuidString
      let body = folder.file("proxy-\(id).body")
      let head = folder.file("proxy-\(id).head")
      defer {
        try? FileManager.default.removeItem(at: body)
        try? FileManager.default.removeItem(at: head)
      }
      var arguments = ["-s", "--max-time", "20", "-o", body.path, "-D", head.path]
      if let range = request.headers["range"] { arguments += ["-H", "Range: \(range)"] }
      guard (try? runProgram("/usr/bin/curl", arguments + [upstream + request.target])) != nil,
        let data = try? Data(contentsOf: body),
        let headText = try? String(contentsOf: head, encoding: .isoLatin1)
      else { return .respond(status: 502, body: Data("no answer upstream".utf8)) }
      var headers: [String: String] = [:]
      let lines = headText.split(whereSeparator: \.isNewline)
      let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
      for line in lines.dropFirst() {
        let parts = line.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { continue }
        headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
      }
      let passed = Passed(
        path: request.path, range: request.headers["range"], status: status ?? 0,
        contentRange: headers["content-range"])
      box.proxy?.lock.withLock { box.proxy?._passed.append(passed) }
      let type = headers["content-type"] ?? "application/octet-stream"
      if request.path == "/rest/stream", status == 200, request.headers["range"] == nil {
        // The whole song, slowly (still with Accept-Ranges, as Supysonic's own answer has).
        return .throttled(data, contentType: type, bytesPerSecond: bytesPerSecond)
      }
      var forwarded = ["Content-Type": type]
      for name in ["content-range", "accept-ranges"] {
        if let value = headers[name] { forwarded[name.capitalized] = value }
      }
      return .respond(status: status ?? 502, headers: forwarded, body: data)
    }
    box.proxy = self
  }

  private final class Box: @unchecked Sendable {
    weak var proxy: ThrottlingProxy?
  }

  var url: String { server.baseURL.absoluteString }
}

extension SubsonicEndToEndTests {
  @Test(
    "] beyond the download of a server's song asks Supysonic for a Range; saved with w, the song plays from the playlist through the server, and a gone server is named"
  )
  func seekByRangeAndPlaylist() throws {
    // 30 s at 128 kbit/s: about 480 kB, of which 24 kB arrive each second.
    let server = try Self.server(songs: [("Lena Ray", "Long Way", "The Long Road", 330, 30, 2024)])
    let folder = try TemporaryDirectory("riffle-subsonic-proxy")
    let proxy = try ThrottlingProxy(to: server.url, bytesPerSecond: 24_000, folder: folder)
    defer { proxy.server.stop() }
    let home = try home(for: server, password: Supysonic.password, url: proxy.url)
    let environment = home.xdgEnvironment.merging([
      "LANG": "C.UTF-8", "RIFFLE_LYRICS_URL": "http://127.0.0.1:9",
    ]) { $1 }
    let tmux = try TmuxSession(
      command: [TestFiles.riffleBinary, "server", "home", "--audio", "null"],
      environment: environment, width: 100, height: 30)
    defer { tmux.kill() }
    try tmux.waitForAll("Long Way", "Lena Ray \u{00B7} 1 song")
    tmux.sendKeys("b")
    try tmux.waitFor("The Long Road")
    let before = try FaultHarness.waitForClock(tmux, atLeast: 1)
    let from = try #require(FaultHarness.clock(before))
    // 10 s on is near byte 180,000, which the first download reaches only after 7 s or so.
    tmux.sendKeys("]")
    try FaultHarness.waitForClock(tmux, atLeast: from + 9, timeout: 3)
    do {
      try FaultHarness.waitForClock(tmux, atLeast: from + 11, timeout: 4)
    } catch {
      Issue.record("after ] the song does not play on from the new point\n\(error)")
    }
    let streams = proxy.passed.filter { $0.path == "/rest/stream" }
    let ranged = streams.filter { ($0.range ?? "bytes=0-") != "bytes=0-" }
    #expect(!ranged.isEmpty, "no Range request after ]: \(streams)")
    // Supysonic honours it (not transcoding): 206 with the part asked for.
    for answer in ranged {
      #expect(answer.status == 206, "\(answer)")
      #expect(answer.contentRange?.hasPrefix("bytes ") == true, "\(answer)")
    }

    // w saves the album's songs; after a restart the playlist plays them through the server.
    tmux.sendKeys("w")
    try tmux.waitFor("Saved \u{201C}Long Way.m3u8\u{201D}")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    let playlist = home.url.appendingPathComponent("data/riffle/playlists/Long Way.m3u8")
    let saved = try String(contentsOf: playlist, encoding: .utf8)
    #expect(saved.contains("subsonic://home/stream?id="), "\(saved)")
    #expect(!saved.contains("enc:") && !saved.contains("&u="), "\(saved)")
    let asked = proxy.passed.count
    let again = try TmuxSession(
      command: [TestFiles.riffleBinary, playlist.path, "--audio", "null"],
      environment: environment, width: 100, height: 30)
    defer { again.kill() }
    try again.waitFor("The Long Road")
    try FaultHarness.waitForClock(again, atLeast: 1, timeout: 8)
    #expect(
      proxy.passed.dropFirst(asked).contains { $0.path == "/rest/stream" && $0.status == 200 },
      "the song came from the server: \(proxy.passed.dropFirst(asked).map(\.path))")
    // The password changed on the server mid-song: the next Range request is refused (with
    // status 200, as Supysonic does), and the screen says so rather than playing the refusal.
    try server.command(["user", "changepass", Supysonic.user, "-p", "changed"])
    again.sendKeys("]", "]")
    try again.waitFor("home: wrong user or password")
    again.sendKeys("q")
    #expect(try again.waitForExit() == 0)

    // The server taken out of config.toml: the playlist's song says what is missing.
    let config = home.url.appendingPathComponent("config/riffle/config.toml")
    try "".write(to: config, atomically: true, encoding: .utf8)
    let gone = try TmuxSession(
      command: [TestFiles.riffleBinary, playlist.path, "--audio", "null"],
      environment: environment, width: 140, height: 30)
    defer { gone.kill() }
    try gone.waitForAll("The Long Road", "No server named \u{201C}home\u{201D}")
    gone.sendKeys("q")
    #expect(try gone.waitForExit() == 0)
  }
}
