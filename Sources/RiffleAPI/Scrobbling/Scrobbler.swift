import Foundation

/// Sends what the user listens to to ListenBrainz and Last.fm (either, both or none, from
/// `ScrobbleSettings`): "now playing" when a song starts, a listen once it has played long
/// enough (the caller decides when, by `ScrobbleTrack.listenThreshold`).
///
/// One per run; every method may be called from any thread and returns at once. Listens are
/// written to the queue file before they are sent and leave it only after the service answered
/// 2xx, so none is lost to a crash, a kill or an offline machine, and none is sent twice while
/// the process lives. A service that cannot be reached, answers 5xx or 429, or times out is
/// tried again after a back-off (or its Retry-After), in batches as large as it takes; a
/// successful "now playing" also shows it is back and sends what waits at once. Listens left at
/// the end of a run are sent at the next start. A service that refuses the credentials (401,
/// an invalid session key) or whose address is wrong is not sent to again in this run, and
/// `onProblem` says so once, on a serial queue of its own (hop to the main queue to show it).
/// Tokens, keys and secrets go only into requests: never into the queue file or the log.
public final class Scrobbler: @unchecked Sendable {
  /// How long to wait before trying a service again: `first` seconds, doubling each failure in a
  /// row, at most `limit`; a server's Retry-After wins (at least 1 s).
  public struct Backoff: Sendable, Equatable {
    public var first: Double
    public var limit: Double

    public init(first: Double, limit: Double) {
      self.first = first
      self.limit = limit
    }

    /// 5, 10, 20 ... 300 s: a listen waits a few minutes at most once the service is back.
    public static let standard = Backoff(first: 5, limit: 300)

    public func delay(attempt: Int, retryAfter: Double?) -> Double {
      if let retryAfter { return max(retryAfter, 1) }
      return min(first * pow(2, Double(max(attempt - 1, 0))), limit)
    }
  }

  private final class Lane {
    let service: any ScrobbleService
    /// The credentials or address were refused: nothing more is sent this run.
    var stopped = false
    var inFlight = false
    /// Failures in a row.
    var attempt = 0
    /// The back-off timer waiting to send again, by generation (only the latest counts).
    var waiting: Int?
    var generation = 0
    /// A batch was refused: send one listen at a time until what was in it has gone.
    var singleUntil: Set<String> = []

    init(_ service: any ScrobbleService) { self.service = service }
  }

  private let queue = DispatchQueue(label: "riffle.scrobbler")
  /// Where `onProblem` runs: not `queue`, so a handler may ask the scrobbler anything.
  private let problemQueue = DispatchQueue(label: "riffle.scrobbler.problems")
  private var store: ScrobbleQueue
  private let lanes: [ScrobbleServiceKind: Lane]
  private let client: HTTPClient
  private let backoff: Backoff
  private let onProblem: @Sendable (String) -> Void
  private var reported: Set<String> = []

  /// Starts scrobbling: reads the listens left in `queueFile` by earlier runs and starts sending
  /// them. With no service set it keeps nothing and sends nothing.
  public init(
    settings: ScrobbleSettings, queueFile: URL, client: HTTPClient = .shared,
    backoff: Backoff = .standard, onProblem: @escaping @Sendable (String) -> Void
  ) {
    self.client = client
    self.backoff = backoff
    self.onProblem = onProblem
    var lanes: [ScrobbleServiceKind: Lane] = [:]
    for service in settings.services() { lanes[service.kind] = Lane(service) }
    self.lanes = lanes
    store = ScrobbleQueue(file: queueFile)
    guard !lanes.isEmpty else { return }
    // Read on the scrobbler's queue, not the caller's: whatever is called next runs after it.
    queue.async { [self] in
      let (loaded, problem) = ScrobbleQueue.load(from: queueFile)
      store = loaded
      if let problem { report(problem.description) }
      for kind in self.lanes.keys.sorted() { pump(kind) }
    }
  }

  /// A scrobbler for `settings`, its queue in `paths.data`; nil when no service is set.
  public static func start(
    settings: ScrobbleSettings, paths: AppPaths, onProblem: @escaping @Sendable (String) -> Void
  ) -> Scrobbler? {
    guard !settings.isEmpty else { return nil }
    return Scrobbler(settings: settings, queueFile: paths.scrobbleQueueFile, onProblem: onProblem)
  }

  /// The services this scrobbler sends to.
  public var services: [ScrobbleServiceKind] { lanes.keys.sorted() }

  /// Tells each service the song has started. Not kept and not retried (Last.fm asks that
  /// failed "now playing" requests not be); a success shows a waiting service is back.
  public func nowPlaying(_ track: ScrobbleTrack) {
    queue.async { [self] in
      for kind in lanes.keys.sorted() {
        guard let lane = lanes[kind], !lane.stopped, lane.service.accepts(track) else { continue }
        let service = lane.service
        client.fetch(service.nowPlayingRequest(track)) { [weak self] result in
          guard let self else { return }
          let outcome = service.outcome(of: result)
          queue.async { self.nowPlayingAnswered(kind, outcome) }
        }
      }
    }
  }

  /// Keeps a listen of `track`, which started playing at `startedAt`, and sends it to every
  /// service that takes it. It is on disk when this call's work has run (before any request).
  public func listened(_ track: ScrobbleTrack, startedAt: Date) {
    queue.async { [self] in
      let kinds = lanes.filter { $0.value.service.accepts(track) }.map(\.key)
      guard !kinds.isEmpty else { return }
      store.append(
        PendingListen(
          track: track, listenedAt: Int(startedAt.timeIntervalSince1970.rounded(.down)),
          services: Set(kinds)))
      save()
      for kind in kinds.sorted() { pump(kind) }
    }
  }

  /// At quit: tries at once to send what waits (skipping back-off waits) and waits up to
  /// `timeout` for the answers. Returns true when nothing is left to send to a service that
  /// is still in use; whatever is left stays on disk for the next run.
  @discardableResult
  public func flush(timeout: TimeInterval) -> Bool {
    queue.sync {
      for (kind, lane) in lanes where lane.waiting != nil {
        lane.waiting = nil
        lane.generation += 1
        pump(kind)
      }
    }
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let (busy, left) = queue.sync {
        (
          lanes.values.contains { $0.inFlight },
          lanes.values.contains { !$0.stopped && !store.pending(for: $0.service.kind).isEmpty }
        )
      }
      if !busy { return !left }
      if Date() >= deadline { return false }
      Thread.sleep(forTimeInterval: 0.02)
    }
  }

  /// The listens still to be sent, oldest first (for tests, and to say how many wait).
  public var pendingListens: [PendingListen] { queue.sync { store.listens } }

  /// Whether a service was stopped for this run (refused credentials, wrong address).
  public func isStopped(_ kind: ScrobbleServiceKind) -> Bool {
    queue.sync { lanes[kind]?.stopped ?? false }
  }

  // MARK: - On the queue

  /// Sends the next batch to `kind`, unless it is stopped, busy, waiting, or has nothing.
  private func pump(_ kind: ScrobbleServiceKind) {
    guard let lane = lanes[kind], !lane.stopped, !lane.inFlight, lane.waiting == nil else { return }
    let pending = store.pending(for: kind)
    lane.singleUntil.formIntersection(pending.map(\.id))
    let limit = lane.singleUntil.isEmpty ? lane.service.batchLimit : 1
    let batch = Array(pending.prefix(limit))
    guard !batch.isEmpty else { return }
    lane.inFlight = true
    let service = lane.service
    client.fetch(service.submitRequest(batch)) { [weak self] result in
      guard let self else { return }
      let outcome = service.outcome(of: result)
      queue.async { self.submitted(batch, to: kind, outcome) }
    }
  }

  private func submitted(
    _ batch: [PendingListen], to kind: ScrobbleServiceKind, _ outcome: SubmitOutcome
  ) {
    guard let lane = lanes[kind] else { return }
    lane.inFlight = false
    let ids = Set(batch.map(\.id))
    let name = kind.displayName
    switch outcome {
    case .accepted:
      lane.attempt = 0
      store.remove(ids, for: kind)
      save()
      pump(kind)
    case .rejected(let reason):
      if batch.count > 1 {
        // One bad listen must not cost the others: send them one at a time.
        lane.singleUntil = ids
      } else {
        log("\(name) refused a listen of \(batch[0].track.songID) for good: \(reason)")
        store.remove(ids, for: kind)
        save()
      }
      pump(kind)
    case .transient(let retryAfter, let reason):
      lane.attempt += 1
      let delay = backoff.delay(attempt: lane.attempt, retryAfter: retryAfter)
      log(
        "\(name): \(reason); \(store.pending(for: kind).count) listens kept, trying again in "
          + "\(Int(delay.rounded(.up))) s")
      wait(lane, kind, seconds: delay)
    case .stop(let message):
      stop(lane, message)
    }
  }

  private func nowPlayingAnswered(_ kind: ScrobbleServiceKind, _ outcome: SubmitOutcome) {
    guard let lane = lanes[kind] else { return }
    switch outcome {
    case .accepted:
      // The service is back: what waits goes now rather than at the end of the back-off.
      if lane.waiting != nil {
        lane.waiting = nil
        lane.generation += 1
        lane.attempt = 0
        pump(kind)
      }
    case .stop(let message):
      stop(lane, message)
    case .rejected(let reason), .transient(_, let reason):
      log("\(kind.displayName) now playing: \(reason)")
    }
  }

  private func wait(_ lane: Lane, _ kind: ScrobbleServiceKind, seconds: Double) {
    lane.generation += 1
    let generation = lane.generation
    lane.waiting = generation
    queue.asyncAfter(deadline: .now() + seconds) { [weak self] in
      guard let self, let lane = self.lanes[kind], lane.waiting == generation else { return }
      lane.waiting = nil
      self.pump(kind)
    }
  }

  private func stop(_ lane: Lane, _ message: String) {
    lane.stopped = true
    lane.waiting = nil
    lane.generation += 1
    log(message)
    report(message)
  }

  private func save() {
    do {
      try store.save()
    } catch {
      let message = "Cannot keep listens to scrobble in \(store.file.path): \(error)"
      log(message)
      report(message)
    }
  }

  /// Tells the user once per run per message.
  private func report(_ message: String) {
    guard reported.insert(message).inserted else { return }
    let onProblem = self.onProblem
    problemQueue.async { onProblem(message) }
  }

  private func log(_ line: String) {
    FileHandle.standardError.write(Data("scrobble: \(line)\n".utf8))
  }
}
