import Foundation
import Testing

@testable import RiffleCore

@Suite("Naming a song heard nearby (i)")
struct IdentifyReducerTests {
  static let listening = PlayerState.Identify.listening(level: 0, seconds: 0)

  /// Playing the first song, `i` pressed.
  static func listeningState(level: Double = 0, seconds: Double = 0) -> PlayerState {
    var state = Fixture.loaded(at: 0, playID: 1, position: 42)
    state.identify = .listening(level: level, seconds: seconds)
    return state
  }

  @Test("i starts listening for up to 10 s among the feed's songs")
  func startListening() {
    var state = Fixture.loaded(at: 0, playID: 1, position: 42)
    state.message = .init(.error, "Could not save the like: disk full")
    var store = ReducerTestStore(state)
    store.send(
      .identify,
      effects: [.listen(seconds: 10, feedURL: Fixture.feedURL, songs: Fixture.songs)]
    ) {
      $0.identify = Self.listening
      $0.message = nil
    }
    #expect(PlayerAction.identify.isUserIntent)
  }

  @Test("i while listening stops and says so")
  func stopListening() {
    var store = ReducerTestStore(Self.listeningState(level: 0.4, seconds: 3))
    store.send(.identify, effects: [.stopListening]) {
      $0.identify = nil
      $0.message = .init(.info, "Stopped listening")
    }
  }

  @Test("i with no songs yet says there is nothing to compare with")
  func noSongs() {
    var store = ReducerTestStore(
      Fixture.state { $0.opening = PageSource(kind: .feed(Fixture.feedURL), phase: .loading) })
    store.send(.identify, effects: []) {
      $0.message = .init(.error, "No songs to compare with yet")
    }
  }

  @Test("levels move the meter, clamped to 0...1; after listening ends they are ignored")
  func levels() {
    var store = ReducerTestStore(Self.listeningState())
    store.send(.listeningLevel(0.62, seconds: 1.5), effects: []) {
      $0.identify = .listening(level: 0.62, seconds: 1.5)
    }
    store.send(.listeningLevel(7, seconds: 2)) {
      $0.identify = .listening(level: 1, seconds: 2)
    }
    store.send(.listeningLevel(-1, seconds: -3)) {
      $0.identify = .listening(level: 0, seconds: 0)
    }
    var idle = ReducerTestStore(Fixture.loaded())
    idle.send(.listeningLevel(0.5, seconds: 1))
  }

  @Test("a match pages to the song and plays it from where the recording is now")
  func identified() {
    var store = ReducerTestStore(Self.listeningState(level: 0.3, seconds: 4))
    store.send(
      .identified(songID: Fixture.third.id, offset: 61.5, listened: 4.25),
      effects: [.play(Fixture.third, playID: 2), .seek(to: 65.75, playID: 2)]
    ) {
      $0.identify = nil
      $0.index = 2
      $0.playID = 2
      $0.playback = .loading
      $0.position = 65.75
      $0.duration = 242
      $0.message = .init(.info, "Heard \u{201C}Slow Orbit\u{201D} by Juno Reyes at 1:02")
    }
  }

  @Test("a match near the end starts just before the end, not past it")
  func identifiedNearTheEnd() {
    var store = ReducerTestStore(Self.listeningState())
    let last = Fixture.first.duration! - 0.25
    store.send(
      .identified(songID: Fixture.first.id, offset: 185, listened: 10),
      effects: [.play(Fixture.first, playID: 2), .seek(to: last, playID: 2)]
    ) {
      $0.identify = nil
      $0.playID = 2
      $0.playback = .loading
      $0.position = last
      $0.duration = 187.52
      $0.message = .init(.info, "Heard \u{201C}Neon Tide\u{201D} by Mira Sol at 3:05")
    }
  }

  @Test("a match for a song no longer in the list is reported as no match")
  func identifiedUnknownSong() {
    var store = ReducerTestStore(Self.listeningState())
    store.send(.identified(songID: "gone", offset: 3, listened: 5)) {
      $0.identify = nil
      $0.message = .init(.error, "No song matched")
    }
  }

  @Test("a match that arrives after listening was stopped changes nothing")
  func lateMatch() {
    var store = ReducerTestStore(Fixture.loaded(position: 42))
    store.send(.identified(songID: Fixture.third.id, offset: 61.5, listened: 4.25))
    store.send(.identifyFailed("No song matched"))
  }

  @Test("no match, or no device, ends listening with the reason")
  func failed() {
    var store = ReducerTestStore(Self.listeningState(level: 0.2, seconds: 10))
    store.send(.identifyFailed("No capture device (PulseAudio: Connection refused)")) {
      $0.identify = nil
      $0.message = .init(.error, "No capture device (PulseAudio: Connection refused)")
    }
  }
}
