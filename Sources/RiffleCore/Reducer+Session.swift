import Foundation

/// The rules of the listening session: what plays next (up next, shuffle, repeat), the volume,
/// sharing and saving, and picking a saved session up. Part of `reduce`.
func reduceSession(_ state: inout PlayerState, _ action: PlayerAction) -> [PlayerEffect] {
  switch action {
  case .enqueue, .playNext:
    guard let song = state.currentSong else { return [] }
    guard !state.queue.contains(where: { $0.id == song.id }) else {
      return flash(&state, "Already up next")
    }
    if action == .enqueue {
      state.queue.append(song)
    } else {
      state.queue.insert(song, at: 0)
    }
    let title = song.title.isEmpty ? "The song" : "\u{201C}\(song.title)\u{201D}"
    let place = action == .enqueue ? "up next (\(state.queue.count))" : "next"
    return flash(&state, "\(title) plays \(place)")

  case .showQueue:
    guard !state.queue.isEmpty else { return flash(&state, "Nothing is up next") }
    return loadFirstPage(&state, .queue)

  case .moveInQueue(let delta):
    guard state.source?.kind == .queue, let song = state.currentSong,
      let at = state.queue.firstIndex(where: { $0.id == song.id })
    else { return [] }
    let to = min(max(0, at + delta), state.queue.count - 1)
    let page = min(max(0, state.index + delta), state.songs.count - 1)
    guard to != at, page != state.index else { return [] }
    state.queue.swapAt(at, to)
    state.songs.swapAt(state.index, page)
    // The page follows the song it moved, which plays on.
    state.index = page
    return []

  case .removeFromQueue:
    guard state.source?.kind == .queue, let song = state.currentSong else { return [] }
    state.queue.removeAll { $0.id == song.id }
    state.songs.remove(at: state.index)
    guard !state.songs.isEmpty else {
      state.index = 0
      state.playback = .idle
      return [.pause] + flash(&state, "Up next is empty")
    }
    state.index = min(state.index, state.songs.count - 1)
    return playCurrent(&state)

  case .clearQueue:
    guard !state.queue.isEmpty else { return [] }
    state.queue = []
    return flash(&state, "Up next cleared")

  case .toggleShuffle:
    return reduceSession(&state, .setShuffle(!state.shuffle))

  case .setShuffle(let on):
    state.shuffle = on
    state.shuffleHistory = []
    state.shuffleRound = on ? Set(state.currentSong.map { [$0.id] } ?? []) : []
    return flash(&state, on ? "Shuffle on" : "Shuffle off")

  case .cycleRepeat:
    return reduceSession(&state, .setRepeat(state.repeatMode.next))

  case .setRepeat(let mode):
    state.repeatMode = mode
    let text: String
    switch mode {
    case .off: text = "Repeat off"
    case .all: text = "Repeat all"
    case .one: text = "Repeat this song"
    }
    return flash(&state, text)

  case .changeVolume(let delta):
    return reduceSession(&state, .setVolume(state.volume + delta))

  case .setVolume(let percent):
    state.volume = min(100, max(0, percent))
    state.isMuted = false
    return [.setGain(state.gain)] + flash(&state, "Volume \(state.volume)%")

  case .toggleMute:
    state.isMuted.toggle()
    return [.setGain(state.gain)]
      + flash(&state, state.isMuted ? "Muted" : "Volume \(state.volume)%")

  case .share:
    guard let song = state.currentSong else { return [] }
    return [.copyToClipboard(song.shareLink)] + flash(&state, "Link copied")

  case .savePlaylist:
    let songs = state.queue.isEmpty ? state.songs : state.queue
    guard !songs.isEmpty else { return flash(&state, "Nothing to save") }
    let title =
      state.queue.isEmpty ? state.source?.kind.title ?? "Riffle" : SourceKind.queue.title ?? ""
    return [.savePlaylist(title: title, songs: songs)]

  case .showFlash(let text):
    return flash(&state, text)

  case .clearFlash(let id):
    if state.flash?.id == id { state.flash = nil }
    return []

  case .resume(let session):
    state.queue = session.queue
    state.volume = min(100, max(0, session.volume))
    state.isMuted = session.isMuted
    state.shuffle = session.shuffle
    state.repeatMode = session.repeatMode
    state.resumeAt = session.resumeAt
    var effects: [PlayerEffect] = state.gain < 1 ? [.setGain(state.gain)] : []
    effects += loadFirstPage(&state, session.source)
    return effects

  default:
    return []
  }
}

/// Shows a note on the band and clears it after `Flash.seconds`.
func flash(_ state: inout PlayerState, _ text: String) -> [PlayerEffect] {
  let id = (state.flash?.id ?? 0) &+ 1
  state.flash = Flash(text, id: id)
  return [.after(Flash.seconds, .clearFlash(id))]
}

/// Moves on from the current song: `ended` when it finished by itself (Next, when not).
///
/// When it ended: repeat one plays it again, and up next comes before the pages (its song goes
/// in as the next page). Then shuffle draws a song not played this round; otherwise the next
/// page, and after the last, the first again when repeating all.
func advance(_ state: inout PlayerState, ended: Bool) -> [PlayerEffect] {
  if ended, state.repeatMode == .one, state.currentSong != nil { return playCurrent(&state) }
  if ended, state.source?.kind == .queue, let song = state.currentSong {
    // Heard from up next: it leaves the queue.
    state.queue.removeAll { $0.id == song.id }
  }
  // Up next plays when a song ends; the arrows and Next still page through the pages.
  if ended, !state.queue.isEmpty, state.source?.kind != .queue {
    let song = state.queue.removeFirst()
    if state.songs.indices.contains(state.index + 1), state.songs[state.index + 1].id == song.id {
      // Already the next page.
    } else {
      state.songs.insert(song, at: min(state.index + 1, state.songs.count))
    }
    return turn(&state, to: min(state.index + 1, state.songs.count - 1))
  }
  if state.shuffle, let next = shuffled(&state) { return turn(&state, to: next) }
  if !state.shuffle, state.index + 1 < state.songs.count {
    return turn(&state, to: state.index + 1)
  }
  if state.repeatMode == .all, !state.songs.isEmpty, state.source?.next == nil {
    state.shuffleRound = []
    return turn(&state, to: state.shuffle ? shuffled(&state) ?? 0 : 0)
  }
  guard ended else { return loadMoreIfNear(&state) }
  if let duration = state.duration { state.position = duration }
  state.playback = .finished
  return loadMoreIfNear(&state)
}

/// Pages to `index` and plays it; under shuffle the song left is remembered for Previous.
private func turn(_ state: inout PlayerState, to index: Int) -> [PlayerEffect] {
  if state.shuffle, let song = state.currentSong { state.shuffleHistory.append(song.id) }
  state.index = index
  return playCurrent(&state) + loadMoreIfNear(&state)
}

/// A page whose song shuffle has not played this round, drawn at random; nil when none is left.
private func shuffled(_ state: inout PlayerState) -> Int? {
  let left = state.songs.indices.filter {
    $0 != state.index && !state.shuffleRound.contains(state.songs[$0].id)
  }
  guard !left.isEmpty else { return nil }
  return left[Int(nextRandom(&state.randomState) % UInt64(left.count))]
}

/// SplitMix64: a small generator whose whole state is one number in the player's state.
func nextRandom(_ state: inout UInt64) -> UInt64 {
  state &+= 0x9E37_79B9_7F4A_7C15
  var z = state
  z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
  z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
  return z ^ (z >> 31)
}
