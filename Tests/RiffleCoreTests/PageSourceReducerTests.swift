import Foundation
import Testing

@testable import RiffleCore

// Exhaustive reducer tests (through `ReducerTestStore`) of the one path every source of pages
// takes: open, first page, later pages near the end, failures, waits and retries. Each rule is
// run for every kind of source there is, with the kind's own paging (a feed's numbered pages, a
// search's offsets, an artist's single page).

/// Songs, sources and states for these tests.
private enum Paging {
  /// Song `n`: id "song-n", lasting 120 + n seconds.
  static func song(_ n: Int) -> Song {
    Song(
      id: "song-\(n)", title: "Song \(n)", displayName: "Artist \(n)", handle: "artist\(n)",
      audioURL: URL(string: "https://cdn1.example.com/song-\(n).mp3")!, duration: Double(120 + n))
  }

  static func songs(_ range: Range<Int>) -> [Song] { range.map(song) }

  static let feed = SourceKind.feed(Fixture.feedURL)
  static let search = SourceKind.search("neon")
  static let artist = SourceKind.artist("Mira Sol")
  static let playlist = SourceKind.playlist(URL(fileURLWithPath: "/music/Road Trip.m3u8"))
  static let chosenArtist = SourceKind.artistID(909_253, name: "Nirvana")
  static let charts = SourceKind.charts(genre: "Pop", country: "us")
  static let podcast = SourceKind.podcast(Fixture.feedURL, show: "Night Radio")
  static let kinds = [
    feed, search, artist, playlist, chosenArtist, charts, podcast, SourceKind.podcasts,
    SourceKind.station(URL(string: "http://radio.example/live")!, name: "Radio One"),
    SourceKind.server("home", .search("neon")), SourceKind.server("home", .artist("Mira Sol")),
    SourceKind.radioSearch("jazz"), SourceKind.radioFavourites,
  ]

  /// A later page as the kind counts pages.
  static func cursor(_ kind: SourceKind, _ n: Int) -> PageCursor {
    switch kind {
    case .feed, .playlist, .queue, .podcast, .podcasts, .station, .radioSearch, .radioFavourites:
      return .page(n, size: 10)
    case .library: return .offset(n * 100, limit: 100)
    case .search, .artist, .artistID, .charts: return .offset(n * 25, limit: 25)
    case .server(_, .artist): return .page(n, size: nil)
    case .server: return .offset(n * 20, limit: 20)
    }
  }

  /// What the status line says over the first page of `kind` when nothing was left out.
  static func note(_ kind: SourceKind) -> PlayerState.Message? {
    kind.title.map { .init(.info, $0) }
  }

  /// `kind` being opened, its first page on the way, over `pages` already shown.
  static func opening(_ kind: SourceKind, over pages: Bool = false) -> PlayerState {
    var state = pages ? Fixture.loaded() : PlayerState()
    state.opening = PageSource(kind: kind, phase: .loading)
    return state
  }

  /// `kind`'s songs 0..<count shown, page `index` asked to play under `playID`, the next page
  /// `next`.
  static func shown(
    _ kind: SourceKind, count: Int, index: Int, playID: Int = 1,
    playback: PlayerState.Playback = .playing, next: PageCursor? = nil,
    phase: PageSource.Phase = .idle, attempts: Int = 0
  ) -> PlayerState {
    Fixture.state {
      $0.source = PageSource(
        kind: kind, next: next, phase: phase, retry: Retry(attempts: attempts))
      $0.songs = songs(0..<count)
      $0.index = index
      $0.playID = playID
      $0.playback = playback
      $0.duration = song(index).duration
      $0.announcedPlayID = playID
      $0.listenedPlayID = playID
    }
  }
}

@Suite("Sources: opening and the first page")
struct OpeningSourceReducerTests {
  @Test("Open asks for the first page and keeps the pages meanwhile", arguments: Paging.kinds)
  func openKeepsPages(kind: SourceKind) {
    var store = ReducerTestStore(
      Fixture.loaded {
        $0.message = .init(.error, "Could not save the like: disk full")
      })
    store.send(.open(kind), effects: [.loadPage(kind, cursor: nil)]) {
      $0.opening = PageSource(kind: kind, phase: .loading)
      $0.message = nil
    }
    #expect(store.state.needsSpinner, "the activity spinner turns while the first page comes")
  }

  @Test("Open keeps an info message", arguments: Paging.kinds)
  func openKeepsInfo(kind: SourceKind) {
    var store = ReducerTestStore(Fixture.loaded { $0.message = .init(.info, "Hello") })
    store.send(.open(kind), effects: [.loadPage(kind, cursor: nil)]) {
      $0.opening = PageSource(kind: kind, phase: .loading)
    }
  }

  @Test(
    "The first page replaces the pages, plays the first song and names the source",
    arguments: Paging.kinds)
  func firstPageReplaces(kind: SourceKind) {
    var store = ReducerTestStore(Paging.opening(kind, over: true))
    let songs = Paging.songs(0..<10)
    let next = Paging.cursor(kind, 1)
    store.send(
      .pageLoaded(kind, cursor: nil, SourcePage(songs: songs, next: next)),
      effects: [.play(songs[0], playID: 2)]
    ) {
      $0.opening = nil
      $0.source = PageSource(kind: kind, next: next)
      $0.songs = songs
      $0.index = 0
      $0.playID = 2
      $0.playback = .loading
      $0.position = 0
      $0.duration = 120
      $0.message = Paging.note(kind)
    }
  }

  @Test("A feed whose answer is a podcast becomes the podcast, named on the status line")
  func feedTurnsIntoPodcast() {
    var store = ReducerTestStore(Paging.opening(Paging.feed))
    let songs = Paging.songs(0..<5)
    store.send(
      .pageLoaded(Paging.feed, cursor: nil, SourcePage(songs: songs, kind: Paging.podcast)),
      effects: [.play(songs[0], playID: 1)]
    ) {
      $0.opening = nil
      $0.source = PageSource(kind: Paging.podcast)
      $0.songs = songs
      $0.index = 0
      $0.playID = 1
      $0.playback = .loading
      $0.position = 0
      $0.duration = 120
      $0.message = .init(.info, "Night Radio")
    }
    #expect(store.state.source?.title == "Night Radio")
  }

  @Test("A short first page asks for the next at once", arguments: Paging.kinds)
  func shortFirstPage(kind: SourceKind) {
    var store = ReducerTestStore(Paging.opening(kind))
    let songs = Paging.songs(0..<3)
    let next = Paging.cursor(kind, 1)
    store.send(
      .pageLoaded(kind, cursor: nil, SourcePage(songs: songs, next: next)),
      effects: [.play(songs[0], playID: 1), .loadPage(kind, cursor: next)]
    ) {
      $0.opening = nil
      $0.source = PageSource(kind: kind, next: next, phase: .loading)
      $0.songs = songs
      $0.playID = 1
      $0.playback = .loading
      $0.duration = 120
      $0.message = Paging.note(kind)
    }
  }

  @Test("A first page that is the last asks for nothing more", arguments: Paging.kinds)
  func onlyPage(kind: SourceKind) {
    var store = ReducerTestStore(Paging.opening(kind))
    let songs = Paging.songs(0..<2)
    store.send(
      .pageLoaded(kind, cursor: nil, SourcePage(songs: songs)),
      effects: [.play(songs[0], playID: 1)]
    ) {
      $0.opening = nil
      $0.source = PageSource(kind: kind)
      $0.songs = songs
      $0.playID = 1
      $0.playback = .loading
      $0.duration = 120
      $0.message = Paging.note(kind)
    }
    store.send(.next, effects: [.play(songs[1], playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.duration = 121
    }
    store.send(.next)
  }

  @Test("What was left out is counted on the status line, in each source's words")
  func leftOutNotes() {
    let songs = Paging.songs(0..<10)
    let expected: [(SourceKind, SourcePage, String)] = [
      (
        Paging.feed, SourcePage(songs: songs, skipped: 1),
        "skipped 1 song without an id or audio URL"
      ),
      (
        Paging.feed, SourcePage(songs: songs, skipped: 3),
        "skipped 3 songs without an id or audio URL"
      ),
      (
        Paging.search, SourcePage(songs: songs, skipped: 2),
        "Results for \u{201C}neon\u{201D} \u{00B7} 2 without a preview"
      ),
      (
        Paging.artist, SourcePage(songs: songs, skipped: 1, hidden: 1),
        "Mira Sol\u{2019}s top songs \u{00B7} 1 repeat hidden \u{00B7} 1 without a preview"
      ),
      (
        Paging.artist, SourcePage(songs: songs, hidden: 4),
        "Mira Sol\u{2019}s top songs \u{00B7} 4 repeats hidden"
      ),
      (
        Paging.feed, SourcePage(songs: songs, skipped: 1, notReady: 2),
        "skipped 1 song without an id or audio URL \u{00B7} 2 songs not ready yet"
      ),
      (Paging.feed, SourcePage(songs: songs, notReady: 1), "1 song not ready yet"),
    ]
    for (kind, page, text) in expected {
      var store = ReducerTestStore(Paging.opening(kind))
      store.send(
        .pageLoaded(kind, cursor: nil, page), effects: [.play(songs[0], playID: 1)]
      ) {
        $0.opening = nil
        $0.source = PageSource(kind: kind)
        $0.songs = songs
        $0.playID = 1
        $0.playback = .loading
        $0.duration = 120
        $0.message = .init(.info, text)
      }
    }
  }

  @Test("An empty first page says so and keeps the pages and what plays", arguments: Paging.kinds)
  func emptyFirstPageKeepsPages(kind: SourceKind) {
    var store = ReducerTestStore(Paging.opening(kind, over: true))
    store.send(.pageLoaded(kind, cursor: nil, SourcePage(songs: [], skipped: 2))) {
      $0.opening = nil
      $0.message = .init(.info, kind.emptyNote + ": " + kind.skippedNote(2))
    }
  }

  @Test("A first page of songs not ready yet says so, beside the broken ones")
  func onlyNotReady() {
    var store = ReducerTestStore(Paging.opening(Paging.feed, over: true))
    store.send(
      .pageLoaded(Paging.feed, cursor: nil, SourcePage(songs: [], skipped: 1, notReady: 3))
    ) {
      $0.opening = nil
      $0.message = .init(
        .info,
        "The feed has no songs: skipped 1 song without an id or audio URL, 3 songs not ready yet")
    }
  }

  @Test("An empty first page with nothing shown leaves the player idle", arguments: Paging.kinds)
  func emptyFirstPageNothingShown(kind: SourceKind) {
    var store = ReducerTestStore(Paging.opening(kind))
    store.send(.pageLoaded(kind, cursor: nil, SourcePage(songs: [], next: Paging.cursor(kind, 1))))
    {
      $0.opening = nil
      $0.source = PageSource(kind: kind)
      $0.message = .init(.info, kind.emptyNote)
    }
    #expect(!store.state.needsTimer)
  }

  @Test("Texts of an empty source, in each source's words")
  func emptyNotes() {
    #expect(Paging.feed.emptyNote == "The feed has no songs")
    #expect(Paging.search.emptyNote == "No songs found for \u{201C}neon\u{201D}")
    #expect(Paging.artist.emptyNote == "No songs found for the artist \u{201C}Mira Sol\u{201D}")
    #expect(
      SourceKind.library(.folder("/home/me/Documents")).emptyNote
        == "No songs Riffle plays in \u{201C}Documents\u{201D}")
    #expect(SourceKind.library(.all).emptyNote.contains("riffle library add"))
  }

  @Test("An answer for a source no longer being opened is ignored")
  func staleFirstPage() {
    var store = ReducerTestStore(Paging.opening(Paging.feed))
    store.send(.open(Paging.search), effects: [.loadPage(Paging.search, cursor: nil)]) {
      $0.opening = PageSource(kind: Paging.search, phase: .loading)
    }
    // The feed answers after the search was asked for: the search's results win.
    store.send(.pageLoaded(Paging.feed, cursor: nil, SourcePage(songs: Paging.songs(0..<3))))
    store.send(
      .pageFailed(Paging.feed, cursor: nil, Failure("offline", isTransient: true)))
    store.send(
      .pageLoaded(Paging.search, cursor: Paging.cursor(Paging.search, 1), SourcePage(songs: [])))
  }

  @Test("Esc drops a source on its way; its answer is then ignored", arguments: Paging.kinds)
  func escDropsOpening(kind: SourceKind) {
    var store = ReducerTestStore(Paging.opening(kind, over: true))
    store.send(.cancelSearch) {
      $0.opening = nil
      $0.message = .init(.info, "Stopped: \(kind.label)")
    }
    store.send(.pageLoaded(kind, cursor: nil, SourcePage(songs: Paging.songs(0..<3))))
  }
}

@Suite("Sources: later pages near the end")
struct LaterPagesReducerTests {
  @Test("Next asks for the next page once within the source's lookahead, and only once")
  func nextAsksWithinLookahead() {
    for kind in [Paging.feed, Paging.search] {
      let next = Paging.cursor(kind, 1)
      // From the first index within the lookahead of the last song (index 9 of 10).
      let first = 9 - kind.lookahead
      var store = ReducerTestStore(
        Paging.shown(kind, count: 10, index: first - 1, playID: 1, next: next))
      store.send(
        .next, effects: [.play(Paging.song(first), playID: 2), .loadPage(kind, cursor: next)]
      ) {
        $0.index = first
        $0.playID = 2
        $0.playback = .loading
        $0.duration = Paging.song(first).duration
        $0.source?.phase = .loading
      }
      // Paging on while it loads does not ask twice.
      store.send(.next, effects: [.play(Paging.song(first + 1), playID: 3)]) {
        $0.index = first + 1
        $0.playID = 3
        $0.duration = Paging.song(first + 1).duration
      }
    }
    #expect(Paging.feed.lookahead == 3)
    #expect(Paging.search.lookahead == 5)
  }

  @Test("Previous never asks for a page", arguments: Paging.kinds)
  func previousNeverAsks(kind: SourceKind) {
    var store = ReducerTestStore(
      Paging.shown(
        kind, count: 10, index: 9, playID: 1, next: Paging.cursor(kind, 1), phase: .failed("x")))
    store.send(.previous, effects: [.play(Paging.song(8), playID: 2)]) {
      $0.index = 8
      $0.playID = 2
      $0.playback = .loading
      $0.duration = 128
    }
  }

  @Test(
    "A page is appended without moving the page shown, repeats dropped, paging moved on",
    arguments: Paging.kinds)
  func pageAppended(kind: SourceKind) {
    let asked = Paging.cursor(kind, 1)
    let after = Paging.cursor(kind, 2)
    var store = ReducerTestStore(
      Paging.shown(kind, count: 10, index: 2, next: asked, phase: .loading))
    let page = [Paging.song(9)] + Paging.songs(10..<20)
    store.send(.pageLoaded(kind, cursor: asked, SourcePage(songs: page, next: after))) {
      $0.songs += Paging.songs(10..<20)
      $0.source = PageSource(kind: kind, next: after)
    }
  }

  @Test("A page that leaves the user near the end asks for the one after at once")
  func stillNearAsksAgain() {
    let kind = Paging.feed
    let asked = Paging.cursor(kind, 1)
    let after = Paging.cursor(kind, 2)
    var store = ReducerTestStore(
      Paging.shown(kind, count: 10, index: 8, next: asked, phase: .loading))
    store.send(
      .pageLoaded(kind, cursor: asked, SourcePage(songs: [Paging.song(10)], next: after)),
      effects: [.loadPage(kind, cursor: after)]
    ) {
      $0.songs.append(Paging.song(10))
      $0.source = PageSource(kind: kind, next: after, phase: .loading)
    }
  }

  @Test("An empty page, or one without a next, ends paging for good", arguments: Paging.kinds)
  func endOfPaging(kind: SourceKind) {
    let asked = Paging.cursor(kind, 1)
    for page in [
      SourcePage(songs: [], next: Paging.cursor(kind, 2)), SourcePage(songs: [Paging.song(10)]),
    ] {
      var store = ReducerTestStore(
        Paging.shown(kind, count: 10, index: 9, next: asked, phase: .loading))
      store.send(.pageLoaded(kind, cursor: asked, page)) {
        $0.songs += page.songs
        $0.source = PageSource(kind: kind)
      }
      store.send(.retry)
    }
  }

  @Test("A page for another cursor or another source, or none asked for, is ignored")
  func stalePages() {
    let kind = Paging.search
    let asked = Paging.cursor(kind, 1)
    var store = ReducerTestStore(
      Paging.shown(kind, count: 10, index: 9, next: asked, phase: .loading))
    let page = SourcePage(songs: Paging.songs(10..<12))
    store.send(.pageLoaded(kind, cursor: Paging.cursor(kind, 2), page))
    store.send(.pageLoaded(Paging.feed, cursor: .page(2, size: 10), page))
    store.send(.pageLoaded(.search("other"), cursor: asked, page))
    var idle = ReducerTestStore(Paging.shown(kind, count: 10, index: 9, next: asked))
    idle.send(.pageLoaded(kind, cursor: asked, page))
    idle.send(.pageFailed(kind, cursor: asked, Failure("offline", isTransient: true)))
  }

  @Test("A page clears an error message and keeps an info message")
  func pageClearsErrors() {
    let kind = Paging.feed
    let asked = Paging.cursor(kind, 1)
    var store = ReducerTestStore(
      Paging.shown(kind, count: 10, index: 2, next: asked, phase: .loading))
    store.send(.playbackFailed(playID: 1, "gone")) {
      $0.playback = .failed("gone")
      $0.message = .init(.error, "Cannot play \u{201C}Song 2\u{201D}: gone")
    }
    store.send(.pageLoaded(kind, cursor: asked, SourcePage(songs: [Paging.song(10)]))) {
      $0.songs.append(Paging.song(10))
      $0.source = PageSource(kind: kind)
      $0.message = nil
    }
    var info = ReducerTestStore(
      Fixture.state {
        $0 = Paging.shown(kind, count: 10, index: 2, next: asked, phase: .loading)
        $0.message = .init(.info, "skipped 1 song without an id or audio URL")
      })
    info.send(.pageLoaded(kind, cursor: asked, SourcePage(songs: [Paging.song(10)]))) {
      $0.songs.append(Paging.song(10))
      $0.source = PageSource(kind: kind)
    }
  }

  @Test(
    "When the last song ended waiting for more, the arriving page plays on", arguments: Paging.kinds
  )
  func finishedPlaysOn(kind: SourceKind) {
    let asked = Paging.cursor(kind, 1)
    var store = ReducerTestStore(
      Paging.shown(kind, count: 10, index: 9, playID: 4, next: asked, phase: .loading))
    store.send(.trackFinished(playID: 4)) {
      $0.playback = .finished
      $0.position = 129
    }
    store.send(
      .pageLoaded(kind, cursor: asked, SourcePage(songs: Paging.songs(10..<20))),
      effects: [.play(Paging.song(10), playID: 5)]
    ) {
      $0.songs += Paging.songs(10..<20)
      $0.source = PageSource(kind: kind)
      $0.index = 10
      $0.playID = 5
      $0.playback = .loading
      $0.position = 0
      $0.duration = 130
    }
  }

  @Test("A page of only known songs after the last one finished stays finished")
  func finishedKnownSongsStays() {
    let kind = Paging.feed
    let asked = Paging.cursor(kind, 1)
    var store = ReducerTestStore(
      Paging.shown(kind, count: 10, index: 9, playback: .finished, next: asked, phase: .loading))
    store.send(.pageLoaded(kind, cursor: asked, SourcePage(songs: [Paging.song(3)]))) {
      $0.source = PageSource(kind: kind)
    }
  }
}

@Suite("Sources: failures and the one retry rule")
struct SourceRetryReducerTests {
  @Test(
    "A first page that fails for a passing reason is tried after 1, 2, 4, 8, 16, 30, 30 s",
    arguments: Paging.kinds)
  func firstPageBacksOff(kind: SourceKind) {
    var store = ReducerTestStore(Paging.opening(kind))
    let reason = "No connection to studio-api.example.com"
    for (attempt, wait) in [1, 2, 4, 8, 16, 30, 30].enumerated().map({ ($0 + 1, $1) }) {
      store.send(
        .pageFailed(kind, cursor: nil, Failure(reason, isTransient: true)),
        effects: [.after(Double(wait), .retryDue(.page(kind), attempt: attempt))]
      ) {
        $0.opening = PageSource(
          kind: kind, phase: .waiting(reason), retry: Retry(attempts: attempt))
        $0.message = .init(.error, "\(reason): retrying in \(wait) s")
      }
      store.send(.retryDue(.page(kind), attempt: attempt), effects: [.loadPage(kind, cursor: nil)])
      {
        $0.opening?.phase = .loading
      }
    }
    store.send(
      .pageLoaded(kind, cursor: nil, SourcePage(songs: Paging.songs(0..<10))),
      effects: [.play(Paging.song(0), playID: 1)]
    ) {
      $0.opening = nil
      $0.source = PageSource(kind: kind)
      $0.songs = Paging.songs(0..<10)
      $0.playID = 1
      $0.playback = .loading
      $0.duration = 120
      $0.message = Paging.note(kind)
    }
  }

  @Test("The server's Retry-After sets the wait; zero still waits a second")
  func retryAfter() {
    for (asked, wait) in [(7.0, 7.0), (0, 1), (120, 120)] {
      var store = ReducerTestStore(Paging.opening(Paging.search))
      store.send(
        .pageFailed(
          Paging.search, cursor: nil, Failure("Busy", isTransient: true, retryAfter: asked)),
        effects: [.after(wait, .retryDue(.page(Paging.search), attempt: 1))]
      ) {
        $0.opening = PageSource(
          kind: Paging.search, phase: .waiting("Busy"), retry: Retry(attempts: 1))
        $0.message = .init(.error, "Busy: retrying in \(Int(wait)) s")
      }
    }
    #expect(Retry.delay(attempt: 40, serverAsked: nil) == 30)
  }

  @Test("A stale retry (an older attempt, another source, not waiting) does nothing")
  func staleRetry() {
    let kind = Paging.feed
    var store = ReducerTestStore(Paging.opening(kind))
    store.send(
      .pageFailed(kind, cursor: nil, Failure("offline", isTransient: true)),
      effects: [.after(1, .retryDue(.page(kind), attempt: 1))]
    ) {
      $0.opening = PageSource(kind: kind, phase: .waiting("offline"), retry: Retry(attempts: 1))
      $0.message = .init(.error, "offline: retrying in 1 s")
    }
    store.send(.retryDue(.page(kind), attempt: 0))
    store.send(.retryDue(.page(Paging.search), attempt: 1))
    // The user's r asks at once; the count goes on, so the scheduled retry is stale after.
    store.send(.retry, effects: [.loadPage(kind, cursor: nil)]) {
      $0.opening?.phase = .loading
    }
    store.send(.retryDue(.page(kind), attempt: 1))
    store.send(
      .pageFailed(kind, cursor: nil, Failure("offline", isTransient: true)),
      effects: [.after(2, .retryDue(.page(kind), attempt: 2))]
    ) {
      $0.opening = PageSource(kind: kind, phase: .waiting("offline"), retry: Retry(attempts: 2))
      $0.message = .init(.error, "offline: retrying in 2 s")
    }
    store.send(.retryDue(.page(kind), attempt: 1))
  }

  @Test("A first page that fails for good, with nothing shown, stays failed until r")
  func permanentFailureNothingShown() {
    let kind = Paging.feed
    var store = ReducerTestStore(Paging.opening(kind))
    store.send(.pageFailed(kind, cursor: nil, Failure("Not found (404) at example.com"))) {
      $0.opening = PageSource(kind: kind, phase: .failed("Not found (404) at example.com"))
      $0.message = .init(.error, "Not found (404) at example.com")
    }
    store.send(.togglePlay)
    store.send(.retry, effects: [.loadPage(kind, cursor: nil)]) {
      $0.opening?.phase = .loading
    }
  }

  @Test(
    "A first page that fails for good over other pages is dropped and named",
    arguments: Paging.kinds)
  func permanentFailureOverPages(kind: SourceKind) {
    var store = ReducerTestStore(Paging.opening(kind, over: true))
    store.send(.pageFailed(kind, cursor: nil, Failure("Unexpected answer"))) {
      $0.opening = nil
      $0.message = .init(.error, "Unexpected answer: \(kind.label) failed")
    }
    store.send(.retry)
  }

  @Test(
    "A later page that fails for a passing reason waits; paging on does not ask meanwhile",
    arguments: Paging.kinds)
  func laterPageBacksOff(kind: SourceKind) {
    let asked = Paging.cursor(kind, 1)
    var store = ReducerTestStore(
      Paging.shown(kind, count: 10, index: 7, next: asked, phase: .loading))
    store.send(
      .pageFailed(
        kind, cursor: asked, Failure("Too many requests", isTransient: true, retryAfter: 3)),
      effects: [.after(3, .retryDue(.page(kind), attempt: 1))]
    ) {
      $0.source = PageSource(
        kind: kind, next: asked, phase: .waiting("Too many requests"), retry: Retry(attempts: 1))
      $0.message = .init(.error, "Too many requests: more songs in 3 s")
    }
    store.send(.next, effects: [.play(Paging.song(8), playID: 2)]) {
      $0.index = 8
      $0.playID = 2
      $0.playback = .loading
      $0.duration = 128
      $0.message = nil
    }
    store.send(.retryDue(.page(kind), attempt: 1), effects: [.loadPage(kind, cursor: asked)]) {
      $0.source?.phase = .loading
    }
    store.send(.pageLoaded(kind, cursor: asked, SourcePage(songs: Paging.songs(10..<12)))) {
      $0.songs += Paging.songs(10..<12)
      $0.source = PageSource(kind: kind)
    }
  }

  @Test("r asks at once for a later page that is waiting", arguments: Paging.kinds)
  func retryLaterPageNow(kind: SourceKind) {
    let asked = Paging.cursor(kind, 1)
    var store = ReducerTestStore(
      Paging.shown(
        kind, count: 10, index: 9, next: asked, phase: .waiting("offline"), attempts: 2))
    store.send(.retry, effects: [.loadPage(kind, cursor: asked)]) {
      $0.source?.phase = .loading
    }
    store.send(.retryDue(.page(kind), attempt: 2))
  }

  @Test(
    "A later page that fails for good is asked for again when the user pages on",
    arguments: Paging.kinds)
  func laterPageFailsForGood(kind: SourceKind) {
    let asked = Paging.cursor(kind, 1)
    var store = ReducerTestStore(
      Paging.shown(kind, count: 10, index: 9, next: asked, phase: .loading))
    store.send(.pageFailed(kind, cursor: asked, Failure("Server said no"))) {
      $0.source?.phase = .failed("Server said no")
      $0.message = .init(.error, "Server said no: more songs when you page again")
    }
    // Next on the last song does not move, but asks again.
    store.send(.next, effects: [.loadPage(kind, cursor: asked)]) {
      $0.source?.phase = .loading
    }
  }
}

@Suite("Sources: what a like means")
struct SourceLikeReducerTests {
  @Test("A like goes where the song's source said, whatever the pages are now")
  func likeDestination() {
    for destination in [LikeDestination.likesEndpoint, .localOnly] {
      var state = Paging.shown(Paging.search, count: 3, index: 0)
      state.songs[0].likeDestination = destination
      var store = ReducerTestStore(state)
      store.send(
        .toggleLike,
        effects: [.persistLike(songID: "song-0", liked: true, sync: destination)]
      ) {
        $0.songs[0] = state.songs[0].togglingLike()
        $0.likePulse = PlayerState.likePulseFrames
      }
    }
  }

  @Test("Identifying keys the fingerprint index by the feed, else by the kind of source")
  func fingerprintKey() {
    #expect(Paging.feed.fingerprintKey == Fixture.feedURL)
    let search = URL(string: "riffle:search")
    #expect(Paging.search.fingerprintKey == search)
    #expect(SourceKind.library(.all).fingerprintKey == URL(string: "riffle:library"))
    #expect(SourceKind.queue.fingerprintKey == URL(string: "riffle:queue"))
    #expect(SourceKind.server("home", .albums).fingerprintKey == URL(string: "riffle:server"))
    // No two kinds share a key, and none is a feed's.
    let kinds: [SourceKind] = [
      .search("a"), .artist("a"), .playlist(Fixture.feedURL), .queue, .library(.all),
      .charts(genre: nil, country: "us"), .podcasts, .radioFavourites, .server("s", .albums),
    ]
    #expect(Set(kinds.compactMap(\.fingerprintKey)).count == kinds.count)
    var store = ReducerTestStore(Paging.shown(Paging.search, count: 3, index: 0))
    store.send(
      .identify, effects: [.listen(seconds: 10, feedURL: search, songs: Paging.songs(0..<3))]
    ) {
      $0.identify = .listening(level: 0, seconds: 0)
    }
  }
}
