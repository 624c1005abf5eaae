import CLinux
import Foundation
import RiffleAPI
import RiffleAudio
import RiffleCore
import RiffleFingerprint

/// What the listener reports while it names a song.
public enum ListenEvent: Equatable, Sendable {
  case level(Double, seconds: Double)
  case identified(songID: String, offset: Double, listened: Double)
  case failed(String)
  /// A song of the whole library's store, not on a loaded page: named, not paged to.
  case named(HeardSong)

  /// The reducer's name for this event.
  public var action: PlayerAction {
    switch self {
    case .level(let level, let seconds): return .listeningLevel(level, seconds: seconds)
    case .identified(let id, let offset, let listened):
      return .identified(songID: id, offset: offset, listened: listened)
    case .failed(let reason): return .identifyFailed(reason)
    case .named(let song): return .heardSong(song)
    }
  }
}

/// Naming a song heard nearby, as the view model drives it.
public struct IdentifyClient: Sendable {
  /// Listens for up to `seconds` and names the song among `songs` or the `queued` songs (up
  /// next, not among `songs`); events may come from any thread, and the last one is
  /// `.identified` or `.failed` (none after `stop`).
  public var start:
    @Sendable (
      _ seconds: Double, _ feedURL: URL?, _ songs: [Song], _ queued: [Song],
      _ events: @escaping @Sendable (ListenEvent) -> Void
    ) -> Void
  public var stop: @Sendable () -> Void

  public init(
    start:
      @escaping @Sendable (
        Double, URL?, [Song], [Song], @escaping @Sendable (ListenEvent) -> Void
      ) -> Void,
    stop: @escaping @Sendable () -> Void
  ) {
    self.start = start
    self.stop = stop
  }

  /// For players that cannot listen (tests that do not exercise it).
  public static let unavailable = IdentifyClient(
    start: { _, _, _, _, events in events(.failed("Listening is not available here")) },
    stop: {})

  /// Records from `capture` and matches against the feed's fingerprints in `store`; on a
  /// library page, against the whole `library` store when there is one; and against the
  /// queued songs' own prints in `store` (key `riffle:queue`), the better match winning.
  public static func live(
    capture: CaptureChoice, store: FingerprintStore, library: LibraryPrintsAccess? = nil
  ) -> IdentifyClient {
    let listener = Listener(capture: capture, store: store, library: library)
    return IdentifyClient(
      start: { seconds, feedURL, songs, queued, events in
        listener.start(
          seconds: seconds, feedURL: feedURL, songs: songs, queued: queued, events: events)
      },
      stop: { listener.stop() })
  }
}

/// The library's fingerprint store (`riffle:library`, kept with the user's data) and every
/// song of the library index, so that `i` on a library page searches the whole library, not
/// only the songs loaded on its pages.
public struct LibraryPrintsAccess: Sendable {
  public var store: FingerprintStore
  public var key: URL
  /// Every song of the library index; nil when there is no library (called on a work queue).
  public var songs: @Sendable () -> [Song]?

  public init(store: FingerprintStore, key: URL, songs: @escaping @Sendable () -> [Song]?) {
    self.store = store
    self.key = key
    self.songs = songs
  }
}

/// Records on a thread of its own while the feed's index is brought up to date on another,
/// tries to match from 3 s of audio on (each second, stopping at the first confident match)
/// and gives up after the longest listen.
final class Listener: @unchecked Sendable {
  private let capture: CaptureChoice
  private let store: FingerprintStore
  private let library: LibraryPrintsAccess?
  private let lock = NSLock()
  /// Numbers each listen; a stopped one is told by its number no longer being current.
  private var generation = 0

  init(capture: CaptureChoice, store: FingerprintStore, library: LibraryPrintsAccess? = nil) {
    self.capture = capture
    self.store = store
    self.library = library
  }

  func stop() {
    lock.withLock { generation += 1 }
  }

  func start(
    seconds: Double, feedURL: URL?, songs: [Song], queued: [Song] = [],
    events: @escaping @Sendable (ListenEvent) -> Void
  ) {
    let mine = lock.withLock {
      generation += 1
      return generation
    }
    let isCurrent: @Sendable () -> Bool = { [self] in lock.withLock { generation == mine } }
    let send: @Sendable (ListenEvent) -> Void = { event in if isCurrent() { events(event) } }

    // The index: read from the cache and completed with new songs while recording goes on.
    let index = IndexBox()
    let store = self.store
    let feed = feedURL ?? URL(string: "riffle:feed")!
    let library = self.library
    BackgroundWork.run("riffle.listen.index") {
      // A library page: the whole library's store, so a song not loaded is found too.
      let update: FingerprintStore.Update
      var names: [String: HeardSong] = [:]
      if let library, feed == library.key, let all = library.songs(), !all.isEmpty {
        update = library.store.update(feed: library.key, songs: all)
        for song in all where names[song.id] == nil {
          names[song.id] = HeardSong(
            title: song.title, artist: song.displayName, source: "your library")
        }
      } else {
        update = store.update(feed: feed, songs: songs)
      }
      // stderr is the log while the screen is up.
      var indexes = [update.index]
      var problems = update.problems
      // Up next: kept under a key of its own, never in the feed's (which drops songs it no
      // longer lists); only songs new to it are fingerprinted.
      let queueKey = SourceKind.queue.fingerprintKey
      if !queued.isEmpty, let key = queueKey, key != feed {
        let queue = store.update(feed: key, songs: queued)
        indexes.append(queue.index)
        problems += queue.problems
      }
      for problem in problems {
        FileHandle.standardError.write(Data("fingerprints: skipped \(problem)\n".utf8))
      }
      // Every other store that names its songs, as they are (made by `i` on other pages, by
      // `riffle identify`): a song of theirs is named, not paged to.
      let searched = Set([feed, queueKey].compactMap { $0.map(store.file(for:)) })
      for (prints, stored) in store.namedStores() where !searched.contains(prints) {
        do {
          indexes.append(try store.storedIndex(prints: prints))
        } catch {
          FileHandle.standardError.write(Data("fingerprints: \(error)\n".utf8))
          continue
        }
        for (id, entry) in stored.songs where names[id] == nil {
          names[id] = HeardSong(title: entry.title, artist: entry.artist, source: stored.source)
        }
      }
      index.names = names
      index.set(indexes)
    }

    let capture = self.capture
    // A queued song found is played from up next, not only named as the library's.
    let loaded = Set(songs.map(\.id)).union(queued.map(\.id))
    let thread = Thread {
      // Named for /proc and debuggers (Foundation's `name` does not reach the kernel here).
      riffle_name_current_thread("riffle-listen")
      Self.record(
        capture: capture, seconds: seconds, index: index, fingerprinter: store.fingerprinter,
        isCurrent: isCurrent,
        send: { event in send(Self.naming(event, loaded: loaded, names: index.names)) })
    }
    thread.start()
  }

  /// A match not among the loaded songs but in the whole library's store or another store:
  /// named as that store's song.
  static func naming(_ event: ListenEvent, loaded: Set<String>, names: [String: HeardSong])
    -> ListenEvent
  {
    guard case .identified(let id, _, _) = event, !loaded.contains(id), let song = names[id]
    else { return event }
    return .named(song.sanitized)
  }

  private static func record(
    capture: CaptureChoice, seconds: Double, index: IndexBox, fingerprinter: Fingerprinter,
    isCurrent: () -> Bool, send: (ListenEvent) -> Void
  ) {
    let source: AudioCapture
    do {
      source = try capture.open()
    } catch {
      send(.failed(String(describing: error)))
      return
    }
    defer { source.close() }
    let rate = Double(PCMFormat.sampleRate)
    var samples: [Float] = []
    var nextTry = 3.0
    func heard() -> Double { Double(samples.count) / rate }
    func tryMatch() -> Bool {
      guard let ready = index.wait(timeout: 0) else { return false }
      guard let match = bestMatch(samples, in: ready, fingerprinter: fingerprinter) else {
        return false
      }
      // A recording played fast covers more of the song than the seconds it took.
      send(.identified(songID: match.songID, offset: match.offset, listened: heard() * match.speed))
      return true
    }
    do {
      while heard() < seconds {
        guard isCurrent() else { return }
        guard let block = try source.read() else { break }
        var sum = 0.0
        for sample in block {
          let value = Float(sample) / 32_768
          samples.append(value)
          sum += Double(value * value)
        }
        // The meter shows loudness on a log scale: -60 dBFS is empty, 0 dBFS full.
        let rms = (sum / Double(max(1, block.count))).squareRoot()
        let level = max(0, min(1, (20 * log10(max(rms, 1e-6)) + 60) / 60))
        send(.level(level, seconds: heard()))
        if heard() >= nextTry {
          nextTry += 1
          if tryMatch() { return }
        }
      }
    } catch {
      send(.failed(String(describing: error)))
      return
    }
    guard isCurrent() else { return }
    // The last try waits for the index if it is still being built.
    guard let ready = index.wait(timeout: 600), !samples.isEmpty else {
      send(.failed("No song matched"))
      return
    }
    if let match = bestMatch(samples, in: ready, fingerprinter: fingerprinter) {
      send(.identified(songID: match.songID, offset: match.offset, listened: heard() * match.speed))
    } else {
      send(.failed("No song matched"))
    }
  }
}

/// The recording's match in each index (the feed's, up next's), the better one
/// (`FingerprintMatch.outranks`), a tie keeping the first (the rule of
/// `LibraryPrints.better`). All matching goes through here.
private func bestMatch(
  _ samples: [Float], in indexes: [FingerprintIndex], fingerprinter: Fingerprinter
) -> FingerprintMatch? {
  let recording = fingerprinter.recording(mono: samples)
  var best: FingerprintMatch?
  for index in indexes {
    guard let match = index.match(recording) else { continue }
    if best.map({ match.outranks($0) }) ?? true { best = match }
  }
  return best
}

/// The indexes once they are ready, waited for from the recording thread.
private final class IndexBox: @unchecked Sendable {
  private let condition = NSCondition()
  private var index: [FingerprintIndex]?
  private var songNames: [String: HeardSong] = [:]

  /// The songs of the whole library's store and of the other stores searched, by id, as they
  /// are named when not loaded, their words as they came (set before the index).
  var names: [String: HeardSong] {
    get { condition.withLock { songNames } }
    set { condition.withLock { songNames = newValue } }
  }

  func set(_ value: [FingerprintIndex]) {
    condition.withLock {
      index = value
      condition.broadcast()
    }
  }

  func wait(timeout: Double) -> [FingerprintIndex]? {
    condition.withLock {
      let deadline = Date(timeIntervalSinceNow: timeout)
      while index == nil && condition.wait(until: deadline) {}
      return index
    }
  }
}
