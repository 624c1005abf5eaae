import Foundation

/// The player's rules: applies an action to the state and returns the effects to run.
///
/// Pure and total: every action is handled in every state, nothing here does I/O.
public func reduce(_ state: inout PlayerState, _ action: PlayerAction) -> [PlayerEffect] {
  switch action {
  case .start(let url):
    state.feed = .loading
    state.message = nil
    return [.loadFeed(url)]

  case .feedLoaded(let songs, let skipped):
    state.feed = .loaded
    state.songs = songs
    state.index = 0
    state.message = skipped > 0 ? .init(.info, skippedNote(skipped)) : nil
    guard !songs.isEmpty else {
      state.playback = .idle
      state.message = .init(
        .info, skipped > 0 ? "No playable songs: " + skippedNote(skipped) : "The feed has no songs")
      return []
    }
    return playCurrent(&state)

  case .feedFailed(let reason):
    state.feed = .failed(reason)
    state.message = .init(.error, reason)
    return []

  case .next:
    guard state.canGoNext else { return [] }
    state.index += 1
    return playCurrent(&state)

  case .previous:
    guard state.canGoPrevious else { return [] }
    state.index -= 1
    return playCurrent(&state)

  case .togglePlay:
    switch state.playback {
    case .playing, .buffering, .loading:
      state.playback = .paused
      return [.pause]
    case .paused:
      state.playback = .playing
      return [.resume]
    case .idle, .finished, .failed:
      guard state.currentSong != nil else { return [] }
      return playCurrent(&state)
    }

  case .toggleLike:
    guard let song = state.currentSong else { return [] }
    let toggled = song.togglingLike()
    state.songs[state.index] = toggled
    state.likePulse = PlayerState.likePulseFrames
    return [.persistLike(songID: song.id, liked: toggled.isLiked)]

  case .toggleHelp:
    state.overlay = state.overlay == .help ? nil : .help
    return []

  case .quit:
    state.isQuitting = true
    return [.quit]

  case .playbackStarted(let playID, let duration):
    guard playID == state.playID else { return [] }
    if state.playback != .paused { state.playback = .playing }
    if let duration { state.duration = duration }
    return []

  case .playbackBuffering(let playID):
    guard playID == state.playID, state.playback == .playing else { return [] }
    state.playback = .buffering
    return []

  case .playbackProgress(let playID, let position, let duration):
    guard playID == state.playID else { return [] }
    state.position = max(0, position)
    if let duration { state.duration = duration }
    return []

  case .trackFinished(let playID):
    guard playID == state.playID else { return [] }
    if let duration = state.duration { state.position = duration }
    guard state.canGoNext else {
      state.playback = .finished
      return []
    }
    state.index += 1
    return playCurrent(&state)

  case .playbackFailed(let playID, let reason):
    guard playID == state.playID else { return [] }
    state.playback = .failed(reason)
    let title = state.currentSong?.title ?? ""
    let what = title.isEmpty ? "this song" : "\u{201C}\(title)\u{201D}"
    state.message = .init(.error, "Cannot play \(what): \(reason)")
    return []

  case .likeSaveFailed(let songID, let liked, let reason):
    state.message = .init(.error, "Could not save the like: \(reason)")
    guard let at = state.songs.firstIndex(where: { $0.id == songID }),
      state.songs[at].isLiked == liked
    else { return [] }
    state.songs[at] = state.songs[at].togglingLike()
    return []

  case .tick:
    state.frame &+= 1
    if state.likePulse > 0 { state.likePulse -= 1 }
    return []
  }
}

/// Starts the song on the current page from the beginning under a new play request.
private func playCurrent(_ state: inout PlayerState) -> [PlayerEffect] {
  guard let song = state.currentSong else { return [] }
  state.playID += 1
  state.playback = .loading
  state.position = 0
  state.duration = song.duration
  if case .error = state.message?.kind { state.message = nil }
  return [.play(song, playID: state.playID)]
}

private func skippedNote(_ count: Int) -> String {
  count == 1
    ? "skipped 1 song without an id or audio URL"
    : "skipped \(count) songs without an id or audio URL"
}
