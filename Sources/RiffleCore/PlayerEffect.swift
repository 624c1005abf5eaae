import Foundation

/// Work the reducer asks the outside world to do. Values only: the view model runs them.
public enum PlayerEffect: Equatable, Sendable {
  /// Ask the source's client for a page (nil: the first) and send `.pageLoaded` or
  /// `.pageFailed`.
  case loadPage(SourceKind, cursor: PageCursor?)
  /// Send this action after this many seconds (retries).
  case after(Double, PlayerAction)
  /// Ask the library's index for the songs matching `term` now, and send `.previewLoaded` or
  /// `.previewFailed` before the next frame is drawn (search as you type).
  case previewSearch(String)
  /// Read a library source's first `count` songs again and send `.libraryReloaded`.
  case reloadLibrary(SourceKind, count: Int)
  /// Keep the search history for the next run.
  case saveSearchHistory([String])
  /// Stop whatever plays and play this song from the start.
  case play(Song, playID: Int)
  case pause
  case resume
  /// Stop what plays and let go of its stream (a live station paused).
  case stop
  /// Keep this station among the user's favourites, or let it go (`l` on a station's page).
  case keepStation(Song, kept: Bool)
  /// Move playback of the current request to this point, in seconds.
  case seek(to: Double, playID: Int)
  /// Save a like here, and send it where `sync` says.
  case persistLike(songID: String, liked: Bool, sync: LikeDestination)
  /// Save a like on this machine only (a rollback of what the server refused).
  case storeLikeLocally(songID: String, liked: Bool)
  /// Find the lyrics of this song (a .lrc beside a local file, the cache, then LRCLIB) and send
  /// `.lyricsLoaded` or `.lyricsFailed`.
  case loadLyrics(Song)
  /// Listen through the capture device for up to `seconds` and name the song among `songs`
  /// (the feed's, fingerprinted under `feedURL`) or among `queued`, the songs up next that are
  /// not among `songs` (fingerprinted under a key of their own).
  case listen(seconds: Double, feedURL: URL?, songs: [Song], queued: [Song] = [])
  /// Stop listening; no answer comes.
  case stopListening
  /// Name the last `seconds` the output played against the fingerprint stores on disk, and
  /// send `.heardSong` or `.identifyFailed`.
  case nameHeard(seconds: Double)
  /// Tell the scrobbling services this song has started.
  case announce(Song)
  /// Scrobble this song as heard: it has played `heard` seconds of this play.
  case scrobble(Song, heard: Double)
  /// Apply this gain (0...1) to everything the output plays from now on.
  case setGain(Double)
  /// Put this text on the clipboard (OSC 52 through the terminal).
  case copyToClipboard(String)
  /// Save these songs as an M3U8 playlist named after `title`; the runner picks the file.
  case savePlaylist(title: String, songs: [Song])
  /// Keep the session for the next start without arguments.
  case saveSession(SavedSession)
  /// Stop audio, give the terminal back and exit.
  case quit
}
