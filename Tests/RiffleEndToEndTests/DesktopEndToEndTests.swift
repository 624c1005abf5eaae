import Foundation
import RiffleDesktop
import RiffleTestSupport
import Testing

/// The real binary playing the bundled catalog in tmux, on a private session bus.
final class DesktopSession {
  let bus: PrivateSessionBus
  let home: TemporaryDirectory
  var sessions: [TmuxSession] = []

  init() throws {
    bus = try PrivateSessionBus()
    home = try TemporaryDirectory("riffle-desktop")
  }

  /// Starts riffle on the bundled catalog (6 songs of 15 to 37 s), silent in real time.
  @discardableResult
  func start(
    config: String? = nil, environment: [String: String]? = nil, command prefix: [String] = []
  ) throws -> TmuxSession {
    if let config {
      let folder = home.url.appendingPathComponent("config/riffle")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try Data(config.utf8).write(to: folder.appendingPathComponent("config.toml"))
    }
    let session = try TmuxSession(
      command: prefix + [TestFiles.riffleBinary, "--audio", "null"],
      environment: home.xdgEnvironment.merging(environment ?? bus.environment) { $1 }
        .merging(["LANG": "C.UTF-8", "RIFFLE_CATALOG": TestFiles.catalog.path]) { $1 })
    sessions.append(session)
    return session
  }

  /// Starts riffle and waits until the first song plays and MPRIS says so.
  func startPlaying() throws -> TmuxSession {
    let tmux = try start()
    try tmux.waitForAll("Glass Harbor", "1 / 6")
    try bus.waitForPlayerctl(["status"]) { $0 == "Playing" }
    // MPRIS says "Playing" while the song loads, before its length is known (the screen's
    // total reads "-:--"), and until then a seek is ignored.
    try tmux.waitUntil { !$0.contains("-:--") }
    return tmux
  }

  /// `playerctl --player=riffle ARGS` once; its trimmed output.
  @discardableResult
  func playerctl(_ arguments: String...) throws -> String {
    let result = try bus.run("/usr/bin/playerctl", ["--player=riffle"] + arguments)
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// A property of the Player interface as busctl prints it (`b false`, `s "Playing"`).
  func property(_ name: String) throws -> String {
    let result = try bus.run(
      "/usr/bin/busctl",
      [
        "--user", "get-property", MediaPlayerService.busName, MediaPlayerService.objectPath,
        "org.mpris.MediaPlayer2.Player", name,
      ])
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + result.stderr
  }

  /// Waits until playerctl's metadata field has the value.
  @discardableResult
  func waitForMetadata(_ key: String, _ accept: @escaping (String) -> Bool) throws -> String {
    try bus.waitForPlayerctl(["metadata", key], until: accept)
  }

  deinit {
    for session in sessions { session.kill() }
  }
}

/// Collects the lines a program prints while it runs (`playerctl --follow`).
final class FollowedOutput: @unchecked Sendable {
  private let process = Process()
  private let lock = NSLock()
  private var text = ""

  init(_ program: String, _ arguments: [String], environment: [String: String]) throws {
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let chunk = handle.availableData
      guard let self, !chunk.isEmpty else { return }
      self.lock.withLock { self.text += String(decoding: chunk, as: UTF8.self) }
    }
    try process.run()
  }

  var lines: [String] {
    lock.withLock { text.split(separator: "\n").map(String.init) }
  }

  /// Waits until a line satisfies `accept`.
  func waitForLine(timeout: Double = 10, _ accept: (String) -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !lines.contains(where: accept) {
      guard Date() < deadline else {
        throw PrivateSessionBus.StartError(description: "no such line in \(lines)")
      }
      Thread.sleep(forTimeInterval: 0.05)
    }
  }

  deinit {
    if process.isRunning { process.terminate() }
  }
}

@Suite("MPRIS on a private session bus (playerctl, busctl, the real binary in tmux)")
struct MPRISEndToEndTests {
  @Test("play-pause from playerctl pauses the screen and PlaybackStatus, and plays again")
  func playPause() throws {
    let session = try DesktopSession()
    let tmux = try session.startPlaying()
    try tmux.waitFor("❚❚ Pause")

    // What busctl (and d-feet) read about the object, and the root interface's identity.
    let introspection = try session.bus.run(
      "/usr/bin/busctl",
      ["--user", "introspect", MediaPlayerService.busName, MediaPlayerService.objectPath]
    ).stdout
    for member in [
      ".PlayPause", ".SetPosition", ".Seeked", ".CanGoNext", ".Metadata", ".Identity", ".Quit",
    ] {
      #expect(introspection.contains(member), "\(member) missing from:\n\(introspection)")
    }
    let identity = try session.bus.run(
      "/usr/bin/busctl",
      [
        "--user", "get-property", MediaPlayerService.busName, MediaPlayerService.objectPath,
        "org.mpris.MediaPlayer2", "Identity",
      ])
    #expect(identity.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "s \"Riffle\"")

    try session.playerctl("play-pause")
    try tmux.waitForAll("Paused", "▶ Play")
    try session.bus.waitForPlayerctl(["status"]) { $0 == "Paused" }

    try session.playerctl("play")
    try tmux.waitFor("❚❚ Pause")
    try session.bus.waitForPlayerctl(["status"]) { $0 == "Playing" }
    try session.playerctl("pause")
    try tmux.waitFor("▶ Play")
    try session.bus.waitForPlayerctl(["status"]) { $0 == "Paused" }

    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("playerctl sets Volume, Shuffle and LoopStatus; the band and the properties follow")
  func volumeShuffleLoop() throws {
    let session = try DesktopSession()
    let tmux = try session.startPlaying()
    try tmux.waitFor("❚❚ Pause")
    try session.bus.waitForPlayerctl(["volume"]) { Double($0) == 1 }
    try session.playerctl("volume", "0.5")
    try tmux.waitFor("Volume 50%")
    try session.bus.waitForPlayerctl(["volume"]) { Double($0) == 0.5 }
    try session.playerctl("shuffle", "On")
    try tmux.waitFor("shuffle")
    try session.bus.waitForPlayerctl(["shuffle"]) { $0 == "On" }
    try session.playerctl("loop", "Playlist")
    try tmux.waitFor("↻ all")
    try session.bus.waitForPlayerctl(["loop"]) { $0 == "Playlist" }
    try session.playerctl("loop", "Track")
    try tmux.waitFor("↻ one")
    try session.bus.waitForPlayerctl(["loop"]) { $0 == "Track" }
    // And a key on the screen shows to clients.
    tmux.sendKeys("S")
    try session.bus.waitForPlayerctl(["shuffle"]) { $0 == "Off" }
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("the TrackList shows the song on the page and up next, with their metadata")
  func trackList() throws {
    let session = try DesktopSession()
    let tmux = try session.startPlaying()
    func busctl(_ arguments: [String]) throws -> String {
      try session.bus.run(
        "/usr/bin/busctl",
        ["--user"] + arguments.prefix(1) + [
          MediaPlayerService.busName, MediaPlayerService.objectPath,
        ]
          + arguments.dropFirst()
      ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let root = try busctl(["get-property", "org.mpris.MediaPlayer2", "HasTrackList"])
    #expect(root == "b true")
    func tracks() throws -> String {
      try busctl(["get-property", "org.mpris.MediaPlayer2.TrackList", "Tracks"])
    }
    #expect(try tracks() == "ao 1 \"/org/riffle/track/riffle_2D001\"")
    // Up next: the third song, queued from its page, then back to the first.
    tmux.sendKeys("Right", "Right")
    try tmux.waitFor("3 / 6")
    tmux.sendKeys("e", "Left", "Left")
    try tmux.waitForAll("Glass Harbor", "1 / 6", "Up next:")
    let deadline = Date().addingTimeInterval(5)
    var listed = try tracks()
    while Date() < deadline, !listed.hasPrefix("ao 2") {
      Thread.sleep(forTimeInterval: 0.1)
      listed = try tracks()
    }
    #expect(
      listed == "ao 2 \"/org/riffle/track/riffle_2D001\" \"/org/riffle/track/riffle_2D003\"",
      "\(listed)")
    let metadata = try busctl([
      "call", "org.mpris.MediaPlayer2.TrackList", "GetTracksMetadata", "ao", "1",
      "/org/riffle/track/riffle_2D003",
    ])
    #expect(metadata.contains("xesam:title"), "\(metadata)")
    #expect(!metadata.contains("Glass Harbor"), "only the track asked for: \(metadata)")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("a key on the screen reaches MPRIS clients as PropertiesChanged")
  func propertiesChanged() throws {
    let session = try DesktopSession()
    let tmux = try session.startPlaying()
    let follow = try FollowedOutput(
      "/usr/bin/playerctl", ["--player=riffle", "--follow", "metadata", "title"],
      environment: session.bus.environment)
    try follow.waitForLine { $0 == "Glass Harbor" }
    tmux.sendKeys("Right")
    try follow.waitForLine { $0 == "Neon Orchard" }
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("metadata names the page's song and follows paging by key and by playerctl")
  func metadataAfterPaging() throws {
    let session = try DesktopSession()
    let tmux = try session.start()
    try tmux.waitFor("Glass Harbor")
    try session.waitForMetadata("xesam:title") { $0 == "Glass Harbor" }
    #expect(try session.playerctl("metadata", "xesam:artist") == "Mira Sol")
    // playerctl prints an object path in quotes.
    #expect(
      try session.playerctl("metadata", "mpris:trackid") == "'/org/riffle/track/riffle_2D001'")
    let length = Int(try session.playerctl("metadata", "mpris:length")) ?? 0
    #expect((30_500_000...31_500_000).contains(length), "length \(length) µs")
    #expect(try session.playerctl("metadata", "xesam:url").hasSuffix("/audio/riffle-001.mp3"))
    #expect(try session.playerctl("metadata", "mpris:artUrl").hasSuffix("/covers/riffle-001.png"))

    tmux.sendKeys("Right")
    try tmux.waitForAll("Neon Orchard", "2 / 6")
    try session.waitForMetadata("xesam:title") { $0 == "Neon Orchard" }
    #expect(try session.playerctl("metadata", "xesam:artist") == "Tavi Reyes")

    try session.playerctl("next")
    try tmux.waitForAll("Paper Satellites", "3 / 6")
    try session.waitForMetadata("xesam:title") { $0 == "Paper Satellites" }
    try session.playerctl("previous")
    try tmux.waitForAll("Neon Orchard", "2 / 6")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("at the ends CanGoNext / CanGoPrevious are false and Next / Previous do nothing")
  func endsRefused() throws {
    let session = try DesktopSession()
    let tmux = try session.startPlaying()
    #expect(try session.property("CanGoPrevious") == "b false")
    #expect(try session.property("CanGoNext") == "b true")
    try session.playerctl("previous")
    try session.playerctl("next")
    // Previous on the first page was refused: one Next lands on page 2, not 1.
    try tmux.waitForAll("Neon Orchard", "2 / 6")

    for page in 3...6 {
      try session.playerctl("next")
      try tmux.waitFor("\(page) / 6")
    }
    try tmux.waitFor("Midnight Tramline")
    try session.waitForMetadata("xesam:title") { $0 == "Midnight Tramline" }
    #expect(try session.property("CanGoNext") == "b false")
    #expect(try session.property("CanGoPrevious") == "b true")
    try session.playerctl("next")
    try session.playerctl("previous")
    // Next on the last page was refused: one Previous lands on page 5.
    try tmux.waitForAll("Saltwater Psalm", "5 / 6")
    #expect(!tmux.capture().contains("1 / 6"))
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("SetPosition and Seek move the song; Seeked is signalled; Position and the screen follow")
  func positionAfterSeek() throws {
    let session = try DesktopSession()
    let tmux = try session.startPlaying()
    try session.playerctl("pause")
    try session.bus.waitForPlayerctl(["status"]) { $0 == "Paused" }

    let seeked = try FollowedOutput(
      "/usr/bin/dbus-monitor",
      ["--session", "type='signal',interface='org.mpris.MediaPlayer2.Player',member='Seeked'"],
      environment: session.bus.environment)
    // dbus-monitor is a monitor once the bus has taken its name away (NameLost).
    try seeked.waitForLine { $0.contains("member=NameLost") }

    // playerctl sends SetPosition with the current track id.
    try session.playerctl("position", "20")
    try tmux.waitFor("0:20")
    try seeked.waitForLine { $0.contains("int64 20000000") }
    let at20 = try session.bus.waitForPlayerctl(["position"]) { Double($0) == 20 }
    #expect(Double(at20) == 20, "paused: the position stands")

    // Seek: relative, in playerctl's "N-" form.
    try session.playerctl("position", "5-")
    try tmux.waitFor("0:15")
    try seeked.waitForLine { $0.contains("int64 15000000") }
    try session.bus.waitForPlayerctl(["position"]) { Double($0) == 15 }

    // Playing, the position grows from there.
    try session.playerctl("play")
    try session.bus.waitForPlayerctl(["position"]) { (Double($0) ?? 0) > 15.5 }
    let later = Double(try session.playerctl("position")) ?? 0
    #expect(later < 25, "position \(later) must have grown from 15 s, not jumped")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("a second Riffle on the same bus takes an .instance name; both answer")
  func secondInstance() throws {
    let session = try DesktopSession()
    let first = try session.startPlaying()
    let second = try session.start()
    try second.waitFor("Glass Harbor")
    let deadline = Date().addingTimeInterval(10)
    var players: [String] = []
    while players.count < 2 && Date() < deadline {
      players = try session.bus.run("/usr/bin/playerctl", ["--list-all"]).stdout
        .split(separator: "\n").map(String.init)
      Thread.sleep(forTimeInterval: 0.1)
    }
    #expect(players.contains("riffle"))
    #expect(players.contains { $0.hasPrefix("riffle.instance") }, "players: \(players)")
    first.sendKeys("q")
    second.sendKeys("q")
    #expect(try first.waitForExit() == 0)
    #expect(try second.waitForExit() == 0)
  }

  @Test(
    "without a session bus the player runs as ever, silently",
    arguments: ["dead address", "no address"])
  func noBus(kind: String) throws {
    let session = try DesktopSession()
    let runtime = try TemporaryDirectory("riffle-runtime")
    let tmux =
      kind == "dead address"
      ? try session.start(environment: [
        "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(runtime.url.path)/no-bus",
        "XDG_RUNTIME_DIR": runtime.url.path,
      ])
      : try session.start(
        environment: ["XDG_RUNTIME_DIR": runtime.url.path],
        command: ["/usr/bin/env", "-u", "DBUS_SESSION_BUS_ADDRESS"])
    let screen = try tmux.waitForAll("Glass Harbor", "❚❚ Pause", "1 / 6")
    #expect(!screen.lowercased().contains("bus"), "nothing about the bus on screen:\n\(screen)")
    tmux.sendKeys("Right")
    try tmux.waitForAll("Neon Orchard", "2 / 6")
    tmux.sendKeys("Space")
    try tmux.waitFor("Paused")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }
}

/// A notification server on the private bus: owns org.freedesktop.Notifications and records
/// each Notify call's arguments, answering with ids 7, 8, ...
final class RecordingNotificationServer: @unchecked Sendable {
  private let connection: SessionBus
  private let lock = NSLock()
  private var received: [[DBusValue]] = []
  private var nextID: UInt32 = 7

  init(address: String) throws {
    connection = SessionBus(address: address)
    let ready = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var owned = false
    connection.perform { [self] bus in
      owned =
        bus.requestName("org.freedesktop.Notifications")
        && bus.addObject(path: "/org/freedesktop/Notifications") { [self] call in
          guard call.interface == "org.freedesktop.Notifications", call.member == "Notify"
          else { return false }
          var arguments: [DBusValue] = []
          while let value = call.readValue() { arguments.append(value) }
          let id = lock.withLock {
            received.append(arguments)
            defer { nextID += 1 }
            return nextID
          }
          return call.reply(values: [.uint32(id)])
        }
      ready.signal()
    }
    guard ready.wait(timeout: .now() + 10) == .success, owned else {
      throw PrivateSessionBus.StartError(description: "cannot own org.freedesktop.Notifications")
    }
  }

  var calls: [[DBusValue]] { lock.withLock { received } }

  func waitForCalls(_ count: Int, timeout: Double = 10) throws -> [[DBusValue]] {
    let deadline = Date().addingTimeInterval(timeout)
    while calls.count < count {
      guard Date() < deadline else {
        throw PrivateSessionBus.StartError(description: "\(calls.count) Notify calls: \(calls)")
      }
      Thread.sleep(forTimeInterval: 0.05)
    }
    return calls
  }
}

@Suite("Desktop notifications on a private session bus")
struct NotificationEndToEndTests {
  @Test("with [notifications] enabled, each song that starts is announced, replacing the last")
  func announcesSongs() throws {
    let session = try DesktopSession()
    let server = try RecordingNotificationServer(address: session.bus.address)
    let tmux = try session.start(config: "[notifications]\nenabled = true\n")
    try tmux.waitFor("Glass Harbor")
    let first = try server.waitForCalls(1)[0]
    #expect(first.count == 8)
    #expect(first.first == .string("Riffle"))
    #expect(first[1] == .uint32(0), "nothing to replace yet")
    #expect(first[3] == .string("Glass Harbor"))
    #expect(first[4] == .string("Mira Sol"))
    #expect(first[7] == .int32(-1))
    guard case .dictionary(let hints) = first[6], case .string(let image)? = hints["image-path"]
    else {
      Issue.record("no image-path hint in \(first)")
      return
    }
    #expect(image.hasPrefix("file://") && image.hasSuffix("covers/riffle-001.png"))

    tmux.sendKeys("Right")
    try tmux.waitFor("Neon Orchard")
    let second = try server.waitForCalls(2)[1]
    #expect(second[1] == .uint32(7), "replaces the first notification, id 7")
    #expect(second[3] == .string("Neon Orchard"))
    #expect(second[4] == .string("Tavi Reyes"))
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    #expect(server.calls.count == 2)
  }

  @Test("off by default: no Notify call while songs play")
  func offByDefault() throws {
    let session = try DesktopSession()
    let server = try RecordingNotificationServer(address: session.bus.address)
    let tmux = try session.startPlaying()
    tmux.sendKeys("Right")
    try session.waitForMetadata("xesam:title") { $0 == "Neon Orchard" }
    try session.bus.waitForPlayerctl(["status"]) { $0 == "Playing" }
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    #expect(server.calls.isEmpty, "calls: \(server.calls)")
  }
}
