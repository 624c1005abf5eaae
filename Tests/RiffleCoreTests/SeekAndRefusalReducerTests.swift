import Foundation
import Testing

@testable import RiffleCore

// Exhaustive reducer tests (through `ReducerTestStore`) of seeking and likes the server refused.
// Paging and retrying are in PageSourceReducerTests.

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
    store.send(.playbackStarted(playID: 2, duration: 200), effects: [.announce(Fixture.second)]) {
      $0.playback = .playing
      $0.duration = 200
      $0.announcedPlayID = 2
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
    store.send(
      .toggleLike,
      effects: [.persistLike(songID: Fixture.first.id, liked: true, sync: .likesEndpoint)]
    ) {
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
    store.send(
      .toggleLike,
      effects: [.persistLike(songID: Fixture.second.id, liked: false, sync: .likesEndpoint)]
    ) {
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
