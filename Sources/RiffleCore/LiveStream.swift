import Foundation

/// A radio station playing on the current page: the title its stream names, the time listened
/// across connections, and how its connection stands (see `reduceLive`).
public struct LiveStream: Equatable, Sendable {
  /// How the station's connection stands.
  public enum Phase: Equatable, Sendable {
    /// Asked for; no sound yet.
    case connecting
    case playing
    /// Dropped; the next try comes after `seconds` (`reason` says why it dropped).
    case waiting(seconds: Double, reason: String)
    /// Paused by the user: nothing is fetched, and play rejoins the live stream.
    case paused
  }

  /// The station's song (its page).
  public var songID: String
  /// The play request of the current connection.
  public var playID: Int
  /// The stream's latest ICY title ("Artist - Title"), sanitized; nil or "" when it names none.
  public var title: String?
  /// Seconds heard on earlier connections (before a pause or a drop): the clock shows these
  /// plus the current connection's.
  public var heardBefore: Double = 0
  /// Failed connections in a row (the one retry rule: 1, 2, 4 ... 30 s).
  public var retry = Retry()
  /// Sound came from the station at least once: after that every drop is tried again.
  public var wasHeard = false
  public var phase: Phase = .connecting

  public init(songID: String, playID: Int) {
    self.songID = songID
    self.playID = playID
  }

  /// The page as it shows while the stream names a title: "Artist - Title" split into the
  /// song's title and artist with the station's name beside them, any other text as the title
  /// with the station's name as the artist.
  public func applied(to song: Song) -> Song {
    guard song.id == songID, let title, !title.isEmpty else { return song }
    var shown = song
    if let (artist, name) = Self.artistAndTitle(title) {
      shown.title = name
      shown.displayName = artist
      shown.album = song.title
    } else {
      shown.title = title
      shown.displayName = song.title
      shown.album = nil
    }
    return shown
  }

  /// "Artist - Title" as its two parts; nil when the text is not in that shape.
  public static func artistAndTitle(_ text: String) -> (artist: String, title: String)? {
    guard let dash = text.range(of: " - ") else { return nil }
    let artist = text[..<dash.lowerBound].trimmingCharacters(in: .whitespaces)
    let title = text[dash.upperBound...].trimmingCharacters(in: .whitespaces)
    return artist.isEmpty || title.isEmpty ? nil : (artist, title)
  }

  /// What the band says of the connection, when there is something to say.
  public var note: String? {
    switch phase {
    case .waiting(let seconds, let reason):
      return "Reconnecting in \(Int(seconds.rounded())) s\u{2026} (\(reason))"
    case .connecting where retry.attempts > 0 || wasHeard:
      return "Reconnecting\u{2026}"
    default:
      return nil
    }
  }
}

extension Song {
  /// A radio station's stream: no end, no length, played live (`StationPlaylist` names these).
  public var isLiveStream: Bool { id.hasPrefix("station:") }
}

/// The rules of a live station: its title as the stream names it, reconnecting with back-off
/// when it drops, and pause stopping the stream so that play rejoins it live. Part of `reduce`.
func reduceLive(_ state: inout PlayerState, _ action: PlayerAction) -> [PlayerEffect] {
  switch action {
  case .streamTitle(let playID, let title):
    guard playID == state.playID, var live = state.live, live.playID == playID else { return [] }
    let cleaned = TextSanitizer.sanitize(title).trimmingCharacters(in: .whitespaces)
    guard cleaned != (live.title ?? "") else { return [] }
    live.title = cleaned
    state.live = live
    // The lyrics shown follow the song the station plays now.
    guard state.overlay == .lyrics, state.lyrics?.songID == live.songID else { return [] }
    state.lyrics = nil
    return loadLyricsIfNeeded(&state)

  case .streamDropped(let playID, let reason, let transient):
    guard playID == state.playID, var live = state.live, live.playID == playID else { return [] }
    live.heardBefore += state.position.rounded(.down)
    state.position = 0
    guard transient || live.wasHeard else {
      state.live = live
      state.playback = .failed(reason)
      let name = state.songs.first { $0.id == live.songID }?.title ?? ""
      state.message = .init(
        .error, "Cannot play \(name.isEmpty ? "the station" : "\u{201C}\(name)\u{201D}"): \(reason)"
      )
      return []
    }
    let wait = live.retry.failed(Failure(reason, isTransient: true))
    live.phase = .waiting(seconds: wait, reason: reason)
    state.live = live
    state.playback = .buffering
    return [.after(wait, .retryDue(.stream(songID: live.songID), attempt: live.retry.attempts))]

  case .retryDue(.stream(let songID), let attempt):
    guard let live = state.live, live.songID == songID, live.retry.attempts == attempt,
      case .waiting = live.phase, state.currentSong?.id == songID
    else { return [] }
    return rejoinLive(&state)

  default:
    return []
  }
}

/// Sets up (or clears) the live state for a play request `playCurrent` just made.
func beginLive(_ state: inout PlayerState, _ song: Song) {
  guard song.isLiveStream else {
    state.live = nil
    return
  }
  state.live = LiveStream(songID: song.id, playID: state.playID)
  // A station is not a song heard: nothing to announce or scrobble.
  state.announcedPlayID = state.playID
  state.listenedPlayID = state.playID
}

/// Sound came: the connection is good again.
func liveStarted(_ state: inout PlayerState, playID: Int) {
  guard var live = state.live, live.playID == playID else { return }
  live.wasHeard = true
  live.retry = Retry()
  if live.phase != .paused { live.phase = .playing }
  state.live = live
}

/// Play and pause on a live page: pause stops the stream (nothing is fetched meanwhile), play
/// connects again, so what is heard is the station now, not what it sent before the pause. Nil
/// when the page is not a station's (the ordinary rule applies).
func toggleLive(_ state: inout PlayerState) -> [PlayerEffect]? {
  guard var live = state.live, state.currentSong?.id == live.songID else { return nil }
  switch state.playback {
  case .playing, .buffering, .loading:
    live.heardBefore += state.position.rounded(.down)
    live.phase = .paused
    state.live = live
    state.position = 0
    state.playback = .paused
    // Reports about the stopped connection are about an older request from here on.
    state.playID += 1
    return [.stop]
  case .paused:
    return rejoinLive(&state)
  case .idle, .finished, .failed:
    return nil
  }
}

/// Connects to the station again under a new play request, keeping what was heard and named.
private func rejoinLive(_ state: inout PlayerState) -> [PlayerEffect] {
  let before = state.live
  // The request names the station's own song, not the title its stream named last.
  state.live = nil
  let effects = playCurrent(&state)
  if let before, var live = state.live, live.songID == before.songID {
    live.heardBefore = before.heardBefore
    live.title = before.title
    live.retry = before.retry
    live.wasHeard = before.wasHeard
    state.live = live
  }
  return effects
}

/// `l` on a station's page keeps it among the user's stations (or lets it go), besides the
/// like every page has.
func keepStationIfLive(_ state: inout PlayerState, liked: Bool) -> [PlayerEffect] {
  guard state.songs.indices.contains(state.index) else { return [] }
  let station = state.songs[state.index]
  guard station.isLiveStream else { return [] }
  let note = liked ? "Kept in your stations (riffle radio)" : "Taken out of your stations"
  return [.keepStation(station, kept: liked)] + flash(&state, note)
}

/// A session resumed on a station's page: paused without connecting (a paused station fetches
/// nothing), so that play tunes in live. `play` is what `playCurrent` returned; nil when the
/// page is not a station's.
func resumeLivePaused(_ state: inout PlayerState, _ play: [PlayerEffect]) -> [PlayerEffect]? {
  guard var live = state.live else { return nil }
  live.phase = .paused
  state.live = live
  state.playback = .paused
  state.position = 0
  // The request that was never sent is an older one from here on.
  state.playID += 1
  return play.filter {
    if case .play = $0 { return false }
    return true
  }
}
