import Foundation
import RiffleAPI
import RiffleTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Seconds on CLOCK_MONOTONIC, the clock of the player's trace marks.
func monotonic() -> Double { Double(Trace.now()) / 1e9 }

func sleep(seconds: Double) { usleep(UInt32(seconds * 1_000_000)) }

/// Polls `body` every 5 ms until it gives a value or `timeout` passes.
func poll<T>(timeout: Double, _ body: () -> T?) -> T? {
  let deadline = monotonic() + timeout
  while monotonic() < deadline {
    if let value = body() { return value }
    usleep(5_000)
  }
  return body()
}

/// What the benchmark asks of a run's trace beyond its marks.
extension TraceFile {
  var pid: pid_t? {
    marks().first { $0.words.first == "start" }.flatMap { Int32($0.words[1]) }
  }

  /// Waits for a mark; nil after `timeout`.
  func wait(for words: String..., timeout: Double = 20) -> Double? {
    poll(timeout: timeout) { marks().first { $0.words == words }?.time }
  }
}

struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// The player binary beside this one (both come from the same release build).
func riffleBinary() throws -> String {
  let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("riffle").path
  guard FileManager.default.isExecutableFile(atPath: path) else {
    throw BenchError("no riffle binary beside riffle-bench (run scripts/bench.sh)")
  }
  return path
}

/// One run of the player in tmux with its own XDG folders and trace file.
final class PlayerRun {
  let folder: TemporaryDirectory
  let trace: TraceFile
  let tmux: TmuxSession

  init(
    arguments: [String], environment: [String: String] = [:], width: Int = 80, height: Int = 24
  ) throws {
    folder = try TemporaryDirectory("riffle-bench-run")
    trace = TraceFile(url: folder.file("trace"))
    var env = folder.xdgEnvironment
    env["RIFFLE_TRACE"] = trace.url.path
    env.merge(environment) { $1 }
    tmux = try TmuxSession(
      command: [try riffleBinary()] + arguments, environment: env, width: width, height: height)
  }

  /// The player's process id, once it has started.
  func pid(timeout: Double = 20) throws -> pid_t {
    guard let pid = poll(timeout: timeout, { trace.pid }) else {
      throw BenchError("the player did not start: \(tmux.capture())")
    }
    return pid
  }

  /// Waits until request `playID` is heard; returns that time.
  @discardableResult
  func waitForSample(_ playID: Int, timeout: Double = 30) throws -> Double {
    guard let time = trace.wait(for: "sample", "\(playID)", timeout: timeout) else {
      throw BenchError("no sound for play request \(playID): \(tmux.capture())")
    }
    return time
  }

  func stop() { tmux.kill() }
}
