import Foundation

/// What a rendered cover depends on: the song, the cell area and the colour mode.
public struct CoverKey: Hashable, Sendable {
  public var songID: String
  public var width: Int
  public var height: Int
  public var mode: ColorMode

  public init(songID: String, width: Int, height: Int, mode: ColorMode) {
    self.songID = songID
    self.width = width
    self.height = height
    self.mode = mode
  }
}

/// Rendered covers, most recently used kept, so paging back to a song draws at once.
///
/// Thread-safe: render on a background queue, read on the main queue. A cell is 32 bytes
/// (its one-symbol text is stored inline), so a 200x60 entry is about 380 KB and 24 entries stay
/// under 10 MB; the player keeps 12.
public final class CoverCache: @unchecked Sendable {
  public let capacity: Int
  private let lock = NSLock()
  private var entries: [CoverKey: (cells: CoverCells, lastUse: UInt64)] = [:]
  private var clock: UInt64 = 0

  public init(capacity: Int = 24) {
    self.capacity = max(1, capacity)
  }

  /// The cells stored for a key, which becomes the most recently used.
  public func cells(for key: CoverKey) -> CoverCells? {
    lock.lock()
    defer { lock.unlock() }
    guard let entry = entries[key] else { return nil }
    clock += 1
    entries[key] = (entry.cells, clock)
    return entry.cells
  }

  /// Stores cells for a key; beyond the capacity the least recently used entry goes.
  public func insert(_ cells: CoverCells, for key: CoverKey) {
    lock.lock()
    defer { lock.unlock() }
    clock += 1
    entries[key] = (cells, clock)
    while entries.count > capacity {
      guard let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key else {
        break
      }
      entries[oldest] = nil
    }
  }

  /// The stored cells, or `render()`'s result, stored. The lock is not held while rendering,
  /// so two threads asking for the same missing key may both render it.
  public func cells(for key: CoverKey, orRender render: () -> CoverCells) -> CoverCells {
    if let cached = cells(for: key) { return cached }
    let cells = render()
    insert(cells, for: key)
    return cells
  }

  /// Whether a key is stored, without making it recent.
  public func contains(_ key: CoverKey) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    return entries[key] != nil
  }

  public var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return entries.count
  }

  /// Forgets every entry for a song (its cover changed), or everything when `songID` is nil.
  public func removeAll(songID: String? = nil) {
    lock.lock()
    defer { lock.unlock() }
    if let songID {
      entries = entries.filter { $0.key.songID != songID }
    } else {
      entries.removeAll()
    }
  }
}
