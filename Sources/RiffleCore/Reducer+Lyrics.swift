import Foundation

/// The rules for the lyrics panel: shown for the current song, loaded when asked for, tried
/// again after a wait while it is looked at. Part of `reduce`.
func reduceLyrics(_ state: inout PlayerState, _ action: PlayerAction) -> [PlayerEffect] {
  switch action {
  case .toggleLyrics:
    if state.overlay == .lyrics {
      state.overlay = nil
      return []
    }
    state.overlay = .lyrics
    return loadLyricsIfNeeded(&state)

  case .pageLyrics(let pages):
    return reduceLyrics(&state, .scrollLyrics(pages * PlayerState.lyricsPageLines))

  case .scrollLyrics(let lines):
    guard state.overlay == .lyrics, let panel = state.lyrics,
      case .loaded(.plain(let text)) = panel.phase
    else { return [] }
    state.lyrics?.scroll = min(max(0, panel.scroll + lines), max(0, text.count - 1))
    return []

  case .lyricsLoaded(let songID, let lyrics):
    guard let panel = state.lyrics, panel.songID == songID, panel.phase == .loading else {
      return []
    }
    state.lyrics = .init(songID: songID, phase: .loaded(lyrics))
    return []

  case .lyricsFailed(let songID, let failure):
    guard var panel = state.lyrics, panel.songID == songID, panel.phase == .loading else {
      return []
    }
    // Nobody is looking: no point in trying again until the lyrics are shown.
    guard failure.isTransient, state.overlay == .lyrics else {
      state.lyrics?.phase = .failed(failure.reason)
      return []
    }
    var retry = Retry(attempts: panel.attempts)
    let delay = retry.failed(failure)
    panel.attempts = retry.attempts
    panel.phase = .failed("\(failure.reason): \(Retry.note(delay))")
    state.lyrics = panel
    return [.after(delay, .retryDue(.lyrics(songID: songID), attempt: retry.attempts))]

  case .retryDue(.lyrics(let songID), let attempt):
    // Only the latest scheduled retry for the song shown counts.
    guard state.overlay == .lyrics, let panel = state.lyrics, panel.songID == songID,
      panel.attempts == attempt, case .failed = panel.phase, state.currentSong?.id == songID
    else { return [] }
    state.lyrics?.phase = .loading
    return [lyricsRequest(state)].compactMap { $0 }

  default:
    return []
  }
}

/// While the lyrics are shown, asks for the current song's unless they are here or coming.
/// A failed try is tried again now; the count of tries goes on, so an older scheduled retry
/// cannot match.
func loadLyricsIfNeeded(_ state: inout PlayerState) -> [PlayerEffect] {
  guard state.overlay == .lyrics, let song = state.currentSong else { return [] }
  var attempts = 0
  if let panel = state.lyrics, panel.songID == song.id {
    guard case .failed = panel.phase else { return [] }
    attempts = panel.attempts
  }
  state.lyrics = .init(songID: song.id, phase: .loading, attempts: attempts)
  return [lyricsRequest(state)].compactMap { $0 }
}

/// The request for the current song's lyrics. The decoder's length stands in for one the
/// source did not give: lyrics are matched by length.
private func lyricsRequest(_ state: PlayerState) -> PlayerEffect? {
  guard var song = state.currentSong else { return nil }
  if song.duration == nil { song.duration = state.duration }
  return .loadLyrics(song)
}
