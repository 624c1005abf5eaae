import Foundation
import RiffleAPI
import RiffleAudio
import RiffleCore

/// The outside world as the view model sees it: closures with a live value and test values.
public struct PlayerClients: Sendable {
  /// Loads a feed; the completion may run on any thread.
  public var loadFeed:
    @Sendable (URL, @escaping @Sendable (Result<FeedPage, FeedLoadError>) -> Void) -> Void
  public var audio: AudioClient
  public var likes: LikesClient
  public var queries: QueryClient
  /// Keeps the search history for the next run.
  public var saveSearchHistory: @Sendable ([String]) -> Void
  public var lyrics: LyricsClient
  public var identify: IdentifyClient

  public init(
    loadFeed:
      @escaping @Sendable (URL, @escaping @Sendable (Result<FeedPage, FeedLoadError>) -> Void)
      -> Void,
    audio: AudioClient, likes: LikesClient, queries: QueryClient,
    saveSearchHistory: @escaping @Sendable ([String]) -> Void = { _ in },
    lyrics: LyricsClient = .unavailable, identify: IdentifyClient = .unavailable
  ) {
    self.loadFeed = loadFeed
    self.audio = audio
    self.likes = likes
    self.queries = queries
    self.saveSearchHistory = saveSearchHistory
    self.lyrics = lyrics
    self.identify = identify
  }
}

/// Answers searches and artist queries.
public struct QueryClient: Sendable {
  /// Asks for `limit` results of a query from `offset` on; the completion may run on any thread.
  public var run:
    @Sendable (SongQuery, Int, Int, @escaping @Sendable (Result<QueryAnswer, CatalogError>) -> Void)
      -> Void

  public init(
    run:
      @escaping @Sendable (
        SongQuery, Int, Int, @escaping @Sendable (Result<QueryAnswer, CatalogError>) -> Void
      ) -> Void
  ) {
    self.run = run
  }

  /// The iTunes Search API at `catalog`'s base URL.
  public static func itunes(_ catalog: ITunesCatalog) -> QueryClient {
    QueryClient { query, offset, limit, done in
      switch query {
      case .search(let term):
        catalog.search(term: term, offset: offset, limit: limit) { result in
          done(
            result.map {
              QueryAnswer(songs: $0.songs, received: $0.received, hidden: 0, skipped: $0.skipped)
            })
        }
      case .artist(let name):
        catalog.topSongs(artist: name, limit: limit) { result in
          done(
            result.map {
              QueryAnswer(
                songs: $0.songs, received: $0.songs.count + $0.hidden + $0.skipped,
                hidden: $0.hidden, skipped: $0.skipped)
            })
        }
      }
    }
  }
}

/// Results of a query as the reducer takes them.
public struct QueryAnswer: Equatable, Sendable {
  public var songs: [Song]
  /// Results the catalog sent, playable or not (sets the next offset).
  public var received: Int
  /// Repeats of the same song left out.
  public var hidden: Int
  /// Results without audio to play.
  public var skipped: Int

  public init(songs: [Song], received: Int, hidden: Int = 0, skipped: Int = 0) {
    self.songs = songs
    self.received = received
    self.hidden = hidden
    self.skipped = skipped
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
    LyricsClient(load: { song, done in source.load(song, completion: done) })
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

  public init(
    play: @escaping @Sendable (Song, Int) -> Void, pause: @escaping @Sendable () -> Void,
    resume: @escaping @Sendable () -> Void, seek: @escaping @Sendable (Double, Int) -> Void,
    position: @escaping @Sendable (Int) -> Double?,
    shutdown: @escaping @Sendable () -> Void
  ) {
    self.play = play
    self.pause = pause
    self.resume = resume
    self.seek = seek
    self.position = position
    self.shutdown = shutdown
  }

  /// The playback engine, reporting its events through `send`.
  public static func live(
    cache: DiskCache?,
    output: @escaping @Sendable () throws -> AudioOutput,
    events: @escaping @Sendable (PlaybackEvent) -> Void
  ) -> AudioClient {
    let engine = PlaybackEngine(cache: cache, output: output, onEvent: events)
    return AudioClient(
      play: { song, id in engine.play(song.audioURL, playID: id) },
      pause: { engine.pause() },
      resume: { engine.resume() },
      seek: { seconds, id in engine.seek(to: seconds, playID: id) },
      position: { engine.position(playID: $0) },
      shutdown: { engine.shutdown() })
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
    }
  }
}
