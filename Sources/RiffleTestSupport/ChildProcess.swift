import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A child process started with posix_spawn and reaped with waitpid. (Foundation's `Process`
/// left children unreaped here once several were running, hanging `waitUntilExit`.)
public final class ChildProcess: @unchecked Sendable {
  public let pid: pid_t
  private var exited = false

  /// Starts `path` with `arguments` and the current environment plus `environment`; its
  /// stdin and stderr are /dev/null, its stdout `stdout` (a descriptor) or /dev/null.
  public init(
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
    let status = withCleanSignals { posix_spawn(&pid, path, &actions, &$0, argv, envp) }
    guard status == 0 else {
      throw SpawnError(description: "cannot start \(path): \(String(cString: strerror(status)))")
    }
    self.pid = pid
  }

  /// Waits for the end; returns the exit status (128 + signal when killed).
  @discardableResult
  public func wait() -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    exited = true
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
  }

  /// Waits for the end like `wait()`, and returns what the process used (wait4's rusage:
  /// peak resident memory, CPU time).
  public func waitWithUsage() -> (status: Int32, usage: rusage) {
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    exited = true
    let signal = status & 0x7f
    return (signal == 0 ? (status >> 8) & 0xff : 128 + signal, usage)
  }

  /// Ends the process (SIGTERM) and waits for it, and for what it started: a terminal's
  /// program, hung up on when the terminal goes, still writes its files on the way out, and a
  /// test's folder must not be removed before.
  public func stop() {
    guard !exited else { return }
    let started = Self.descendants(of: pid)
    kill(pid, SIGTERM)
    wait()
    Self.waitUntilGone(started)
  }

  /// Every process below `root` (children, their children, ...), from /proc.
  public static func descendants(of root: pid_t) -> [pid_t] {
    var children: [pid_t: [pid_t]] = [:]
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    for entry in entries {
      guard let pid = pid_t(entry), let parent = parentAndState(of: pid)?.parent else { continue }
      children[parent, default: []].append(pid)
    }
    var found: [pid_t] = []
    var next = children[root] ?? []
    while let pid = next.popLast() {
      found.append(pid)
      next += children[pid] ?? []
    }
    return found
  }

  /// Waits (up to `timeout` seconds) until none of `pids` runs: gone, or a zombie.
  public static func waitUntilGone(_ pids: [pid_t], timeout: Double = 5) {
    let deadline = Date().addingTimeInterval(timeout)
    var left = pids
    while !left.isEmpty && Date() < deadline {
      left.removeAll { pid in parentAndState(of: pid).map { $0.state == "Z" } ?? true }
      if !left.isEmpty { usleep(20_000) }
    }
  }

  /// The parent and the state letter in /proc/PID/stat (after the command's closing bracket:
  /// a command may hold spaces and brackets).
  private static func parentAndState(of pid: pid_t) -> (parent: pid_t, state: Character)? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
      let text = String(data: data, encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 1, let state = fields[0].first, let parent = pid_t(fields[1]) else {
      return nil
    }
    return (parent, state)
  }

  deinit { stop() }

  /// Runs a program to its end; returns its status.
  @discardableResult
  public static func run(_ path: String, _ arguments: [String]) throws -> Int32 {
    try ChildProcess(path, arguments).wait()
  }

  /// A program that could not be started.
  public struct SpawnError: Error, CustomStringConvertible {
    public var description: String
  }
}

/// Runs `body` with spawn attributes under which a child starts with no signal blocked and the
/// usual ones at their default action. The caller's threads may block signals (test runners
/// do), and a child inherits that: `timeout` could then never stop what it runs, nor tmux
/// notice its pane's program end.
func withCleanSignals<T>(_ body: (inout posix_spawnattr_t) -> T) -> T {
  var attributes = posix_spawnattr_t()
  posix_spawnattr_init(&attributes)
  defer { posix_spawnattr_destroy(&attributes) }
  var none = sigset_t()
  sigemptyset(&none)
  posix_spawnattr_setsigmask(&attributes, &none)
  var defaults = sigset_t()
  sigemptyset(&defaults)
  for signal in [SIGPIPE, SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGALRM] {
    sigaddset(&defaults, signal)
  }
  posix_spawnattr_setsigdefault(&attributes, &defaults)
  posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
  return body(&attributes)
}
