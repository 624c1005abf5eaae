/// A song named from what the player itself played (a station's last seconds), found in a
/// store of fingerprints on disk rather than among the songs loaded on pages.
public struct HeardSong: Equatable, Sendable {
  public var title: String
  public var artist: String
  /// Where it was found, as the user knows it: "your library".
  public var source: String

  public init(title: String, artist: String, source: String) {
    self.title = title
    self.artist = artist
    self.source = source
  }

  /// The song as it is shown: its words, as they came from a tag, a feed or a store's names
  /// file, made safe for the screen (a title may hold escape sequences).
  public var sanitized: HeardSong {
    HeardSong(
      title: TextSanitizer.sanitize(title), artist: TextSanitizer.sanitize(artist),
      source: TextSanitizer.sanitize(source))
  }

  /// "“Title” by Artist (your library)".
  public var message: String {
    let title = self.title.isEmpty ? "A song" : "\u{201C}\(self.title)\u{201D}"
    let artist = self.artist.isEmpty ? "" : " by \(self.artist)"
    return "\(title)\(artist) (\(source))"
  }
}

extension PlayerState {
  /// How much of what a station played `i` names (the output keeps about this much).
  public static let heardSeconds = 10.0
}

/// `i` on a station's page: name what the output played in the last seconds against the
/// stores on disk; nil when the page is not a station's (or a recognition is under way, which
/// `i` stops as anywhere).
func identifyOnStation(_ state: inout PlayerState) -> [PlayerEffect]? {
  guard state.identify == nil, let song = state.currentSong, song.isLiveStream else { return nil }
  state.identify = .listening(level: 0, seconds: 0)
  state.message = nil
  return [.nameHeard(seconds: PlayerState.heardSeconds)]
}

/// What a station's `i` shows when nothing was named from its audio: the title the station
/// sends, as before. False when the page is not a station's.
func stationFallback(_ state: inout PlayerState) -> Bool {
  guard let song = state.currentSong, song.isLiveStream else { return false }
  if let title = state.live?.title, !title.isEmpty {
    state.message = .init(.info, "The station says it plays \u{201C}\(title)\u{201D}")
  } else {
    state.message = .init(.info, "No song matched, and the station names none")
  }
  return true
}

/// The answer to `.nameHeard`.
func reduceHeard(_ state: inout PlayerState, _ song: HeardSong) -> [PlayerEffect] {
  guard state.identify != nil else { return [] }
  state.identify = nil
  state.message = .init(.info, song.message)
  return []
}
