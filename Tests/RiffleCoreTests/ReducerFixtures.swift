import Foundation

@testable import RiffleCore

/// Songs and states shared by the reducer tests.
enum Fixture {
  static let feedURL = URL(string: "https://studio-api.example.com/api/feed/v2?page=0")!

  /// A song with a known duration, not liked.
  static let first = Song(
    id: "8f1c2a9e-5b7d-4c3e-9a61-0d2f4e6b8c10", title: "Neon Tide", displayName: "Mira Sol",
    handle: "mirasol", imageURL: URL(string: "https://cdn1.example.com/image_8f1c2a9e.jpeg"),
    audioURL: URL(string: "https://cdn1.example.com/8f1c2a9e.mp3")!, likeCount: 12,
    isLiked: false, duration: 187.52, likeDestination: .likesEndpoint)

  /// A liked song whose duration the feed did not give.
  static let second = Song(
    id: "b3d90e14-77a2-4f0b-8c5e-2e9a1f7d6c43", title: "Paper Lanterns", displayName: "Oskar Vale",
    handle: "oskarvale", audioURL: URL(string: "https://cdn1.example.com/b3d90e14.mp3")!,
    likeCount: 3, isLiked: true, duration: nil, likeDestination: .likesEndpoint)

  /// The last song: liked, but with a count of zero (the feed's numbers disagree).
  static let third = Song(
    id: "f02e6c71-1a9d-4b88-b5f3-7c4d0e9a2b65", title: "Slow Orbit", displayName: "Juno Reyes",
    handle: "junoreyes", audioURL: URL(string: "https://cdn1.example.com/f02e6c71.mp3")!,
    likeCount: 0, isLiked: true, duration: 242, likeDestination: .likesEndpoint)

  static let songs = [first, second, third]

  /// A state built from the default one.
  static func state(_ configure: (inout PlayerState) -> Void = { _ in }) -> PlayerState {
    var state = PlayerState()
    configure(&state)
    return state
  }

  /// The feed is loaded and page `index` has been asked to play under `playID`.
  static func loaded(
    at index: Int = 0, playID: Int = 1, playback: PlayerState.Playback = .playing,
    position: Double = 0
  ) -> PlayerState {
    state {
      $0.source = PageSource(kind: .feed(feedURL))
      $0.songs = songs
      $0.index = index
      $0.playID = playID
      $0.playback = playback
      $0.position = position
      $0.duration = songs[index].duration
      // This play has been announced and counted: the scrobbling rules have their own tests.
      $0.announcedPlayID = playID
      $0.listenedPlayID = playID
    }
  }
}

extension Fixture {
  /// `loaded(...)`, then changed.
  static func loaded(
    at index: Int = 0, playback: PlayerState.Playback = .playing, position: Double = 0,
    _ change: (inout PlayerState) -> Void
  ) -> PlayerState {
    var state = loaded(at: index, playback: playback, position: position)
    change(&state)
    return state
  }
}
