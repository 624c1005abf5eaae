import Foundation

/// Everything that can happen to the player: user intents and results coming back.
public enum PlayerAction: Equatable, Sendable {
  // Start-up and the feed.
  case start(URL)
  /// The first page of the feed; `paging` is set when the feed pages.
  case feedLoaded([Song], skipped: Int, paging: FeedPaging? = nil)
  /// The feed could not be loaded; `retry` when the cause may pass (no connection, 5xx, 429),
  /// `retryAfter` when the server said how long to wait.
  case feedFailed(String, retry: Bool = false, retryAfter: Double? = nil)
  /// The wait before try number `attempt` at loading the feed is over.
  case retryFeed(attempt: Int)
  /// A later page of the feed arrived.
  case feedPageLoaded([Song], paging: FeedPaging)
  case feedPageFailed(String)

  // User intents.
  case next
  case previous
  case togglePlay
  case toggleLike
  case toggleHelp
  /// Try again what failed: the feed, or the song on this page.
  case retry
  /// Move the play position by some seconds (negative: back).
  case seek(by: Double)
  /// Move the play position to a point in the song, in seconds. (Not `seek(to:)`: two cases
  /// that differ only in their label miscompile in Swift 6.3 and trap at run time.)
  case seekTo(Double)
  case quit

  // Reports from the playback engine, tagged with the request they are about.
  case playbackStarted(playID: Int, duration: Double?)
  case playbackBuffering(playID: Int)
  case playbackProgress(playID: Int, position: Double, duration: Double?)
  case trackFinished(playID: Int)
  case playbackFailed(playID: Int, String)

  // Reports from the likes store and the likes server.
  /// Saving on this machine failed: the like is rolled back.
  case likeSaveFailed(songID: String, liked: Bool, String)
  /// The server refused the like: it is rolled back here and on this machine.
  case likeRejected(songID: String, liked: Bool, String)

  // Naming a song heard nearby.
  /// Listen and name the song (`i`); again, stop listening.
  case identify
  /// The listener's input level (0...1) after `seconds` of listening.
  case listeningLevel(Double, seconds: Double)
  /// The recording is `songID`, starting `offset` seconds in; `listened` seconds have passed
  /// since it started, so the song is now that much further on.
  case identified(songID: String, offset: Double, listened: Double)
  /// Nothing matched, or there is nothing to listen with (the reason says which).
  case identifyFailed(String)

  /// A frame of the timer (animations, spinner).
  case tick

  /// Something the user should read that is not about the feed or a song (a config problem);
  /// it stays until the next key.
  case notify(String)
}

extension PlayerAction {
  /// True for what the user asks for with a key or the mouse (as opposed to reports coming back).
  public var isUserIntent: Bool {
    switch self {
    case .next, .previous, .togglePlay, .toggleLike, .toggleHelp, .retry, .seek, .seekTo, .quit,
      .identify:
      return true
    default:
      return false
    }
  }
}
