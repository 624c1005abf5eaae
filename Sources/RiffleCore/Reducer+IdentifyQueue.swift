/// `i` searches up next too, from any page: the queued songs that are not on the pages travel
/// with `.listen`, and a match among them plays the way a queued song plays when its turn comes.

/// The songs up next that `i` searches besides the pages' songs: those not on the pages, in
/// queue order (a song on both is searched, and found, on its page).
func queuedToIdentify(_ state: PlayerState) -> [Song] {
  let onPages = Set(state.songs.map(\.id))
  return state.queue.filter { !onPages.contains($0.id) }
}

/// A heard song that is up next but not on the pages leaves the queue and goes in as the next
/// page, as `advance` puts a queued song in; returns that page's index (nil when not queued).
func playFromQueue(_ state: inout PlayerState, _ songID: String) -> Int? {
  guard let queued = state.queue.firstIndex(where: { $0.id == songID }) else { return nil }
  let song = state.queue.remove(at: queued)
  let at = state.songs.isEmpty ? 0 : min(state.index + 1, state.songs.count)
  state.songs.insert(song, at: at)
  return at
}
