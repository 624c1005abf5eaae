import Foundation
import RiffleAPI
import RiffleApp
import RiffleCore
import RiffleTUI
import Testing

// Search as you type through the view model: each key is one frame, and that frame already
// shows the library's answer for the line, while the song playing goes on.

private func song(_ id: String, _ title: String, _ artist: String) -> Song {
  Song(
    id: "file:///music/\(id).flac", title: title, displayName: artist, handle: "",
    audioURL: URL(string: "file:///music/\(id).flac")!, duration: 200)
}

private let library = [
  song("1", "Dancing Queen", "Abba"), song("2", "Army of Me", "Björk"),
  song("3", "Hyperballad", "Björk"),
]

/// The plays asked for, and the searches the library was asked.
private final class Asked: @unchecked Sendable {
  private let lock = NSLock()
  private var _plays: [String] = []
  private var _searches: [String] = []
  var plays: [String] { lock.withLock { _plays } }
  var searches: [String] { lock.withLock { _searches } }
  func play(_ id: String) { lock.withLock { _plays.append(id) } }
  func search(_ term: String) { lock.withLock { _searches.append(term) } }
}

@Suite("PlayerViewModel: search as you type")
@MainActor
struct SearchAsYouTypeTests {
  @Test("each key draws one frame, and it holds the library's answer; nothing else plays")
  func keyToFrame() {
    let asked = Asked()
    var clients = PlayerClients(
      pages: PageClient { kind, _, done in
        done(.success(SourcePage(songs: kind == .library(.all) ? library : [])))
      },
      audio: AudioClient(
        play: { song, _ in asked.play(song.id) }, pause: {}, resume: {}, seek: { _, _ in },
        position: { _ in nil }, shutdown: {}),
      likes: LikesClient(all: { [:] }, set: { _, _, _ in }, flush: {}))
    // The index's answer, had on the spot (the real one is LibraryIndex's FTS5 search).
    clients.searchLibrary = { term in
      asked.search(term)
      let words = term.lowercased().folding(options: .diacriticInsensitive, locale: nil)
      return .success(
        SourcePage(
          songs: library.filter {
            $0.displayName.lowercased().folding(options: .diacriticInsensitive, locale: nil)
              .hasPrefix(words)
          }))
    }
    let terminal = BufferTerminal(width: 80, height: 24)
    let model = PlayerViewModel(
      clients: clients, terminal: terminal, ticker: ManualTicker(), scheduler: ManualScheduler(),
      onQuit: {})
    model.send(.open(.library(.all)))
    model.send(.pageLoaded(.library(.all), cursor: nil, SourcePage(songs: library)))
    #expect(asked.plays == [library[0].id])

    terminal.pendingKeys = [.char("/")]
    model.handleInput()
    let frames = terminal.flushCount
    terminal.pendingKeys = [.char("b")]
    model.handleInput()
    #expect(terminal.flushCount == frames + 1, "one key, one frame")
    #expect(asked.searches == ["b"])
    #expect(terminal.screen.lines.joined().contains("Army of Me"))
    #expect(terminal.screen.lines.joined().contains("2 songs"))
    #expect(terminal.screen.lines.joined().contains("“Dancing Queen” plays on"))
    #expect(asked.plays == [library[0].id], "the preview plays nothing")
    #expect(model.state.currentSong == library[0])

    terminal.pendingKeys = [.enter]
    model.handleInput()
    #expect(asked.plays == [library[0].id, library[1].id])
    #expect(model.state.source?.kind == .library(.search("b")))
    #expect(asked.searches == ["b"], "Enter asks nothing again")
  }
}
