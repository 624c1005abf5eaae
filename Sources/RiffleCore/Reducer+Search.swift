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
    return [.saveSearchHistory(state.searchHistory)] + reducePages(&state, .open(.search(term)))

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
    return reducePages(&state, .open(.artist(name)))

  default:
    return []
  }
}

private func closePrompt(_ state: inout PlayerState) {
  state.search = nil
  if state.overlay == .search { state.overlay = nil }
}
