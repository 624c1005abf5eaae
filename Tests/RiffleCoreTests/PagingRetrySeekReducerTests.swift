import Foundation
import Testing

@testable import RiffleCore

// Exhaustive reducer tests (through `ReducerTestStore`) of feed paging, retrying a feed that
// could not be loaded, `.retry`, seeking and likes the server refused.

/// Numbered songs and paging states for these tests.
private enum Pages {
  static let url = Fixture.feedURL

  /// Song `n`: id "song-n", lasting 120 + n seconds.
  static func song(_ n: Int) -> Song {
    Song(
      id: "song-\(n)", title: "Song \(n)", displayName: "Artist \(n)", handle: "artist\(n)",
      audioURL: URL(string: "https://cdn1.example.com/song-\(n).mp3")!, duration: Double(120 + n))
  }

  static func songs(_ range: Range<Int>) -> [Song] { range.map(song) }

  /// A paging feed with songs 0..<count loaded, page `index` asked to play under `playID`.
  static func state(
    count: Int, index: Int, playID: Int = 1, playback: PlayerState.Playback = .playing,
    paging: PlayerState.Paging? = .init(nextPage: 2, pageSize: 10, totalPages: 5)
  ) -> PlayerState {
    Fixture.state {
      $0.feedURL = url
      $0.feed = .loaded
      $0.songs = songs(0..<count)
      $0.index = index
      $0.playID = playID
      $0.playback = playback
      $0.duration = song(index).duration
      $0.paging = paging
    }
  }
}

@Suite("Feed paging")
struct FeedPagingReducerTests {
  @Test("A short first page plays and asks for page 2 at once")
  func shortFirstPageAsksForMore() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.feedURL = Pages.url
        $0.feed = .loading
      })
    let songs = Pages.songs(0..<3)
    store.send(
      .feedLoaded(songs, skipped: 0, paging: FeedPaging(page: 1, pageSize: 3, totalPages: 5)),
      effects: [
        .play(songs[0], playID: 1), .loadFeedPage(Pages.url, page: 2, pageSize: 3),
      ]
    ) {
      $0.feed = .loaded
      $0.songs = songs
      $0.index = 0
      $0.paging = .init(nextPage: 2, pageSize: 3, totalPages: 5, isLoading: true)
      $0.playID = 1
      $0.playback = .loading
      $0.position = 0
      $0.duration = 120
    }
  }

  @Test("A long first page notes the next page but does not ask for it yet")
  func longFirstPageWaits() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.feedURL = Pages.url
        $0.feed = .loading
      })
    let songs = Pages.songs(0..<10)
    store.send(
      .feedLoaded(songs, skipped: 0, paging: FeedPaging(page: 1, pageSize: 10)),
      effects: [.play(songs[0], playID: 1)]
    ) {
      $0.feed = .loaded
      $0.songs = songs
      $0.paging = .init(nextPage: 2, pageSize: 10, totalPages: nil, isLoading: false)
      $0.playID = 1
      $0.playback = .loading
      $0.duration = 120
    }
  }

  @Test("A first page that is also the last asks for nothing more, however short")
  func singlePageFeed() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.feedURL = Pages.url
        $0.feed = .loading
      })
    let songs = Pages.songs(0..<2)
    store.send(
      .feedLoaded(songs, skipped: 0, paging: FeedPaging(page: 1, pageSize: 2, totalPages: 1)),
      effects: [.play(songs[0], playID: 1)]
    ) {
      $0.feed = .loaded
      $0.songs = songs
      $0.paging = .init(nextPage: nil, pageSize: 2, totalPages: 1)
      $0.playID = 1
      $0.playback = .loading
      $0.duration = 120
    }
    store.send(.next, effects: [.play(songs[1], playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.duration = 121
    }
    store.send(.next)
  }

  @Test("An empty first page of a paging feed asks for no next page")
  func emptyFirstPage() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.feedURL = Pages.url
        $0.feed = .loading
      })
    store.send(.feedLoaded([], skipped: 0, paging: FeedPaging(page: 1, pageSize: 10))) {
      $0.feed = .loaded
      $0.paging = .init(nextPage: nil, pageSize: 10, totalPages: nil)
      $0.message = .init(.info, "The feed has no songs")
    }
  }

  @Test("Next asks for the next page once the user is within 3 songs of the end")
  func nextNearTheEndLoadsMore() {
    var store = ReducerTestStore(Pages.state(count: 10, index: 4, playID: 5))
    // Page 5 of 0...9: four songs still ahead, no request.
    store.send(.next, effects: [.play(Pages.song(5), playID: 6)]) {
      $0.index = 5
      $0.playID = 6
      $0.playback = .loading
      $0.duration = 125
    }
    // Page 6: three ahead, the lookahead is reached.
    store.send(
      .next,
      effects: [.play(Pages.song(6), playID: 7), .loadFeedPage(Pages.url, page: 2, pageSize: 10)]
    ) {
      $0.index = 6
      $0.playID = 7
      $0.duration = 126
      $0.paging?.isLoading = true
    }
  }

  @Test("Paging on while a page is loading does not ask for it twice")
  func notTwiceWhileLoading() {
    var loading = Pages.state(count: 10, index: 6, playID: 7)
    loading.paging?.isLoading = true
    var store = ReducerTestStore(loading)
    store.send(.next, effects: [.play(Pages.song(7), playID: 8)]) {
      $0.index = 7
      $0.playID = 8
      $0.playback = .loading
      $0.duration = 127
    }
    store.send(.next, effects: [.play(Pages.song(8), playID: 9)]) {
      $0.index = 8
      $0.playID = 9
      $0.duration = 128
    }
    store.send(.next, effects: [.play(Pages.song(9), playID: 10)]) {
      $0.index = 9
      $0.playID = 10
      $0.duration = 129
    }
    // On the last song with the page still out: nothing at all.
    store.send(.next)
  }

  @Test("Previous never asks for a page")
  func previousDoesNotLoad() {
    var store = ReducerTestStore(Pages.state(count: 10, index: 9, playID: 3))
    store.send(.previous, effects: [.play(Pages.song(8), playID: 4)]) {
      $0.index = 8
      $0.playID = 4
      $0.playback = .loading
      $0.duration = 128
    }
  }

  @Test("A finished track near the end asks for the next page with the next song")
  func trackFinishedNearTheEnd() {
    var store = ReducerTestStore(Pages.state(count: 10, index: 5, playID: 2))
    store.send(
      .trackFinished(playID: 2),
      effects: [.play(Pages.song(6), playID: 3), .loadFeedPage(Pages.url, page: 2, pageSize: 10)]
    ) {
      $0.index = 6
      $0.playID = 3
      $0.playback = .loading
      $0.position = 0
      $0.duration = 126
      $0.paging?.isLoading = true
    }
  }

  @Test("A page that arrives is appended without moving the current page, duplicates dropped")
  func pageAppendsWithoutMoving() {
    var state = Pages.state(count: 10, index: 7, playID: 8)
    state.paging?.isLoading = true
    state.position = 33
    var store = ReducerTestStore(state)
    let page = [Pages.song(10), Pages.song(3), Pages.song(11), Pages.song(7), Pages.song(12)]
    store.send(
      .feedPageLoaded(page, paging: FeedPaging(page: 2, pageSize: 10, totalPages: 5))
    ) {
      $0.songs += [Pages.song(10), Pages.song(11), Pages.song(12)]
      $0.paging = .init(nextPage: 3, pageSize: 10, totalPages: 5, isLoading: false)
    }
    #expect(store.state.currentSong == Pages.song(7))
    #expect(Set(store.state.songs.map(\.id)).count == store.state.songs.count)
  }

  @Test("A page that still leaves the user near the end asks for the one after at once")
  func shortPageAsksForTheNextAtOnce() {
    var state = Pages.state(count: 3, index: 2, playID: 3)
    state.paging = .init(nextPage: 2, pageSize: 3, totalPages: nil, isLoading: true)
    var store = ReducerTestStore(state)
    store.send(
      .feedPageLoaded([Pages.song(3)], paging: FeedPaging(page: 2, pageSize: 3)),
      effects: [.loadFeedPage(Pages.url, page: 3, pageSize: 3)]
    ) {
      $0.songs.append(Pages.song(3))
      $0.paging = .init(nextPage: 3, pageSize: 3, totalPages: nil, isLoading: true)
    }
  }

  @Test("A page of nothing but duplicates still moves paging on")
  func pageOfDuplicates() {
    var state = Pages.state(count: 10, index: 1, playID: 2)
    state.paging?.isLoading = true
    var store = ReducerTestStore(state)
    store.send(
      .feedPageLoaded([Pages.song(8), Pages.song(9)], paging: FeedPaging(page: 2, totalPages: 5))
    ) {
      $0.paging = .init(nextPage: 3, pageSize: 10, totalPages: 5, isLoading: false)
    }
  }

  @Test("An empty page stops paging for good")
  func emptyPageStops() {
    var state = Pages.state(count: 4, index: 3, playID: 4)
    state.paging?.isLoading = true
    var store = ReducerTestStore(state)
    store.send(.feedPageLoaded([], paging: FeedPaging(page: 2, pageSize: 10))) {
      $0.paging = .init(nextPage: nil, pageSize: 10, totalPages: 5, isLoading: false)
    }
    store.send(.next)
    store.send(.retry)
  }

  @Test("The page numbered total_pages is the last one asked for")
  func totalPagesReachedStops() {
    var state = Pages.state(count: 3, index: 2, playID: 3)
    state.paging = .init(nextPage: 3, pageSize: 3, totalPages: 3, isLoading: true)
    var store = ReducerTestStore(state)
    store.send(
      .feedPageLoaded(Pages.songs(3..<5), paging: FeedPaging(page: 3, pageSize: 3, totalPages: 3))
    ) {
      $0.songs += Pages.songs(3..<5)
      $0.paging = .init(nextPage: nil, pageSize: 3, totalPages: 3, isLoading: false)
    }
    store.send(.next, effects: [.play(Pages.song(3), playID: 4)]) {
      $0.index = 3
      $0.playID = 4
      $0.playback = .loading
      $0.duration = 123
    }
    store.send(.next, effects: [.play(Pages.song(4), playID: 5)]) {
      $0.index = 4
      $0.playID = 5
      $0.duration = 124
    }
    store.send(.next)
  }

  @Test("A page that lowers total_pages to its own number ends paging")
  func totalPagesShrinks() {
    var state = Pages.state(count: 3, index: 0, playID: 1)
    state.paging = .init(nextPage: 2, pageSize: 3, totalPages: 9, isLoading: true)
    var store = ReducerTestStore(state)
    store.send(
      .feedPageLoaded(Pages.songs(3..<6), paging: FeedPaging(page: 2, pageSize: 3, totalPages: 2))
    ) {
      $0.songs += Pages.songs(3..<6)
      $0.paging = .init(nextPage: nil, pageSize: 3, totalPages: 2, isLoading: false)
    }
  }

  @Test("A page clears an error message but keeps an info message")
  func pageClearsErrors() {
    var state = Pages.state(count: 10, index: 6, playID: 7)
    state.paging?.isLoading = true
    state.message = .init(.error, "Server error 502 from feed.example.com")
    var store = ReducerTestStore(state)
    store.send(.feedPageLoaded([Pages.song(10)], paging: FeedPaging(page: 2))) {
      $0.songs.append(Pages.song(10))
      $0.paging = .init(nextPage: 3, pageSize: 10, totalPages: 5, isLoading: false)
      $0.message = nil
    }

    state.message = .init(.info, "skipped 1 song without an id or audio URL")
    store = ReducerTestStore(state)
    store.send(.feedPageLoaded([Pages.song(10)], paging: FeedPaging(page: 2))) {
      $0.songs.append(Pages.song(10))
      $0.paging = .init(nextPage: 3, pageSize: 10, totalPages: 5, isLoading: false)
    }
  }

  @Test("A failed page says so, keeps the songs, and is asked for again on the next Next")
  func pageFailedThenRetriedOnNext() {
    var state = Pages.state(count: 10, index: 7, playID: 8)
    state.paging?.isLoading = true
    var store = ReducerTestStore(state)
    store.send(.feedPageFailed("Server error 503 from studio-api.example.com")) {
      $0.paging?.isLoading = false
      $0.message = .init(
        .error, "Server error 503 from studio-api.example.com: more songs when you page again")
    }
    #expect(store.state.songs == Pages.songs(0..<10))
    store.send(
      .next,
      effects: [.play(Pages.song(8), playID: 9), .loadFeedPage(Pages.url, page: 2, pageSize: 10)]
    ) {
      $0.index = 8
      $0.playID = 9
      $0.playback = .loading
      $0.duration = 128
      $0.paging?.isLoading = true
      $0.message = nil
    }
  }

  @Test("A failed page is asked for again by Next on the last song, which does not move")
  func pageFailedRetriedOnLastSong() {
    var state = Pages.state(count: 3, index: 2, playID: 3)
    state.paging?.isLoading = true
    var store = ReducerTestStore(state)
    store.send(.feedPageFailed("No connection to studio-api.example.com")) {
      $0.paging?.isLoading = false
      $0.message = .init(
        .error, "No connection to studio-api.example.com: more songs when you page again")
    }
    store.send(.next, effects: [.loadFeedPage(Pages.url, page: 2, pageSize: 10)]) {
      $0.paging?.isLoading = true
    }
    // And while that request is out, Next does nothing.
    store.send(.next)
  }

  @Test("Page reports for a feed that does not page are ignored")
  func pageReportsWithoutPaging() {
    var store = ReducerTestStore(Pages.state(count: 3, index: 2, playID: 3, paging: nil))
    store.send(.feedPageLoaded(Pages.songs(3..<6), paging: FeedPaging(page: 2)))
    store.send(.feedPageFailed("Server error 500 from studio-api.example.com"))
    store.send(.next)
  }

  @Test("When the last song finished waiting for more, the arriving page plays on")
  func finishedThenPageContinues() {
    var state = Pages.state(count: 3, index: 2, playID: 3, playback: .playing)
    state.paging = .init(nextPage: 2, pageSize: 3, totalPages: 4, isLoading: true)
    var store = ReducerTestStore(state)
    store.send(.trackFinished(playID: 3)) {
      $0.playback = .finished
      $0.position = 122
    }
    store.send(
      .feedPageLoaded(Pages.songs(3..<6), paging: FeedPaging(page: 2, pageSize: 3, totalPages: 4)),
      effects: [.play(Pages.song(3), playID: 4), .loadFeedPage(Pages.url, page: 3, pageSize: 3)]
    ) {
      $0.songs += Pages.songs(3..<6)
      $0.index = 3
      $0.playID = 4
      $0.playback = .loading
      $0.position = 0
      $0.duration = 123
      $0.paging = .init(nextPage: 3, pageSize: 3, totalPages: 4, isLoading: true)
    }
  }

  @Test("A page of only known songs after the last one finished stays finished")
  func finishedThenDuplicatePage() {
    var state = Pages.state(count: 3, index: 2, playID: 3, playback: .finished)
    state.position = 122
    state.paging = .init(nextPage: 2, pageSize: 3, totalPages: 4, isLoading: true)
    var store = ReducerTestStore(state)
    store.send(
      .feedPageLoaded([Pages.song(1)], paging: FeedPaging(page: 2, pageSize: 3, totalPages: 4)),
      effects: [.loadFeedPage(Pages.url, page: 3, pageSize: 3)]
    ) {
      $0.paging = .init(nextPage: 3, pageSize: 3, totalPages: 4, isLoading: true)
    }
  }

  @Test("A page arriving while the last song still plays does not skip it")
  func pageWhilePlayingLastSong() {
    var state = Pages.state(count: 3, index: 2, playID: 3, playback: .playing)
    state.position = 60
    state.paging?.isLoading = true
    var store = ReducerTestStore(state)
    store.send(.feedPageLoaded(Pages.songs(3..<13), paging: FeedPaging(page: 2))) {
      $0.songs += Pages.songs(3..<13)
      $0.paging = .init(nextPage: 3, pageSize: 10, totalPages: 5, isLoading: false)
    }
  }
}

@Suite("Retrying a feed that could not be loaded")
struct FeedRetryReducerTests {
  static let reason = "No connection to studio-api.example.com"

  @Test("Transient failures retry after 1, 2, 4, 8, 16, 30 and 30 seconds")
  func backoffDoubles() {
    var store = ReducerTestStore(PlayerState())
    store.send(.start(Pages.url), effects: [.loadFeed(Pages.url)]) {
      $0.feedURL = Pages.url
      $0.feed = .loading
    }
    let reason = Self.reason
    for (attempt, delay) in [1, 2, 4, 8, 16, 30, 30].enumerated() {
      store.send(
        .feedFailed(reason, retry: true),
        effects: [.scheduleFeedRetry(after: Double(delay), attempt: attempt + 1)]
      ) {
        $0.feed = .failed(reason)
        $0.feedAttempts = attempt + 1
        $0.message = .init(.error, "\(reason): retrying in \(delay) s")
      }
      store.send(.retryFeed(attempt: attempt + 1), effects: [.loadFeed(Pages.url)]) {
        $0.feed = .loading
      }
    }
    #expect(store.state.feedAttempts == 7)
    // It answers at last: the songs show and the count starts over.
    store.send(.feedLoaded(Fixture.songs, skipped: 0), effects: [.play(Fixture.first, playID: 1)]) {
      $0.feed = .loaded
      $0.feedAttempts = 0
      $0.songs = Fixture.songs
      $0.playID = 1
      $0.playback = .loading
      $0.duration = 187.52
      $0.message = nil
    }
  }

  @Test("Retry-After from the server sets the wait instead of the backoff")
  func retryAfterOverrides() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.feedURL = Pages.url
        $0.feed = .loading
        $0.feedAttempts = 3
      })
    let reason = "Too many requests (429): studio-api.example.com asks us to slow down"
    store.send(
      .feedFailed(reason, retry: true, retryAfter: 7),
      effects: [.scheduleFeedRetry(after: 7, attempt: 4)]
    ) {
      $0.feed = .failed(reason)
      $0.feedAttempts = 4
      $0.message = .init(.error, "\(reason): retrying in 7 s")
    }
    store.send(.retryFeed(attempt: 4), effects: [.loadFeed(Pages.url)]) { $0.feed = .loading }
    store.send(
      .feedFailed(reason, retry: true, retryAfter: 120),
      effects: [.scheduleFeedRetry(after: 120, attempt: 5)]
    ) {
      $0.feed = .failed(reason)
      $0.feedAttempts = 5
      $0.message = .init(.error, "\(reason): retrying in 120 s")
    }
  }

  @Test("A Retry-After of zero still waits one second")
  func retryAfterZero() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.feedURL = Pages.url
        $0.feed = .loading
      })
    let reason = "Server error 503 from studio-api.example.com"
    store.send(
      .feedFailed(reason, retry: true, retryAfter: 0),
      effects: [.scheduleFeedRetry(after: 1, attempt: 1)]
    ) {
      $0.feed = .failed(reason)
      $0.feedAttempts = 1
      $0.message = .init(.error, "\(reason): retrying in 1 s")
    }
  }

  @Test("A failure that will not pass is shown without a retry")
  func noRetryWhenNotTransient() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.feedURL = Pages.url
        $0.feed = .loading
        $0.feedAttempts = 2
      })
    let reason = "Not found (404) at studio-api.example.com"
    store.send(.feedFailed(reason, retry: false)) {
      $0.feed = .failed(reason)
      $0.message = .init(.error, reason)
    }
    store.send(.retryFeed(attempt: 2), effects: [.loadFeed(Pages.url)]) { $0.feed = .loading }
  }

  @Test("A retry scheduled before a newer failure is stale and does nothing")
  func staleRetryIgnored() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.feedURL = Pages.url
        $0.feed = .failed(Self.reason)
        $0.feedAttempts = 3
      })
    store.send(.retryFeed(attempt: 2))
    store.send(.retryFeed(attempt: 3), effects: [.loadFeed(Pages.url)]) { $0.feed = .loading }
  }

  @Test("A feed failure with songs on screen only shows the message")
  func failureWithSongsKeepsThem() {
    var store = ReducerTestStore(Pages.state(count: 3, index: 1, playID: 2))
    store.send(.feedFailed(Self.reason, retry: true)) {
      $0.message = .init(.error, Self.reason)
    }
    store.send(.retryFeed(attempt: 0))
  }

  @Test("retryFeed does nothing unless the feed failed and no songs are shown")
  func retryFeedOnlyWhenFailed() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.feedURL = Pages.url
        $0.feed = .loading
      })
    store.send(.retryFeed(attempt: 0))
    store = ReducerTestStore(Pages.state(count: 3, index: 0))
    store.send(.retryFeed(attempt: 0))
    store = ReducerTestStore(Fixture.state { $0.feed = .failed(Self.reason) })
    store.send(.retryFeed(attempt: 0))
    store = ReducerTestStore(
      Fixture.state {
        $0.feedURL = Pages.url
        $0.feed = .failed(Self.reason)
        $0.songs = Fixture.songs
      })
    store.send(.retryFeed(attempt: 0))
    store = ReducerTestStore(Fixture.state { $0.feedURL = Pages.url })
    store.send(.retryFeed(attempt: 0))
  }
}

@Suite("Retry")
struct RetryActionReducerTests {
  @Test("Retry after a failed feed loads it again and clears the message")
  func retryFailedFeed() {
    let reason = "Not found (404) at studio-api.example.com"
    var store = ReducerTestStore(
      Fixture.state {
        $0.feedURL = Pages.url
        $0.feed = .failed(reason)
        $0.feedAttempts = 2
        $0.message = .init(.error, reason)
      })
    store.send(.retry, effects: [.loadFeed(Pages.url)]) {
      $0.feed = .loading
      $0.message = nil
    }
  }

  @Test("Retry after a failed song plays it again under a new request")
  func retryFailedSong() {
    var state = Fixture.loaded(at: 0, playID: 4, playback: .failed("Connection was cut off"))
    state.message = .init(.error, "Cannot play \u{201C}Neon Tide\u{201D}: Connection was cut off")
    state.position = 12
    var store = ReducerTestStore(state)
    store.send(.retry, effects: [.play(Fixture.first, playID: 5)]) {
      $0.playID = 5
      $0.playback = .loading
      $0.position = 0
      $0.message = nil
    }
  }

  @Test("Retry with nothing failed changes nothing")
  func retryOtherwise() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 2, position: 20))
    store.send(.retry)
    store = ReducerTestStore(Fixture.loaded(at: 2, playID: 2, playback: .paused))
    store.send(.retry)
    store = ReducerTestStore(PlayerState())
    store.send(.retry)
    store = ReducerTestStore(Fixture.state { $0.feed = .failed("Cannot read feed.json") })
    store.send(.retry)
  }

  @Test("Retry near the end of a paging feed asks for the page that failed")
  func retryFailedPage() {
    var store = ReducerTestStore(Pages.state(count: 3, index: 2, playID: 3))
    store.send(.retry, effects: [.loadFeedPage(Pages.url, page: 2, pageSize: 10)]) {
      $0.paging?.isLoading = true
    }
    store.send(.retry)
  }
}

@Suite("Seeking")
struct SeekReducerTests {
  @Test("Seek by moves the position and asks the engine under the current request")
  func seekByWithinSong() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 6, position: 100))
    store.send(.seek(by: 10), effects: [.seek(to: 110, playID: 6)]) { $0.position = 110 }
    store.send(.seek(by: -10), effects: [.seek(to: 100, playID: 6)]) { $0.position = 100 }
  }

  @Test("Seek by is clamped to the start and to a quarter second before the end")
  func seekByClamps() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 2, position: 5))
    store.send(.seek(by: -10), effects: [.seek(to: 0, playID: 2)]) { $0.position = 0 }
    store.send(.seek(by: 1000), effects: [.seek(to: 187.27, playID: 2)]) { $0.position = 187.27 }
    store.send(.seek(by: 10), effects: [.seek(to: 187.27, playID: 2)])
  }

  @Test("Seek to goes to the point given, clamped the same way")
  func seekToClamps() {
    var store = ReducerTestStore(Fixture.loaded(at: 2, playID: 3, position: 30))
    store.send(.seekTo(200), effects: [.seek(to: 200, playID: 3)]) { $0.position = 200 }
    store.send(.seekTo(-1), effects: [.seek(to: 0, playID: 3)]) { $0.position = 0 }
    store.send(.seekTo(242), effects: [.seek(to: 241.75, playID: 3)]) { $0.position = 241.75 }
    store.send(.seekTo(.infinity), effects: [.seek(to: 241.75, playID: 3)])
    store.send(.seekTo(.nan), effects: [.seek(to: 0, playID: 3)]) { $0.position = 0 }
  }

  @Test("Seeking while paused moves the position and stays paused")
  func seekWhilePaused() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, playback: .paused, position: 50))
    store.send(.seek(by: -10), effects: [.seek(to: 40, playID: 1)]) { $0.position = 40 }
  }

  @Test("Seeking while buffering is allowed")
  func seekWhileBuffering() {
    var store = ReducerTestStore(
      Fixture.loaded(at: 0, playID: 1, playback: .buffering, position: 50))
    store.send(.seekTo(90), effects: [.seek(to: 90, playID: 1)]) { $0.position = 90 }
  }

  @Test(
    "Seeking does nothing while loading, idle, finished or failed",
    arguments: [
      PlayerState.Playback.loading, .idle, .finished, .failed("Connection was cut off"),
    ])
  func seekIgnoredOutsidePlayback(_ playback: PlayerState.Playback) {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, playback: playback, position: 7))
    store.send(.seek(by: 10))
    store.send(.seekTo(60))
  }

  @Test("Seeking does nothing while the duration is unknown or zero")
  func seekIgnoredWithoutDuration() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 2, position: 7))
    #expect(store.state.duration == nil)
    store.send(.seek(by: 10))
    store.send(.seekTo(3))
    var zero = Fixture.loaded(at: 0, playID: 1, position: 0)
    zero.duration = 0
    store = ReducerTestStore(zero)
    store.send(.seek(by: 10))
    store.send(.seekTo(0))
  }

  @Test("In a song shorter than a quarter second every seek goes to the start")
  func seekInTinySong() {
    var state = Fixture.loaded(at: 0, playID: 1, position: 0.1)
    state.duration = 0.2
    var store = ReducerTestStore(state)
    store.send(.seek(by: 10), effects: [.seek(to: 0, playID: 1)]) { $0.position = 0 }
  }

  @Test("A seek names the request that is playing now, not an older one")
  func seekCarriesCurrentPlayID() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, position: 0))
    store.send(.next, effects: [.play(Fixture.second, playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.duration = nil
    }
    store.send(.playbackStarted(playID: 2, duration: 200)) {
      $0.playback = .playing
      $0.duration = 200
    }
    store.send(.seek(by: 30), effects: [.seek(to: 30, playID: 2)]) { $0.position = 30 }
  }
}

@Suite("Likes the server refused")
struct LikeRejectedReducerTests {
  static let reason = "Server error 500 from likes.example.com"

  @Test("A refused like is rolled back, saved locally as unliked, and explained")
  func rejectedLikeRollsBack() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1))
    store.send(.toggleLike, effects: [.persistLike(songID: Fixture.first.id, liked: true)]) {
      $0.songs[0].isLiked = true
      $0.songs[0].likeCount = 13
      $0.likePulse = PlayerState.likePulseFrames
    }
    store.send(
      .likeRejected(songID: Fixture.first.id, liked: true, Self.reason),
      effects: [.storeLikeLocally(songID: Fixture.first.id, liked: false)]
    ) {
      $0.songs[0].isLiked = false
      $0.songs[0].likeCount = 12
      $0.message = .init(.error, "Could not like \u{201C}Neon Tide\u{201D}: \(Self.reason)")
    }
    #expect(store.state.songs[0] == Fixture.first)
  }

  @Test("A refused unlike is rolled back to liked, saved locally, and explained")
  func rejectedUnlikeRollsBack() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 2))
    store.send(.toggleLike, effects: [.persistLike(songID: Fixture.second.id, liked: false)]) {
      $0.songs[1].isLiked = false
      $0.songs[1].likeCount = 2
      $0.likePulse = PlayerState.likePulseFrames
    }
    store.send(
      .likeRejected(songID: Fixture.second.id, liked: false, "Access denied (403) by h"),
      effects: [.storeLikeLocally(songID: Fixture.second.id, liked: true)]
    ) {
      $0.songs[1].isLiked = true
      $0.songs[1].likeCount = 3
      $0.message = .init(
        .error, "Could not unlike \u{201C}Paper Lanterns\u{201D}: Access denied (403) by h")
    }
  }

  @Test("A refusal of a state the user has since changed only explains")
  func rejectedButChangedSince() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1))
    // The server refused `liked: true`, but the song already shows unliked again.
    store.send(.likeRejected(songID: Fixture.first.id, liked: true, Self.reason)) {
      $0.message = .init(.error, "Could not like \u{201C}Neon Tide\u{201D}: \(Self.reason)")
    }
  }

  @Test("A refusal for a song on another page rolls that song back")
  func rejectedOnAnotherPage() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1))
    store.send(
      .likeRejected(songID: Fixture.third.id, liked: true, Self.reason),
      effects: [.storeLikeLocally(songID: Fixture.third.id, liked: false)]
    ) {
      $0.songs[2].isLiked = false
      $0.message = .init(.error, "Could not like \u{201C}Slow Orbit\u{201D}: \(Self.reason)")
    }
  }

  @Test("A refusal for an untitled song calls it 'the song'")
  func rejectedUntitled() {
    var state = Fixture.loaded(at: 0, playID: 1)
    state.songs[0].title = ""
    var store = ReducerTestStore(state)
    store.send(.likeRejected(songID: Fixture.first.id, liked: true, Self.reason)) {
      $0.message = .init(.error, "Could not like the song: \(Self.reason)")
    }
  }

  @Test("A refusal for a song no longer listed changes nothing")
  func rejectedUnknownSong() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1))
    store.send(.likeRejected(songID: "gone", liked: true, Self.reason))
  }
}
