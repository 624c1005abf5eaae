import Foundation
import RiffleCore

/// A desktop notification (org.freedesktop.Notifications) when a new song starts playing.
///
/// Each notification replaces the one before (its `replaces_id`), so paging through songs leaves
/// one bubble, not a stack. Without a notification server the call fails once into the log.
public final class SongNotifier: @unchecked Sendable {
  private let bus: SessionBus
  /// The song last announced; main queue only.
  private var announced: String?
  /// The server's id of the last notification; bus thread only.
  private var lastID: UInt32 = 0
  private var failed = false

  public init(bus: SessionBus) {
    self.bus = bus
  }

  /// The song to announce in this state: one that has started playing and was not the last
  /// one announced.
  public static func songToAnnounce(_ state: PlayerState, after announced: String?) -> Song? {
    guard state.playback == .playing, let song = state.currentSong, key(song) != announced
    else { return nil }
    return song
  }

  /// What makes a song new to announce: its id, and its title and artist (a radio station's
  /// page names each song its stream plays).
  public static func key(_ song: Song) -> String {
    song.id + "\n" + song.title + "\n" + song.displayName
  }

  /// Looks at each new state (main queue) and sends a notification when a song starts.
  public func update(_ state: PlayerState) {
    guard let song = Self.songToAnnounce(state, after: announced) else { return }
    announced = Self.key(song)
    let arguments = Self.arguments(for: song)
    bus.perform { [self] bus in
      bus.call(
        destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
        interface: "org.freedesktop.Notifications", member: "Notify",
        body: { message in
          var result: Int32 = 0
          for value in arguments(lastID) where result >= 0 { result = value.append(to: message) }
          return result
        },
        reply: { [self] reply in
          if let id = reply?.readUInt32() {
            lastID = id
          } else if !failed {
            failed = true
            FileHandle.standardError.write(Data("notifications: no notification server\n".utf8))
          }
        })
    }
  }

  /// The arguments of Notify (susssasa{sv}i) for a song, given the id it replaces.
  public static func arguments(for song: Song) -> @Sendable (UInt32) -> [DBusValue] {
    let title = TextSanitizer.sanitize(song.title.isEmpty ? "Unknown title" : song.title)
    let artist = TextSanitizer.sanitize(song.displayName.isEmpty ? song.handle : song.displayName)
    var hints: [String: DBusValue] = [
      "desktop-entry": .string("riffle"), "category": .string("x-riffle.song"),
      "urgency": .byte(0),
    ]
    if let image = song.imageURL, image.isFileURL {
      hints["image-path"] = .string(image.absoluteString)
    }
    let finalHints = hints
    return { replaces in
      [
        .string("Riffle"), .uint32(replaces), .string("audio-x-generic"), .string(title),
        .string(markupEscaped(artist)), .stringArray([]), .dictionary(finalHints), .int32(-1),
      ]
    }
  }

  /// The body may be read as markup by the server: `&`, `<` and `>` are escaped.
  static func markupEscaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
  }
}
