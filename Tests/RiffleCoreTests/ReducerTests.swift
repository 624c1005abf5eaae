import Foundation
import Testing

@testable import RiffleCore

// Exhaustive tests of `reduce(_:_:)`: every changed field and every effect is asserted through
// `ReducerTestStore`; a `send` without an update closure asserts that nothing changed.

@Suite("Turning pages")
struct PagingReducerTests {
  @Test("Next on the first page plays the second song")
  func nextFromFirstPage() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, position: 42))
    store.send(.next, effects: [.play(Fixture.second, playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.position = 0
      $0.duration = nil
    }
  }

  @Test("Next on a middle page plays the last song")
  func nextFromMiddlePage() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 5, position: 10))
    store.send(.next, effects: [.play(Fixture.third, playID: 6)]) {
      $0.index = 2
      $0.playID = 6
      $0.playback = .loading
      $0.position = 0
      $0.duration = 242
    }
  }

  @Test("Next on the last page changes nothing and asks for nothing")
  func nextOnLastPageIsIgnored() {
    var store = ReducerTestStore(Fixture.loaded(at: 2, playID: 3, position: 100))
    store.send(.next)
    #expect(!store.state.canGoNext)
  }

  @Test("Previous on the first page changes nothing and asks for nothing")
  func previousOnFirstPageIsIgnored() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, position: 9))
    store.send(.previous)
    #expect(!store.state.canGoPrevious)
  }

  @Test("Previous on a middle page plays the first song")
  func previousFromMiddlePage() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 4, position: 30))
    store.send(.previous, effects: [.play(Fixture.first, playID: 5)]) {
      $0.index = 0
      $0.playID = 5
      $0.playback = .loading
      $0.position = 0
      $0.duration = 187.52
    }
  }

  @Test("Previous on the last page plays the middle song")
  func previousFromLastPage() {
    var store = ReducerTestStore(Fixture.loaded(at: 2, playID: 9, playback: .finished))
    store.send(.previous, effects: [.play(Fixture.second, playID: 10)]) {
      $0.index = 1
      $0.playID = 10
      $0.playback = .loading
      $0.duration = nil
    }
  }

  @Test("Next and previous without songs change nothing")
  func pagingWithoutSongsIsIgnored() {
    var store = ReducerTestStore(
      Fixture.state { $0.source = PageSource(kind: .feed(Fixture.feedURL)) })
    store.send(.next)
    store.send(.previous)
    #expect(!store.state.canGoNext)
    #expect(!store.state.canGoPrevious)
  }

  @Test("Next from a paused song starts the next song playing")
  func nextWhilePaused() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 2, playback: .paused))
    store.send(.next, effects: [.play(Fixture.second, playID: 3)]) {
      $0.index = 1
      $0.playID = 3
      $0.playback = .loading
      $0.duration = nil
    }
  }

  @Test("Turning pages leaves the help overlay open and finishes the like pop")
  func pagingKeepsOverlayAndFinishesPulse() {
    var state = Fixture.loaded(at: 0, playID: 1)
    state.overlay = .help
    state.likePulse = 4
    var store = ReducerTestStore(state)
    store.send(.next, effects: [.play(Fixture.second, playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.duration = nil
      $0.likePulse = 0
    }
  }

  @Test("A like pressed during a pop starts a new pop")
  func likeDuringPulse() {
    var state = Fixture.loaded(at: 0, playID: 1)
    state.likePulse = 2
    var store = ReducerTestStore(state)
    store.send(
      .toggleLike,
      effects: [.persistLike(songID: Fixture.first.id, liked: true, sync: .likesEndpoint)]
    ) {
      $0.songs[0] = Fixture.first.togglingLike()
      $0.likePulse = PlayerState.likePulseFrames
    }
  }

  @Test("Paging there and back numbers every play request anew")
  func pagingThereAndBack() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1))
    store.send(.next, effects: [.play(Fixture.second, playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.duration = nil
    }
    store.send(.previous, effects: [.play(Fixture.first, playID: 3)]) {
      $0.index = 0
      $0.playID = 3
      $0.duration = 187.52
    }
  }
}

@Suite("Play and pause")
struct TogglePlayReducerTests {
  @Test(
    "Toggling play while sound is coming or expected pauses it",
    arguments: [PlayerState.Playback.playing, .buffering, .loading])
  func togglePlayPauses(from playback: PlayerState.Playback) {
    var store = ReducerTestStore(
      Fixture.loaded(at: 1, playID: 4, playback: playback, position: 12))
    store.send(.togglePlay, effects: [.pause]) {
      $0.playback = .paused
    }
    #expect(!store.state.needsTimer)
  }

  @Test("Toggling play while paused resumes")
  func togglePlayResumes() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 4, playback: .paused, position: 12))
    store.send(.togglePlay, effects: [.resume]) {
      $0.playback = .playing
    }
    #expect(store.state.needsTimer)
  }

  @Test("Toggling play when idle plays the current song under a new request")
  func togglePlayFromIdle() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 4, playback: .idle))
    store.send(.togglePlay, effects: [.play(Fixture.second, playID: 5)]) {
      $0.playID = 5
      $0.playback = .loading
    }
  }

  @Test("Toggling play after the last song finished plays it again from the start")
  func togglePlayFromFinished() {
    var store = ReducerTestStore(
      Fixture.loaded(at: 2, playID: 6, playback: .finished, position: 242))
    store.send(.togglePlay, effects: [.play(Fixture.third, playID: 7)]) {
      $0.playID = 7
      $0.playback = .loading
      $0.position = 0
    }
  }

  @Test("Toggling play after a failure retries the song and clears the error")
  func togglePlayFromFailed() {
    var state = Fixture.loaded(at: 0, playID: 2, playback: .failed("HTTP 503"), position: 3)
    state.message = .init(.error, "Cannot play \u{201C}Neon Tide\u{201D}: HTTP 503")
    var store = ReducerTestStore(state)
    store.send(.togglePlay, effects: [.play(Fixture.first, playID: 3)]) {
      $0.playID = 3
      $0.playback = .loading
      $0.position = 0
      $0.message = nil
    }
  }

  @Test("Toggling play with no songs changes nothing")
  func togglePlayWithoutSongs() {
    var store = ReducerTestStore(
      Fixture.state { $0.source = PageSource(kind: .feed(Fixture.feedURL)) })
    store.send(.togglePlay)
  }

  @Test("Toggling play after a failed feed changes nothing")
  func togglePlayAfterFailedFeed() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.opening = PageSource(kind: .feed(Fixture.feedURL), phase: .failed("offline"))
        $0.message = .init(.error, "offline")
      })
    store.send(.togglePlay)
  }

  @Test("Pause then resume round-trips to playing with the same request")
  func pauseResumeRoundTrip() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, position: 50))
    store.send(.togglePlay, effects: [.pause]) { $0.playback = .paused }
    store.send(.togglePlay, effects: [.resume]) { $0.playback = .playing }
    #expect(store.state.playID == 1)
  }
}

@Suite("Likes")
struct LikeReducerTests {
  @Test("Liking a song adds one to its count, starts the pulse and asks to save")
  func likeAddsOne() {
    var store = ReducerTestStore(Fixture.loaded(at: 0))
    store.send(
      .toggleLike,
      effects: [.persistLike(songID: Fixture.first.id, liked: true, sync: .likesEndpoint)]
    ) {
      $0.songs[0].isLiked = true
      $0.songs[0].likeCount = 13
      $0.likePulse = PlayerState.likePulseFrames
    }
    #expect(store.state.likePulse == 6)
  }

  @Test("Unliking a song takes one from its count and asks to save")
  func unlikeTakesOne() {
    var store = ReducerTestStore(Fixture.loaded(at: 1))
    store.send(
      .toggleLike,
      effects: [.persistLike(songID: Fixture.second.id, liked: false, sync: .likesEndpoint)]
    ) {
      $0.songs[1].isLiked = false
      $0.songs[1].likeCount = 2
      $0.likePulse = 6
    }
  }

  @Test("Unliking a song whose count is already zero keeps it at zero")
  func unlikeNeverBelowZero() {
    var store = ReducerTestStore(Fixture.loaded(at: 2))
    store.send(
      .toggleLike,
      effects: [.persistLike(songID: Fixture.third.id, liked: false, sync: .likesEndpoint)]
    ) {
      $0.songs[2].isLiked = false
      $0.songs[2].likeCount = 0
      $0.likePulse = 6
    }
  }

  @Test("Liking twice returns to the original count and saves both changes")
  func likeTwice() {
    var store = ReducerTestStore(Fixture.loaded(at: 0))
    store.send(
      .toggleLike,
      effects: [.persistLike(songID: Fixture.first.id, liked: true, sync: .likesEndpoint)]
    ) {
      $0.songs[0].isLiked = true
      $0.songs[0].likeCount = 13
      $0.likePulse = 6
    }
    store.send(.tick) {
      $0.frame = 1
      $0.likePulse = 5
    }
    store.send(
      .toggleLike,
      effects: [.persistLike(songID: Fixture.first.id, liked: false, sync: .likesEndpoint)]
    ) {
      $0.songs[0].isLiked = false
      $0.songs[0].likeCount = 12
      $0.likePulse = 6
    }
  }

  @Test("Liking with no songs changes nothing")
  func likeWithoutSongs() {
    var store = ReducerTestStore(
      Fixture.state { $0.source = PageSource(kind: .feed(Fixture.feedURL)) })
    store.send(.toggleLike)
  }

  @Test("Liking does not touch playback, even while paused")
  func likeWhilePaused() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playback: .paused, position: 61))
    store.send(
      .toggleLike,
      effects: [.persistLike(songID: Fixture.first.id, liked: true, sync: .likesEndpoint)]
    ) {
      $0.songs[0].isLiked = true
      $0.songs[0].likeCount = 13
      $0.likePulse = 6
    }
    #expect(store.state.needsTimer, "the pulse animates even while paused")
  }

  @Test("A failed save rolls the like back when the song still shows it")
  func likeSaveFailedRollsBack() {
    var store = ReducerTestStore(Fixture.loaded(at: 0))
    store.send(
      .toggleLike,
      effects: [.persistLike(songID: Fixture.first.id, liked: true, sync: .likesEndpoint)]
    ) {
      $0.songs[0].isLiked = true
      $0.songs[0].likeCount = 13
      $0.likePulse = 6
    }
    store.send(.likeSaveFailed(songID: Fixture.first.id, liked: true, "disk full")) {
      $0.songs[0].isLiked = false
      $0.songs[0].likeCount = 12
      $0.message = .init(.error, "Could not save the like: disk full")
    }
  }

  @Test("A failed save leaves the song alone when the user has changed it since")
  func likeSaveFailedAfterChange() {
    var state = Fixture.loaded(at: 0)
    // The user liked (save pending), then unliked again before the failure arrived.
    state.songs[0].isLiked = false
    var store = ReducerTestStore(state)
    store.send(.likeSaveFailed(songID: Fixture.first.id, liked: true, "read-only file system")) {
      $0.message = .init(.error, "Could not save the like: read-only file system")
    }
  }

  @Test("A failed save rolls back a song on another page")
  func likeSaveFailedOnOtherPage() {
    var store = ReducerTestStore(Fixture.loaded(at: 0))
    store.send(.likeSaveFailed(songID: Fixture.second.id, liked: true, "permission denied")) {
      $0.songs[1].isLiked = false
      $0.songs[1].likeCount = 2
      $0.message = .init(.error, "Could not save the like: permission denied")
    }
  }

  @Test("A failed save of an unknown song only shows the message")
  func likeSaveFailedUnknownSong() {
    var store = ReducerTestStore(Fixture.loaded(at: 0))
    store.send(.likeSaveFailed(songID: "no-such-song", liked: false, "I/O error")) {
      $0.message = .init(.error, "Could not save the like: I/O error")
    }
  }

  @Test("A failed save replaces an info message")
  func likeSaveFailedReplacesInfo() {
    var state = Fixture.loaded(at: 0)
    state.message = .init(.info, "skipped 1 song without an id or audio URL")
    state.songs[0].isLiked = true
    state.songs[0].likeCount = 13
    var store = ReducerTestStore(state)
    store.send(.likeSaveFailed(songID: Fixture.first.id, liked: true, "disk full")) {
      $0.songs[0].isLiked = false
      $0.songs[0].likeCount = 12
      $0.message = .init(.error, "Could not save the like: disk full")
    }
  }
}

@Suite("Help and quitting")
struct OverlayAndQuitReducerTests {
  @Test("Toggling help opens the overlay and toggling again closes it")
  func toggleHelp() {
    var store = ReducerTestStore(Fixture.loaded(at: 1))
    store.send(.toggleHelp) { $0.overlay = .help }
    store.send(.toggleHelp) { $0.overlay = nil }
  }

  @Test("Toggling help with no feed still opens the overlay")
  func toggleHelpBeforeFeed() {
    var store = ReducerTestStore(PlayerState())
    store.send(.toggleHelp) { $0.overlay = .help }
  }

  @Test("Quit marks the state as quitting and asks to quit")
  func quit() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, position: 12.5))
    let session = SavedSession(
      source: .feed(Fixture.feedURL),
      resumeAt: ResumePoint(songID: Fixture.first.id, position: 12.5), queue: [], volume: 100,
      isMuted: false, shuffle: false, repeatMode: .off)
    store.send(.quit, effects: [.saveSession(session), .quit]) { $0.isQuitting = true }
  }

  @Test("Quit before anything loaded still asks to quit")
  func quitEarly() {
    var store = ReducerTestStore(
      Fixture.state { $0.opening = PageSource(kind: .feed(Fixture.feedURL), phase: .loading) })
    let session = SavedSession(
      source: .feed(Fixture.feedURL), resumeAt: nil, queue: [], volume: 100, isMuted: false,
      shuffle: false, repeatMode: .off)
    store.send(.quit, effects: [.saveSession(session), .quit]) { $0.isQuitting = true }
    var empty = ReducerTestStore(PlayerState())
    empty.send(.quit, effects: [.quit]) { $0.isQuitting = true }
  }
}

@Suite("Reports from the playback engine")
struct PlaybackReportReducerTests {
  @Test("Started for the current request turns loading into playing and takes the duration")
  func startedSetsPlayingAndDuration() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 2, playback: .loading))
    store.send(.playbackStarted(playID: 2, duration: 201.04)) {
      $0.playback = .playing
      $0.duration = 201.04
    }
  }

  @Test("Started without a duration keeps the duration the feed gave")
  func startedWithoutDurationKeepsIt() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, playback: .loading))
    store.send(.playbackStarted(playID: 1, duration: nil)) {
      $0.playback = .playing
    }
    #expect(store.state.duration == 187.52)
  }

  @Test("Started for an older request changes nothing")
  func startedStaleIsIgnored() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 3, playback: .loading))
    store.send(.playbackStarted(playID: 2, duration: 99))
  }

  @Test("Started while paused stays paused but takes the duration")
  func startedWhilePausedKeepsPaused() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 3, playback: .paused))
    store.send(.playbackStarted(playID: 3, duration: 150)) {
      $0.duration = 150
    }
  }

  @Test("Started after buffering plays again")
  func startedAfterBuffering() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, playback: .buffering))
    store.send(.playbackStarted(playID: 1, duration: 187.5)) {
      $0.playback = .playing
      $0.duration = 187.5
    }
  }

  @Test("Buffering for the current request while playing shows buffering")
  func bufferingWhilePlaying() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, playback: .playing))
    store.send(.playbackBuffering(playID: 1)) { $0.playback = .buffering }
    #expect(store.state.needsTimer)
  }

  @Test(
    "Buffering is ignored unless the song was playing",
    arguments: [
      PlayerState.Playback.idle, .loading, .buffering, .paused, .finished, .failed("HTTP 404"),
    ])
  func bufferingIgnoredUnlessPlaying(from playback: PlayerState.Playback) {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, playback: playback))
    store.send(.playbackBuffering(playID: 1))
  }

  @Test("Buffering for an older request is ignored")
  func bufferingStaleIsIgnored() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 4, playback: .playing))
    store.send(.playbackBuffering(playID: 3))
  }

  @Test("Progress for the current request moves the position and updates the duration")
  func progressMovesPosition() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, position: 10))
    store.send(.playbackProgress(playID: 1, position: 11.25, duration: 188)) {
      $0.position = 11.25
      $0.duration = 188
    }
  }

  @Test("Progress without a duration keeps the known one")
  func progressWithoutDuration() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, position: 10))
    store.send(.playbackProgress(playID: 1, position: 12.5, duration: nil)) {
      $0.position = 12.5
    }
    #expect(store.state.duration == 187.52)
  }

  @Test("Progress for an older request is ignored")
  func progressStaleIsIgnored() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 2, position: 0))
    store.send(.playbackProgress(playID: 1, position: 150, duration: 187.52))
  }

  @Test("A negative progress position is clamped to zero")
  func progressNegativeClamped() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, position: 5))
    store.send(.playbackProgress(playID: 1, position: -0.75, duration: nil)) {
      $0.position = 0
    }
  }

  @Test("A NaN progress position is treated as zero")
  func progressNaNClamped() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, position: 5))
    store.send(.playbackProgress(playID: 1, position: .nan, duration: nil)) {
      $0.position = 0
    }
  }

  @Test("A finished track advances to the next page under a new request")
  func trackFinishedAdvances() {
    var store = ReducerTestStore(Fixture.loaded(at: 0, playID: 1, position: 186.9))
    store.send(.trackFinished(playID: 1), effects: [.play(Fixture.second, playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.position = 0
      $0.duration = nil
    }
  }

  @Test("A finished track on the last page ends at its full length")
  func trackFinishedOnLastPage() {
    var store = ReducerTestStore(Fixture.loaded(at: 2, playID: 3, position: 241.3))
    store.send(.trackFinished(playID: 3)) {
      $0.playback = .finished
      $0.position = 242
    }
    #expect(!store.state.needsTimer)
  }

  @Test("A finished last track with no known duration keeps its last position")
  func trackFinishedOnLastPageWithoutDuration() {
    var state = Fixture.loaded(at: 2, playID: 3, position: 241.3)
    state.duration = nil
    var store = ReducerTestStore(state)
    store.send(.trackFinished(playID: 3)) {
      $0.playback = .finished
    }
  }

  @Test("A finished report for an older request is ignored")
  func trackFinishedStaleIsIgnored() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 5, position: 3))
    store.send(.trackFinished(playID: 4))
  }

  @Test("A whole feed plays through to the end by itself")
  func feedPlaysThrough() {
    var store = ReducerTestStore(
      Fixture.state { $0.opening = PageSource(kind: .feed(Fixture.feedURL), phase: .loading) })
    store.send(
      .pageLoaded(.feed(Fixture.feedURL), cursor: nil, SourcePage(songs: Fixture.songs)),
      effects: [.play(Fixture.first, playID: 1)]
    ) {
      $0.opening = nil
      $0.source = PageSource(kind: .feed(Fixture.feedURL))
      $0.songs = Fixture.songs
      $0.playID = 1
      $0.playback = .loading
      $0.duration = 187.52
    }
    // Each play is announced to the scrobbling services once it is heard, and counted as a
    // listen once it has played long enough (here, to its end).
    store.send(.playbackStarted(playID: 1, duration: nil), effects: [.announce(Fixture.first)]) {
      $0.playback = .playing
      $0.announcedPlayID = 1
    }
    store.send(
      .trackFinished(playID: 1),
      effects: [.scrobble(Fixture.first, heard: 187.52), .play(Fixture.second, playID: 2)]
    ) {
      $0.listenedPlayID = 1
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.duration = nil
    }
    store.send(.playbackStarted(playID: 2, duration: 95), effects: [.announce(Fixture.second)]) {
      $0.playback = .playing
      $0.duration = 95
      $0.announcedPlayID = 2
    }
    store.send(
      .trackFinished(playID: 2),
      effects: [.scrobble(Fixture.second, heard: 95), .play(Fixture.third, playID: 3)]
    ) {
      $0.listenedPlayID = 2
      $0.index = 2
      $0.playID = 3
      $0.playback = .loading
      $0.duration = 242
    }
    store.send(.playbackStarted(playID: 3, duration: 242.1), effects: [.announce(Fixture.third)]) {
      $0.playback = .playing
      $0.duration = 242.1
      $0.announcedPlayID = 3
    }
    store.send(.trackFinished(playID: 3), effects: [.scrobble(Fixture.third, heard: 242.1)]) {
      $0.listenedPlayID = 3
      $0.playback = .finished
      $0.position = 242.1
    }
  }

  @Test("A playback failure names the song and the reason")
  func playbackFailed() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 2, playback: .loading))
    store.send(.playbackFailed(playID: 2, "HTTP 404 Not Found")) {
      $0.playback = .failed("HTTP 404 Not Found")
      $0.message = .init(.error, "Cannot play \u{201C}Paper Lanterns\u{201D}: HTTP 404 Not Found")
    }
    #expect(store.state.message?.text == "Cannot play “Paper Lanterns”: HTTP 404 Not Found")
    #expect(!store.state.needsTimer)
  }

  @Test("A playback failure for an older request is ignored")
  func playbackFailedStaleIsIgnored() {
    var store = ReducerTestStore(Fixture.loaded(at: 1, playID: 2, playback: .playing))
    store.send(.playbackFailed(playID: 1, "cancelled"))
  }

  @Test("A playback failure after the feed was replaced by an empty one says 'this song'")
  func playbackFailedWithoutSong() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.source = PageSource(kind: .feed(Fixture.feedURL))
        $0.playID = 1
        $0.playback = .loading
      })
    store.send(.playbackFailed(playID: 1, "no audio")) {
      $0.playback = .failed("no audio")
      $0.message = .init(.error, "Cannot play this song: no audio")
    }
  }
}

@Suite("Status messages")
struct MessageReducerTests {
  @Test("An error message is cleared when the next song starts")
  func errorClearedOnNext() {
    var state = Fixture.loaded(at: 0, playID: 1, playback: .failed("HTTP 500"))
    state.message = .init(.error, "Cannot play \u{201C}Neon Tide\u{201D}: HTTP 500")
    var store = ReducerTestStore(state)
    store.send(.next, effects: [.play(Fixture.second, playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.duration = nil
      $0.message = nil
    }
  }

  @Test("An info message is kept when the next song starts")
  func infoKeptOnNext() {
    var state = Fixture.loaded(at: 0, playID: 1)
    state.message = .init(.info, "skipped 2 songs without an id or audio URL")
    var store = ReducerTestStore(state)
    store.send(.next, effects: [.play(Fixture.second, playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.duration = nil
    }
    #expect(store.state.message == .init(.info, "skipped 2 songs without an id or audio URL"))
  }

  @Test("An error message is cleared when a finished track advances")
  func errorClearedOnAutoAdvance() {
    var state = Fixture.loaded(at: 1, playID: 4)
    state.message = .init(.error, "Could not save the like: disk full")
    var store = ReducerTestStore(state)
    store.send(.trackFinished(playID: 4), effects: [.play(Fixture.third, playID: 5)]) {
      $0.index = 2
      $0.playID = 5
      $0.playback = .loading
      $0.duration = 242
      $0.message = nil
    }
  }

  @Test("An error message stays when the page does not change")
  func errorKeptWhenNothingStarts() {
    var state = Fixture.loaded(at: 2, playID: 4)
    state.message = .init(.error, "Could not save the like: disk full")
    var store = ReducerTestStore(state)
    store.send(.next)
    store.send(.togglePlay, effects: [.pause]) { $0.playback = .paused }
  }
}

@Suite("The timer")
struct TimerReducerTests {
  @Test("A tick advances the frame and counts the like pulse down")
  func tickCountsDown() {
    var state = Fixture.loaded(at: 0)
    state.likePulse = PlayerState.likePulseFrames
    var store = ReducerTestStore(state)
    for frame in 1...PlayerState.likePulseFrames {
      store.send(.tick) {
        $0.frame = frame
        $0.likePulse = PlayerState.likePulseFrames - frame
      }
    }
    store.send(.tick) { $0.frame = 7 }
    #expect(store.state.likePulse == 0)
  }

  @Test("A tick with the pulse already still keeps it at zero")
  func tickPulseStaysZero() {
    var store = ReducerTestStore(Fixture.state { $0.frame = 41 })
    store.send(.tick) { $0.frame = 42 }
  }

  @Test("The frame counter wraps around instead of trapping")
  func tickFrameWraps() {
    var store = ReducerTestStore(Fixture.state { $0.frame = Int.max })
    store.send(.tick) { $0.frame = Int.min }
  }

  @Test(
    "The timer runs only while something moves",
    arguments: [
      (PlayerState.Playback.idle, false),
      (.loading, true),
      (.buffering, true),
      (.playing, true),
      (.paused, false),
      (.finished, false),
      (.failed("HTTP 404"), false),
    ])
  func needsTimerPerPlayback(playback: PlayerState.Playback, expected: Bool) {
    let state = Fixture.loaded(at: 0, playback: playback)
    #expect(state.needsTimer == expected)
  }

  @Test(
    "A like pulse keeps the timer running in every playback state",
    arguments: [
      PlayerState.Playback.idle, .loading, .buffering, .playing, .paused, .finished,
      .failed("HTTP 404"),
    ])
  func needsTimerWhilePulsing(playback: PlayerState.Playback) {
    var state = Fixture.loaded(at: 0, playback: playback)
    state.likePulse = 1
    #expect(state.needsTimer)
  }

  @Test(
    "A source being opened alone runs the timer only while its first page loads",
    arguments: [
      (PageSource.Phase.idle, false),
      (.loading, true),
      (.waiting("offline"), false),
      (.failed("offline"), false),
    ])
  func needsTimerPerOpeningPhase(phase: PageSource.Phase, expected: Bool) {
    let state = Fixture.state {
      $0.opening = PageSource(kind: .feed(Fixture.feedURL), phase: phase)
    }
    #expect(state.needsTimer == expected)
  }
}
