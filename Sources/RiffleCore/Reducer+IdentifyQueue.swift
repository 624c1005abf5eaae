/// `i` searches up next too, from any page: the queued songs travel with `.listen`, and a
/// match among them that is not on the pages plays the way a queued song plays when its turn
/// comes.

/// The songs up next that `i` searches besides the pages' songs: the whole queue, in queue
/// order. Songs also on the pages are searched twice, but the queue's store (`riffle:queue`)
/// keeps every queued song whatever page `i` is pressed on: a store drops the songs its key no
/// longer lists, and a song dropped there would be downloaded and fingerprinted again the next
/// time. A match on the pages is played from its page.
func queuedToIdentify(_ state: PlayerState) -> [Song] { state.queue }

/// A heard song that is up next but not on the pages leaves the queue and goes in as the next
/// page, as `advance` puts a queued song in; returns that page's index (nil when not queued).
func playFromQueue(_ state: inout PlayerState, _ songID: String) -> Int? {
  guard let queued = state.queue.firstIndex(where: { $0.id == songID }) else { return nil }
  let song = state.queue.remove(at: queued)
  let at = state.songs.isEmpty ? 0 : min(state.index + 1, state.songs.count)
  state.songs.insert(song, at: at)
  return at
}
