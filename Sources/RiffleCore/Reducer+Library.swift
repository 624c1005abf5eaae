import Foundation

/// The rules for a library that changes while it is shown: a scan behind the screen, files
/// added, changed or removed on disk. The pages of a library source are read again, as many as
/// were loaded, and the song playing keeps its place and its sound. Part of `reduce`.
func reduceLibraryChange(_ state: inout PlayerState, _ action: PlayerAction) -> [PlayerEffect] {
  switch action {
  case .libraryChanged(let note):
    if let note { state.message = .init(.info, note) }
    // Results previewed in the prompt are asked for again too.
    let preview: [PlayerEffect] = state.preview.map { [.previewSearch($0.term)] } ?? []
    // A library source being opened reads the index as it is now anyway.
    guard let source = state.source, case .library = source.kind, state.opening == nil else {
      return preview
    }
    return [.reloadLibrary(source.kind, count: max(state.songs.count, 100))] + preview

  case .libraryReloaded(let kind, let page):
    guard state.source?.kind == kind, state.opening == nil else { return [] }
    state.source = PageSource(kind: kind, next: page.next)
    guard let current = state.currentSong else {
      // Nothing was shown (a first scan still going when the pages were asked for): the songs
      // found so far are the pages, and the first plays.
      guard !page.songs.isEmpty else { return [] }
      state.songs = page.songs
      state.index = 0
      return playCurrent(&state) + loadMoreIfNear(&state)
    }
    var songs = page.songs
    if let at = songs.firstIndex(where: { $0.id == current.id }) {
      state.index = at
    } else {
      // The song playing was removed from disk: it stays on its page until the user pages on.
      let at = min(state.index, songs.count)
      songs.insert(current, at: at)
      state.index = at
    }
    state.songs = songs
    return []

  default:
    return []
  }
}
