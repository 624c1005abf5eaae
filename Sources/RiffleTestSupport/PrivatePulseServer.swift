import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A PulseAudio server of a test's (or the benchmark's) own, with a null sink: playback paced by
/// a real sound server, as on a desktop, with nothing reaching a speaker, and what it plays
/// recordable from the sink's monitor. Started in a temporary folder, stopped when the value
/// goes away; programs reach it through `environment`.
public final class PrivatePulseServer: @unchecked Sendable {
  public let folder: TemporaryDirectory
  /// Started with posix_spawn: Foundation's `Process` stops reaping other children (the
  /// `pactl` runs below) while a long-lived one of its own is running.
  private let server: ChildProcess

  public struct StartError: Error, CustomStringConvertible {
    public var description: String
  }

  public init() throws {
    folder = try TemporaryDirectory("riffle-pulse")
    let socket = folder.file("native").path
    server = try ChildProcess(
      "/usr/bin/pulseaudio",
      [
        "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
        "-L", "module-null-sink sink_name=riffle_test",
        "-L", "module-native-protocol-unix auth-anonymous=1 socket=\(socket)",
      ], environment: ["HOME": folder.url.path, "XDG_RUNTIME_DIR": folder.url.path])
    // The socket appears once the server listens.
    let deadline = Date().addingTimeInterval(10)
    while !FileManager.default.fileExists(atPath: socket) {
      guard Date() < deadline else {
        server.stop()
        throw StartError(description: "the private PulseAudio server did not start")
      }
      usleep(10_000)
    }
  }

  public var pid: pid_t { server.pid }

  /// Variables that point a program at this server (and nowhere else for its runtime folder).
  public var environment: [String: String] {
    ["PULSE_SERVER": "unix:\(folder.file("native").path)", "XDG_RUNTIME_DIR": folder.url.path]
  }

  /// The names (`media.name`) of the playback streams the server has now.
  public func playbackStreams() throws -> [String] {
    let listing = String(
      decoding: try output(of: "/usr/bin/pactl", ["list", "sink-inputs"]), as: UTF8.self)
    return listing.split(separator: "\n").compactMap { line in
      let text = line.trimmingCharacters(in: .whitespaces)
      guard text.hasPrefix("media.name = ") else { return nil }
      return String(text.dropFirst("media.name = ".count)).trimmingCharacters(
        in: CharacterSet(charactersIn: "\""))
    }
  }

  /// Records about `seconds` of what the null sink plays, from its monitor: 44.1 kHz 16-bit
  /// stereo. Right after a stream starts the monitor may give parec nothing at all: callers
  /// that wait for sound record again (see `waitUntilHeard`).
  public func recordSink(seconds: Double) throws -> [Int16] {
    // SIGINT: parec ends cleanly and writes out what it holds (on SIGTERM its stdio buffer is
    // lost). A short latency, or the server hands it its first second or two in one piece.
    let pcm = try output(
      of: "/usr/bin/timeout",
      [
        "-s", "INT", "\(seconds)", "parec", "-d", "riffle_test.monitor", "--latency-msec=50",
        "--raw", "--format=s16le", "--rate=44100", "--channels=2",
      ])
    return pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
  }

  /// Records a second at a time until the sink plays something louder than `level` (of 32767);
  /// returns the loudest sample heard, which is below `level` only when `timeout` passed.
  public func waitUntilHeard(level: Int = 1_000, timeout: Double = 15) throws -> Int {
    let deadline = Date().addingTimeInterval(timeout)
    var loudest = 0
    repeat {
      let peak = try recordSink(seconds: 1).lazy.map { abs(Int($0)) }.max() ?? 0
      loudest = max(loudest, peak)
      if loudest > level { break }
    } while Date() < deadline
    return loudest
  }

  /// What a client program run against this server writes to its standard output.
  private func output(of program: String, _ arguments: [String]) throws -> Data {
    let file = folder.file("out-\(UUID().uuidString.prefix(8))")
    let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw StartError(description: "cannot write \(file.path)") }
    defer { try? FileManager.default.removeItem(at: file) }
    let child = try ChildProcess(
      program, arguments, environment: environment, stdout: descriptor)
    close(descriptor)
    child.wait()
    return try Data(contentsOf: file)
  }

  public func stop() { server.stop() }
}
