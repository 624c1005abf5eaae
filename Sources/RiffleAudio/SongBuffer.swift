import Foundation

/// A song's bytes as they download, kept so the decoder can go back to any point it has.
///
/// The download appends; the decoder reads from its own position, blocking until bytes arrive,
/// the download ends, or the buffer is cancelled. A seek inside what has arrived just moves the
/// position; a seek beyond it restarts the buffer at that offset for a Range request, and chunks
/// from the older download are refused by its generation number.
///
/// The buffer is bounded, so an hour-long episode is never held whole: a download that gets
/// `aheadLimit` bytes ahead of the reader is stopped (`suspended`) and continued by a Range
/// request once the reader is within half of that of its end (`takeRefill`), and once more than
/// `capacity` bytes are held, all but `keptBehind` of what lies behind the reader is let go (a
/// seek back there starts a Range request). A song smaller than `capacity` is kept whole, as
/// before, so it can still be cached when it ends.
final class SongBuffer: @unchecked Sendable {
  enum Read {
    case bytes(Data)
    case end
    case failed(Error)
    case cancelled
    /// Nothing arrived within the wait: the song is starved (buffering).
    case timedOut
  }

  private let condition = NSCondition()
  /// File offset of `data[0]`.
  private var base: Int64 = 0
  private var data = Data()
  private var position: Int64 = 0
  private var finished = false
  private var error: Error?
  private var cancelled = false
  private var _generation = 0
  private var _expectedLength: Int64?
  /// File offset the current download started from (a Range response's length counts from it).
  private var downloadOffset: Int64 = 0
  /// The download was stopped here because the reader was far behind; nil while it runs.
  private var suspendedAt: Int64?

  /// The most bytes held ahead of the reader before the download is stopped.
  let aheadLimit: Int
  /// The most bytes held before those behind the reader are let go.
  let capacity: Int
  /// What is kept behind the reader when bytes are let go (a short seek back stays here).
  let keptBehind: Int

  init(capacity: Int = 16 << 20, aheadLimit: Int = 8 << 20, keptBehind: Int = 2 << 20) {
    self.capacity = capacity
    self.aheadLimit = aheadLimit
    self.keptBehind = keptBehind
  }

  /// The bytes held now (for tests and figures).
  var heldBytes: Int { condition.withLock { data.count } }

  /// Numbers each download feeding this buffer; only the latest may append.
  var generation: Int { condition.withLock { _generation } }

  /// The whole song's length in bytes, when the server said.
  var expectedLength: Int64? { condition.withLock { _expectedLength } }

  /// True once the whole file, from byte 0, has arrived.
  var isComplete: Bool {
    condition.withLock {
      finished && error == nil && base == 0
        && (_expectedLength.map { Int64(data.count) >= $0 } ?? true)
    }
  }

  /// Everything downloaded, when it is the whole file.
  var completeData: Data? {
    condition.withLock {
      finished && error == nil && base == 0
        && (_expectedLength.map { Int64(data.count) >= $0 } ?? true)
        ? data : nil
    }
  }

  func setLength(_ length: Int64?, generation: Int) {
    condition.withLock {
      guard generation == _generation, let length else { return }
      // A Range response reports the remaining length; the whole is where it started plus that.
      _expectedLength = downloadOffset + length
    }
  }

  /// Appends a chunk of download `generation`; false when that download is outdated.
  func append(_ chunk: Data, generation: Int) -> Bool {
    condition.withLock {
      guard generation == _generation, !cancelled else { return false }
      data.append(chunk)
      condition.broadcast()
      if data.count > capacity {
        let behind = Int(position - base)
        if behind > keptBehind {
          let drop = behind - keptBehind
          data.removeSubrange(0..<drop)
          base += Int64(drop)
        }
      }
      if base + Int64(data.count) - position >= Int64(aheadLimit) {
        // Far enough ahead: stop this download; `takeRefill` continues it from here.
        suspendedAt = base + Int64(data.count)
        _generation += 1
        return false
      }
      return true
    }
  }

  func finish(_ error: Error?, generation: Int) {
    condition.withLock {
      guard generation == _generation else { return }
      finished = true
      self.error = error
      condition.broadcast()
    }
  }

  func cancel() {
    condition.withLock {
      cancelled = true
      condition.broadcast()
    }
  }

  var isCancelled: Bool { condition.withLock { cancelled } }

  /// Moves the read position to a file offset. True when the bytes there have arrived (or will,
  /// from the download under way); false when a new download must start there.
  func seek(to offset: Int64) -> Bool {
    condition.withLock {
      let end = base + Int64(data.count)
      // Within what is here, or a little ahead of it on a download still running.
      guard offset >= base, offset <= end + (finished ? 0 : 64 * 1024) else { return false }
      position = offset
      return true
    }
  }

  /// Empties the buffer to be filled from `offset` by a new download; returns its generation.
  func restart(at offset: Int64) -> Int {
    condition.withLock {
      _generation += 1
      base = offset
      position = offset
      downloadOffset = offset
      suspendedAt = nil
      data = Data()
      finished = false
      error = nil
      condition.broadcast()
      return _generation
    }
  }

  /// When the download was stopped ahead of the reader and the reader has come within half of
  /// `aheadLimit` of the end: the generation and offset of the download to start, which
  /// continues the buffer where it stopped; nil otherwise.
  func takeRefill() -> (generation: Int, offset: Int64)? {
    condition.withLock {
      guard let at = suspendedAt, !cancelled, at - position < Int64(aheadLimit / 2) else {
        return nil
      }
      suspendedAt = nil
      downloadOffset = at
      _generation += 1
      return (_generation, at)
    }
  }

  /// Wakes a reader waiting for bytes (to notice a seek).
  func poke() {
    condition.withLock { condition.broadcast() }
  }

  /// When a read last had to wait for bytes that had not arrived (the reader ran short).
  private var lastWait: Date?

  /// True when a read waited for bytes within the last `seconds` (or none has read yet).
  func waitedForBytes(within seconds: TimeInterval) -> Bool {
    condition.withLock {
      guard let lastWait else { return position == base && data.isEmpty }
      return Date().timeIntervalSince(lastWait) < seconds
    }
  }

  /// The most one read hands over: what has arrived beyond it waits here for the next read.
  /// The decoder keeps what it is fed until it has decoded it (mpg123 copies it into a feed
  /// buffer of its own), so handing it a whole download at once held the song twice.
  static let largestRead = 64 * 1024

  /// The bytes from the read position on (at most `largestRead`), waiting up to `timeout` for
  /// some to arrive.
  func read(timeout: TimeInterval, interrupt: () -> Bool = { false }) -> Read {
    condition.withLock {
      let deadline = Date().addingTimeInterval(timeout)
      while available == 0 && !finished && !cancelled && !interrupt() {
        lastWait = Date()
        if !condition.wait(until: deadline) { break }
      }
      if cancelled { return .cancelled }
      if available > 0 {
        let start = Int(position - base)
        let end = min(data.count, start + Self.largestRead)
        position = base + Int64(end)
        return .bytes(data.subdata(in: start..<end))
      }
      if finished { return error.map { .failed($0) } ?? .end }
      return .timedOut
    }
  }

  private var available: Int {
    max(0, Int(base + Int64(data.count) - position))
  }
}
