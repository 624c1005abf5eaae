import Foundation
import RiffleAPI
import RiffleAudio
import RiffleCore

/// Keeps the fingerprints of a feed's songs under `$XDG_CACHE_HOME/riffle/fingerprints`, one
/// file per feed, and brings them up to date: songs already fingerprinted from the same audio
/// are reused, new or changed ones are fetched (through the shared HTTP client, so file:// and
/// http(s):// alike), decoded (through RiffleAudio) and fingerprinted.
public final class FingerprintStore: Sendable {
  public let folder: URL
  public let fingerprinter: Fingerprinter
  private let client: HTTPClient

  public init(
    folder: URL, client: HTTPClient = .shared,
    parameters: FingerprintParameters = FingerprintParameters()
  ) {
    self.folder = folder
    self.client = client
    self.fingerprinter = Fingerprinter(parameters: parameters)
  }

  /// What an update did.
  public struct Update: Sendable {
    public var index: FingerprintIndex
    /// Songs fingerprinted this time (the rest came from the file).
    public var fingerprinted: [String]
    /// Songs that could not be fingerprinted, with why.
    public var problems: [String]
  }

  /// The file holding a feed's index.
  public func file(for feed: URL) -> URL {
    var hash: UInt64 = 14_695_981_039_346_656_037
    for byte in feed.absoluteString.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
    return folder.appendingPathComponent(String(format: "%016llx.rfpi", hash))
  }

  /// The stored fingerprints of a feed, or none when the file is missing or unusable.
  public func stored(for feed: URL) -> [SongPrint] {
    // Mapped, not read: only the landmarks are decoded out of it.
    guard let data = try? Data(contentsOf: file(for: feed), options: .alwaysMapped) else {
      return []
    }
    do {
      return try IndexFile.decode(data, parameters: fingerprinter.parameters)
    } catch {
      FileHandle.standardError.write(Data("fingerprints: rebuilding (\(error))\n".utf8))
      return []
    }
  }

  /// Brings the feed's index up to date with `songs` and returns it; writes the file when
  /// anything changed. Blocks: call it off the main queue.
  public func update(
    feed: URL, songs: [Song], willFingerprint: (Int) -> Void = { _ in }
  ) -> Update {
    let known = Dictionary(stored(for: feed).map { ($0.id, $0) }) { first, _ in first }
    var unique: [Song] = []
    var seen = Set<String>()
    for song in songs where seen.insert(song.id).inserted { unique.append(song) }

    let keys = unique.map { Self.audioKey(for: $0.audioURL) }
    let results = ResultSlots<Result<SongPrint, FingerprintError>>(count: unique.count)
    var todo: [Int] = []
    for (i, song) in unique.enumerated() {
      if let print = known[song.id], print.audioKey == keys[i] {
        results.set(i, .success(print))
      } else {
        todo.append(i)
      }
    }
    if !todo.isEmpty { willFingerprint(todo.count) }
    let work = todo.map { (index: $0, song: unique[$0], key: keys[$0]) }
    BackgroundWork.forEach("riffle.fingerprint", count: work.count) { [self] n in
      results.set(work[n].index, fingerprint(work[n].song, key: work[n].key))
    }
    var prints: [SongPrint] = []
    var problems: [String] = []
    for (i, result) in results.values.enumerated() {
      switch result {
      case .success(let print): prints.append(print)
      case .failure(let error): problems.append("\(unique[i].title): \(error)")
      case nil: break
      }
    }
    let fingerprinted = todo.compactMap { i -> String? in
      if case .success = results.values[i] { return unique[i].id }
      return nil
    }
    if !fingerprinted.isEmpty || prints.count != known.count {
      do {
        try AtomicFile.write(
          IndexFile.encode(prints, parameters: fingerprinter.parameters), to: file(for: feed))
      } catch {
        problems.append("cannot save the fingerprint index: \(error)")
      }
    }
    return Update(
      index: FingerprintIndex(songs: prints, parameters: fingerprinter.parameters),
      fingerprinted: fingerprinted, problems: problems)
  }

  /// Fetches, decodes and fingerprints one song.
  func fingerprint(_ song: Song, key: String) -> Result<SongPrint, FingerprintError> {
    switch client.fetchSync(HTTPRequest(url: song.audioURL, maxBytes: 200_000_000)) {
    case .failure(let error):
      return .failure(.fetch(error.userMessage))
    case .success(let response):
      do {
        // Decoded and fingerprinted a piece at a time: a long song costs no more memory than
        // a short one (docs/fingerprinting.md, "Memory").
        var stream = PeakStream(parameters: fingerprinter.parameters)
        try DecoderFactory.decodeEach(response.body) { block in
          stream.append(pcm16: block, channels: PCMFormat.channels)
          return true
        }
        let seconds = stream.seconds
        // In the order the index file keeps them, so a print read back equals the one made.
        let landmarks = LandmarkHasher.landmarks(
          stream.finish(), parameters: fingerprinter.parameters
        ).sorted { ($0.frame, $0.hash) < ($1.frame, $1.hash) }
        return .success(
          SongPrint(id: song.id, audioKey: key, duration: seconds, landmarks: landmarks))
      } catch {
        return .failure(.decode(String(describing: error)))
      }
    }
  }

  /// What identifies the audio a fingerprint was made from: the URL, and for a local file its
  /// size and modification time, so a replaced file is fingerprinted again. (A remote URL is
  /// taken to name one recording: checking it would mean downloading it.)
  public static func audioKey(for url: URL) -> String {
    guard url.isFileURL,
      let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
      let size = attributes[.size] as? NSNumber,
      let modified = attributes[.modificationDate] as? Date
    else { return url.absoluteString }
    return "\(url.absoluteString)#\(size.int64Value)@\(modified.timeIntervalSince1970)"
  }
}

/// Why a song or a recording could not be fingerprinted.
public enum FingerprintError: Error, Equatable, Sendable, CustomStringConvertible {
  case fetch(String)
  case decode(String)

  public var description: String {
    switch self {
    case .fetch(let reason): return "cannot read the audio: \(reason)"
    case .decode(let reason): return reason
    }
  }
}

/// Results filled in from several threads, one slot each.
private final class ResultSlots<T>: @unchecked Sendable {
  private let lock = NSLock()
  private var slots: [T?]

  init(count: Int) { slots = Array(repeating: nil, count: count) }

  func set(_ i: Int, _ value: T) { lock.withLock { slots[i] = value } }
  var values: [T?] { lock.withLock { slots } }
}
