import Foundation

/// Work the reducer asks the outside world to do. Values only: the view model runs them.
public enum PlayerEffect: Equatable, Sendable {
  case loadFeed(URL)
  /// Stop whatever plays and play this song from the start.
  case play(Song, playID: Int)
  case pause
  case resume
  case persistLike(songID: String, liked: Bool)
  /// Stop audio, give the terminal back and exit.
  case quit
}
