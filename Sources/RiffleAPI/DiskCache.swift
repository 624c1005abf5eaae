import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Files kept on disk by the URL they came from, bounded in size, oldest use evicted first.
///
/// Names are a hash of the URL; writes go through `AtomicFile`, so a crash never leaves half a
/// file under a real name. Every hit refreshes the file's time, which is what eviction orders by.
public final class DiskCache: @unchecked Sendable {
  public let folder: URL
  public let capacity: Int64
  private let lock = NSLock()
  /// Whether this process has cleared what killed writers left (done once, at the first store).
  private var sweptTemporaries = false

  public init(folder: URL, capacity: Int64) {
    self.folder = folder
    self.capacity = capacity
  }

  /// The file name for a URL: two 64-bit FNV-1a hashes of it, and its extension.
  public static func name(for url: URL) -> String {
    let text = url.absoluteString
    func fnv(_ basis: UInt64) -> UInt64 {
      var hash = basis
      for byte in text.utf8 {
        hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
      }
      return hash
    }
    let first = String(fnv(0xcbf2_9ce4_8422_2325), radix: 16)
    let second = String(fnv(0x84222325_cbf29ce4), radix: 16)
    let ext = url.pathExtension.filter { $0.isLetter || $0.isNumber }.prefix(5)
    return first + second + (ext.isEmpty ? "" : "." + ext)
  }

  /// The cached copy of `url`, if there is one (and marks it as just used).
  public func file(for url: URL) -> URL? {
    let file = folder.appendingPathComponent(Self.name(for: url))
    guard FileManager.default.fileExists(atPath: file.path) else { return nil }
    utimes(file.path, nil)  // now: the least recently used go first
    return file
  }

  /// Keeps `data` as the copy of `url`, then evicts the oldest files beyond the capacity.
  public func store(_ data: Data, for url: URL) {
    guard Int64(data.count) <= capacity else { return }
    lock.withLock {
      if !sweptTemporaries {
        sweptTemporaries = true
        AtomicFile.removeStaleTemporaries(in: folder)
      }
      do {
        try AtomicFile.write(data, to: folder.appendingPathComponent(Self.name(for: url)))
        evict()
      } catch {
        FileHandle.standardError.write(Data("cache: cannot store \(url): \(error)\n".utf8))
      }
    }
  }

  /// Downloads `url` straight into the cache (a podcast episode kept for offline listening):
  /// streamed to a temporary file beside the copies, never held in memory, then renamed into
  /// place and the oldest copies evicted beyond the capacity. Calls `completion` with the size
  /// kept, off the caller's thread.
  public func download(
    _ url: URL, client: HTTPClient = .shared,
    completion: @escaping @Sendable (Result<Int64, HTTPError>) -> Void
  ) {
    let name = Self.name(for: url)
    let temporary = folder.appendingPathComponent(
      AtomicFile.temporaryName(for: name, pid: getpid()))
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
        throw POSIXError.current("create \(temporary.path)")
      }
    } catch {
      return completion(.failure(.transport("cannot write into the cache: \(error)")))
    }
    guard let handle = try? FileHandle(forWritingTo: temporary) else {
      return completion(.failure(.transport("cannot write into the cache")))
    }
    let capacity = self.capacity
    let written = Counter()
    client.stream(
      HTTPRequest(url: url, maxBytes: Int(min(capacity, 4_000_000_000))),
      handlers: StreamHandlers(
        onData: { chunk in
          guard (try? handle.write(contentsOf: chunk)) != nil else { return false }
          return written.add(chunk.count) <= capacity
        },
        onComplete: { [self] error in
          try? handle.synchronize()
          try? handle.close()
          if let error {
            try? FileManager.default.removeItem(at: temporary)
            return completion(.failure(error))
          }
          lock.withLock {
            let target = folder.appendingPathComponent(name)
            if rename(temporary.path, target.path) != 0 {
              try? FileManager.default.removeItem(at: temporary)
            }
            evict()
          }
          completion(.success(written.value))
        }))
  }

  /// Bytes the cache holds now.
  public var size: Int64 {
    entries().reduce(0) { $0 + $1.size }
  }

  private func entries() -> [(url: URL, size: Int64, used: Date)] {
    let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
    let files =
      (try? FileManager.default.contentsOfDirectory(
        at: folder, includingPropertiesForKeys: keys)) ?? []
    return files.compactMap { file in
      guard let values = try? file.resourceValues(forKeys: Set(keys)),
        values.isRegularFile == true, !file.lastPathComponent.hasPrefix(".")
      else { return nil }
      return (file, Int64(values.fileSize ?? 0), values.contentModificationDate ?? .distantPast)
    }
  }

  private func evict() {
    var all = entries().sorted { $0.used < $1.used }
    var total = all.reduce(0) { $0 + $1.size }
    while total > capacity, !all.isEmpty {
      let oldest = all.removeFirst()
      try? FileManager.default.removeItem(at: oldest.url)
      total -= oldest.size
    }
  }
}

/// Bytes counted from a transfer's thread.
private final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var total: Int64 = 0
  func add(_ count: Int) -> Int64 {
    lock.withLock {
      total += Int64(count); return total
    }
  }
  var value: Int64 { lock.withLock { total } }
}
