import Foundation

/// The rules for the search prompt, the artist key and the artist choice list, which open
/// sources of their own. Part of `reduce`.
func reduceSearch(_ state: inout PlayerState, _ action: PlayerAction) -> [PlayerEffect] {
  switch action {
  case .openSearch:
    state.overlay = .search
    var prompt = SearchPrompt()
    // Over a server's pages, / searches that server on Enter; over the library, the library as
    // you type; elsewhere, iTunes on Enter.
    prompt.target = state.homeSearchTarget ?? .itunes
    state.search = prompt
    state.preview = nil
    return []

  case .editSearch(let edit):
    guard state.search != nil else { return [] }
    state.search?.apply(edit, history: state.searchHistory)
    return askForPreview(&state)

  case .submitSearch:
    guard let prompt = state.search else { return [] }
    let preview = state.preview
    closePrompt(&state)
    let term = prompt.text.trimmingCharacters(in: .whitespaces)
    guard !term.isEmpty else { return [] }
    state.searchHistory = state.searchHistory.recording(term)
    let saved: [PlayerEffect] = [.saveSearchHistory(state.searchHistory)]
    switch prompt.target {
    case .library:
      // The library's results already shown for this line are the pages now; nothing is asked.
      if let chosen = choosePreview(&state, preview, term: term) { return saved + chosen }
      return saved + reducePages(&state, .open(.library(.search(term))))
    case .server(let name):
      return saved + reducePages(&state, .open(.server(name, .search(term))))
    case .itunes:
      return saved + reducePages(&state, .open(.search(term)))
    }

  case .cancelSearch:
    if state.overlay == .search {
      closePrompt(&state)
    } else if state.overlay == .artistChoice, let choice = state.artistChoice {
      // Esc closes the list: the pages and what plays stay as they were.
      state.artistChoice = nil
      state.overlay = nil
      state.message = .init(.info, "Stopped: \(SourceKind.artist(choice.name).label)")
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
    // A song of a server: the artist's songs on that server.
    if let server = state.source?.kind.serverName {
      return reducePages(&state, .open(.server(server, .artist(name))))
    }
    // A song of the library: the artist's songs in the library; otherwise the top songs.
    if case .library = state.source?.kind {
      return reducePages(&state, .open(.library(.artist(name))))
    }
    return reducePages(&state, .open(.artist(name)))

  case .showAlbum:
    // A server's album page, or a server's song: that album's songs on the server.
    if let server = state.source?.kind.serverName, let song = state.currentSong {
      guard let id = song.albumID else {
        state.notice = "This song does not name its album"
        return []
      }
      let title = song.isAlbumPage ? song.title : song.album ?? "Album"
      // The album page's "b or Space opens it" is done with.
      if song.isAlbumPage { state.message = nil }
      return reducePages(&state, .open(.server(server, .album(id: id, title: title))))
    }
    guard let song = state.currentSong, case .library = state.source?.kind,
      let album = song.album, !album.isEmpty
    else {
      state.notice = "Only a song of your library shows its album"
      return []
    }
    return reducePages(&state, .open(.library(.album(album, artist: nil))))

  case .moveArtistChoice(let rows):
    guard var choice = state.artistChoice, !choice.matches.isEmpty else { return [] }
    choice.selected = min(max(choice.selected + rows, 0), choice.matches.count - 1)
    state.artistChoice = choice
    return []

  case .confirmArtistChoice:
    guard let choice = state.artistChoice, choice.matches.indices.contains(choice.selected)
    else { return [] }
    let match = choice.matches[choice.selected]
    state.artistChoice = nil
    if state.overlay == .artistChoice { state.overlay = nil }
    state.message = nil
    return reducePages(&state, .open(.artistID(match.id, name: match.name)))

  default:
    return []
  }
}

private func closePrompt(_ state: inout PlayerState) {
  state.search = nil
  state.preview = nil
  if state.overlay == .search { state.overlay = nil }
}

extension PlayerState {
  /// True when `/` searches the library rather than iTunes: the pages are the library's.
  public var searchesLibrary: Bool {
    if case .library = source?.kind { return true }
    return false
  }
}

/// A first page that is a list of artists instead of songs: the name matched several, and the
/// user chooses. The pages and what plays stay meanwhile.
func showArtistChoice(_ state: inout PlayerState, name: String, _ matches: [ArtistMatch]) {
  state.search = nil
  if state.songs.isEmpty {
    // Nothing shown: the empty page stands for the artist and says what to do.
    state.source = PageSource(kind: .artist(name))
    state.playback = .idle
  }
  state.artistChoice = ArtistChoice(name: name, matches: matches)
  state.overlay = .artistChoice
  state.message = .init(
    .info, "\(matches.count) artists match \u{201C}\(name)\u{201D}: choose one")
}
