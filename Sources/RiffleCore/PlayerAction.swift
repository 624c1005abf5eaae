import Foundation

/// Everything that can happen to the player: user intents and results coming back.
public enum PlayerAction: Equatable, Sendable {
  // Sources of pages: one path for every kind.
  /// Opens a source: its first page replaces the pages when it comes (start-up, a search, an
  /// artist's top songs, ...).
  case open(SourceKind)
  /// A page of a source arrived; `cursor` is the page that was asked for (nil: the first).
  case pageLoaded(SourceKind, cursor: PageCursor?, SourcePage)
  /// A page of a source could not be had.
  case pageFailed(SourceKind, cursor: PageCursor?, Failure)
  /// The wait before try number `attempt` at something that failed is over.
  case retryDue(RetryTarget, attempt: Int)

  // The search prompt.
  /// `/`: opens the search prompt.
  case openSearch
  /// A change to the prompt's line.
  case editSearch(SearchEdit)
  /// Enter: searches for what the prompt holds.
  case submitSearch
  /// Esc: closes the prompt (and drops a source still waiting for its first page).
  case cancelSearch
  /// Tab in the prompt: between searching the library (as you type) and iTunes (on Enter).
  case switchSearchTarget
  /// The library's songs for the prompt's line `term` (search as you type).
  case previewLoaded(term: String, SourcePage)
  /// The library could not answer the prompt's line `term`.
  case previewFailed(term: String, Failure)
  /// The library's index changed (a scan behind the screen, files changed on disk); `note`
  /// says how, for the status line.
  case libraryChanged(note: String?)
  /// The pages of a library source read again after a change, as many as were shown.
  case libraryReloaded(SourceKind, SourcePage)
  /// `a`: the top songs of the current song's artist (in the library, the artist's songs).
  case showArtist
  /// `b`: the current song's album, from the library.
  case showAlbum

  // The listening session: up next, shuffle, repeat, volume, sharing, resuming.
  /// Adds the song on this page to the end of up next.
  case enqueue
  /// Puts the song on this page first in up next.
  case playNext
  /// Shows up next as pages.
  case showQueue
  /// In up next: moves the song on this page earlier (negative) or later in the queue.
  case moveInQueue(Int)
  /// In up next: takes the song on this page out of the queue.
  case removeFromQueue
  /// Empties up next.
  case clearQueue
  case toggleShuffle
  /// Off, all, one, off ...
  case cycleRepeat
  /// Sets shuffle (MPRIS, the command line).
  case setShuffle(Bool)
  /// Sets repeat (MPRIS, the command line).
  case setRepeat(RepeatMode)
  /// Moves the volume by some percent (negative: down).
  case changeVolume(Int)
  /// Sets the volume in percent (MPRIS, a restored session).
  case setVolume(Int)
  case toggleMute
  /// Copies the song's web link to the clipboard.
  case share
  /// Saves up next (or, when it is empty, the pages) as a playlist.
  case savePlaylist
  /// Shows a note on the band for a moment (a playlist saved).
  case showFlash(String)
  /// A note on the band has been shown long enough (its number).
  case clearFlash(Int)
  /// Picks up a saved session at start: its settings now, its source, song and position as
  /// the source arrives (paused, so nothing blares on start).
  case resume(SavedSession)
  /// Moves the cursor of the artist choice list by some rows (Up and Down).
  case moveArtistChoice(Int)
  /// Opens the songs of the artist under the cursor (Enter).
  case confirmArtistChoice

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
  /// A live stream's ICY metadata named a new title ("" when it went blank).
  case streamTitle(playID: Int, String)
  /// A live stream stopped (it ended, its connection failed, or it went silent); `transient`
  /// when trying again may work.
  case streamDropped(playID: Int, String, transient: Bool)

  // Reports from the likes store and the likes server.
  /// Saving on this machine failed: the like is rolled back.
  case likeSaveFailed(songID: String, liked: Bool, String)
  /// The server refused the like: it is rolled back here and on this machine.
  case likeRejected(songID: String, liked: Bool, String)

  // Lyrics, tagged with the song they are about.
  case lyricsLoaded(songID: String, Lyrics)
  /// They could not be had.
  case lyricsFailed(songID: String, Failure)
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
  /// What the player played was named from a store on disk (a station's `i`).
  case heardSong(HeardSong)

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
      .openSearch, .editSearch, .submitSearch, .cancelSearch, .showArtist, .showAlbum,
      .switchSearchTarget, .moveArtistChoice, .confirmArtistChoice,
      .toggleLyrics,
      .scrollLyrics, .pageLyrics, .identify, .enqueue, .playNext, .showQueue, .moveInQueue,
      .removeFromQueue, .clearQueue, .toggleShuffle, .cycleRepeat, .changeVolume, .toggleMute,
      .share, .savePlaylist, .toggleVisualizer:
      return true
    default:
      return false
    }
  }
}
