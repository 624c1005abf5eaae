import Foundation

/// The rules for the search prompt and the artist key, which open sources of their own. Part
/// of `reduce`.
func reduceSearch(_ state: inout PlayerState, _ action: PlayerAction) -> [PlayerEffect] {
  switch action {
  case .openSearch:
    state.overlay = .search
    state.search = SearchPrompt()
    return []

  case .editSearch(let edit):
    guard state.search != nil else { return [] }
    state.search?.apply(edit, history: state.searchHistory)
    return []

  case .submitSearch:
    guard let prompt = state.search else { return [] }
    closePrompt(&state)
    let term = prompt.text.trimmingCharacters(in: .whitespaces)
    guard !term.isEmpty else { return [] }
    state.searchHistory = state.searchHistory.recording(term)
    // Over the library, / searches the library; elsewhere, iTunes.
    let kind: SourceKind = state.searchesLibrary ? .library(.search(term)) : .search(term)
    return [.saveSearchHistory(state.searchHistory)] + reducePages(&state, .open(kind))

  case .cancelSearch:
    if state.overlay == .search {
      closePrompt(&state)
    } else if let opening = state.opening {
      // Esc with the prompt closed drops a source still on its way; its answer is ignored.
      state.opening = nil
      state.message = .init(.info, "Stopped: \(opening.kind.label)")
    }
    return []

  case .showArtist:
    guard let song = state.currentSong else { return [] }
    let name = song.displayName.trimmingCharacters(in: .whitespaces)
    guard !name.isEmpty else {
      state.notice = "This song does not name its artist"
      return []
    }
    // A song of the library: the artist's songs in the library; otherwise the top songs.
    if case .library = state.source?.kind {
      return reducePages(&state, .open(.library(.artist(name))))
    }
    return reducePages(&state, .open(.artist(name)))

  case .showAlbum:
    guard let song = state.currentSong, case .library = state.source?.kind,
      let album = song.album, !album.isEmpty
    else {
      state.notice = "Only a song of your library shows its album"
      return []
    }
    return reducePages(&state, .open(.library(.album(album, artist: nil))))

  default:
    return []
  }
}

private func closePrompt(_ state: inout PlayerState) {
  state.search = nil
  if state.overlay == .search { state.overlay = nil }
}

extension PlayerState {
  /// True when `/` searches the library rather than iTunes: the pages are the library's.
  public var searchesLibrary: Bool {
    if case .library = source?.kind { return true }
    return false
  }
}
