import Foundation
import Testing

@testable import RiffleCore

@Suite("Reducer: search as you type over the library")
struct SearchPreviewReducerTests {
  static let army = Song(
    id: "file:///music/Bj%C3%B6rk/Post/01.flac", title: "Army of Me", displayName: "Björk",
    handle: "", audioURL: URL(string: "file:///music/Bj%C3%B6rk/Post/01.flac")!, duration: 234)
  static let hyper = Song(
    id: "file:///music/Bj%C3%B6rk/Post/02.flac", title: "Hyperballad", displayName: "Björk",
    handle: "", audioURL: URL(string: "file:///music/Bj%C3%B6rk/Post/02.flac")!, duration: 321)

  /// The library's pages, the first song playing, the prompt open over them.
  static func prompting(_ text: String = "") -> PlayerState {
    Fixture.loaded {
      $0.source = PageSource(kind: .library(.all))
      $0.overlay = .search
      var prompt = SearchPrompt(text: text)
      prompt.target = .library
      $0.search = prompt
    }
  }

  @Test("/ over the library's pages aims the prompt at the library; elsewhere at iTunes")
  func target() {
    var store = ReducerTestStore(Fixture.loaded { $0.source = PageSource(kind: .library(.all)) })
    store.send(.openSearch) {
      $0.overlay = .search
      var prompt = SearchPrompt()
      prompt.target = .library
      $0.search = prompt
    }
    var feed = ReducerTestStore(Fixture.loaded())
    feed.send(.openSearch) {
      $0.overlay = .search
      $0.search = SearchPrompt()
    }
    #expect(feed.state.search?.target == .itunes)
  }

  @Test("each keystroke asks the index; its answer is a preview: the pages and the song stay")
  func keystrokes() {
    var store = ReducerTestStore(Self.prompting())
    let before = store.state
    store.send(.editSearch(.insert("b")), effects: [.previewSearch("b")]) {
      $0.search?.apply(.insert("b"), history: [])
    }
    let page = SourcePage(songs: [Self.army, Self.hyper], next: nil)
    store.send(.previewLoaded(term: "b", page)) {
      $0.preview = SearchPreview(term: "b", songs: [Self.army, Self.hyper])
    }
    store.send(.editSearch(.insert("j")), effects: [.previewSearch("bj")]) {
      $0.search?.apply(.insert("j"), history: [])
    }
    // An answer for a line the prompt no longer holds is dropped.
    store.send(.previewLoaded(term: "b", SourcePage(songs: [Self.hyper])))
    store.send(.previewLoaded(term: "bj", page)) {
      $0.preview = SearchPreview(term: "bj", songs: [Self.army, Self.hyper])
    }
    // Nothing played: the same song, the same play request, the same pages.
    #expect(store.state.songs == before.songs && store.state.playID == before.playID)
    #expect(store.state.playback == .playing && store.state.source == before.source)
    // A space after the words is the same search: not asked again.
    store.send(.editSearch(.insert(" "))) { $0.search?.apply(.insert(" "), history: []) }
  }

  @Test("the screen shows the preview as pages, not playing, and names the song that plays on")
  func shown() {
    var state = Self.prompting("bj")
    state.preview = SearchPreview(term: "bj", songs: [Self.army, Self.hyper])
    let shown = state.shown
    #expect(shown.currentSong == Self.army && shown.songs.count == 2)
    #expect(shown.playback == .idle && shown.position == 0 && shown.duration == 234)
    #expect(shown.source?.kind == .library(.search("bj")))
    #expect(shown.message?.text == "\u{201C}\(Fixture.first.title)\u{201D} plays on")
    // No preview, or the prompt closed: the state as it is.
    state.overlay = nil
    #expect(state.shown == state)
  }

  @Test("Enter plays the preview's first song as the source's first page, asking nothing again")
  func enterChooses() {
    var state = Self.prompting("bj")
    state.preview = SearchPreview(
      term: "bj", songs: [Self.army, Self.hyper], next: .offset(100, limit: 100))
    var store = ReducerTestStore(state)
    var played = Self.army
    played.replayGain = nil
    store.send(
      .submitSearch,
      effects: [
        .saveSearchHistory(["bj"]), .play(played, playID: 2),
        // Two songs shown, more in the index: the next page is asked for as on any source.
        .loadPage(.library(.search("bj")), cursor: .offset(100, limit: 100)),
      ]
    ) {
      $0.overlay = nil
      $0.search = nil
      $0.preview = nil
      $0.searchHistory = ["bj"]
      $0.source = PageSource(
        kind: .library(.search("bj")), next: .offset(100, limit: 100), phase: .loading)
      $0.songs = [Self.army, Self.hyper]
      $0.index = 0
      $0.playID = 2
      $0.playback = .loading
      $0.duration = 234
      $0.message = .init(.info, "Library: \u{201C}bj\u{201D}")
    }
  }

  @Test("Enter before an answer (or on none) opens the library search the usual way")
  func enterWithoutPreview() {
    var store = ReducerTestStore(Self.prompting("zz"))
    store.send(
      .submitSearch,
      effects: [.saveSearchHistory(["zz"]), .loadPage(.library(.search("zz")), cursor: nil)]
    ) {
      $0.overlay = nil
      $0.search = nil
      $0.searchHistory = ["zz"]
      $0.opening = PageSource(kind: .library(.search("zz")), phase: .loading)
    }
  }

  @Test(
    "Tab aims the prompt at iTunes (no preview) and back (asked again); Enter then searches iTunes")
  func tab() {
    var state = Self.prompting("bj")
    state.preview = SearchPreview(term: "bj", songs: [Self.army])
    var store = ReducerTestStore(state)
    store.send(.switchSearchTarget) {
      $0.search?.target = .itunes
      $0.preview = nil
    }
    store.send(.editSearch(.insert("o"))) { $0.search?.apply(.insert("o"), history: []) }
    store.send(.switchSearchTarget, effects: [.previewSearch("bjo")]) {
      $0.search?.target = .library
    }
    store.send(.switchSearchTarget) { $0.search?.target = .itunes }
    store.send(
      .submitSearch,
      effects: [.saveSearchHistory(["bjo"]), .loadPage(.search("bjo"), cursor: nil)]
    ) {
      $0.overlay = nil
      $0.search = nil
      $0.searchHistory = ["bjo"]
      $0.opening = PageSource(kind: .search("bjo"), phase: .loading)
    }
  }

  @Test("Esc drops the preview; an empty line shows the pages again; a failure is said")
  func cancelAndEmpty() {
    var state = Self.prompting("b")
    state.preview = SearchPreview(term: "b", songs: [Self.army])
    var store = ReducerTestStore(state)
    store.send(.editSearch(.backspace)) {
      $0.search?.apply(.backspace, history: [])
      $0.preview = nil
    }
    store.send(.editSearch(.insert("x")), effects: [.previewSearch("x")]) {
      $0.search?.apply(.insert("x"), history: [])
    }
    store.send(.previewFailed(term: "x", Failure("The library cannot be read: busy"))) {
      $0.preview = SearchPreview(
        term: "x", songs: [], failure: "The library cannot be read: busy")
    }
    store.send(.cancelSearch) {
      $0.overlay = nil
      $0.search = nil
      $0.preview = nil
    }
  }
}

@Suite("Reducer: a library that changes while it is shown")
struct LibraryChangeReducerTests {
  static let kind = SourceKind.library(.folder("/music"))
  static let army = SearchPreviewReducerTests.army
  static let hyper = SearchPreviewReducerTests.hyper

  /// The folder's pages, page 2 (Hyperballad) playing 40 s in.
  static func showing() -> PlayerState {
    Fixture.loaded(at: 1, position: 40) {
      $0.source = PageSource(kind: kind)
      $0.songs = [army, hyper]
      $0.duration = hyper.duration
    }
  }

  @Test("a change asks for the pages again, as many as are loaded; the note goes on the band")
  func changed() {
    var store = ReducerTestStore(Self.showing())
    store.send(
      .libraryChanged(note: "Library: 1 new"), effects: [.reloadLibrary(Self.kind, count: 100)]
    ) { $0.message = .init(.info, "Library: 1 new") }
    // Not a library source: the note only.
    var feed = ReducerTestStore(Fixture.loaded())
    feed.send(.libraryChanged(note: nil))
    // Results previewed in the prompt are asked for again.
    var previewing = Self.showing()
    previewing.overlay = .search
    previewing.search = SearchPrompt(text: "bj")
    previewing.search?.target = .library
    previewing.preview = SearchPreview(term: "bj", songs: [Self.army])
    var prompt = ReducerTestStore(previewing)
    prompt.send(
      .libraryChanged(note: nil),
      effects: [.reloadLibrary(Self.kind, count: 100), .previewSearch("bj")])
  }

  @Test("the pages read again keep the song playing on its page, where it plays on")
  func reloadedKeepsSong() {
    var store = ReducerTestStore(Self.showing())
    let new = Song(
      id: "file:///music/a.flac", title: "Alarm Call", displayName: "Björk", handle: "",
      audioURL: URL(string: "file:///music/a.flac")!)
    store.send(.libraryReloaded(Self.kind, SourcePage(songs: [new, Self.army, Self.hyper]))) {
      $0.songs = [new, Self.army, Self.hyper]
      $0.index = 2
    }
    // The song playing was removed from disk: it stays where it was until paged away from.
    store.send(.libraryReloaded(Self.kind, SourcePage(songs: [new, Self.army]))) {
      $0.songs = [new, Self.army, Self.hyper]
    }
    // Pages of another source are not these.
    store.send(.libraryReloaded(.library(.all), SourcePage(songs: [new])))
  }

  @Test("a first scan's songs fill empty pages as they come, and the first plays")
  func firstScan() {
    var store = ReducerTestStore(Fixture.state { $0.source = PageSource(kind: Self.kind) })
    store.send(
      .libraryChanged(note: "Scanning music…"), effects: [.reloadLibrary(Self.kind, count: 100)]
    ) {
      $0.message = .init(.info, "Scanning music…")
    }
    store.send(.libraryReloaded(Self.kind, SourcePage(songs: [])))
    var played = Self.army
    played.replayGain = nil
    store.send(
      .libraryReloaded(Self.kind, SourcePage(songs: [Self.army, Self.hyper])),
      effects: [.play(played, playID: 1)]
    ) {
      $0.songs = [Self.army, Self.hyper]
      $0.playID = 1
      $0.playback = .loading
      $0.duration = Self.army.duration
    }
  }
}
