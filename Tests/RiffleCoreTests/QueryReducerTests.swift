import Foundation
import Testing

@testable import RiffleCore

/// Results of a search, as iTunes songs: no handle, an album.
private enum Results {
  static func songs(_ range: ClosedRange<Int>) -> [Song] {
    range.map { n in
      Song(
        id: "itunes:\(n)", title: "Result \(n)", displayName: "Band", handle: "",
        audioURL: URL(string: "https://audio.example.com/\(n).m4a")!, album: "Album")
    }
  }
}

@Suite("Reducer: the search prompt")
struct SearchPromptReducerTests {
  @Test("/ opens the prompt empty; edits change its line; Esc closes it")
  func openEditCancel() {
    var store = ReducerTestStore(Fixture.loaded())
    store.send(.openSearch) {
      $0.overlay = .search
      $0.search = SearchPrompt()
    }
    store.send(.editSearch(.insert("neon"))) { $0.search = SearchPrompt(text: "neon") }
    store.send(.cancelSearch) {
      $0.overlay = nil
      $0.search = nil
    }
  }

  @Test("an edit with the prompt closed does nothing")
  func editClosed() {
    var store = ReducerTestStore(Fixture.loaded())
    store.send(.editSearch(.insert("x")))
  }

  @Test("Enter searches, records the term first in history, and keeps the pages meanwhile")
  func submit() {
    var store = ReducerTestStore(
      Fixture.state {
        $0 = Fixture.loaded()
        $0.overlay = .search
        $0.search = SearchPrompt(text: "  neon tide ")
        $0.searchHistory = ["neon tide", "older"]
      })
    store.send(
      .submitSearch,
      effects: [
        .saveSearchHistory(["older", "neon tide"]),
        .runQuery(.search("neon tide"), offset: 0, limit: 25),
      ]
    ) {
      $0.overlay = nil
      $0.search = nil
      $0.searchHistory = ["older", "neon tide"]
      $0.request = QueryRequest(query: .search("neon tide"))
    }
  }

  @Test("Enter on an empty line just closes the prompt")
  func submitEmpty() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.overlay = .search
        $0.search = SearchPrompt(text: "   ")
      })
    store.send(.submitSearch) {
      $0.overlay = nil
      $0.search = nil
    }
  }

  @Test("the prompt replaces the help")
  func replacesHelp() {
    var store = ReducerTestStore(Fixture.state { $0.overlay = .help })
    store.send(.openSearch) {
      $0.overlay = .search
      $0.search = SearchPrompt()
    }
  }
}

@Suite("Reducer: query results become the pages")
struct QueryResultsReducerTests {
  /// A search asked for while the feed plays page 2.
  static var searching: PlayerState {
    var state = Fixture.loaded(at: 1, playID: 4)
    state.request = QueryRequest(query: .search("band"))
    return state
  }

  @Test("the first batch replaces the pages, plays the first, and says whose results they are")
  func firstBatch() {
    var store = ReducerTestStore(Self.searching)
    let songs = Results.songs(1...25)
    store.send(
      .queryLoaded(.search("band"), songs, hidden: 0, skipped: 0, received: 25),
      effects: [.play(songs[0], playID: 5)]
    ) {
      $0.request = nil
      $0.query = .search("band")
      $0.songs = songs
      $0.index = 0
      $0.queryPaging = QueryPaging(nextOffset: 25, limit: 25)
      $0.playID = 5
      $0.playback = .loading
      $0.position = 0
      $0.duration = nil
      $0.message = .init(.info, "Results for “band”")
    }
  }

  @Test("a batch within 5 pages of the end asks for the next at once")
  func shortFirstBatchPagesOn() {
    var store = ReducerTestStore(Self.searching)
    let songs = Results.songs(1...4)
    store.send(
      .queryLoaded(.search("band"), songs, hidden: 0, skipped: 1, received: 25),
      effects: [.play(songs[0], playID: 5), .runQuery(.search("band"), offset: 25, limit: 25)]
    ) {
      $0.request = nil
      $0.query = .search("band")
      $0.songs = songs
      $0.index = 0
      $0.queryPaging = QueryPaging(nextOffset: 25, limit: 25, isLoading: true)
      $0.playID = 5
      $0.playback = .loading
      $0.position = 0
      $0.duration = nil
      $0.message = .init(.info, "Results for “band” · 1 without a preview")
    }
  }

  @Test("fewer results than asked: the end, no more requests")
  func lastBatch() {
    var store = ReducerTestStore(Self.searching)
    let songs = Results.songs(1...3)
    store.send(
      .queryLoaded(.search("band"), songs, hidden: 0, skipped: 0, received: 3),
      effects: [.play(songs[0], playID: 5)]
    ) {
      $0.request = nil
      $0.query = .search("band")
      $0.songs = songs
      $0.index = 0
      $0.queryPaging = QueryPaging(nextOffset: nil, limit: 25)
      $0.playID = 5
      $0.playback = .loading
      $0.position = 0
      $0.duration = nil
      $0.message = .init(.info, "Results for “band”")
    }
  }

  @Test("no results says so and keeps the pages and what plays")
  func emptyResults() {
    var store = ReducerTestStore(Self.searching)
    store.send(.queryLoaded(.search("band"), [], hidden: 0, skipped: 0, received: 0)) {
      $0.request = nil
      $0.message = .init(.info, "No songs found for “band”")
    }
  }

  @Test("results for a query no longer asked for are ignored")
  func staleResults() {
    var store = ReducerTestStore(Self.searching)
    store.send(
      .queryLoaded(.search("older"), Results.songs(1...3), hidden: 0, skipped: 0, received: 3))
  }

  @Test("an artist's songs: no paging, the repeats hidden are counted in the status line")
  func artistResults() {
    var state = Fixture.loaded()
    state.request = QueryRequest(query: .artist("Band"))
    var store = ReducerTestStore(state)
    let songs = Results.songs(1...10)
    store.send(
      .queryLoaded(.artist("Band"), songs, hidden: 3, skipped: 0, received: 13),
      effects: [.play(songs[0], playID: 2)]
    ) {
      $0.request = nil
      $0.query = .artist("Band")
      $0.songs = songs
      $0.index = 0
      $0.playID = 2
      $0.playback = .loading
      $0.position = 0
      $0.duration = nil
      $0.message = .init(.info, "Band’s top songs · 3 repeats hidden")
    }
  }

  @Test("a feed that arrives after a search's results does not replace them")
  func lateFeedIgnored() {
    var state = Fixture.loaded()
    state.query = .search("band")
    var store = ReducerTestStore(state)
    store.send(.feedLoaded(Fixture.songs, skipped: 0))
    store.send(.feedFailed("gone", retry: true))
  }

  @Test("a, on a page, asks for the artist's top songs")
  func showArtist() {
    var store = ReducerTestStore(Fixture.loaded())
    store.send(.showArtist, effects: [.runQuery(.artist("Mira Sol"), offset: 0, limit: 100)]) {
      $0.request = QueryRequest(query: .artist("Mira Sol"))
    }
  }

  @Test("a on a song without an artist name says so")
  func showArtistUnnamed() {
    var state = Fixture.loaded()
    state.songs[0].displayName = " "
    var store = ReducerTestStore(state)
    store.send(.showArtist) { $0.notice = "This song does not name its artist" }
  }

  @Test("a search at start-up, with no pages yet, shows the activity on the empty page")
  func startUpQuery() {
    var store = ReducerTestStore(PlayerState())
    store.send(.runQuery(.search("x")), effects: [.runQuery(.search("x"), offset: 0, limit: 25)]) {
      $0.request = QueryRequest(query: .search("x"))
      $0.feed = .loading
    }
    store.send(.queryLoaded(.search("x"), [], hidden: 0, skipped: 2, received: 2)) {
      $0.request = nil
      $0.feed = .loaded
      $0.message = .init(.info, "No songs found for “x” with a preview to play")
    }
  }
}

@Suite("Reducer: failed queries retry like the feed")
struct QueryRetryReducerTests {
  @Test("no connection: says so, keeps the pages, retries after 1, 2, 4 s; a late timer is stale")
  func backoff() {
    var state = Fixture.loaded()
    state.request = QueryRequest(query: .search("x"))
    var store = ReducerTestStore(state)
    store.send(
      .queryFailed(.search("x"), "No connection to itunes", retry: true, retryAfter: nil),
      effects: [.scheduleQueryRetry(after: 1, attempt: 1)]
    ) {
      $0.request = QueryRequest(query: .search("x"), attempts: 1, isWaiting: true)
      $0.message = .init(.error, "No connection to itunes: retrying in 1 s")
    }
    store.send(.retryQuery(attempt: 1), effects: [.runQuery(.search("x"), offset: 0, limit: 25)]) {
      $0.request = QueryRequest(query: .search("x"), attempts: 1)
      $0.message = nil
    }
    store.send(
      .queryFailed(.search("x"), "No connection to itunes", retry: true, retryAfter: nil),
      effects: [.scheduleQueryRetry(after: 2, attempt: 2)]
    ) {
      $0.request = QueryRequest(query: .search("x"), attempts: 2, isWaiting: true)
      $0.message = .init(.error, "No connection to itunes: retrying in 2 s")
    }
    // r retries at once; the timer set before it is then stale.
    store.send(.retry, effects: [.runQuery(.search("x"), offset: 0, limit: 25)]) {
      $0.request = QueryRequest(query: .search("x"), attempts: 2)
      $0.message = nil
    }
    store.send(.retryQuery(attempt: 1))
  }

  @Test("a rate limit with Retry-After waits as long as the server asked")
  func retryAfter() {
    var state = Fixture.loaded()
    state.request = QueryRequest(query: .search("x"))
    var store = ReducerTestStore(state)
    store.send(
      .queryFailed(.search("x"), "itunes is limiting requests", retry: true, retryAfter: 20),
      effects: [.scheduleQueryRetry(after: 20, attempt: 1)]
    ) {
      $0.request = QueryRequest(query: .search("x"), attempts: 1, isWaiting: true)
      $0.message = .init(.error, "itunes is limiting requests: retrying in 20 s")
    }
  }

  @Test("a failure that will not pass says so and ends the request")
  func permanent() {
    var state = PlayerState()
    state.request = QueryRequest(query: .artist("Y"))
    state.feed = .loading
    var store = ReducerTestStore(state)
    store.send(.queryFailed(.artist("Y"), "Bad answer", retry: false, retryAfter: nil)) {
      $0.request = nil
      $0.feed = .failed("Bad answer")
      $0.message = .init(.error, "Bad answer: Y’s top songs failed")
    }
  }

  @Test("Esc drops a request waiting to retry")
  func cancelWaiting() {
    var state = Fixture.loaded()
    state.request = QueryRequest(query: .search("x"), attempts: 1, isWaiting: true)
    var store = ReducerTestStore(state)
    store.send(.cancelSearch) {
      $0.request = nil
      $0.message = .init(.info, "Stopped: “x”")
    }
    store.send(.retryQuery(attempt: 1))
  }
}

@Suite("Reducer: infinite paging of search results")
struct QueryPagingReducerTests {
  /// 25 results shown, the next batch at offset 25, on page `index`.
  static func results(at index: Int) -> PlayerState {
    var state = PlayerState()
    state.query = .search("band")
    state.feed = .loaded
    state.songs = Results.songs(1...25)
    state.index = index
    state.playID = 1
    state.playback = .playing
    state.queryPaging = QueryPaging(nextOffset: 25, limit: 25)
    return state
  }

  @Test("paging to within 5 of the end asks for the next 25 at offset 25, once")
  func asksNearTheEnd() {
    var store = ReducerTestStore(Self.results(at: 17))
    let songs = Results.songs(1...25)
    store.send(.next, effects: [.play(songs[18], playID: 2)]) {
      $0.index = 18
      $0.playID = 2
      $0.playback = .loading
    }
    // Page 20 of 25: five pages are left after it.
    store.send(
      .next,
      effects: [.play(songs[19], playID: 3), .runQuery(.search("band"), offset: 25, limit: 25)]
    ) {
      $0.index = 19
      $0.playID = 3
      $0.queryPaging?.isLoading = true
    }
    store.send(.next, effects: [.play(songs[20], playID: 4)]) {
      $0.index = 20
      $0.playID = 4
    }
  }

  @Test("a batch is appended without a jump; the page and song stay; the offset moves on")
  func appended() {
    var state = Self.results(at: 20)
    state.queryPaging?.isLoading = true
    var store = ReducerTestStore(state)
    let more = Results.songs(26...50)
    store.send(.queryPageLoaded(.search("band"), offset: 25, more, received: 25)) {
      $0.songs += more
      $0.queryPaging = QueryPaging(nextOffset: 50, limit: 25)
    }
  }

  @Test("a short batch is the last: no further requests however far one pages")
  func shortBatchEnds() {
    var state = Self.results(at: 24)
    state.queryPaging?.isLoading = true
    var store = ReducerTestStore(state)
    let more = Results.songs(26...30)
    store.send(.queryPageLoaded(.search("band"), offset: 25, more, received: 5)) {
      $0.songs += more
      $0.queryPaging = QueryPaging(nextOffset: nil, limit: 25)
    }
    store.send(.next, effects: [.play(more[0], playID: 2)]) {
      $0.index = 25
      $0.playID = 2
      $0.playback = .loading
    }
  }

  @Test("a batch for an old offset or another query is ignored")
  func staleBatch() {
    var state = Self.results(at: 20)
    state.queryPaging?.isLoading = true
    var store = ReducerTestStore(state)
    store.send(.queryPageLoaded(.search("band"), offset: 0, Results.songs(1...25), received: 25))
    store.send(.queryPageLoaded(.search("other"), offset: 25, Results.songs(26...50), received: 25))
  }

  @Test("a rate-limited batch backs off: no request while waiting, then the same offset again")
  func batchBackoff() {
    var state = Self.results(at: 20)
    state.queryPaging?.isLoading = true
    var store = ReducerTestStore(state)
    store.send(
      .queryPageFailed(.search("band"), "limiting", retry: true, retryAfter: nil),
      effects: [.scheduleQueryPageRetry(after: 1, attempt: 1)]
    ) {
      $0.queryPaging?.attempts = 1
      $0.message = .init(.error, "limiting: more songs in 1 s")
    }
    store.send(.next, effects: [.play(Results.songs(1...25)[21], playID: 2)]) {
      $0.index = 21
      $0.playID = 2
      $0.playback = .loading
      $0.message = nil
    }
    store.send(
      .retryQueryPage(attempt: 1), effects: [.runQuery(.search("band"), offset: 25, limit: 25)])
    store.send(.retryQueryPage(attempt: 0))
  }

  @Test("a batch that fails for good waits for the next page turn")
  func batchFailsForGood() {
    var state = Self.results(at: 20)
    state.queryPaging?.isLoading = true
    var store = ReducerTestStore(state)
    store.send(.queryPageFailed(.search("band"), "Bad answer", retry: false, retryAfter: nil)) {
      $0.queryPaging?.isLoading = false
      $0.message = .init(.error, "Bad answer: more songs when you page again")
    }
    store.send(
      .next,
      effects: [
        .play(Results.songs(1...25)[21], playID: 2),
        .runQuery(.search("band"), offset: 25, limit: 25),
      ]
    ) {
      $0.index = 21
      $0.playID = 2
      $0.playback = .loading
      $0.queryPaging?.isLoading = true
      $0.message = nil
    }
  }

  @Test("the last result ended while more were on the way: the next starts when they come")
  func finishedWaiting() {
    var state = Self.results(at: 24)
    state.playback = .finished
    state.queryPaging?.isLoading = true
    var store = ReducerTestStore(state)
    let more = Results.songs(26...50)
    store.send(
      .queryPageLoaded(.search("band"), offset: 25, more, received: 25),
      effects: [.play(more[0], playID: 2)]
    ) {
      $0.songs += more
      $0.index = 25
      $0.playID = 2
      $0.playback = .loading
      $0.queryPaging = QueryPaging(nextOffset: 50, limit: 25)
    }
  }

  @Test("starting the feed again leaves the results behind")
  func startFeedClearsQuery() {
    var store = ReducerTestStore(Self.results(at: 3))
    store.send(.start(Fixture.feedURL), effects: [.loadFeed(Fixture.feedURL)]) {
      $0.query = nil
      $0.queryPaging = nil
      $0.feedURL = Fixture.feedURL
      $0.feed = .loading
    }
  }
}
