import Foundation
import Testing

@testable import RiffleCore

@Suite("i searches up next too, from any page")
struct IdentifyQueueReducerTests {
  /// A song queued from another page (a search), not among the feed's songs.
  static let elsewhere = Song(
    id: "5e0a7c33-2f14-4d9b-a8e6-91b2c4d7f058", title: "Glass Harbour", displayName: "Ines Calder",
    handle: "inescalder", audioURL: URL(string: "https://cdn1.example.com/5e0a7c33.mp3")!,
    likeCount: 1, isLiked: false, duration: 200, likeDestination: .likesEndpoint)

  /// Playing the feed's first song with `queue` up next.
  static func playing(queue: [Song], listening: Bool = false) -> PlayerState {
    Fixture.loaded(at: 0, position: 42) {
      $0.queue = queue
      if listening { $0.identify = .listening(level: 0.3, seconds: 4) }
    }
  }

  @Test("i carries the whole queue, in queue order, songs on the pages too")
  func listenCarriesQueue() {
    var store = ReducerTestStore(Self.playing(queue: [Fixture.second, Self.elsewhere]))
    store.send(
      .identify,
      effects: [
        .listen(
          seconds: 10, feedURL: Fixture.feedURL, songs: Fixture.songs,
          queued: [Fixture.second, Self.elsewhere])
      ]
    ) {
      $0.identify = .listening(level: 0, seconds: 0)
    }
  }

  @Test("with no pages yet but songs up next, i still listens (for the queued ones)")
  func queueOnly() {
    var store = ReducerTestStore(Fixture.state { $0.queue = [Self.elsewhere] })
    store.send(
      .identify, effects: [.listen(seconds: 10, feedURL: nil, songs: [], queued: [Self.elsewhere])]
    ) {
      $0.identify = .listening(level: 0, seconds: 0)
    }
  }

  @Test("a queued song heard leaves up next, goes in as the next page and plays where it is now")
  func identifiedFromQueue() {
    let other = Song(
      id: "other", title: "Other", displayName: "Someone", handle: "someone",
      audioURL: URL(string: "https://cdn1.example.com/other.mp3")!)
    var store = ReducerTestStore(Self.playing(queue: [other, Self.elsewhere], listening: true))
    store.send(
      .identified(songID: Self.elsewhere.id, offset: 30.4, listened: 5),
      effects: [.play(Self.elsewhere, playID: 2), .seek(to: 35.4, playID: 2)]
    ) {
      $0.identify = nil
      $0.queue = [other]
      $0.songs = [Fixture.first, Self.elsewhere, Fixture.second, Fixture.third]
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.position = 35.4
      $0.duration = 200
      $0.message = .init(.info, "Heard \u{201C}Glass Harbour\u{201D} by Ines Calder at 0:30")
    }
  }

  @Test("a song both on a page and up next plays from its page; the queue keeps it")
  func identifiedOnPageAndQueued() {
    var store = ReducerTestStore(Self.playing(queue: [Fixture.third], listening: true))
    store.send(
      .identified(songID: Fixture.third.id, offset: 10, listened: 5),
      effects: [.play(Fixture.third, playID: 2), .seek(to: 15, playID: 2)]
    ) {
      $0.identify = nil
      $0.index = 2
      $0.playID = 2
      $0.playback = .loading
      $0.position = 15
      $0.duration = 242
      $0.message = .init(.info, "Heard \u{201C}Slow Orbit\u{201D} by Juno Reyes at 0:10")
    }
  }

  @Test("an id neither on the pages nor up next still says no song matched")
  func unknownID() {
    var store = ReducerTestStore(Self.playing(queue: [Self.elsewhere], listening: true))
    store.send(.identified(songID: "gone", offset: 1, listened: 5), effects: []) {
      $0.identify = nil
      $0.message = .init(.error, "No song matched")
    }
  }

  @Test("from the last page, the queued song goes in after it")
  func identifiedAtLastPage() {
    var state = Self.playing(queue: [Self.elsewhere], listening: true)
    state.index = 2
    state.duration = 242
    var store = ReducerTestStore(state)
    store.send(
      .identified(songID: Self.elsewhere.id, offset: 0, listened: 5),
      effects: [.play(Self.elsewhere, playID: 2), .seek(to: 5, playID: 2)]
    ) {
      $0.identify = nil
      $0.queue = []
      $0.songs = Fixture.songs + [Self.elsewhere]
      $0.index = 3
      $0.playID = 2
      $0.playback = .loading
      $0.position = 5
      $0.duration = 200
      $0.message = .init(.info, "Heard \u{201C}Glass Harbour\u{201D} by Ines Calder at 0:00")
    }
  }
}
