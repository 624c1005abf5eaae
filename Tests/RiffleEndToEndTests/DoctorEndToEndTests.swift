import Foundation
import RiffleTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `riffle doctor` run as a user would, in temporary folders and on a private bus.
struct DoctorRun {
  let home: TemporaryDirectory
  var environment: [String: String]
  /// Stands in for iTunes and LRCLIB: every path answers 404, which is an answer.
  let services: LoopbackHTTPServer

  init(bus: PrivateSessionBus?) throws {
    home = try TemporaryDirectory("riffle-doctor")
    services = try LoopbackHTTPServer(handler: LoopbackHTTPServer.routes([:]))
    environment = home.xdgEnvironment.merging(
      [
        "TERM": "xterm-256color", "LANG": "C.UTF-8", "RIFFLE_CATALOG": TestFiles.catalog.path,
        // No sound server is started by asking (libpulse would autospawn one).
        "PULSE_SERVER": "unix:\(FileManager.default.temporaryDirectory.path)/no-pulse",
        "DBUS_SESSION_BUS_ADDRESS": bus?.address ?? "unix:path=/nonexistent/riffle-bus",
        "RIFFLE_ITUNES_URL": services.url("/").absoluteString,
        "RIFFLE_LYRICS_URL": services.url("/").absoluteString,
      ]) { $1 }
  }

  func config(_ text: String) throws {
    let folder = home.url.appendingPathComponent("config/riffle")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: folder.appendingPathComponent("config.toml"))
  }

  func run(_ arguments: [String] = []) throws -> (status: Int32, lines: [String], stderr: String) {
    let result = try runProgram(
      TestFiles.riffleBinary, ["doctor"] + arguments, environment: environment)
    return (result.status, result.stdout.split(separator: "\n").map(String.init), result.stderr)
  }
}

extension [String] {
  /// The line of a check (`OK    source: ...`).
  func check(_ name: String) -> String? { first { $0.dropFirst(6).hasPrefix("\(name):") } }
}

@Suite("riffle doctor and riffle --version through the real binary")
struct DoctorEndToEndTests {
  @Test("on a machine with what Riffle needs, every check passes or warns, and it exits 0")
  func healthy() throws {
    let bus = try PrivateSessionBus()
    let doctor = try DoctorRun(bus: bus)
    let result = try doctor.run()
    #expect(result.status == 0, "\(result.lines)")
    #expect(result.lines.check("terminal")?.hasPrefix("OK    terminal: xterm-256color") == true)
    #expect(result.lines.check("locale") == "OK    locale: UTF-8")
    #expect(result.lines.check("size")?.hasPrefix("WARN") == true, "stdout is a pipe here")
    // No terminal to ask on a pipe (or tmux around the test runner): symbols, and why.
    #expect(result.lines.check("pictures")?.hasPrefix("OK    pictures: symbols: ") == true)
    let audio = result.lines.check("audio") ?? ""
    #expect(audio.contains("null") || audio.hasPrefix("OK"), "\(audio)")
    #expect(result.lines.check("libcurl") == "OK    libcurl: libcurl.so.4 loads (http and https)")
    #expect(result.lines.check("ffmpeg")?.hasPrefix("OK    ffmpeg: libavutil.so.") == true)
    #expect(result.lines.check("source")?.hasPrefix("OK") == true)
    #expect(result.lines.check("source")?.contains("answers with 6 songs") == true)
    #expect(result.lines.check("config")?.hasPrefix("OK") == true)
    #expect(result.lines.check("search")?.hasSuffix("answers (HTTP 404)") == true)
    #expect(result.lines.check("lyrics")?.hasPrefix("OK    lyrics: http://127.0.0.1:") == true)
    #expect(result.lines.check("data")?.hasPrefix("OK") == true)
    #expect(result.lines.check("cache")?.hasPrefix("OK") == true)
    #expect(result.lines.check("session bus")?.hasPrefix("OK") == true)
    #expect(!result.lines.contains { $0.hasPrefix("FAIL") })
  }

  @Test("a bad config fails with each problem's line and says what to edit")
  func badConfig() throws {
    let doctor = try DoctorRun(bus: nil)
    try doctor.config("[keys]\njump = \"j\"\n[theme]\naccent = \"pink\"\n")
    let result = try doctor.run()
    #expect(result.status == 1)
    let problems = result.lines.filter { $0.hasPrefix("FAIL  config: ") }
    #expect(problems.count == 2, "\(result.lines)")
    #expect(problems.first?.contains("config.toml line 2: unknown action 'jump'") == true)
    #expect(problems.last?.contains("config.toml line 4: 'accent' must be") == true)
    #expect(problems.allSatisfy { $0.contains("-> edit ") })
  }

  @Test("a source that cannot be reached fails and names the host")
  func unreachableSource() throws {
    let server = try LoopbackHTTPServer(handler: LoopbackHTTPServer.routes([:]))
    let url = server.url("/feed.json")
    server.stop()
    let doctor = try DoctorRun(bus: nil)
    let result = try doctor.run([url.absoluteString])
    #expect(result.status == 1)
    let line = result.lines.check("source") ?? ""
    #expect(line.hasPrefix("FAIL  source: \(url.absoluteString): "), "\(result.lines)")
    #expect(line.contains("127.0.0.1"))
    #expect(line.contains("-> check the address and the network connection"))
  }

  @Test("a search server that cannot be reached warns; a malformed one in the environment fails")
  func unreachableServices() throws {
    let server = try LoopbackHTTPServer(handler: LoopbackHTTPServer.routes([:]))
    let closed = server.url("/").absoluteString
    server.stop()
    var doctor = try DoctorRun(bus: nil)
    doctor.environment["RIFFLE_ITUNES_URL"] = closed
    let result = try doctor.run()
    #expect(result.status == 0, "a warning only: \(result.lines)")
    let line = result.lines.check("search") ?? ""
    #expect(line.hasPrefix("WARN  search: \(closed): "), "\(result.lines)")
    #expect(
      line.hasSuffix(
        "-> check the network connection, or point RIFFLE_ITUNES_URL at a server that answers"))
    #expect(result.lines.check("lyrics")?.hasPrefix("OK") == true)

    doctor.environment["RIFFLE_LYRICS_URL"] = "ftp://example.com"
    let malformed = try doctor.run()
    #expect(malformed.status == 1)
    #expect(
      malformed.lines.check("lyrics")?.hasPrefix("FAIL  lyrics: RIFFLE_LYRICS_URL must be") == true)
  }

  @Test("a data folder that cannot be written fails and says how to fix it")
  func readOnlyData() throws {
    let doctor = try DoctorRun(bus: nil)
    var environment = doctor.environment
    let data = doctor.home.url.appendingPathComponent("data")
    if geteuid() == 0 {
      // root writes through any mode bits: a folder under a plain file cannot be made at all.
      try Data().write(to: doctor.home.url.appendingPathComponent("plain"))
      environment["XDG_DATA_HOME"] = doctor.home.url.appendingPathComponent("plain/data").path
    } else {
      try FileManager.default.createDirectory(
        at: data.appendingPathComponent("riffle"), withIntermediateDirectories: true)
      chmod(data.appendingPathComponent("riffle").path, 0o555)
    }
    defer { chmod(data.appendingPathComponent("riffle").path, 0o755) }
    let result = try runProgram(TestFiles.riffleBinary, ["doctor"], environment: environment)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(result.status == 1)
    let line = lines.check("data") ?? ""
    #expect(line.hasPrefix("FAIL  data: cannot write in "), "\(lines)")
    #expect(line.contains("-> make it writable (chmod u+w), or point XDG_DATA_HOME elsewhere"))
    #expect(lines.check("cache")?.hasPrefix("OK") == true)
  }

  @Test("no session bus is a warning, not a failure; notifications without a server warn")
  func noBus() throws {
    let doctor = try DoctorRun(bus: nil)
    let result = try doctor.run()
    #expect(result.status == 0, "\(result.lines)")
    let line = result.lines.check("session bus") ?? ""
    #expect(
      line.hasPrefix("WARN  session bus: cannot connect to unix:path=/nonexistent/riffle-bus"))

    let bus = try PrivateSessionBus()
    let withBus = try DoctorRun(bus: bus)
    try withBus.config("[notifications]\nenabled = true\n")
    let notifications = try withBus.run().lines.check("notifications") ?? ""
    #expect(notifications.hasPrefix("WARN  notifications: enabled in the config, but no"))
  }

  @Test("an unknown terminal type fails with what to install")
  func unknownTerminal() throws {
    var doctor = try DoctorRun(bus: nil)
    doctor.environment["TERM"] = "no-such-terminal"
    let result = try doctor.run()
    #expect(result.status == 1)
    #expect(
      result.lines.check("terminal")
        == "FAIL  terminal: no terminfo entry for TERM=no-such-terminal -> install ncurses-term, "
        + "or set TERM to a known type such as xterm-256color")
  }

  @Test(
    "riffle doctor --help and riffle help doctor show the doctor's usage; riffle --help lists it")
  func help() throws {
    for arguments in [["doctor", "--help"], ["help", "doctor"]] {
      let result = try runProgram(TestFiles.riffleBinary, arguments)
      #expect(result.status == 0)
      #expect(result.stdout.contains("USAGE: riffle doctor [<source>]"), "\(result.stdout)")
      #expect(!result.stdout.contains("OK "), "help must not run the checks")
    }
    let main = try runProgram(TestFiles.riffleBinary, ["--help"])
    #expect(main.stdout.contains("doctor                  Check the terminal"))
  }

  @Test("--version names each C library with the version this process loaded")
  func version() throws {
    let result = try runProgram(TestFiles.riffleBinary, ["--version"])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix("riffle 0.") == true)
    func line(_ name: String) -> String {
      lines.first { $0.hasPrefix("  \(name) ") } ?? ""
    }
    func modversion(_ package: String) throws -> String {
      try runProgram("/usr/bin/pkg-config", ["--modversion", package]).stdout
        .trimmingCharacters(in: .whitespacesAndNewlines)
    }
    #expect(line("libcurl").contains(" \(try modversion("libcurl")) ("), "\(line("libcurl"))")
    #expect(line("ncursesw").contains(try modversion("ncursesw")), "\(line("ncursesw"))")
    #expect(line("libpng").contains(try modversion("libpng")), "\(line("libpng"))")
    #expect(line("libavformat").contains(try modversion("libavformat")), "\(line("libavformat"))")
    #expect(
      line("libsystemd").contains(" \(try modversion("libsystemd"))."), "\(line("libsystemd"))")
    #expect(line("libfftw3f").contains("fftw-\(try modversion("fftw3f"))"), "\(line("libfftw3f"))")
    #expect(line("libpulse").contains(try modversion("libpulse")), "\(line("libpulse"))")
    #expect(
      line("libswresample").contains(try modversion("libswresample")), "\(line("libswresample"))")
    #expect(
      line("libsqlite3").contains("\(try modversion("sqlite3")) (FTS5)"), "\(line("libsqlite3"))")
    #expect(line("libebur128").contains(try modversion("libebur128")), "\(line("libebur128"))")
    #expect(line("libtag").contains(try modversion("taglib")), "\(line("libtag"))")
    for name in [
      "libcurl", "libmpg123", "libavformat", "libavcodec", "libswresample", "libavutil", "libao",
      "ncursesw", "chafa", "libsystemd", "libpulse", "libfftw3f", "libsqlite3", "libebur128",
      "libtag",
    ] {
      let text = line(name)
      let file = text.split(separator: " ").last.map(String.init) ?? ""
      #expect(file.hasPrefix("/") && FileManager.default.fileExists(atPath: file), "\(text)")
    }
  }
}
