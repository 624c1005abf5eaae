import Foundation

/// A song's bytes as they download, kept so the decoder can go back to any point it has.
///
/// The download appends; the decoder reads from its own position, blocking until bytes arrive,
/// the download ends, or the buffer is cancelled. A seek inside what has arrived just moves the
/// position; a seek beyond it restarts the buffer at that offset for a Range request, and chunks
/// from the older download are refused by its generation number.
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
      // A Range response reports the remaining length; the whole is base + remaining.
      _expectedLength = base + length
    }
  }

  /// Appends a chunk of download `generation`; false when that download is outdated.
  func append(_ chunk: Data, generation: Int) -> Bool {
    condition.withLock {
      guard generation == _generation, !cancelled else { return false }
      data.append(chunk)
      condition.broadcast()
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
      data = Data()
      finished = false
      error = nil
      condition.broadcast()
      return _generation
    }
  }

  /// Wakes a reader waiting for bytes (to notice a seek).
  func poke() {
    condition.withLock { condition.broadcast() }
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
