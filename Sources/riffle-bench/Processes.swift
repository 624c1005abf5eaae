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

/// A private PulseAudio server with a null sink: playback paced by a real sound server, as on a
/// desktop, with nothing reaching a speaker. Children find it through `environment`.
final class PulseServer {
  let folder: TemporaryDirectory
  let child: Child

  init() throws {
    folder = try TemporaryDirectory("riffle-bench-pulse")
    let socket = folder.file("native").path
    child = try Child(
      "/usr/bin/pulseaudio",
      [
        "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
        "-L", "module-null-sink",
        "-L", "module-native-protocol-unix auth-anonymous=1 socket=\(socket)",
      ], environment: ["HOME": folder.url.path, "XDG_RUNTIME_DIR": folder.url.path])
    // The socket appears once the server listens.
    guard poll(timeout: 10, { FileManager.default.fileExists(atPath: socket) ? true : nil }) != nil
    else {
      child.stop()
      throw BenchError("the private PulseAudio server did not start")
    }
  }

  var pid: pid_t { child.pid }

  var environment: [String: String] {
    ["PULSE_SERVER": "unix:\(folder.file("native").path)", "XDG_RUNTIME_DIR": folder.url.path]
  }

  func stop() { child.stop() }
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

/// A child process started with posix_spawn and reaped with waitpid. (Foundation's `Process`
/// left children unreaped here once several were running, hanging `waitUntilExit`.)
final class Child {
  let pid: pid_t
  private var exited = false

  /// Starts `path` with `arguments` and the current environment plus `environment`; its
  /// stdin and stderr are /dev/null, its stdout `stdout` (a descriptor) or /dev/null.
  init(
    _ path: String, _ arguments: [String], environment: [String: String] = [:], stdout: Int32? = nil
  )
    throws
  {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    if let stdout {
      posix_spawn_file_actions_adddup2(&actions, stdout, 1)
    } else {
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    }
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = env.map { strdup($0) } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, path, &actions, nil, argv, envp)
    guard status == 0 else {
      throw BenchError("cannot start \(path): \(String(cString: strerror(status)))")
    }
    self.pid = pid
  }

  /// Waits for the end; returns the exit status (128 + signal when killed).
  @discardableResult
  func wait() -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    exited = true
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
  }

  func stop() {
    guard !exited else { return }
    kill(pid, SIGTERM)
    wait()
  }

  deinit { stop() }

  /// Runs a program to its end; returns its status.
  @discardableResult
  static func run(_ path: String, _ arguments: [String]) throws -> Int32 {
    try Child(path, arguments).wait()
  }
}
