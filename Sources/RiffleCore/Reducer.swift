import Foundation

/// The player's rules: applies an action to the state and returns the effects to run.
///
/// Pure and total: every action is handled in every state, nothing here does I/O.
public func reduce(_ state: inout PlayerState, _ action: PlayerAction) -> [PlayerEffect] {
  if action.isUserIntent {
    // A key finishes what moves (the like pop) and clears a notice, then does what it asks.
    state.notice = nil
    state.likePulse = 0
  }
  switch action {
  case .notify(let text):
    state.notice = text
    return []

  case .open, .pageLoaded, .pageFailed, .retryDue(.page, _):
    return reducePages(&state, action)

  case .retry:
    // What failed is tried again now: a source being opened, else the lyrics shown, the song
    // on this page and the next page of the source.
    if let opening = state.opening, opening.failure != nil {
      return loadFirstPage(&state, opening.kind)
    }
    let lyrics = loadLyricsIfNeeded(&state)
    if case .failed = state.playback { return lyrics + playCurrent(&state) }
    return lyrics + loadMoreIfNear(&state, retrying: true)

  case .seek(by: let delta):
    return seek(&state, to: state.position + delta)

  case .seekTo(let target):
    return seek(&state, to: target)

  case .next:
    return advance(&state, ended: false)

  case .previous:
    // Under shuffle, back to the song played before this one.
    while state.shuffle, let id = state.shuffleHistory.popLast() {
      guard let at = state.songs.firstIndex(where: { $0.id == id }) else { continue }
      state.index = at
      return playCurrent(&state)
    }
    guard state.canGoPrevious else { return [] }
    state.index -= 1
    return playCurrent(&state)

  case .togglePlay:
    if let live = toggleLive(&state) { return live }
    switch state.playback {
    case .playing, .buffering, .loading:
      state.playback = .paused
      return [.pause]
    case .paused:
      state.playback = .playing
      return [.resume]
    case .idle, .finished, .failed:
      guard let song = state.currentSong else { return [] }
      // An album's page: Space opens the album, as b does.
      if song.isAlbumPage { return reduceSearch(&state, .showAlbum) }
      return playCurrent(&state)
    }

  case .toggleLike:
    guard let song = state.currentSong else { return [] }
    setLike(&state, songID: song.id, liked: !song.isLiked)
    state.likePulse = PlayerState.likePulseFrames
    return [.persistLike(songID: song.id, liked: !song.isLiked, sync: song.likeDestination)]
      + keepStationIfLive(&state, liked: !song.isLiked)

  case .toggleHelp:
    state.overlay = state.overlay == .help ? nil : .help
    return []

  case .toggleVisualizer:
    state.visualizer.toggle()
    return []

  case .toggleLyrics, .pageLyrics, .scrollLyrics, .lyricsLoaded, .lyricsFailed,
    .retryDue(.lyrics, _):
    return reduceLyrics(&state, action)

  case .quit:
    state.isQuitting = true
    return (state.session.map { [.saveSession($0)] } ?? []) + [.quit]

  case .enqueue, .playNext, .showQueue, .moveInQueue, .removeFromQueue, .clearQueue,
    .toggleShuffle, .cycleRepeat, .setShuffle, .setRepeat, .changeVolume, .setVolume,
    .toggleMute, .share, .savePlaylist, .showFlash, .clearFlash, .resume:
    return reduceSession(&state, action)

  case .streamTitle, .streamDropped, .retryDue(.stream, _):
    return reduceLive(&state, action)

  case .playbackStarted(let playID, let duration):
    guard playID == state.playID else { return [] }
    liveStarted(&state, playID: playID)
    if state.playback != .paused { state.playback = .playing }
    if let duration { state.duration = duration }
    // Announced once a play, when it is heard (not a session resumed paused).
    guard state.announcedPlayID != playID, state.playback == .playing,
      let song = state.currentSong
    else { return [] }
    state.announcedPlayID = playID
    return [.announce(song)]

  case .playbackBuffering(let playID):
    guard playID == state.playID, state.playback == .playing else { return [] }
    state.playback = .buffering
    return []

  case .playbackProgress(let playID, let position, let duration):
    guard playID == state.playID else { return [] }
    state.position = max(0, position)
    if let duration { state.duration = duration }
    return scrobbleIfHeard(&state)

  case .trackFinished(let playID):
    guard playID == state.playID else { return [] }
    if let duration = state.duration { state.position = duration }
    return scrobbleIfHeard(&state) + advance(&state, ended: true)

  case .playbackFailed(let playID, let reason):
    guard playID == state.playID else { return [] }
    state.playback = .failed(reason)
    let title = state.currentSong?.title ?? ""
    let what = title.isEmpty ? "this song" : "\u{201C}\(title)\u{201D}"
    state.message = .init(.error, "Cannot play \(what): \(reason)")
    return []

  case .likeSaveFailed(let songID, let liked, let reason):
    state.message = .init(.error, "Could not save the like: \(reason)")
    // Rolled back only while the song still shows what failed to save.
    guard state.songs.first(where: { $0.id == songID })?.isLiked == liked else { return [] }
    setLike(&state, songID: songID, liked: !liked)
    return []

  case .likeRejected(let songID, let liked, let reason):
    guard let song = state.songs.first(where: { $0.id == songID }) else { return [] }
    let title = song.title.isEmpty ? "the song" : "\u{201C}\(song.title)\u{201D}"
    state.message = .init(.error, "Could not \(liked ? "like" : "unlike") \(title): \(reason)")
    guard song.isLiked == liked else { return [] }
    setLike(&state, songID: songID, liked: !liked)
    return [.storeLikeLocally(songID: songID, liked: !liked)]

  case .openSearch, .editSearch, .submitSearch, .cancelSearch, .showArtist, .showAlbum,
    .moveArtistChoice, .confirmArtistChoice:
    return reduceSearch(&state, action)
  case .switchSearchTarget, .previewLoaded, .previewFailed:
    return reducePreview(&state, action)
  case .libraryChanged, .libraryReloaded:
    return reduceLibraryChange(&state, action)
  case .identify:
    if let station = identifyOnStation(&state) { return station }
    if state.identify != nil {
      state.identify = nil
      state.message = .init(.info, "Stopped listening")
      return [.stopListening]
    }
    guard !state.songs.isEmpty || !state.queue.isEmpty else {
      state.message = .init(.error, "No songs to compare with yet")
      return []
    }
    state.identify = .listening(level: 0, seconds: 0)
    state.message = nil
    // The index is kept per feed; search results are not the feed's songs.
    return [
      .listen(
        seconds: PlayerState.listenSeconds, feedURL: state.source?.kind.fingerprintKey,
        songs: state.songs, queued: queuedToIdentify(state))
    ]

  case .listeningLevel(let level, let seconds):
    guard state.identify != nil else { return [] }
    state.identify = .listening(level: min(1, max(0, level)), seconds: max(0, seconds))
    return []

  case .identified(let songID, let offset, let listened):
    guard state.identify != nil else { return [] }
    state.identify = nil
    guard
      let at = state.songs.firstIndex(where: { $0.id == songID }) ?? playFromQueue(&state, songID)
    else {
      state.message = .init(.error, "No song matched")
      return []
    }
    state.index = at
    let song = state.songs[at]
    var start = max(0, offset + listened)
    if let duration = song.duration, duration > 0 { start = min(start, max(0, duration - 0.25)) }
    let play = playCurrent(&state)
    state.position = start
    let title = song.title.isEmpty ? "a song" : "\u{201C}\(song.title)\u{201D}"
    let artist = song.displayName.isEmpty ? "" : " by \(song.displayName)"
    state.message = .init(.info, "Heard \(title)\(artist) at \(formatTime(offset.rounded()))")
    return play + [.seek(to: start, playID: state.playID)] + loadMoreIfNear(&state)

  case .identifyFailed(let reason):
    guard state.identify != nil else { return [] }
    state.identify = nil
    if stationFallback(&state) { return [] }
    state.message = .init(.error, reason)
    return []

  case .heardSong(let song):
    return reduceHeard(&state, song)

  case .tick:
    state.frame &+= 1
    if state.likePulse > 0 { state.likePulse -= 1 }
    return []
  }
}

/// Starts the song on the current page from the beginning under a new play request.
func playCurrent(_ state: inout PlayerState) -> [PlayerEffect] {
  guard let song = state.currentSong else { return [] }
  if song.isAlbumPage { return showAlbumPage(&state, song) }
  state.playID += 1
  state.playback = .loading
  state.position = 0
  state.duration = song.duration
  if state.shuffle { state.shuffleRound.insert(song.id) }
  beginLive(&state, song)
  if case .error = state.message?.kind { state.message = nil }
  // ReplayGain: the album's when its songs play in order, the song's own under shuffle.
  var played = song
  played.replayGain = state.shuffle ? song.trackGain : song.albumGain ?? song.trackGain
  return [.play(played, playID: state.playID)] + loadLyricsIfNeeded(&state)
}

/// Moves playback within the current song; only while it has sound to move in.
private func seek(_ state: inout PlayerState, to target: Double) -> [PlayerEffect] {
  guard [.playing, .paused, .buffering].contains(state.playback), let duration = state.duration,
    duration > 0
  else { return [] }
  let clamped = min(max(0, target), max(0, duration - 0.25))
  state.position = clamped
  return [.seek(to: clamped, playID: state.playID)]
}

/// A listen for the play under way once it has played long enough (`ListenRule`), once a play.
private func scrobbleIfHeard(_ state: inout PlayerState) -> [PlayerEffect] {
  guard state.listenedPlayID != state.playID, let song = state.currentSong,
    state.position >= ListenRule.threshold(duration: state.duration)
  else { return [] }
  state.listenedPlayID = state.playID
  return [.scrobble(song, heard: state.position)]
}

/// A like is about a song, not a page: every copy of it (up next puts a song in again as a later
/// page, and keeps its own) shows the same, so a rollback can never miss the one on screen.
private func setLike(_ state: inout PlayerState, songID: String, liked: Bool) {
  for index in state.songs.indices where state.songs[index].id == songID {
    state.songs[index] = state.songs[index].applyingLocalLike(liked)
  }
  for index in state.queue.indices where state.queue[index].id == songID {
    state.queue[index] = state.queue[index].applyingLocalLike(liked)
  }
}
