import Foundation
import RiffleCore
import RiffleTestSupport
import Testing

@testable import RiffleDesktop

/// The service on a private dbus-daemon, called by busctl as any MPRIS client would.
private final class ServiceOnBus: @unchecked Sendable {
  let daemon: PrivateSessionBus
  let service: MediaPlayerService
  private let box: CommandBox

  init(state: PlayerState) throws {
    daemon = try PrivateSessionBus()
    let box = CommandBox()
    service = MediaPlayerService(bus: SessionBus(address: daemon.address), state: state) {
      box.append($0)
    }
    self.box = box
    let deadline = Date().addingTimeInterval(10)
    while service.name == nil {
      guard Date() < deadline else {
        throw PrivateSessionBus.StartError(description: "the service never owned its name")
      }
      Thread.sleep(forTimeInterval: 0.02)
    }
  }

  private final class CommandBox: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [MPRISCommand] = []
    func append(_ command: MPRISCommand) { lock.withLock { items.append(command) } }
    var all: [MPRISCommand] { lock.withLock { items } }
  }

  /// Waits until `count` commands arrived.
  func commands(_ count: Int) throws -> [MPRISCommand] {
    let deadline = Date().addingTimeInterval(10)
    while box.all.count < count {
      guard Date() < deadline else {
        throw PrivateSessionBus.StartError(description: "commands: \(box.all)")
      }
      Thread.sleep(forTimeInterval: 0.02)
    }
    return box.all
  }

  func busctl(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
    try daemon.run("/usr/bin/busctl", ["--user"] + arguments)
  }

  func call(_ interface: String, _ method: String, _ arguments: String...) throws -> (
    status: Int32, stdout: String, stderr: String
  ) {
    try daemon.run(
      "/usr/bin/busctl",
      // "--": a negative number is an argument, not an option.
      [
        "--user", "call", "--", MediaPlayerService.busName, MediaPlayerService.objectPath,
        interface, method,
      ]
        + arguments)
  }

  func get(_ name: String, interface: String = "org.mpris.MediaPlayer2.Player") throws -> String {
    let result = try busctl(
      "get-property", MediaPlayerService.busName, MediaPlayerService.objectPath, interface, name)
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

@Suite("MediaPlayerService on a private session bus (busctl as the client)")
struct MediaPlayerServiceBusTests {
  static let player = "org.mpris.MediaPlayer2.Player"

  @Test("every method becomes its command, in the order called")
  func methods() throws {
    let bus = try ServiceOnBus(state: mprisState(index: 1, playback: .playing, position: 3))
    let track = MPRISState.trackID("song-2")
    for method in ["PlayPause", "Play", "Pause", "Stop", "Next", "Previous"] {
      #expect(try bus.call(Self.player, method).status == 0)
    }
    #expect(try bus.call(Self.player, "Seek", "x", "-5000000").status == 0)
    #expect(try bus.call(Self.player, "SetPosition", "ox", track, "20000000").status == 0)
    #expect(try bus.call("org.mpris.MediaPlayer2", "Raise").status == 0)
    #expect(try bus.call("org.mpris.MediaPlayer2", "Quit").status == 0)
    #expect(
      try bus.commands(9) == [
        .playPause, .play, .pause, .stop, .next, .previous, .seek(offset: -5_000_000),
        .setPosition(trackID: track, position: 20_000_000), .quit,
      ])
  }

  @Test("OpenUri and unknown methods are refused with D-Bus errors, and send no command")
  func refused() throws {
    let bus = try ServiceOnBus(state: mprisState())
    let open = try bus.call(Self.player, "OpenUri", "s", "file:///tmp/x.mp3")
    #expect(open.status != 0)
    #expect(open.stderr.contains("Riffle opens feeds from its command line"), "\(open.stderr)")
    let unknown = try bus.call(Self.player, "Shuffle")
    #expect(unknown.status != 0)
    let badArguments = try bus.call(Self.player, "Seek", "s", "far")
    #expect(badArguments.status != 0)
    #expect(try bus.call(Self.player, "Next").status == 0)
    #expect(try bus.commands(1) == [.next], "only Next got through")
  }

  @Test("properties answer from the last published state; the position keeps time while playing")
  func properties() throws {
    let bus = try ServiceOnBus(state: PlayerState())
    #expect(try bus.get("PlaybackStatus") == "s \"Stopped\"")
    #expect(try bus.get("CanPlay") == "b false")

    bus.service.update(mprisState(index: 2, playback: .paused, position: 7), effects: [])
    #expect(try bus.get("PlaybackStatus") == "s \"Paused\"")
    #expect(try bus.get("Position") == "x 7000000")
    #expect(try bus.get("CanGoNext") == "b false")
    #expect(try bus.get("CanGoPrevious") == "b true")
    let metadata = try bus.get("Metadata")
    #expect(metadata.contains("\"xesam:title\" s \"Title 3\""), "\(metadata)")
    #expect(metadata.contains("\"mpris:trackid\" o \"/org/riffle/track/song_2D3\""))
    #expect(try bus.get("Identity", interface: "org.mpris.MediaPlayer2") == "s \"Riffle\"")
    #expect(try bus.get("CanRaise", interface: "org.mpris.MediaPlayer2") == "b false")

    bus.service.update(mprisState(index: 2, playback: .playing, position: 7), effects: [])
    Thread.sleep(forTimeInterval: 0.3)
    let position = Int(try bus.get("Position").dropFirst(2)) ?? 0
    #expect(position > 7_200_000 && position < 30_000_000, "position \(position)")
  }

  @Test("Rate and Volume can be set and stay 1; the other properties are read-only")
  func set() throws {
    let bus = try ServiceOnBus(state: mprisState())
    let rate = try bus.busctl(
      "set-property", MediaPlayerService.busName, MediaPlayerService.objectPath, Self.player,
      "Rate", "d", "2.0")
    #expect(rate.status == 0, "\(rate.stderr)")
    #expect(try bus.get("Rate") == "d 1")
    let status = try bus.busctl(
      "set-property", MediaPlayerService.busName, MediaPlayerService.objectPath, Self.player,
      "PlaybackStatus", "s", "Paused")
    #expect(status.status != 0)
    #expect(status.stderr.contains("read-only"), "\(status.stderr)")
    #expect(try bus.get("PlaybackStatus") == "s \"Playing\"")
  }
}
