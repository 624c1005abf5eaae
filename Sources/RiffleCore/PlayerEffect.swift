import Foundation

/// Work the reducer asks the outside world to do. Values only: the view model runs them.
public enum PlayerEffect: Equatable, Sendable {
  case loadFeed(URL)
  /// Load page `page` of the feed at the URL (query `page` and `page_size`).
  case loadFeedPage(URL, page: Int, pageSize: Int?)
  /// Send `.retryFeed(attempt:)` after this many seconds.
  case scheduleFeedRetry(after: Double, attempt: Int)
  /// Ask a catalog for `limit` results of a query from `offset` on.
  case runQuery(SongQuery, offset: Int, limit: Int)
  /// Send `.retryQuery(attempt:)` after this many seconds.
  case scheduleQueryRetry(after: Double, attempt: Int)
  /// Send `.retryQueryPage(attempt:)` after this many seconds.
  case scheduleQueryPageRetry(after: Double, attempt: Int)
  /// Keep the search history for the next run.
  case saveSearchHistory([String])
  /// Stop whatever plays and play this song from the start.
  case play(Song, playID: Int)
  case pause
  case resume
  /// Move playback of the current request to this point, in seconds.
  case seek(to: Double, playID: Int)
  /// Save a like here and send it to the likes server, if there is one.
  case persistLike(songID: String, liked: Bool)
  /// Save a like on this machine only (a rollback of what the server refused).
  case storeLikeLocally(songID: String, liked: Bool)
  /// Find the lyrics of this song (a .lrc beside a local file, the cache, then LRCLIB) and send
  /// `.lyricsLoaded` or `.lyricsFailed`.
  case loadLyrics(Song)
  /// Send `.retryLyrics(songID:attempt:)` after this many seconds.
  case scheduleLyricsRetry(after: Double, songID: String, attempt: Int)
  /// Listen through the capture device for up to `seconds` and name the song among `songs`
  /// (the feed's, fingerprinted under `feedURL`).
  case listen(seconds: Double, feedURL: URL?, songs: [Song])
  /// Stop listening; no answer comes.
  case stopListening
  /// Stop audio, give the terminal back and exit.
  case quit
}
