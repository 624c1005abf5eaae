import Foundation

/// What to page through on a Subsonic-compatible server (`SourceKind.server`).
public enum ServerQuery: Hashable, Sendable, Codable {
  /// Its albums, newest first: one page per album, opened with `b`.
  case albums
  /// One album's songs in order; `title` is its name, for the top line.
  case album(id: String, title: String)
  /// Songs matching what the user typed (`search3`).
  case search(String)
  /// The songs of the artist with this name, album by album.
  case artist(String)
}

extension SourceKind {
  /// The server's name when the pages come from a Subsonic-compatible server.
  public var serverName: String? {
    if case .server(let name, _) = self { return name }
    return nil
  }

  /// Texts of a server's source (see `label`, `title`, `activity`, ...).
  func serverLabel(_ name: String, _ query: ServerQuery) -> String {
    switch query {
    case .albums: return "the albums on \(name)"
    case .album(_, let title): return "the album \u{201C}\(title)\u{201D}"
    case .search(let term): return "\u{201C}\(term)\u{201D} on \(name)"
    case .artist(let artist): return "\(artist) on \(name)"
    }
  }

  func serverTitle(_ name: String, _ query: ServerQuery) -> String {
    switch query {
    case .albums: return "\(name) \u{00B7} newest albums"
    case .album(_, let title): return title
    case .search(let term): return "\(name): \u{201C}\(term)\u{201D}"
    case .artist(let artist): return "\(artist) \u{00B7} \(name)"
    }
  }

  func serverActivity(_ name: String, _ query: ServerQuery) -> String {
    switch query {
    case .albums: return "Asking \(name) for its albums\u{2026}"
    case .album: return "Loading the album\u{2026}"
    case .search(let term): return "Searching \(name) for \u{201C}\(term)\u{201D}\u{2026}"
    case .artist(let artist): return "Finding \(artist) on \(name)\u{2026}"
    }
  }

  func serverEmptyNote(_ name: String, _ query: ServerQuery) -> String {
    switch query {
    case .albums: return "\(name) has no albums"
    case .album: return "The album has no songs"
    case .search(let term): return "Nothing on \(name) matches \u{201C}\(term)\u{201D}"
    case .artist(let artist): return "No songs of \(artist) on \(name)"
    }
  }

  func serverEndNote(_ query: ServerQuery) -> String {
    switch query {
    case .albums: return "End of the albums"
    case .album: return "End of the album"
    case .search, .artist: return "End of the results"
    }
  }
}

/// A page that stands for an album: nothing plays (what played stops), and the status line
/// says how to open it.
func showAlbumPage(_ state: inout PlayerState, _ song: Song) -> [PlayerEffect] {
  let wasPlaying = [.playing, .buffering, .loading].contains(state.playback)
  state.playID += 1
  state.playback = .idle
  state.position = 0
  state.duration = nil
  let artist = song.displayName.isEmpty ? "" : " by \(song.displayName)"
  state.message = .init(
    .info, "Album \u{201C}\(song.title)\u{201D}\(artist): b or Space opens it")
  return wasPlaying ? [.pause] : []
}
