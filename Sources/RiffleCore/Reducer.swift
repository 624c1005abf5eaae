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

  case .start(let url):
    state.query = nil
    state.queryPaging = nil
    state.feedURL = url
    state.feedAttempts = 0
    state.feed = .loading
    state.message = nil
    return [.loadFeed(url)]

  case .feedLoaded(let songs, let skipped, let paging):
    // Results of a search that came first are not replaced by the feed.
    guard state.query == nil else { return [] }
    state.feed = .loaded
    state.feedAttempts = 0
    state.songs = songs
    state.index = 0
    state.paging = paging.map {
      .init(
        nextPage: songs.isEmpty ? nil : $0.nextPage, pageSize: $0.pageSize,
        totalPages: $0.totalPages)
    }
    state.message = skipped > 0 ? .init(.info, skippedNote(skipped)) : nil
    guard !songs.isEmpty else {
      state.playback = .idle
      state.message = .init(
        .info, skipped > 0 ? "No playable songs: " + skippedNote(skipped) : "The feed has no songs")
      return []
    }
    return playCurrent(&state) + loadMoreIfNear(&state)

  case .feedFailed(let reason, let retry, let retryAfter):
    guard state.query == nil else { return [] }
    guard state.songs.isEmpty else {
      state.message = .init(.error, reason)
      return []
    }
    state.feed = .failed(reason)
    guard retry else {
      state.message = .init(.error, reason)
      return []
    }
    state.feedAttempts += 1
    let delay = retryDelay(attempt: state.feedAttempts, serverAsked: retryAfter)
    state.message = .init(.error, "\(reason): retrying in \(Int(delay.rounded())) s")
    return [.scheduleFeedRetry(after: delay, attempt: state.feedAttempts)]

  case .retryFeed(let attempt):
    // Only the latest scheduled retry counts: one from before a manual retry is stale.
    guard attempt == state.feedAttempts, let url = state.feedURL, case .failed = state.feed,
      state.songs.isEmpty
    else { return [] }
    state.feed = .loading
    return [.loadFeed(url)]

  case .feedPageLoaded(let songs, let paging):
    guard state.paging != nil else { return [] }
    let known = Set(state.songs.map(\.id))
    let fresh = songs.filter { !known.contains($0.id) }
    state.songs += fresh
    state.paging?.isLoading = false
    state.paging?.nextPage = songs.isEmpty ? nil : paging.nextPage
    if paging.totalPages != nil { state.paging?.totalPages = paging.totalPages }
    if case .error = state.message?.kind { state.message = nil }
    if state.playback == .finished && !fresh.isEmpty && state.canGoNext {
      // The last song had ended waiting for more: go on with the new ones.
      state.index += 1
      return playCurrent(&state) + loadMoreIfNear(&state)
    }
    return loadMoreIfNear(&state)

  case .feedPageFailed(let reason):
    guard state.paging != nil else { return [] }
    state.paging?.isLoading = false
    state.message = .init(.error, "\(reason): more songs when you page again")
    return []

  case .retry:
    if let request = state.request, request.isWaiting {
      return runRequest(&state, request)
    }
    if case .failed = state.feed, state.songs.isEmpty, let url = state.feedURL {
      state.feed = .loading
      state.message = nil
      return [.loadFeed(url)]
    }
    // Lyrics shown as failed are asked for again (with the song, if that failed too).
    let lyrics = loadLyricsIfNeeded(&state)
    if case .failed = state.playback { return lyrics + playCurrent(&state) }
    return lyrics + loadMoreIfNear(&state)

  case .seek(by: let delta):
    return seek(&state, to: state.position + delta)

  case .seekTo(let target):
    return seek(&state, to: target)

  case .next:
    guard state.canGoNext else { return loadMoreIfNear(&state) }
    state.index += 1
    return playCurrent(&state) + loadMoreIfNear(&state)

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

  case .toggleVisualizer:
    state.visualizer.toggle()
    return []

  case .toggleLyrics:
    if state.overlay == .lyrics {
      state.overlay = nil
      return []
    }
    state.overlay = .lyrics
    return loadLyricsIfNeeded(&state)

  case .pageLyrics(let pages):
    return reduce(&state, .scrollLyrics(pages * PlayerState.lyricsPageLines))

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

  case .lyricsFailed(let songID, let reason, let retry, let retryAfter):
    guard let panel = state.lyrics, panel.songID == songID, panel.phase == .loading else {
      return []
    }
    // Nobody is looking: no point in trying again until the lyrics are shown.
    guard retry, state.overlay == .lyrics else {
      state.lyrics?.phase = .failed(reason)
      return []
    }
    let attempt = panel.attempts + 1
    let delay = retryDelay(attempt: attempt, serverAsked: retryAfter)
    state.lyrics?.attempts = attempt
    state.lyrics?.phase = .failed("\(reason): retrying in \(Int(delay.rounded())) s")
    return [.scheduleLyricsRetry(after: delay, songID: songID, attempt: attempt)]

  case .retryLyrics(let songID, let attempt):
    // Only the latest scheduled retry for the song shown counts.
    guard state.overlay == .lyrics, let panel = state.lyrics, panel.songID == songID,
      panel.attempts == attempt, case .failed = panel.phase, let song = state.currentSong,
      song.id == songID
    else { return [] }
    state.lyrics?.phase = .loading
    return [.loadLyrics(song)]

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
    return playCurrent(&state) + loadMoreIfNear(&state)

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

  case .likeRejected(let songID, let liked, let reason):
    guard let at = state.songs.firstIndex(where: { $0.id == songID }) else { return [] }
    let title =
      state.songs[at].title.isEmpty ? "the song" : "\u{201C}\(state.songs[at].title)\u{201D}"
    state.message = .init(.error, "Could not \(liked ? "like" : "unlike") \(title): \(reason)")
    guard state.songs[at].isLiked == liked else { return [] }
    state.songs[at] = state.songs[at].togglingLike()
    return [.storeLikeLocally(songID: songID, liked: !liked)]

  case .openSearch, .editSearch, .submitSearch, .cancelSearch, .showArtist, .runQuery,
    .queryLoaded, .queryFailed, .retryQuery, .queryPageLoaded, .queryPageFailed, .retryQueryPage:
    return reduceQuery(&state, action)
  case .identify:
    if state.identify != nil {
      state.identify = nil
      state.message = .init(.info, "Stopped listening")
      return [.stopListening]
    }
    guard !state.songs.isEmpty else {
      state.message = .init(.error, "No songs to compare with yet")
      return []
    }
    state.identify = .listening(level: 0, seconds: 0)
    state.message = nil
    // The index is kept per feed; search results are not the feed's songs.
    let indexKey = state.query == nil ? state.feedURL : nil
    return [.listen(seconds: PlayerState.listenSeconds, feedURL: indexKey, songs: state.songs)]

  case .listeningLevel(let level, let seconds):
    guard state.identify != nil else { return [] }
    state.identify = .listening(level: min(1, max(0, level)), seconds: max(0, seconds))
    return []

  case .identified(let songID, let offset, let listened):
    guard state.identify != nil else { return [] }
    state.identify = nil
    guard let at = state.songs.firstIndex(where: { $0.id == songID }) else {
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
    state.message = .init(.error, reason)
    return []

  case .tick:
    state.frame &+= 1
    if state.likePulse > 0 { state.likePulse -= 1 }
    return []
  }
}

/// Starts the song on the current page from the beginning under a new play request.
func playCurrent(_ state: inout PlayerState) -> [PlayerEffect] {
  guard let song = state.currentSong else { return [] }
  state.playID += 1
  state.playback = .loading
  state.position = 0
  state.duration = song.duration
  if case .error = state.message?.kind { state.message = nil }
  return [.play(song, playID: state.playID)] + loadLyricsIfNeeded(&state)
}

/// While the lyrics are shown, asks for the current song's unless they are here or coming.
/// A failed try is tried again now; the count of tries goes on, so an older scheduled retry
/// cannot match.
private func loadLyricsIfNeeded(_ state: inout PlayerState) -> [PlayerEffect] {
  guard state.overlay == .lyrics, let song = state.currentSong else { return [] }
  var attempts = 0
  if let panel = state.lyrics, panel.songID == song.id {
    guard case .failed = panel.phase else { return [] }
    attempts = panel.attempts
  }
  state.lyrics = .init(songID: song.id, phase: .loading, attempts: attempts)
  return [.loadLyrics(song)]
}

/// Asks for the next feed page when the user is within `pagingLookahead` songs of the end.
func loadMoreIfNear(_ state: inout PlayerState) -> [PlayerEffect] {
  if state.query != nil { return loadMoreResultsIfNear(&state) }
  guard let url = state.feedURL, let paging = state.paging, let next = paging.nextPage,
    !paging.isLoading, state.index + PlayerState.pagingLookahead >= state.songs.count - 1
  else { return [] }
  state.paging?.isLoading = true
  return [.loadFeedPage(url, page: next, pageSize: paging.pageSize)]
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

private func skippedNote(_ count: Int) -> String {
  count == 1
    ? "skipped 1 song without an id or audio URL"
    : "skipped \(count) songs without an id or audio URL"
}
