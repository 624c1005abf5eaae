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
  public var identify: IdentifyClient

  public init(
    loadFeed:
      @escaping @Sendable (URL, @escaping @Sendable (Result<FeedPage, FeedLoadError>) -> Void)
      -> Void,
    audio: AudioClient, likes: LikesClient, identify: IdentifyClient = .unavailable
  ) {
    self.loadFeed = loadFeed
    self.audio = audio
    self.likes = likes
    self.identify = identify
  }
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
