import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A D-Bus session bus of a test's own: `dbus-daemon --session --nofork` listening in a
/// temporary folder, stopped when the value goes away.
///
/// Programs reach it through `environment` (`DBUS_SESSION_BUS_ADDRESS`), so the test never
/// touches the user's bus and tests can run side by side.
public final class PrivateSessionBus: @unchecked Sendable {
  public let address: String
  private let process: Process
  private let folder: TemporaryDirectory

  /// The bus or a client of it did not do what the test waited for.
  public struct StartError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
  }

  public init() throws {
    folder = try TemporaryDirectory("riffle-dbus")
    process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
    process.arguments = [
      "--session", "--nofork", "--print-address=1", "--address=unix:dir=\(folder.url.path)",
    ]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // The daemon prints its address once it listens; read up to the newline.
    var line = Data()
    let reader = out.fileHandleForReading
    while !line.contains(UInt8(ascii: "\n")) {
      let chunk = reader.availableData
      if chunk.isEmpty { break }
      line.append(chunk)
    }
    address = String(decoding: line, as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    guard address.hasPrefix("unix:") else {
      process.terminate()
      throw StartError(description: "dbus-daemon did not print an address: '\(address)'")
    }
  }

  /// Variables that point a program at this bus (and nowhere else for its runtime folder).
  public var environment: [String: String] {
    [
      "DBUS_SESSION_BUS_ADDRESS": address,
      "XDG_RUNTIME_DIR": folder.url.path,
    ]
  }

  /// Runs a D-Bus client program (`playerctl`, `busctl`, `dbus-send`) against this bus.
  @discardableResult
  public func run(_ program: String, _ arguments: [String]) throws -> (
    status: Int32, stdout: String, stderr: String
  ) {
    try runProgram(program, arguments, environment: environment)
  }

  /// Polls `playerctl --player=riffle <arguments>` until its output (trimmed) satisfies `accept`;
  /// returns the last output. Under load the player may take a moment to own its name.
  @discardableResult
  public func waitForPlayerctl(
    _ arguments: [String], timeout: Double = 10,
    until accept: (String) -> Bool
  ) throws -> String {
    let deadline = Date().addingTimeInterval(timeout)
    var last = ""
    while true {
      let result = try run("/usr/bin/playerctl", ["--player=riffle"] + arguments)
      last = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
      if result.status == 0 && accept(last) { return last }
      if Date() > deadline {
        throw StartError(
          description:
            "playerctl \(arguments.joined(separator: " ")) still says '\(last)' \(result.stderr)")
      }
      Thread.sleep(forTimeInterval: 0.1)
    }
  }

  deinit {
    if process.isRunning {
      // dbus-daemon --nofork does not end on SIGTERM here; nothing of it needs a clean exit.
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }
}
