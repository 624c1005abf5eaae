import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A private X server (Debian's Xvfb) for tests that look at the page as a user sees it, in a
/// real terminal emulator (xterm, kitty), through screenshots (ImageMagick's `import`).
///
/// `start()` throws `Unavailable` when Xvfb is not installed or cannot start; tests turn that
/// into a skip with its message (`Test.cancel`).
public final class XvfbDisplay: @unchecked Sendable {
  /// The display's name, e.g. ":93".
  public let name: String
  private let server: ChildProcess
  private var children: [ChildProcess] = []
  private let lock = NSLock()
  public let directory: TemporaryDirectory

  /// Why a display cannot be had here.
  public struct Unavailable: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
  }

  /// What a test waited for did not come.
  public struct Timeout: Error, CustomStringConvertible {
    public var description: String
  }

  /// Programs the screenshots need, with the Debian package each comes from.
  public static let tools = [
    ("Xvfb", "xvfb"), ("import", "imagemagick"), ("convert", "imagemagick"),
  ]

  /// The full path of a program on PATH, or nil.
  public static func which(_ program: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":") {
      let candidate = "\(folder)/\(program)"
      // The stand-in convert some machines put in /usr/local/bin only converts to PPM.
      if program == "convert", folder == "/usr/local/bin" { continue }
      if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
  }

  /// Starts Xvfb on a free display (it picks the number itself: `-displayfd`), 1600x1000x24.
  public static func start(needing programs: [String] = []) throws -> XvfbDisplay {
    for (program, package) in tools + programs.map({ ($0, $0) }) where which(program) == nil {
      throw Unavailable(
        description: "\(program) is not installed (Debian package \(package)): no X server here")
    }
    let directory = try TemporaryDirectory("riffle-x")
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw Unavailable(description: "no pipe for Xvfb") }
    // The read end stays here (a child holding it open would keep the pipe alive).
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    let server: ChildProcess
    do {
      server = try ChildProcess(
        which("Xvfb")!, ["-displayfd", "1", "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        stdout: fds[1])
    } catch {
      close(fds[0])
      close(fds[1])
      throw Unavailable(description: "Xvfb cannot start: \(error)")
    }
    close(fds[1])
    defer { close(fds[0]) }
    // Xvfb writes the display number once it accepts connections.
    var input = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
    var text = ""
    let deadline = Date().addingTimeInterval(10)
    while !text.hasSuffix("\n"), Date() < deadline {
      guard poll(&input, 1, 200) > 0 else { continue }
      var byte: UInt8 = 0
      guard read(fds[0], &byte, 1) == 1 else { break }
      text.append(Character(Unicode.Scalar(byte)))
    }
    guard let number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
      server.stop()
      throw Unavailable(description: "Xvfb did not start (no display number within 10 s)")
    }
    return XvfbDisplay(name: ":\(number)", server: server, directory: directory)
  }

  private init(name: String, server: ChildProcess, directory: TemporaryDirectory) {
    self.name = name
    self.server = server
    self.directory = directory
  }

  /// Starts a program on this display; it is stopped with the display.
  @discardableResult
  public func run(_ path: String, _ arguments: [String], environment: [String: String] = [:])
    throws -> ChildProcess
  {
    let child = try ChildProcess(
      path, arguments, environment: environment.merging(["DISPLAY": name]) { $1 })
    lock.lock()
    children.append(child)
    lock.unlock()
    return child
  }

  /// xterm running `command` in a window of `columns` x `rows` at the top left, with `term`
  /// as its terminfo name and `environment` given to the command.
  @discardableResult
  public func xterm(
    _ command: [String], columns: Int = 80, rows: Int = 24, term: String = "xterm-256color",
    options: [String] = [], environment: [String: String]
  ) throws -> ChildProcess {
    guard let xterm = Self.which("xterm") else {
      throw Unavailable(description: "xterm is not installed (Debian package xterm)")
    }
    let env = ["env"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    return try run(
      xterm,
      [
        "-geometry", "\(columns)x\(rows)+0+0", "-fa", "DejaVu Sans Mono", "-fs", "10", "-tn", term,
        "-b", "0",
      ] + options + ["-e"] + env + command)
  }

  /// kitty (on Mesa's software OpenGL) running `command` in a window of `columns` x `rows`,
  /// with remote control on a socket of its own (see `kittyText`, `kittySend`).
  @discardableResult
  public func kitty(
    _ command: [String], columns: Int = 80, rows: Int = 24, environment: [String: String]
  ) throws -> ChildProcess {
    guard let kitty = Self.which("kitty") else {
      throw Unavailable(description: "kitty is not installed (Debian package kitty)")
    }
    let env = ["env"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    return try run(
      kitty,
      [
        "--config", "NONE", "-o", "allow_remote_control=yes", "--listen-on",
        "unix:\(kittySocket)", "-o", "remember_window_size=no", "-o",
        "initial_window_width=\(columns)c", "-o", "initial_window_height=\(rows)c", "-o",
        "font_size=11", "-o", "window_padding_width=0", "-o", "placement_strategy=top-left",
        "-e",
      ] + env + command, environment: ["LIBGL_ALWAYS_SOFTWARE": "1"])
  }

  private var kittySocket: String { directory.file("kitty.sock").path }

  /// The text of kitty's screen (`kitty @ get-text`), or nil when kitty does not answer yet.
  public func kittyText() -> String? {
    guard let kitty = Self.which("kitty"),
      let result = try? runProgram(kitty, ["@", "--to", "unix:\(kittySocket)", "get-text"]),
      result.status == 0
    else { return nil }
    return result.stdout
  }

  /// Runs a remote-control command (`kitty @ ARGS`) on this display's kitty.
  public func kittyCommand(_ arguments: [String]) throws {
    let result = try runProgram(
      Self.which("kitty")!, ["@", "--to", "unix:\(kittySocket)"] + arguments)
    guard result.status == 0 else {
      throw Timeout(description: "kitty @ \(arguments) failed: \(result.stderr)")
    }
  }

  /// Types `text` into kitty (`kitty @ send-text`).
  public func kittySend(_ text: String) throws {
    _ = try runProgram(
      Self.which("kitty")!, ["@", "--to", "unix:\(kittySocket)", "send-text", text])
  }

  /// Waits until kitty's screen holds every one of `texts`; returns the screen.
  @discardableResult
  public func waitForKittyText(_ texts: String..., within seconds: Double = 15) throws -> String {
    let deadline = Date().addingTimeInterval(seconds)
    var last = ""
    while Date() < deadline {
      if let text = kittyText() {
        last = text
        if texts.allSatisfy({ text.contains($0) }) { return text }
      }
      usleep(100_000)
    }
    throw Timeout(description: "kitty never showed \(texts); last screen:\n\(last)")
  }

  /// Presses a key (an X keysym name: "Right", "q") in the window under the pointer, which is
  /// moved over the terminal at the top left first (there is no window manager to focus it).
  public func key(_ name: String) throws {
    guard let xdotool = Self.which("xdotool") else {
      throw Unavailable(description: "xdotool is not installed (Debian package xdotool)")
    }
    _ = try runProgram(
      xdotool, ["mousemove", "60", "60", "key", name], environment: ["DISPLAY": self.name])
  }

  /// A PNG of the whole screen.
  public func screenshot(_ file: String = "shot.png") throws -> URL {
    let url = directory.file(file)
    let result = try runProgram(
      Self.which("import")!, ["-display", name, "-window", "root", url.path])
    guard result.status == 0 else {
      throw Unavailable(description: "import failed: \(result.stderr)")
    }
    return url
  }

  /// Distinct colours in a rectangle of a PNG (ImageMagick's `%k`).
  public static func distinctColours(in png: URL, x: Int, y: Int, width: Int, height: Int)
    throws -> Int
  {
    let result = try runProgram(
      which("convert")!,
      [png.path, "-crop", "\(width)x\(height)+\(x)+\(y)", "+repage", "-format", "%k", "info:"])
    guard result.status == 0, let count = Int(result.stdout.trimmingCharacters(in: .whitespaces))
    else {
      throw Unavailable(description: "convert could not count colours: \(result.stderr)")
    }
    return count
  }

  /// Stops every program started here, then the server.
  public func stop() {
    lock.lock()
    let running = children
    children.removeAll()
    lock.unlock()
    for child in running.reversed() { child.stop() }
    server.stop()
  }

  deinit { stop() }
}
