import CSystemd
import Foundation
import RiffleCore

/// MPRIS 2 on the session bus: media keys, `playerctl` and desktop widgets see and drive Riffle.
///
/// Owns `org.mpris.MediaPlayer2.riffle` (or `.riffle.instance<pid>` when another Riffle has it)
/// and the object `/org/mpris/MediaPlayer2`. Calls are answered on the bus thread from the last
/// published `MPRISState`; commands go to the main queue through `onCommand`, where they become
/// player actions. `update` (main queue) publishes each new state and queues PropertiesChanged
/// and Seeked for the bus thread.
public final class MediaPlayerService: @unchecked Sendable {
  public static let objectPath = "/org/mpris/MediaPlayer2"
  public static let busName = "org.mpris.MediaPlayer2.riffle"
  static let rootInterface = "org.mpris.MediaPlayer2"
  static let playerInterface = "org.mpris.MediaPlayer2.Player"
  static let trackListInterface = "org.mpris.MediaPlayer2.TrackList"
  /// The track id MPRIS reserves for "no track".
  static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"
  static let propertiesInterface = "org.freedesktop.DBus.Properties"

  private let bus: SessionBus
  private let onCommand: @Sendable (MPRISCommand) -> Void
  private let lock = NSLock()
  private var published: MPRISState
  private var publishedAt: Double
  /// The name owned, once the bus thread has it.
  private var ownedName: String?

  public init(
    bus: SessionBus, state: PlayerState = PlayerState(),
    onCommand: @escaping @Sendable (MPRISCommand) -> Void
  ) {
    self.bus = bus
    self.onCommand = onCommand
    published = MPRISState(state)
    publishedAt = Self.now()
    bus.perform { [self] bus in register(on: bus) }
  }

  /// The bus name owned, nil until registered (or without a bus).
  public var name: String? { lock.withLock { ownedName } }

  /// Publishes the player's state after an action; Seeked when the action moved the position.
  public func update(_ state: PlayerState, effects: [PlayerEffect]) {
    let next = MPRISState(state)
    let now = Self.now()
    let seeked = effects.contains { if case .seek = $0 { return true } else { return false } }
    let (changes, tracksChanged): ([String: DBusValue], Bool) = lock.withLock {
      let changes = next.changes(since: published)
      let tracksChanged = next.tracks != published.tracks
      published = next
      publishedAt = now
      return (changes, tracksChanged)
    }
    if tracksChanged {
      // What plays next changed (a page turned, up next edited): widgets read the list again.
      let tracks = next.tracks
      bus.perform { bus in
        bus.emit(
          path: Self.objectPath, interface: Self.trackListInterface,
          member: "TrackListReplaced"
        ) { message in
          var result = DBusValue.objectPathArray(tracks).append(to: message)
          if result >= 0 {
            result = DBusValue.objectPath(tracks.first ?? Self.noTrack).append(to: message)
          }
          return result
        }
      }
    }
    guard !changes.isEmpty || seeked else { return }
    let position = next.positionMicroseconds(after: 0)
    bus.perform { bus in
      if !changes.isEmpty {
        bus.emit(
          path: Self.objectPath, interface: Self.propertiesInterface,
          member: "PropertiesChanged"
        ) { message in
          var result = DBusValue.string(Self.playerInterface).append(to: message)
          if result >= 0 { result = DBusValue.appendDictionary(changes, to: message) }
          if result >= 0 { result = DBusValue.stringArray([]).append(to: message) }
          return result
        }
      }
      if seeked {
        bus.emit(path: Self.objectPath, interface: Self.playerInterface, member: "Seeked") {
          DBusValue.int64(position).append(to: $0)
        }
      }
    }
  }

  // MARK: on the bus thread

  private func register(on bus: SessionBus) {
    let name =
      bus.requestName(Self.busName)
      ? Self.busName
      : "\(Self.busName).instance\(getpid())"
    guard name == Self.busName || bus.requestName(name) else {
      FileHandle.standardError.write(Data("mpris: cannot own \(name)\n".utf8))
      return
    }
    guard bus.addObject(path: Self.objectPath, handler: { [self] in handle($0) }) else {
      FileHandle.standardError.write(Data("mpris: cannot register \(Self.objectPath)\n".utf8))
      return
    }
    lock.withLock { ownedName = name }
  }

  private func handle(_ call: DBusCall) -> Bool {
    guard let interface = call.interface, let member = call.member else { return false }
    switch interface {
    case Self.propertiesInterface:
      return handleProperties(member, call)
    case "org.freedesktop.DBus.Introspectable" where member == "Introspect":
      return call.reply { DBusValue.string(Self.introspection).append(to: $0) }
    case Self.rootInterface:
      switch member {
      case "Raise": return call.replyEmpty()
      case "Quit":
        onCommand(.quit)
        return call.replyEmpty()
      default: return false
      }
    case Self.playerInterface:
      return handlePlayer(member, call)
    case Self.trackListInterface:
      return handleTrackList(member, call)
    default:
      return false
    }
  }

  /// The TrackList: the song on the page and up next, read-only (CanEditTracks is false: up
  /// next is edited in the player).
  private func handleTrackList(_ member: String, _ call: DBusCall) -> Bool {
    let state = lock.withLock { published }
    switch member {
    case "GetTracksMetadata":
      guard case .objectPathArray(let ids)? = call.readValue() else {
        return call.fail(
          "org.freedesktop.DBus.Error.InvalidArgs", "GetTracksMetadata takes track ids (ao)")
      }
      let found = ids.compactMap { state.trackMetadata[$0] }
      return call.reply { DBusValue.dictionaryArray(found).append(to: $0) }
    case "GoTo":
      guard let id = call.readString(type: "o") else {
        return call.fail("org.freedesktop.DBus.Error.InvalidArgs", "GoTo takes a track id")
      }
      guard id == state.tracks.first else {
        return call.fail(
          "org.freedesktop.DBus.Error.NotSupported", "up next plays in order when a song ends")
      }
      onCommand(.setPosition(trackID: id, position: 0))
      return call.replyEmpty()
    case "AddTrack", "RemoveTrack":
      return call.fail(
        "org.freedesktop.DBus.Error.NotSupported", "up next is edited in the player (e, u)")
    default:
      return false
    }
  }

  private func handlePlayer(_ member: String, _ call: DBusCall) -> Bool {
    let simple: [String: MPRISCommand] = [
      "PlayPause": .playPause, "Play": .play, "Pause": .pause, "Stop": .stop, "Next": .next,
      "Previous": .previous,
    ]
    if let command = simple[member] {
      onCommand(command)
      return call.replyEmpty()
    }
    switch member {
    case "Seek":
      guard let offset = call.readInt64() else {
        return call.fail("org.freedesktop.DBus.Error.InvalidArgs", "Seek takes an offset (x)")
      }
      onCommand(.seek(offset: offset))
      return call.replyEmpty()
    case "SetPosition":
      guard let track = call.readString(type: "o"), let position = call.readInt64() else {
        return call.fail(
          "org.freedesktop.DBus.Error.InvalidArgs", "SetPosition takes a track id and a position")
      }
      onCommand(.setPosition(trackID: track, position: position))
      return call.replyEmpty()
    case "OpenUri":
      return call.fail(
        "org.freedesktop.DBus.Error.NotSupported", "Riffle opens feeds from its command line")
    default:
      return false
    }
  }

  private func handleProperties(_ member: String, _ call: DBusCall) -> Bool {
    guard let interface = call.readString() else {
      return call.fail("org.freedesktop.DBus.Error.InvalidArgs", "an interface name is needed")
    }
    let properties = currentProperties(interface)
    switch member {
    case "Get":
      guard let name = call.readString() else {
        return call.fail("org.freedesktop.DBus.Error.InvalidArgs", "a property name is needed")
      }
      guard let value = properties?[name] else {
        return call.fail(
          "org.freedesktop.DBus.Error.UnknownProperty", "no property \(name) on \(interface)")
      }
      return call.reply { value.appendVariant(to: $0) }
    case "GetAll":
      guard let properties else {
        return call.fail("org.freedesktop.DBus.Error.UnknownInterface", "no interface \(interface)")
      }
      return call.reply { DBusValue.appendDictionary(properties, to: $0) }
    case "Set":
      guard let name = call.readString(), properties?[name] != nil else {
        return call.fail("org.freedesktop.DBus.Error.UnknownProperty", "no such property")
      }
      guard interface == Self.playerInterface, Self.writable.contains(name) else {
        return call.fail("org.freedesktop.DBus.Error.PropertyReadOnly", "\(name) is read-only")
      }
      let value = call.readValue()
      switch (name, value) {
      case ("Volume", .double(let volume)?): onCommand(.setVolume(volume))
      case ("Shuffle", .bool(let on)?): onCommand(.setShuffle(on))
      case ("LoopStatus", .string(let status)?)
      where ["None", "Track", "Playlist"].contains(status):
        onCommand(.setLoopStatus(status))
      // Riffle plays at one rate: a change is ignored, as the specification allows.
      case ("Rate", .double?): break
      default:
        return call.fail(
          "org.freedesktop.DBus.Error.InvalidArgs", "\(name) cannot take that value")
      }
      return call.replyEmpty()
    default:
      return false
    }
  }

  private func currentProperties(_ interface: String) -> [String: DBusValue]? {
    switch interface {
    case Self.rootInterface:
      return Self.rootProperties
    case Self.playerInterface:
      let (state, at) = lock.withLock { (published, publishedAt) }
      var properties = state.properties
      properties["Position"] = .int64(state.positionMicroseconds(after: Self.now() - at))
      return properties
    case Self.trackListInterface:
      let tracks = lock.withLock { published.tracks }
      return ["Tracks": .objectPathArray(tracks), "CanEditTracks": .bool(false)]
    default:
      return nil
    }
  }

  static let rootProperties: [String: DBusValue] = [
    "CanQuit": .bool(true), "CanRaise": .bool(false), "HasTrackList": .bool(true),
    "Identity": .string("Riffle"), "DesktopEntry": .string("riffle"),
    "SupportedUriSchemes": .stringArray([]), "SupportedMimeTypes": .stringArray([]),
  ]

  private static func now() -> Double {
    ProcessInfo.processInfo.systemUptime
  }

  /// The Player properties with a value of each one's type (for their signatures).
  static let playerPropertyTypes = MPRISState(PlayerState()).properties.merging([
    "Position": .int64(0)
  ]) { $1 }

  /// The Player properties a client may set.
  static let writable: Set = ["Rate", "Volume", "Shuffle", "LoopStatus"]

  /// `<property>` elements for introspection (see `writable`).
  static func propertyXML(_ properties: [String: DBusValue]) -> String {
    properties.keys.sorted().map { name in
      let access = writable.contains(name) ? "readwrite" : "read"
      return
        "  <property name=\"\(name)\" type=\"\(properties[name]!.signature)\" access=\"\(access)\"/>"
    }.joined(separator: "\n")
  }

  static let introspection = """
    <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
    <node>
     <interface name="org.freedesktop.DBus.Introspectable">
      <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
     </interface>
     <interface name="org.freedesktop.DBus.Properties">
      <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/>\
    <arg type="v" direction="out"/></method>
      <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
      <method name="Set"><arg type="s" direction="in"/><arg type="s" direction="in"/>\
    <arg type="v" direction="in"/></method>
      <signal name="PropertiesChanged"><arg type="s"/><arg type="a{sv}"/><arg type="as"/></signal>
     </interface>
     <interface name="org.mpris.MediaPlayer2">
      <method name="Raise"/>
      <method name="Quit"/>
    \(propertyXML(rootProperties))
     </interface>
     <interface name="org.mpris.MediaPlayer2.Player">
      <method name="Next"/>
      <method name="Previous"/>
      <method name="Pause"/>
      <method name="PlayPause"/>
      <method name="Stop"/>
      <method name="Play"/>
      <method name="Seek"><arg name="Offset" type="x" direction="in"/></method>
      <method name="SetPosition"><arg name="TrackId" type="o" direction="in"/>\
    <arg name="Position" type="x" direction="in"/></method>
      <method name="OpenUri"><arg name="Uri" type="s" direction="in"/></method>
      <signal name="Seeked"><arg name="Position" type="x"/></signal>
    \(propertyXML(playerPropertyTypes))
     </interface>
     <interface name="org.mpris.MediaPlayer2.TrackList">
      <method name="GetTracksMetadata"><arg name="TrackIds" type="ao" direction="in"/>\
    <arg name="Metadata" type="aa{sv}" direction="out"/></method>
      <method name="AddTrack"><arg name="Uri" type="s" direction="in"/>\
    <arg name="AfterTrack" type="o" direction="in"/>\
    <arg name="SetAsCurrent" type="b" direction="in"/></method>
      <method name="RemoveTrack"><arg name="TrackId" type="o" direction="in"/></method>
      <method name="GoTo"><arg name="TrackId" type="o" direction="in"/></method>
      <signal name="TrackListReplaced"><arg name="Tracks" type="ao"/>\
    <arg name="CurrentTrack" type="o"/></signal>
      <property name="Tracks" type="ao" access="read"/>
      <property name="CanEditTracks" type="b" access="read"/>
     </interface>
    </node>
    """
}
