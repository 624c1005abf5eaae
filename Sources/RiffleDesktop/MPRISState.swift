import Foundation
import RiffleCore

/// The MPRIS `org.mpris.MediaPlayer2.Player` properties of a player state, as D-Bus values.
///
/// Pure: the service publishes one of these after every action and sends PropertiesChanged for
/// the properties that differ from the last one. Position is kept apart because MPRIS does not
/// signal its steady change; clients read it (and hear Seeked when it jumps).
public struct MPRISState: Equatable, Sendable {
  /// Every property but Position.
  public var properties: [String: DBusValue]
  /// Seconds heard when the state was taken, and whether it grows with time.
  public var position: Double
  public var isPlaying: Bool
  /// Seconds the song lasts, when known; the position never goes past it.
  public var length: Double?
  /// The TrackList: the song on the page, then up next, as MPRIS track ids, with each one's
  /// metadata (`GetTracksMetadata`).
  public var tracks: [String]
  public var trackMetadata: [String: [String: DBusValue]]

  public init(_ state: PlayerState) {
    let song = state.currentSong
    let length = song == nil ? nil : (state.duration ?? song?.duration)
    self.length = length
    position = state.position
    isPlaying = state.playback == .playing
    let canSeek =
      [.playing, .paused, .buffering].contains(state.playback) && (length ?? 0) > 0
    var tracks: [String] = []
    var trackMetadata: [String: [String: DBusValue]] = [:]
    let listed = (song.map { [$0] } ?? []) + (state.source?.kind == .queue ? [] : state.queue)
    for (offset, item) in listed.enumerated() {
      let id = Self.trackID(item.id)
      // The same song twice (on the page and up next) is one track.
      guard trackMetadata[id] == nil else { continue }
      tracks.append(id)
      trackMetadata[id] = Self.metadata(item, length: offset == 0 ? length : item.duration)
    }
    self.tracks = tracks
    self.trackMetadata = trackMetadata
    properties = [
      "PlaybackStatus": .string(Self.status(state.playback)),
      "Metadata": .dictionary(song.map { Self.metadata($0, length: length) } ?? Self.noTrack),
      "CanGoNext": .bool(state.canGoNext),
      "CanGoPrevious": .bool(state.canGoPrevious),
      "CanPlay": .bool(song != nil),
      "CanPause": .bool(song != nil),
      "CanSeek": .bool(canSeek),
      "CanControl": .bool(true),
      "Rate": .double(1), "MinimumRate": .double(1), "MaximumRate": .double(1),
      "Volume": .double(state.gain),
      "Shuffle": .bool(state.shuffle),
      "LoopStatus": .string(Self.loopStatus(state.repeatMode)),
    ]
  }

  /// The position in microseconds `elapsed` seconds after the state was taken.
  public func positionMicroseconds(after elapsed: Double) -> Int64 {
    var seconds = position + (isPlaying ? max(0, elapsed) : 0)
    if let length { seconds = min(seconds, length) }
    return Int64((max(0, seconds) * 1_000_000).rounded())
  }

  /// MPRIS's name for a repeat mode.
  static func loopStatus(_ mode: RepeatMode) -> String {
    switch mode {
    case .off: return "None"
    case .all: return "Playlist"
    case .one: return "Track"
    }
  }

  /// Properties whose value differs in `self` from `old`.
  public func changes(since old: MPRISState) -> [String: DBusValue] {
    properties.filter { old.properties[$0.key] != $0.value }
  }

  /// Playing while sound is asked for (also while it loads or waits for bytes).
  static func status(_ playback: PlayerState.Playback) -> String {
    switch playback {
    case .playing, .loading, .buffering: return "Playing"
    case .paused: return "Paused"
    case .idle, .finished, .failed: return "Stopped"
    }
  }

  static let noTrack: [String: DBusValue] = [
    "mpris:trackid": .objectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack")
  ]

  static func metadata(_ song: Song, length: Double?) -> [String: DBusValue] {
    let artist = song.displayName.isEmpty ? song.handle : song.displayName
    var metadata: [String: DBusValue] = [
      "mpris:trackid": .objectPath(trackID(song.id)),
      "xesam:title": .string(TextSanitizer.sanitize(song.title)),
      "xesam:artist": .stringArray(artist.isEmpty ? [] : [TextSanitizer.sanitize(artist)]),
      "xesam:url": .string(song.audioURL.absoluteString),
    ]
    if let length, length > 0 { metadata["mpris:length"] = .int64(Int64(length * 1_000_000)) }
    if let image = song.imageURL { metadata["mpris:artUrl"] = .string(image.absoluteString) }
    return metadata
  }

  /// A D-Bus object path naming a song: its id with every byte outside [A-Za-z0-9] as `_XX`.
  public static func trackID(_ songID: String) -> String {
    var path = "/org/riffle/track/"
    if songID.isEmpty { return path + "_" }
    for byte in songID.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        path.append(Character(UnicodeScalar(byte)))
      default:
        // By hand: String(format:) here cost 5% of the visualizer's frames (this runs for
        // every state change, 30 a second while the clock or the spectrum moves).
        let digits = Array("0123456789ABCDEF".utf8)
        path.unicodeScalars.append("_")
        path.unicodeScalars.append(UnicodeScalar(digits[Int(byte >> 4)]))
        path.unicodeScalars.append(UnicodeScalar(digits[Int(byte & 0xF)]))
      }
    }
    return path
  }
}

/// A request from an MPRIS client (a media key, `playerctl`), turned into player actions
/// against the state at the moment it is applied.
public enum MPRISCommand: Equatable, Sendable {
  case playPause
  case play
  case pause
  case stop
  case next
  case previous
  /// Move by this many microseconds (negative: back).
  case seek(offset: Int64)
  /// Move to this point of the track named, in microseconds.
  case setPosition(trackID: String, position: Int64)
  /// Set the Volume property (0...1; above 1 is taken as 1).
  case setVolume(Double)
  /// Set the Shuffle property.
  case setShuffle(Bool)
  /// Set the LoopStatus property: "None", "Track" or "Playlist".
  case setLoopStatus(String)
  case quit

  /// The actions that do what the command asks; none when it does not apply.
  public func actions(in state: PlayerState) -> [PlayerAction] {
    let sounding = [.playing, .loading, .buffering].contains(state.playback)
    switch self {
    case .playPause:
      return state.currentSong == nil ? [] : [.togglePlay]
    case .play:
      return state.currentSong == nil || sounding ? [] : [.togglePlay]
    case .pause:
      return sounding ? [.togglePlay] : []
    case .stop:
      // Riffle has no stopped-at-the-start state: pause and go back to the start, so Play
      // starts the song again, as MPRIS asks.
      if sounding { return [.togglePlay, .seekTo(0)] }
      return state.playback == .paused ? [.seekTo(0)] : []
    case .next:
      return [.next]
    case .previous:
      return [.previous]
    case .seek(let offset):
      let snapshot = MPRISState(state)
      guard snapshot.properties["CanSeek"] == .bool(true) else { return [] }
      let seconds = Double(offset) / 1_000_000
      // Past the end is the next song (MPRIS: "act as though Next was called").
      if let length = snapshot.length, state.position + seconds >= length, state.canGoNext {
        return [.next]
      }
      return [.seek(by: seconds)]
    case .setPosition(let trackID, let position):
      let snapshot = MPRISState(state)
      guard snapshot.properties["CanSeek"] == .bool(true), let song = state.currentSong,
        trackID == MPRISState.trackID(song.id), position >= 0, let length = snapshot.length,
        Double(position) / 1_000_000 <= length
      else { return [] }
      return [.seekTo(Double(position) / 1_000_000)]
    case .setVolume(let volume):
      guard volume.isFinite else { return [] }
      return [.setVolume(Int((min(1, max(0, volume)) * 100).rounded()))]
    case .setShuffle(let on):
      return on == state.shuffle ? [] : [.setShuffle(on)]
    case .setLoopStatus(let status):
      let modes: [String: RepeatMode] = ["None": .off, "Playlist": .all, "Track": .one]
      guard let mode = modes[status], mode != state.repeatMode else { return [] }
      return [.setRepeat(mode)]
    case .quit:
      return [.quit]
    }
  }
}
