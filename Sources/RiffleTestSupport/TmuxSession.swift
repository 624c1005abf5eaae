import Foundation
import Glibc

/// An error from driving a ``TmuxSession``.
///
/// Timeouts carry the last captured screen in their description, so a
/// failing end-to-end test shows what the terminal looked like.
public struct TmuxError: Error, CustomStringConvertible {
  /// A human-readable explanation of what went wrong.
  public let message: String
  /// The last screen captured before the error, when there is one.
  public let screen: String?

  /// Creates an error with a message and, optionally, the screen contents.
  public init(_ message: String, screen: String? = nil) {
    self.message = message
    self.screen = screen
  }

  /// The message followed, if known, by the last screen in a framed block.
  public var description: String {
    guard let screen else { return message }
    let rule = String(repeating: "-", count: 40)
    return "\(message)\nlast screen:\n\(rule)\n\(screen)\n\(rule)"
  }
}

/// A real terminal for end-to-end tests, driven through tmux.
///
/// Every session runs its own tmux server on a private socket in a fresh
/// temporary directory (`tmux -S DIR/sock -f /dev/null`), so tests can run in
/// parallel and user configuration is ignored. The command runs with
/// `TERM=tmux-256color` in a window of the requested size; its exit status
/// is recorded in a file when it ends, and the pane is kept (without any
/// "Pane is dead" banner) so its final screen can still be captured.
///
/// ```swift
/// let tmux = try TmuxSession(command: [riffle.path, "--feed", url.absoluteString])
/// defer { tmux.kill() }
/// try tmux.waitFor("Now playing")
/// tmux.sendKeys("q")
/// XCTAssertEqual(try tmux.waitForExit(), 0)
/// ```
public final class TmuxSession: @unchecked Sendable {
  private let tmuxPath: String
  private let directory: URL
  private let socketPath: String
  private let statusPath: String
  private static let target = "riffle"

  private let lock = NSLock()
  private var killed = false
  private var lastScreen = ""

  /// Starts `command` in a new detached tmux session of `width` × `height`.
  ///
  /// - Parameters:
  ///   - command: The program and its arguments (not interpreted by a
  ///     shell; each word is quoted safely).
  ///   - environment: Extra environment variables for the command, on top
  ///     of the current process's environment. `TERM` is always
  ///     `tmux-256color` unless given here.
  ///   - width: Columns of the terminal.
  ///   - height: Rows of the terminal.
  /// - Throws: ``TmuxError`` if tmux is not found in `PATH`, the temporary
  ///   directory cannot be made, or tmux fails to start the session.
  public init(
    command: [String], environment: [String: String] = [:], width: Int = 80, height: Int = 24
  ) throws {
    guard !command.isEmpty else { throw TmuxError("TmuxSession: the command must not be empty") }
    guard width > 0, height > 0 else {
      throw TmuxError("TmuxSession: invalid size \(width)x\(height)")
    }
    guard let tmuxPath = Self.findExecutable("tmux") else {
      throw TmuxError(
        "TmuxSession: tmux not found in PATH (\(ProcessInfo.processInfo.environment["PATH"] ?? ""))"
      )
    }
    self.tmuxPath = tmuxPath
    directory = try Self.makeTemporaryDirectory()
    socketPath = directory.appendingPathComponent("sock").path
    statusPath = directory.appendingPathComponent("status").path
    let pendingStatusPath = directory.appendingPathComponent("status.tmp").path

    var assignments = ["TERM=tmux-256color"]
    for (key, value) in environment.sorted(by: { $0.key < $1.key }) {
      guard !key.isEmpty, !key.contains("=") else {
        try? FileManager.default.removeItem(at: directory)
        throw TmuxError("TmuxSession: invalid environment variable name \(key.debugDescription)")
      }
      assignments.append("\(key)=\(value)")
    }
    // `env -u TMUX -u TMUX_PANE -- K=V ... cmd args`, then record the status atomically.
    let invocation = (["env", "-u", "TMUX", "-u", "TMUX_PANE", "--"] + assignments + command)
      .map(Self.shellQuote).joined(separator: " ")
    // The wrapper shell traps INT and QUIT (a trap, unlike an ignore, is
    // not inherited by the command) so that C-c sent to the foreground
    // process group ends only the command, and the status still gets written.
    let script =
      "trap : INT QUIT; \(invocation); echo $? > \(Self.shellQuote(pendingStatusPath)) && "
      + "mv \(Self.shellQuote(pendingStatusPath)) \(Self.shellQuote(statusPath))"

    let result = Self.run(
      tmuxPath, socketPath: socketPath,
      [
        "start-server", ";",
        "set-option", "-g", "status", "off", ";",
        "set-option", "-g", "escape-time", "0", ";",
        "set-option", "-g", "default-terminal", "tmux-256color", ";",
        "set-option", "-g", "remain-on-exit", "on", ";",
        "set-option", "-gq", "remain-on-exit-format", "", ";",
        "new-session", "-d", "-s", Self.target, "-x", "\(width)", "-y", "\(height)",
        "/bin/sh", "-c", script,
      ])
    guard result.status == 0 else {
      _ = Self.run(tmuxPath, socketPath: socketPath, ["kill-server"])
      try? FileManager.default.removeItem(at: directory)
      throw TmuxError(
        "TmuxSession: tmux new-session failed (status \(result.status)): \(result.errorOutput)")
    }
  }

  deinit {
    kill()
  }

  /// Runs a tmux command on this session's server (`set-option`, `show-buffer`, ...) and
  /// returns what it printed, or nil when it failed.
  @discardableResult
  public func tmux(_ arguments: String...) -> String? {
    let result = Self.run(tmuxPath, socketPath: socketPath, arguments)
    return result.status == 0 ? result.output : nil
  }

  /// Sends keys by tmux name, e.g. `"Right"`, `"Space"`, `"Enter"`,
  /// `"q"`, `"C-c"`, `"Escape"`, one key name per argument.
  public func sendKeys(_ keys: String...) {
    guard !keys.isEmpty else { return }
    _ = tmux(["send-keys", "-t", Self.target] + keys)
  }

  /// Types `text` literally (`send-keys -l`), without interpreting key names.
  public func sendLiteral(_ text: String) {
    guard !text.isEmpty else { return }
    _ = tmux(["send-keys", "-t", Self.target, "-l", "--", text])
  }

  /// The visible screen as plain text, with trailing blank lines removed.
  ///
  /// After the session is gone (killed, or tmux failed) this returns the
  /// last screen successfully captured.
  public func capture() -> String {
    let result = tmux(["capture-pane", "-p", "-t", Self.target])
    guard result.status == 0 else { return lock.withLock { lastScreen } }
    let screen = Self.trimTrailingBlankLines(result.output)
    lock.withLock { lastScreen = screen }
    return screen
  }

  /// The visible screen including SGR escape sequences for colours and
  /// attributes (`capture-pane -p -e`), trailing blank lines removed.
  public func captureWithEscapes() -> String {
    let result = tmux(["capture-pane", "-p", "-e", "-t", Self.target])
    guard result.status == 0 else { return "" }
    return Self.trimTrailingBlankLines(result.output)
  }

  /// The pane title, as set by the program with OSC 0/2 (`#{pane_title}`).
  public func paneTitle() -> String {
    let result = tmux(["display-message", "-p", "-t", Self.target, "#{pane_title}"])
    guard result.status == 0 else { return "" }
    var title = result.output
    if title.hasSuffix("\n") { title.removeLast() }
    return title
  }

  /// Resizes the terminal; the program receives SIGWINCH.
  public func resize(width: Int, height: Int) {
    _ = tmux(["resize-window", "-t", Self.target, "-x", "\(width)", "-y", "\(height)"])
  }

  /// Waits until the screen contains `text`, polling every 50 ms.
  ///
  /// - Returns: The screen that contained `text`.
  /// - Throws: ``TmuxError`` (including the last screen) after `timeout` seconds.
  @discardableResult
  public func waitFor(_ text: String, timeout: TimeInterval = 10) throws -> String {
    do {
      return try waitUntil(timeout: timeout) { $0.contains(text) }
    } catch let error as TmuxError {
      throw TmuxError(
        "timed out after \(timeout)s waiting for \(text.debugDescription) on screen",
        screen: error.screen)
    }
  }

  /// Waits until `predicate` accepts the screen, polling every 50 ms.
  ///
  /// - Returns: The screen that satisfied `predicate`, once the program has finished writing
  ///   it (`settled`).
  /// - Throws: ``TmuxError`` (including the last screen) after `timeout` seconds.
  @discardableResult
  public func waitUntil(timeout: TimeInterval = 10, _ predicate: (String) -> Bool) throws -> String
  {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let screen = capture()
      if predicate(screen) { return settled(screen, predicate) }
      if Date() >= deadline {
        throw TmuxError(
          "timed out after \(timeout)s waiting for a screen condition", screen: screen)
      }
      usleep(50_000)
    }
  }

  /// `screen`, or the frame it is part of: tmux shows a frame as its bytes arrive, so a capture
  /// taken while the program writes one holds the new frame's top lines over the old one's
  /// bottom (seen on a loaded machine: a page's title over the loading screen's help line). The
  /// screen is captured again every 10 ms until two captures agree, at most five times, while
  /// `predicate` still accepts it; else the last one it accepted.
  private func settled(_ screen: String, _ predicate: (String) -> Bool) -> String {
    var last = screen
    for _ in 0..<5 {
      usleep(10_000)
      let next = capture()
      guard predicate(next) else { return last }
      if next == last { return next }
      last = next
    }
    return last
  }

  /// Waits for the command to end and returns its exit status (128 + N
  /// when killed by signal N, as reported by the shell).
  ///
  /// - Throws: ``TmuxError`` (including the last screen) if the command is
  ///   still running after `timeout` seconds.
  public func waitForExit(timeout: TimeInterval = 10) throws -> Int32 {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if let status = exitStatus() { return status }
      if Date() >= deadline {
        throw TmuxError(
          "timed out after \(timeout)s waiting for the command to exit", screen: capture())
      }
      usleep(50_000)
    }
  }

  /// Whether the command has ended.
  public var hasExited: Bool {
    exitStatus() != nil
  }

  /// Kills the tmux server (and with it the command) and removes the
  /// temporary directory. Idempotent; also called from `deinit`.
  public func kill() {
    let alreadyKilled = lock.withLock { () -> Bool in
      defer { killed = true }
      return killed
    }
    guard !alreadyKilled else { return }
    // The pane's program, hung up on, may still write its files (the session) on the way out:
    // wait for it, so the test's folder is not made again after the test removed it.
    let panes = Self.run(tmuxPath, socketPath: socketPath, ["list-panes", "-F", "#{pane_pid}"])
    let running = panes.output.split(whereSeparator: \.isNewline).compactMap { pid_t($0) }
      .flatMap { [$0] + ChildProcess.descendants(of: $0) }
    _ = Self.run(tmuxPath, socketPath: socketPath, ["kill-server"])
    ChildProcess.waitUntilGone(running)
    try? FileManager.default.removeItem(at: directory)
  }

  // MARK: - Internals

  private func exitStatus() -> Int32? {
    guard let data = FileManager.default.contents(atPath: statusPath),
      let text = String(data: data, encoding: .utf8)?.trimmingCharacters(
        in: .whitespacesAndNewlines),
      let status = Int32(text)
    else { return nil }
    return status
  }

  private func tmux(_ arguments: [String]) -> (status: Int32, output: String, errorOutput: String) {
    if lock.withLock({ killed }) { return (-1, "", "session killed") }
    return Self.run(tmuxPath, socketPath: socketPath, arguments)
  }

  /// Runs one tmux client command and collects its output and status.
  ///
  /// This deliberately uses `posix_spawn` + `waitpid` instead of
  /// Foundation's `Process`: on Linux, `Process` learns that a child ended
  /// through a socket the child inherits, and the tmux server that the
  /// first client forks into the background can keep that socket, which
  /// makes `waitUntilExit()` hang forever. Here the child gets only
  /// /dev/null and the two output sockets (every other descriptor is
  /// closed), and the whole call is bounded by `timeout`.
  private static func run(
    _ tmuxPath: String, socketPath: String, _ arguments: [String],
    timeout: TimeInterval = 15
  ) -> (status: Int32, output: String, errorOutput: String) {
    let argv = [tmuxPath, "-S", socketPath, "-f", "/dev/null"] + arguments
    var environment = ProcessInfo.processInfo.environment
    environment["TMUX"] = nil
    environment["TMUX_PANE"] = nil
    let envp = environment.map { "\($0.key)=\($0.value)" }

    // Socket pairs rather than pipes: they can be created close-on-exec
    // atomically, so no concurrently spawned process inherits them.
    let socketType = Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue)
    var outFDs: [Int32] = [-1, -1]
    var errFDs: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, socketType, 0, &outFDs) == 0 else {
      return (-1, "", "socketpair failed: \(String(cString: strerror(errno)))")
    }
    guard socketpair(AF_UNIX, socketType, 0, &errFDs) == 0 else {
      let reason = String(cString: strerror(errno))
      close(outFDs[0])
      close(outFDs[1])
      return (-1, "", "socketpair failed: \(reason)")
    }
    defer {
      close(outFDs[0])
      close(errFDs[0])
    }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, outFDs[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errFDs[1], 2)
    addCloseFromThree(&actions)

    var pid: pid_t = 0
    let spawned = withCStringArray(argv) { cArgv in
      withCStringArray(envp) { cEnvp in
        withCleanSignals { posix_spawn(&pid, tmuxPath, &actions, &$0, cArgv, cEnvp) }
      }
    }
    close(outFDs[1])
    close(errFDs[1])
    guard spawned == 0 else {
      return (-1, "", "cannot run \(tmuxPath): \(String(cString: strerror(spawned)))")
    }

    let deadline = Date().addingTimeInterval(timeout)
    var collected: [Int32: [UInt8]] = [outFDs[0]: [], errFDs[0]: []]
    var openFDs = [outFDs[0], errFDs[0]]
    var timedOut = false
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while !openFDs.isEmpty {
      let remaining = deadline.timeIntervalSinceNow
      if remaining <= 0 {
        timedOut = true
        break
      }
      var pollFDs = openFDs.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      let ready = poll(&pollFDs, nfds_t(pollFDs.count), Int32(min(remaining * 1000 + 1, 60_000)))
      if ready < 0 {
        if errno == EINTR { continue }
        break
      }
      for entry in pollFDs where entry.revents != 0 {
        let count = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
        if count > 0 {
          collected[entry.fd, default: []].append(contentsOf: chunk[0..<count])
        } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
          openFDs.removeAll { $0 == entry.fd }
        }
      }
    }
    if timedOut { Glibc.kill(pid, SIGKILL) }

    var rawStatus: Int32 = 0
    var status: Int32 = -1
    while true {
      let waited = waitpid(pid, &rawStatus, WNOHANG)
      if waited == pid {
        status = (rawStatus & 0x7F) == 0 ? (rawStatus >> 8) & 0xFF : 128 + (rawStatus & 0x7F)
        break
      }
      if waited < 0 {
        if errno == EINTR { continue }
        break  // ECHILD: reaped elsewhere; status unknown.
      }
      if Date() >= deadline, !timedOut {
        timedOut = true
        Glibc.kill(pid, SIGKILL)
      }
      usleep(2_000)
    }
    var errorOutput = String(decoding: collected[errFDs[0]] ?? [], as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    if timedOut {
      errorOutput =
        "tmux \(arguments.first ?? "") timed out after \(timeout)s"
        + (errorOutput.isEmpty ? "" : ": " + errorOutput)
      status = -1
    }
    return (status, String(decoding: collected[outFDs[0]] ?? [], as: UTF8.self), errorOutput)
  }

  private typealias AddCloseFrom =
    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

  /// Makes the child close every descriptor from 3 up, with glibc's
  /// `posix_spawn_file_actions_addclosefrom_np` (2.34+) when present, else
  /// by listing the currently open descriptors.
  private static func addCloseFromThree(_ actions: inout posix_spawn_file_actions_t) {
    if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
      let addCloseFrom = unsafeBitCast(symbol, to: AddCloseFrom.self)
      if addCloseFrom(&actions, 3) == 0 { return }
    }
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for fd in entries.compactMap({ Int32($0) }) where fd > 2 {
      posix_spawn_file_actions_addclose(&actions, fd)
    }
  }

  private static func withCStringArray<R>(
    _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R
  ) -> R {
    let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
    defer {
      for pointer in pointers { free(pointer) }
    }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
  }

  private static func trimTrailingBlankLines(_ text: String) -> String {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    while let last = lines.last, last.allSatisfy({ $0 == " " }) {
      lines.removeLast()
    }
    return lines.joined(separator: "\n")
  }

  /// Quotes a word for /bin/sh: single quotes, with `'` written as `'\''`.
  static func shellQuote(_ word: String) -> String {
    let safe =
      !word.isEmpty
      && word.unicodeScalars.allSatisfy {
        ($0.isASCII && CharacterSet.alphanumerics.contains($0))
          || "@%+=:,./_-".unicodeScalars.contains($0)
      }
    if safe { return word }
    return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  private static func findExecutable(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") where !directory.isEmpty {
      let candidate = "\(directory)/\(name)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    for candidate in ["/usr/bin/\(name)", "/usr/local/bin/\(name)", "/bin/\(name)"]
    where FileManager.default.isExecutableFile(atPath: candidate) {
      return candidate
    }
    return nil
  }

  /// Makes a fresh private directory. Unix socket paths are limited to
  /// 108 bytes, so a long `TMPDIR` falls back to /tmp.
  private static func makeTemporaryDirectory() throws -> URL {
    var base = NSTemporaryDirectory()
    if base.hasSuffix("/") { base.removeLast() }
    if base.isEmpty || base.utf8.count > 60 { base = "/tmp" }
    var template = Array("\(base)/riffle-tmux-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    guard made != nil else {
      throw TmuxError("TmuxSession: mkdtemp in \(base) failed: \(String(cString: strerror(errno)))")
    }
    let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    return URL(fileURLWithPath: path, isDirectory: true)
  }

  /// Waits until every text is on screen at once (a page that slid in has settled).
  @discardableResult
  public func waitForAll(_ texts: String..., timeout: TimeInterval = 10) throws -> String {
    try waitUntil(timeout: timeout) { screen in texts.allSatisfy { screen.contains($0) } }
  }
}
