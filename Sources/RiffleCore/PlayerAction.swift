import Foundation

/// Everything that can happen to the player: user intents and results coming back.
public enum PlayerAction: Equatable, Sendable {
  // Start-up and the feed.
  case start(URL)
  case feedLoaded([Song], skipped: Int)
  case feedFailed(String)

  // User intents.
  case next
  case previous
  case togglePlay
  case toggleLike
  case toggleHelp
  case quit

  // Reports from the playback engine, tagged with the request they are about.
  case playbackStarted(playID: Int, duration: Double?)
  case playbackBuffering(playID: Int)
  case playbackProgress(playID: Int, position: Double, duration: Double?)
  case trackFinished(playID: Int)
  case playbackFailed(playID: Int, String)

  // Reports from the likes store.
  case likeSaveFailed(songID: String, liked: Bool, String)

  /// A frame of the timer (animations, spinner).
  case tick
}
