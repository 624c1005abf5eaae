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
  /// One update at a time per store: two would write the same temporary files.
  private let updating = NSLock()

  /// How the user knows the sources of some keys, where `StoreNames.source(ofKey:)` would say
  /// less ("the bundled catalog" rather than "the feed songs.json").
  public let sourceNames: [URL: String]

  public init(
    folder: URL, client: HTTPClient = .shared,
    parameters: FingerprintParameters = FingerprintParameters(), sourceNames: [URL: String] = [:]
  ) {
    self.folder = folder
    self.client = client
    self.fingerprinter = Fingerprinter(parameters: parameters)
    self.sourceNames = sourceNames
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
    // Mapped, not read: only the peaks are decoded out of it.
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

  /// The file holding a feed's inverted table, ready to map (`TableFile`).
  public func tableFile(for feed: URL) -> URL {
    Self.tableFile(ofPrints: file(for: feed))
  }

  static func tableFile(ofPrints prints: URL) -> URL {
    prints.deletingPathExtension().appendingPathExtension("rfpt")
  }

  /// The file naming a feed's songs (`StoreNames`): what lets a song be named from the store
  /// alone, where its page is not loaded (`i` on a station's page).
  public func namesFile(for feed: URL) -> URL {
    file(for: feed).deletingPathExtension().appendingPathExtension("rfpn")
  }

  /// Every store in the folder that names its songs: its prints file and its names.
  public func namedStores() -> [(prints: URL, names: StoreNames)] {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return files.filter { $0.hasSuffix(".rfpn") }.sorted().compactMap { name in
      let namesURL = folder.appendingPathComponent(name)
      let prints = namesURL.deletingPathExtension().appendingPathExtension("rfpi")
      guard FileManager.default.fileExists(atPath: prints.path),
        let data = FileManager.default.contents(atPath: namesURL.path),
        let names = StoreNames(json: data)
      else { return nil }
      return (prints, names)
    }
  }

  /// Writes the names of `songs` beside the feed's prints, unless the file says the same.
  private func saveNames(feed: URL, songs: [Song]) {
    let names = StoreNames(
      source: sourceNames[feed] ?? StoreNames.source(ofKey: feed), songs: songs)
    let url = namesFile(for: feed)
    if let data = FileManager.default.contents(atPath: url.path), StoreNames(json: data) == names {
      return
    }
    do {
      try AtomicFile.write(names.json, to: url)
    } catch {
      FileHandle.standardError.write(
        Data("fingerprints: cannot save the songs' names (\(error))\n".utf8))
    }
  }

  /// Postings of songs added since the table was built that are kept in memory beside it
  /// (about 120 three-minute songs) before the table is built again.
  public static let maxAddedPostings = 4 << 20

  /// Brings the feed's index up to date with `songs` and returns it; writes the files when
  /// anything changed. Blocks: call it off the main queue.
  ///
  /// Memory stays bounded whatever the catalog's size (docs/fingerprinting.md, "Memory"): the
  /// prints file is read and written a song at a time (songs kept are copied packed, new ones
  /// are written as they are made, in the feed's order), and the inverted table is mapped from
  /// its own file, built in a stream when the prints changed. Songs added since the table was
  /// built are indexed in memory beside it until they are many.
  public func update(
    feed: URL, songs: [Song], willFingerprint: (Int) -> Void = { _ in }
  ) -> Update {
    updating.withLock {
      AtomicFile.removeStaleTemporaries(in: folder)
      return updateAlone(feed: feed, songs: songs, willFingerprint: willFingerprint)
    }
  }

  private func updateAlone(
    feed: URL, songs: [Song], willFingerprint: (Int) -> Void
  ) -> Update {
    let parameters = fingerprinter.parameters
    let printsURL = file(for: feed)
    // What the file holds, in order (the peaks are skipped).
    var stored: [(id: String, audioKey: String)] = []
    if FileManager.default.fileExists(atPath: printsURL.path) {
      do {
        let reader = try PrintFileReader(url: printsURL, parameters: parameters)
        while let print = try reader.next() { stored.append((print.id, print.audioKey)) }
      } catch {
        FileHandle.standardError.write(Data("fingerprints: rebuilding (\(error))\n".utf8))
        stored = []
      }
    }
    var known: [String: (key: String, position: Int)] = [:]
    for (position, entry) in stored.enumerated() where known[entry.id] == nil {
      known[entry.id] = (entry.audioKey, position)
    }
    var unique: [Song] = []
    var seen = Set<String>()
    for song in songs where seen.insert(song.id).inserted { unique.append(song) }
    let keys = unique.map { Self.audioKey(for: $0.audioURL) }
    var kept = Set<Int>()
    var todo: [Int] = []
    for (i, song) in unique.enumerated() {
      if let print = known[song.id], print.key == keys[i] {
        kept.insert(print.position)
      } else {
        todo.append(i)
      }
    }

    var problems: [String] = []
    var fingerprinted: [String] = []
    var entries = stored
    if !todo.isEmpty || kept.count != stored.count {
      if !todo.isEmpty { willFingerprint(todo.count) }
      let work = todo.map { (song: unique[$0], key: keys[$0]) }
      do {
        let writer = try PrintFileWriter(to: printsURL, parameters: parameters)
        do {
          // Kept songs first, in the file's order: a table built before stays valid for them.
          if !kept.isEmpty {
            try TableFile.eachSong(printsURL, parameters: parameters) { position, print in
              if kept.contains(position) { try writer.append(print) }
            }
          }
          let outcome = fingerprintInOrder(work) { print in try writer.append(print) }
          fingerprinted = outcome.done
          problems = outcome.problems
          if let failure = outcome.writeError { throw failure }
          try writer.finish()
          entries = writer.entries
        } catch {
          writer.abandon()
          throw error
        }
      } catch {
        // The cache cannot be written: the index is made in memory, as a last resort.
        problems.append("cannot save the fingerprint index: \(error)")
        return inMemory(
          feed: feed, unique: unique, keys: keys, known: known, work: work, problems: problems)
      }
    }
    saveNames(feed: feed, songs: unique)
    do {
      return Update(
        index: try index(feed: feed, entries: entries), fingerprinted: fingerprinted,
        problems: problems)
    } catch {
      problems.append("cannot build the fingerprint table: \(error)")
      return Update(
        index: FingerprintIndex(songs: self.stored(for: feed), parameters: parameters),
        fingerprinted: fingerprinted, problems: problems)
    }
  }

  /// The index over the prints file whose songs are `entries`: its table mapped, with the
  /// songs added since the table was built in memory beside it, or the table built again.
  /// The table is kept only when its songs are the file's first, their records where it says
  /// (so `peaks(ofSong:)` reads the right bytes).
  func index(feed: URL, entries: [(id: String, audioKey: String)]) throws -> FingerprintIndex {
    try index(prints: file(for: feed), entries: entries)
  }

  func index(prints printsURL: URL, entries: [(id: String, audioKey: String)]) throws
    -> FingerprintIndex
  {
    let parameters = fingerprinter.parameters
    let tableURL = Self.tableFile(ofPrints: printsURL)
    if entries.isEmpty { return FingerprintIndex(songs: [], parameters: parameters) }
    if let table = try? TableFile.open(tableURL, parameters: parameters),
      table.entries.count <= entries.count,
      zip(table.entries, entries).allSatisfy({ $0.id == $1.id && $0.audioKey == $1.audioKey })
    {
      var added: [SongPrint] = []
      var postings = 0
      var fits = true
      try TableFile.eachSong(printsURL, parameters: parameters) { position, print in
        guard fits else { return }
        guard position >= table.entries.count else {
          if !print.record.isAt(table.records[position]) { fits = false }
          return
        }
        let song = SongPrint(
          id: print.id, audioKey: print.audioKey, duration: print.duration,
          peaks: try print.peaks())
        postings += song.landmarks(parameters: parameters).count
        guard postings <= Self.maxAddedPostings else {
          fits = false
          added = []
          return
        }
        added.append(song)
      }
      if fits {
        return FingerprintIndex(
          table: table, added: added, parameters: parameters, prints: printsURL)
      }
    }
    try TableFile.build(from: printsURL, to: tableURL, parameters: parameters)
    return FingerprintIndex(
      table: try TableFile.open(tableURL, parameters: parameters), added: [],
      parameters: parameters, prints: printsURL)
  }

  /// Fingerprints `work` on all cores and hands each print to `save` in `work`'s order (a
  /// print made early waits for the ones before it, so few are held at a time).
  private func fingerprintInOrder(
    _ work: [(song: Song, key: String)], save: @escaping (SongPrint) throws -> Void
  ) -> (done: [String], problems: [String], writeError: Error?) {
    let order = InOrder(count: work.count, save: save)
    BackgroundWork.forEach("riffle.fingerprint", count: work.count) { [self] n in
      order.set(n, fingerprint(work[n].song, key: work[n].key))
    }
    return order.outcome(ids: work.map(\.song.id), titles: work.map(\.song.title))
  }

  /// The last resort when the cache cannot be written: every print in memory.
  private func inMemory(
    feed: URL, unique: [Song], keys: [String], known: [String: (key: String, position: Int)],
    work: [(song: Song, key: String)], problems: [String]
  ) -> Update {
    var prints = self.stored(for: feed).filter { print in
      unique.indices.contains { unique[$0].id == print.id && keys[$0] == print.audioKey }
    }
    var made: [SongPrint] = []
    let outcome = fingerprintInOrder(work) { made.append($0) }
    prints += made
    return Update(
      index: FingerprintIndex(songs: prints, parameters: fingerprinter.parameters),
      fingerprinted: outcome.done, problems: problems + outcome.problems)
  }

  /// Writes a feed's prints file from prints handed over one at a time by `body` (which calls
  /// `add` for each), without holding them all: for tools and benchmarks that make prints
  /// themselves.
  public func save(feed: URL, _ body: (_ add: (SongPrint) throws -> Void) throws -> Void) throws {
    let writer = try PrintFileWriter(to: file(for: feed), parameters: fingerprinter.parameters)
    do {
      try body { try writer.append($0) }
      try writer.finish()
    } catch {
      writer.abandon()
      throw error
    }
  }

  /// The index of a feed's stored prints, its table mapped (and built first when missing or
  /// out of date).
  public func storedIndex(for feed: URL) throws -> FingerprintIndex {
    try storedIndex(prints: file(for: feed))
  }

  /// The index of the prints in `prints` (a file of this store's folder), as `storedIndex(for:)`.
  public func storedIndex(prints: URL) throws -> FingerprintIndex {
    var entries: [(id: String, audioKey: String)] = []
    try TableFile.eachSong(prints, parameters: fingerprinter.parameters) { _, print in
      entries.append((print.id, print.audioKey))
    }
    return try index(prints: prints, entries: entries)
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
        // At the whole positions the landmarks are made from (`SongPrint.wholePeaks`), as
        // the prints file keeps them: a print read back equals the one made.
        let peaks = stream.finish()
        return .success(
          SongPrint(
            id: song.id, audioKey: key, duration: seconds, peaks: peaks, bits: stream.bits,
            bass: stream.bass))
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

/// Prints made on several threads, handed on in order as soon as each one's predecessors are.
private final class InOrder: @unchecked Sendable {
  private let lock = NSLock()
  private var slots: [Result<SongPrint, FingerprintError>?]
  private var next = 0
  private let save: (SongPrint) throws -> Void
  private var done: [Int] = []
  private var problems: [(Int, String)] = []
  private var writeError: Error?

  init(count: Int, save: @escaping (SongPrint) throws -> Void) {
    slots = Array(repeating: nil, count: count)
    self.save = save
  }

  func set(_ i: Int, _ value: Result<SongPrint, FingerprintError>) {
    lock.withLock {
      slots[i] = value
      while next < slots.count, let result = slots[next] {
        slots[next] = nil
        switch result {
        case .success(let print):
          if writeError == nil {
            do {
              try save(print)
              done.append(next)
            } catch {
              writeError = error
            }
          }
        case .failure(let error): problems.append((next, "\(error)"))
        }
        next += 1
      }
    }
  }

  func outcome(ids: [String], titles: [String]) -> (
    done: [String], problems: [String], writeError: Error?
  ) {
    lock.withLock {
      (
        done.map { ids[$0] }, problems.map { "\(titles[$0.0]): \($0.1)" },
        writeError
      )
    }
  }
}
