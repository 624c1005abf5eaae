import Foundation
import Testing

@testable import RiffleCore

private let nirvanas = [
  ArtistMatch(id: 112_018, name: "Nirvana", genre: "Alternative"),
  ArtistMatch(id: 2_531_826, name: "Nirvana", genre: "Rock"),
  ArtistMatch(id: 77, name: "Nirvana Tribute Band", genre: ""),
]

/// `riffle artist Nirvana` with its first answer on the way, over the pages or over nothing.
private func asking(over pages: Bool) -> PlayerState {
  var state = pages ? Fixture.loaded() : PlayerState()
  state.opening = PageSource(kind: .artist("Nirvana"), phase: .loading)
  return state
}

@Suite("Choosing among artists of one name")
struct ArtistChoiceReducerTests {
  @Test("Several matches open the list; the pages and what plays stay")
  func listOpens() {
    var store = ReducerTestStore(asking(over: true))
    store.send(
      .pageLoaded(.artist("Nirvana"), cursor: nil, SourcePage(songs: [], choices: nirvanas))
    ) {
      $0.opening = nil
      $0.overlay = .artistChoice
      $0.artistChoice = ArtistChoice(name: "Nirvana", matches: nirvanas)
      $0.message = .init(.info, "3 artists match \u{201C}Nirvana\u{201D}: choose one")
    }
  }

  @Test("Up and Down move within the list; Enter opens the chosen artist's songs")
  func moveAndChoose() {
    var store = ReducerTestStore(asking(over: false))
    store.send(
      .pageLoaded(.artist("Nirvana"), cursor: nil, SourcePage(songs: [], choices: nirvanas))
    ) {
      $0.opening = nil
      $0.source = PageSource(kind: .artist("Nirvana"))
      $0.overlay = .artistChoice
      $0.artistChoice = ArtistChoice(name: "Nirvana", matches: nirvanas)
      $0.message = .init(.info, "3 artists match \u{201C}Nirvana\u{201D}: choose one")
    }
    store.send(.moveArtistChoice(-1))
    store.send(.moveArtistChoice(1)) { $0.artistChoice?.selected = 1 }
    store.send(.moveArtistChoice(5)) { $0.artistChoice?.selected = 2 }
    store.send(.moveArtistChoice(-1)) { $0.artistChoice?.selected = 1 }
    let chosen = SourceKind.artistID(2_531_826, name: "Nirvana")
    store.send(.confirmArtistChoice, effects: [.loadPage(chosen, cursor: nil)]) {
      $0.overlay = nil
      $0.artistChoice = nil
      $0.message = nil
      $0.opening = PageSource(kind: chosen, phase: .loading)
    }
    // Its songs come as for any source.
    let song = Fixture.songs[0]
    store.send(
      .pageLoaded(chosen, cursor: nil, SourcePage(songs: [song])), effects: [.play(song, playID: 1)]
    ) {
      $0.opening = nil
      $0.source = PageSource(kind: chosen)
      $0.songs = [song]
      $0.playID = 1
      $0.playback = .loading
      $0.duration = song.duration
      $0.message = .init(.info, "Nirvana\u{2019}s top songs")
    }
  }

  @Test("Esc closes the list and keeps what was there; a late list for another source is ignored")
  func cancel() {
    var store = ReducerTestStore(asking(over: true))
    store.send(
      .pageLoaded(.artist("Nirvana"), cursor: nil, SourcePage(songs: [], choices: nirvanas))
    ) {
      $0.opening = nil
      $0.overlay = .artistChoice
      $0.artistChoice = ArtistChoice(name: "Nirvana", matches: nirvanas)
      $0.message = .init(.info, "3 artists match \u{201C}Nirvana\u{201D}: choose one")
    }
    store.send(.cancelSearch) {
      $0.overlay = nil
      $0.artistChoice = nil
      $0.message = .init(.info, "Stopped: Nirvana\u{2019}s top songs")
    }
    store.send(.confirmArtistChoice)
    store.send(.pageLoaded(.artist("Queen"), cursor: nil, SourcePage(songs: [], choices: nirvanas)))
  }
}
