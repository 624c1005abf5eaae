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

  // Search and artist queries: their results replace the pages.
  /// `/`: opens the search prompt.
  case openSearch
  /// A change to the prompt's line.
  case editSearch(SearchEdit)
  /// Enter: searches for what the prompt holds.
  case submitSearch
  /// Esc: closes the prompt (and drops a search still waiting for its results).
  case cancelSearch
  /// `a`: the top songs of the current song's artist.
  case showArtist
  /// Asks a query directly (start-up with `riffle search` or `riffle artist`).
  case runQuery(SongQuery)
  /// The first results of a query (`hidden`: repeats left out; `skipped`: results without audio; `received`: results the catalog sent, which sets the next offset).
  case queryLoaded(SongQuery, [Song], hidden: Int, skipped: Int, received: Int)
  case queryFailed(SongQuery, String, retry: Bool, retryAfter: Double?)
  /// The wait before try number `attempt` at a query is over.
  case retryQuery(attempt: Int)
  /// A later batch of results, asked for at `offset`.
  case queryPageLoaded(SongQuery, offset: Int, [Song], received: Int)
  case queryPageFailed(SongQuery, String, retry: Bool, retryAfter: Double?)
  /// The wait before asking again for the next batch is over.
  case retryQueryPage(attempt: Int)

  // User intents.
  case next
  case previous
  case togglePlay
  case toggleLike
  case toggleHelp
  /// Show or hide the lyrics of the current song.
  case toggleLyrics
  /// Show or hide the spectrum of what plays.
  case toggleVisualizer
  /// Scroll plain lyrics by some lines (negative: up).
  case scrollLyrics(Int)
  /// Scroll plain lyrics by some pages (negative: up). The view model turns this into lines
  /// for the screen's size; without one, a page is `PlayerState.lyricsPageLines`.
  case pageLyrics(Int)
  /// Try again what failed: the feed, a search, the lyrics shown, or the song on this page.
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

  // Lyrics, tagged with the song they are about.
  case lyricsLoaded(songID: String, Lyrics)
  /// They could not be had; `retry` when the cause may pass, as for the feed.
  case lyricsFailed(songID: String, String, retry: Bool = false, retryAfter: Double? = nil)
  /// The wait before try number `attempt` at loading a song's lyrics is over.
  case retryLyrics(songID: String, attempt: Int)
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
      .openSearch, .editSearch, .submitSearch, .cancelSearch, .showArtist, .toggleLyrics,
      .scrollLyrics, .pageLyrics, .identify, .toggleVisualizer:
      return true
    default:
      return false
    }
  }
}
