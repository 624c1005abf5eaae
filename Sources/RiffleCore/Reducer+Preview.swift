import Foundation

/// What the search prompt searches when Enter is pressed: the library (its results are shown
/// as you type), a Subsonic server's `search3` (on Enter, over that server's pages) or iTunes
/// (on Enter). Tab switches between iTunes and the pages' own search.
public enum SearchTarget: Equatable, Sendable {
  case library
  case server(String)
  case itunes
}

extension PlayerState {
  /// What `/` searches first over these pages: their server, else the library where the pages
  /// come from it; nil where iTunes is all there is.
  public var homeSearchTarget: SearchTarget? {
    if let server = source?.kind.serverName { return .server(server) }
    return searchesLibrary ? .library : nil
  }
}

/// The library's answer to what the prompt holds, shown as pages while the prompt is open.
///
/// A preview only: the pages and the song playing stay as they are in the state until the user
/// presses Enter, when the preview becomes the source (`.library(.search(term))`) through the
/// one page path, and its first song plays.
public struct SearchPreview: Equatable, Sendable {
  /// The words the songs answer (the prompt's line, trimmed).
  public var term: String
  public var songs: [Song]
  /// The index's next page of the same search, for the source once the preview is chosen.
  public var next: PageCursor?
  /// Why the index could not answer, when it could not.
  public var failure: String?

  public init(term: String, songs: [Song], next: PageCursor? = nil, failure: String? = nil) {
    self.term = term
    self.songs = songs
    self.next = next
    self.failure = failure
  }
}

/// The rules of search as you type: each edit of a prompt aimed at the library asks the index
/// for the line (`.previewSearch`), and its answer (`.previewLoaded`) becomes the preview,
/// never the pages: nothing plays. Part of `reduce`, called by `reduceSearch`.
func reducePreview(_ state: inout PlayerState, _ action: PlayerAction) -> [PlayerEffect] {
  switch action {
  case .switchSearchTarget:
    guard var prompt = state.search else { return [] }
    prompt.target = prompt.target == .itunes ? (state.homeSearchTarget ?? .library) : .itunes
    state.search = prompt
    if prompt.target == .itunes { state.preview = nil }
    return askForPreview(&state)

  case .previewLoaded(let term, let page):
    guard previewWanted(state, term) else { return [] }
    state.preview = SearchPreview(term: term, songs: page.songs, next: page.next)
    return []

  case .previewFailed(let term, let failure):
    guard previewWanted(state, term) else { return [] }
    state.preview = SearchPreview(term: term, songs: [], failure: failure.reason)
    return []

  default:
    return []
  }
}

/// Asks the index for the prompt's line when the prompt searches the library and the line is
/// not what the preview already answers. An empty line shows the pages again.
func askForPreview(_ state: inout PlayerState) -> [PlayerEffect] {
  guard let prompt = state.search, prompt.target == .library else { return [] }
  let term = prompt.text.trimmingCharacters(in: .whitespaces)
  guard !term.isEmpty else {
    state.preview = nil
    return []
  }
  guard state.preview?.term != term else { return [] }
  return [.previewSearch(term)]
}

/// Enter on a library search: the preview of that very line becomes the source's first page
/// through the one page path (as if the index had just answered), so it plays as any first
/// page does. Nil when there is no such preview (the line changed, or nothing matched): the
/// caller opens the source the usual way.
func choosePreview(_ state: inout PlayerState, _ preview: SearchPreview?, term: String)
  -> [PlayerEffect]?
{
  guard let preview, preview.term == term, !preview.songs.isEmpty else { return nil }
  let kind = SourceKind.library(.search(term))
  state.opening = PageSource(kind: kind, phase: .loading)
  return reducePages(
    &state, .pageLoaded(kind, cursor: nil, SourcePage(songs: preview.songs, next: preview.next)))
}

/// An answer counts only for the line the prompt holds now, aimed at the library.
private func previewWanted(_ state: PlayerState, _ term: String) -> Bool {
  guard let prompt = state.search, prompt.target == .library else { return false }
  return prompt.text.trimmingCharacters(in: .whitespaces) == term
}

extension PlayerState {
  /// What the screen shows: while the prompt previews library results, they are the pages
  /// (the first one on screen, not playing, its length on the band) and the status line names
  /// the song that goes on playing; otherwise the state itself.
  public var shown: PlayerState {
    guard overlay == .search, let preview, let first = preview.songs.first else { return self }
    var shown = self
    shown.songs = preview.songs
    shown.index = 0
    shown.playback = .idle
    shown.position = 0
    shown.duration = first.duration
    shown.lyrics = nil
    shown.likePulse = 0
    shown.opening = nil
    shown.source = PageSource(kind: .library(.search(preview.term)), next: preview.next)
    let playing = currentSong.map { "\u{201C}\($0.title)\u{201D} plays on" }
    shown.message = playing.map { .init(.info, $0) }
    return shown
  }
}
