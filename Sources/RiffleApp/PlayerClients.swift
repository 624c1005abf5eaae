import Foundation
import RiffleAPI
import RiffleAudio
import RiffleCore
import RiffleLibrary

/// The outside world as the view model sees it: closures with a live value and test values.
public struct PlayerClients: Sendable {
  /// Pages of every source.
  public var pages: PageClient
  public var audio: AudioClient
  public var likes: LikesClient
  /// Keeps the search history for the next run.
  public var saveSearchHistory: @Sendable ([String]) -> Void
  public var lyrics: LyricsClient
  public var identify: IdentifyClient
  /// Keeps the session for the next start without arguments.
  public var saveSession: @Sendable (SavedSession) -> Void
  /// Saves songs as a playlist named after the title; the completion gets the file's name, or
  /// why it could not be saved.
  public var savePlaylist:
    @Sendable (String, [Song], @escaping @Sendable (Result<String, Failure>) -> Void) -> Void
  /// Puts text on the clipboard.
  public var copyToClipboard: @Sendable (String) -> Void
  /// The scrobbling services, when the user set any.
  public var scrobble: ScrobbleClient
  /// Keeps a radio station among the user's favourites (or lets it go); the completion gets
  /// why it could not be saved.
  public var keepStation: @Sendable (Song, Bool, @escaping @Sendable (String?) -> Void) -> Void
  /// The library's first page of songs for a search, answered at once on the calling thread
  /// (the index answers in milliseconds), so a key's frame shows its results.
  public var searchLibrary: @Sendable (String) -> Result<SourcePage, Failure> = { _ in
    .failure(Failure("No library here"))
  }
  /// A library source's first songs, as many as asked, read again after the index changed
  /// (called on a work queue).
  /// Names the last `seconds` the output played against the fingerprint stores on disk (a
  /// station's `i`); the completion (any thread) gets the song or why none was named.
  public var nameHeard:
    @Sendable (Double, @escaping @Sendable (Result<HeardSong, Failure>) -> Void) -> Void = {
      _, done in done(.failure(Failure("No song matched")))
    }
  /// Whether the output keeps its last seconds for `nameHeard` (on only while a station plays).
  public var keepHeard: @Sendable (Bool) -> Void = { _ in }
  public var reloadLibrary: @Sendable (LibraryQuery, Int) -> Result<SourcePage, Failure> = {
    _, _ in .failure(Failure("No library here"))
  }

  public init(
    pages: PageClient, audio: AudioClient, likes: LikesClient,
    saveSearchHistory: @escaping @Sendable ([String]) -> Void = { _ in },
    lyrics: LyricsClient = .unavailable, identify: IdentifyClient = .unavailable,
    saveSession: @escaping @Sendable (SavedSession) -> Void = { _ in },
    savePlaylist:
      @escaping @Sendable (String, [Song], @escaping @Sendable (Result<String, Failure>) -> Void)
      -> Void = { _, _, done in done(.failure(Failure("Playlists are not kept here"))) },
    copyToClipboard: @escaping @Sendable (String) -> Void = { _ in },
    scrobble: ScrobbleClient = .none,
    keepStation: @escaping @Sendable (Song, Bool, @escaping @Sendable (String?) -> Void) -> Void =
      { _, _, done in done("Stations are not kept here") }
  ) {
    self.keepStation = keepStation
    self.scrobble = scrobble
    self.pages = pages
    self.audio = audio
    self.likes = likes
    self.saveSearchHistory = saveSearchHistory
    self.lyrics = lyrics
    self.identify = identify
    self.saveSession = saveSession
    self.savePlaylist = savePlaylist
    self.copyToClipboard = copyToClipboard
  }
}

/// Turns a page request of any source into songs: the one client the reducer's page path
/// calls. A new source is one more case in `live`.
public struct PageClient: Sendable {
  /// Loads page `cursor` (nil: the first) of a source; the completion may run on any thread.
  public var load:
    @Sendable (
      SourceKind, PageCursor?, @escaping @Sendable (Result<SourcePage, Failure>) -> Void
    ) -> Void

  public init(
    load:
      @escaping @Sendable (
        SourceKind, PageCursor?, @escaping @Sendable (Result<SourcePage, Failure>) -> Void
      ) -> Void
  ) {
    self.load = load
  }

  /// Feeds (and podcasts) through `feeds`, searches and artists through the iTunes Search API,
  /// Apple's charts through `charts`, the shows the user follows through `podcasts`, playlists
  /// through the HTTP client, the library from its index.
  public static func live(
    feeds: FeedSource, itunes: ITunesCatalog, charts: AppleCharts? = nil,
    podcasts: PodcastFeeds? = nil, library: @escaping @Sendable () -> LibraryIndex? = { nil },
    radio: RadioBrowser? = nil, stations: FavouriteStations? = nil
  ) -> PageClient {
    let charts = charts ?? AppleCharts(itunes: itunes)
    return PageClient { kind, cursor, done in
      switch kind {
      case .feed(let url), .podcast(let url, _), .station(let url, _):
        feeds.loadPage(url, cursor: cursor) { done($0.mapError(\.failure)) }
      case .search(let term):
        itunes.searchPage(term: term, cursor: cursor) { done($0.mapError(\.failure)) }
      case .artist(let name):
        itunes.artistPage(name: name) { done($0.mapError(\.failure)) }
      case .playlist(let url):
        PlaylistFile.load(url) { done($0.mapError(\.failure)) }
      case .queue:
        // The reducer has up next itself; nothing to fetch.
        done(.success(SourcePage(songs: [])))
      case .library(let query):
        BackgroundWork.run("riffle.library.page") {
          done(libraryPage(library(), query, cursor))
        }
      case .artistID(let id, let name):
        itunes.artistPage(id: id, name: name) { done($0.mapError(\.failure)) }
      case .charts(let genre, let country):
        charts.page(genre: genre, country: country) { done($0.mapError(\.failure)) }
      case .podcasts:
        guard let podcasts else {
          return done(.failure(FeedLoadError.http(.transport("no podcasts here")).failure))
        }
        podcasts.latestPage { done($0.mapError(\.failure)) }
      case .server(let name, let query):
        guard let server = SubsonicServers.shared.client(named: name) else {
          return done(.failure(Failure(SubsonicServers.unknownServerMessage(name))))
        }
        server.page(query, cursor: cursor) { done($0.mapError(\.failure)) }
      case .radioSearch(let term):
        (radio ?? RadioBrowser()).search(term) { done($0.mapError(\.failure)) }
      case .radioFavourites:
        guard let stations else { return done(.failure(Failure("No stations are kept here"))) }
        BackgroundWork.run("riffle.stations.page") { done(stations.page().mapError(\.failure)) }
      }
    }
  }
}

/// Finding a song's lyrics.
public struct LyricsClient: Sendable {
  /// Looks up the lyrics of a song; the completion may run on any thread.
  public var load:
    @Sendable (Song, @escaping @Sendable (Result<Lyrics, LyricsLoadError>) -> Void) -> Void

  public init(
    load:
      @escaping @Sendable (Song, @escaping @Sendable (Result<Lyrics, LyricsLoadError>) -> Void)
      -> Void
  ) {
    self.load = load
  }

  /// A .lrc beside local files, the cache, then LRCLIB.
  public static func live(_ source: LyricsSource) -> LyricsClient {
    LyricsClient(load: { song, done in
      // A station's song is named by its ICY title; the station's name beside it is no album.
      var asked = song
      if song.isLiveStream { asked.album = nil }
      source.load(asked, completion: done)
    })
  }

  /// For players built without a lyrics source: every request fails and says so.
  public static let unavailable = LyricsClient(load: { _, done in
    done(.failure(.invalid("Lyrics are not available here")))
  })
}

/// Playback as the view model drives it.
public struct AudioClient: Sendable {
  public var play: @Sendable (Song, Int) -> Void
  public var pause: @Sendable () -> Void
  public var resume: @Sendable () -> Void
  /// Moves request `playID` to a point in seconds.
  public var seek: @Sendable (Double, Int) -> Void
  /// Seconds heard of a play request, nil if it is not the current one.
  public var position: @Sendable (Int) -> Double?
  /// Stops and closes the output.
  public var shutdown: @Sendable () -> Void
  /// The gain (0...1) applied to what plays from now on.
  public var setGain: @Sendable (Double) -> Void
  /// Stops what plays (its download too); the output stays open.
  public var stop: @Sendable () -> Void
  /// The song that follows the current one when it ends (`PlayerState.followingSong`), opened
  /// early so the two join without a gap.
  public var prepareNext: @Sendable (Song?) -> Void = { _ in }

  public init(
    play: @escaping @Sendable (Song, Int) -> Void, pause: @escaping @Sendable () -> Void,
    resume: @escaping @Sendable () -> Void, seek: @escaping @Sendable (Double, Int) -> Void,
    position: @escaping @Sendable (Int) -> Double?,
    shutdown: @escaping @Sendable () -> Void,
    setGain: @escaping @Sendable (Double) -> Void = { _ in },
    stop: @escaping @Sendable () -> Void = {},
    prepareNext: @escaping @Sendable (Song?) -> Void = { _ in }
  ) {
    self.prepareNext = prepareNext
    self.stop = stop
    self.play = play
    self.pause = pause
    self.resume = resume
    self.seek = seek
    self.position = position
    self.shutdown = shutdown
    self.setGain = setGain
  }

  /// The playback engine, reporting its events through `send`. With `positions`, a podcast
  /// episode starts where it was left, its position is kept as it plays, and it is marked played
  /// near its end.
  public static func live(
    cache: DiskCache?,
    output: @escaping @Sendable () throws -> any AudioOutput,
    events: @escaping @Sendable (PlaybackEvent) -> Void,
    positions: EpisodePositions? = nil
  ) -> AudioClient {
    let episode = EpisodeTracker()
    let engine = PlaybackEngine(
      cache: cache, output: output,
      onEvent: { event in
        if case .finished(let id) = event, let song = episode.song(playing: id) {
          positions?.markPlayed(song.id)
        }
        events(event)
      })
    return AudioClient(
      play: { song, id in
        let isEpisode = positions != nil && song.id.hasPrefix("podcast:")
        episode.set(isEpisode ? (id, song) : nil)
        engine.play(
          song.audioURL, playID: id, gainDB: song.replayGain.map(Double.init),
          live: song.isLiveStream)
        // The engine holds a seek asked for before the decoder exists until it does.
        if isEpisode, let start = positions?.resumePoint(song.id) {
          engine.seek(to: start, playID: id)
        }
      },
      pause: {
        engine.pause()
        if let (id, song) = episode.current, let at = engine.position(playID: id) {
          positions?.note(song.id, position: at, duration: song.duration, now: true)
        }
      },
      resume: { engine.resume() },
      seek: { seconds, id in engine.seek(to: seconds, playID: id) },
      position: { id in
        let at = engine.position(playID: id)
        if let at, let song = episode.song(playing: id) {
          positions?.note(song.id, position: at, duration: song.duration)
        }
        return at
      },
      shutdown: {
        if let (id, song) = episode.current, let at = engine.position(playID: id) {
          positions?.note(song.id, position: at, duration: song.duration, now: true)
        }
        positions?.flush()
        engine.shutdown()
      },
      setGain: { engine.setGain($0) },
      stop: { engine.stop() },
      prepareNext: { song in
        // An episode may start where it was left: it is opened when asked for, not early.
        let early = song.flatMap { positions != nil && $0.id.hasPrefix("podcast:") ? nil : $0 }
        engine.prepare(next: early?.audioURL, gainDB: early?.replayGain.map(Double.init))
      })
  }
}

/// The podcast episode being played, if one is: its play request and song.
private final class EpisodeTracker: @unchecked Sendable {
  private let lock = NSLock()
  private var playing: (Int, Song)?

  func set(_ value: (Int, Song)?) { lock.withLock { playing = value } }
  var current: (Int, Song)? { lock.withLock { playing } }

  func song(playing id: Int) -> Song? {
    lock.withLock { playing.flatMap { $0.0 == id ? $0.1 : nil } }
  }
}

/// The likes kept on this machine.
public struct LikesClient: Sendable {
  public var all: @Sendable () -> [String: Bool]
  /// Stores a like; the completion gets an error message if saving failed.
  public var set: @Sendable (String, Bool, @escaping @Sendable (String?) -> Void) -> Void
  /// Waits until everything is on disk (and sent, where there is a server).
  public var flush: @Sendable () -> Void
  /// Sends a like to the server; the callback gets the refused state and the reason.
  public var sync: @Sendable (String, Bool, @escaping @Sendable (Bool, String) -> Void) -> Void

  public init(
    all: @escaping @Sendable () -> [String: Bool],
    set: @escaping @Sendable (String, Bool, @escaping @Sendable (String?) -> Void) -> Void,
    flush: @escaping @Sendable () -> Void,
    sync: @escaping @Sendable (String, Bool, @escaping @Sendable (Bool, String) -> Void) -> Void =
      { _, _, _ in }
  ) {
    self.all = all
    self.set = set
    self.flush = flush
    self.sync = sync
  }

  /// Likes kept in `store`, and sent through `remote` when the user gave a likes endpoint.
  public static func live(_ store: LikeStore, remote: LikeSync? = nil) -> LikesClient {
    LikesClient(
      all: { store.all },
      set: { id, liked, done in
        store.set(id, liked: liked) { error in done(error.map { String(describing: $0) }) }
      },
      flush: {
        remote?.settle(timeout: 2)
        store.flush()
      },
      sync: { id, liked, rejected in remote?.set(id, liked: liked, onRejected: rejected) })
  }
}

extension PlaybackEvent {
  /// The reducer's name for this event.
  public var action: PlayerAction {
    switch self {
    case .started(let id, let duration): return .playbackStarted(playID: id, duration: duration)
    case .buffering(let id): return .playbackBuffering(playID: id)
    case .finished(let id): return .trackFinished(playID: id)
    case .failed(let id, let reason): return .playbackFailed(playID: id, reason)
    case .streamTitle(let id, let title): return .streamTitle(playID: id, title)
    case .dropped(let id, let reason, let transient):
      return .streamDropped(playID: id, reason, transient: transient)
    }
  }
}

/// Songs of the library asked for at a time, as the index orders them.
let libraryPageSize = 100

/// One page of a library query from the index (on a work queue: SQLite reads the disk).
func libraryPage(
  _ index: LibraryIndex?, _ query: LibraryQuery, _ cursor: PageCursor?,
  limit: Int = libraryPageSize
) -> Result<SourcePage, Failure> {
  guard let index else {
    return .failure(Failure("The library's index cannot be opened (see riffle doctor)"))
  }
  var offset = 0
  if case .offset(let from, _)? = cursor { offset = from }
  do {
    let songs = try index.playerSongs(query, offset: offset, limit: limit)
    let next =
      songs.count < limit
      ? nil : PageCursor.offset(offset + songs.count, limit: libraryPageSize)
    return .success(SourcePage(songs: songs, next: next))
  } catch {
    return .failure(Failure("The library cannot be read: \(error)"))
  }
}

/// Scrobbling as the view model drives it.
public struct ScrobbleClient: Sendable {
  /// A song started.
  public var announce: @Sendable (Song) -> Void
  /// A song was heard long enough; it started at this moment.
  public var listened: @Sendable (Song, Date) -> Void
  /// Sends what it can before quitting (bounded).
  public var flush: @Sendable () -> Void

  public init(
    announce: @escaping @Sendable (Song) -> Void,
    listened: @escaping @Sendable (Song, Date) -> Void, flush: @escaping @Sendable () -> Void
  ) {
    self.announce = announce
    self.listened = listened
    self.flush = flush
  }

  /// No service set: nothing is sent.
  public static let none = ScrobbleClient(announce: { _ in }, listened: { _, _ in }, flush: {})

  /// ListenBrainz and Last.fm through `scrobbler`.
  public static func live(_ scrobbler: Scrobbler) -> ScrobbleClient {
    ScrobbleClient(
      announce: { scrobbler.nowPlaying(ScrobbleTrack(song: $0)) },
      listened: { song, started in scrobbler.listened(ScrobbleTrack(song: song), startedAt: started)
      },
      flush: { scrobbler.flush(timeout: 2) })
  }
}
