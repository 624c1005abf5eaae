import Foundation

/// Bytes handed from a download thread to a decoding thread, in order.
///
/// The download appends as chunks arrive; the reader blocks until there is something to read,
/// the stream ends, or it is cancelled.
final class ByteStream: @unchecked Sendable {
  enum Read {
    case bytes(Data)
    case end
    case failed(Error)
    case cancelled
    /// Nothing arrived within the wait: the stream is starved (buffering).
    case timedOut
  }

  private let condition = NSCondition()
  private var chunks: [Data] = []
  private var finished = false
  private var error: Error?
  private var cancelled = false
  private(set) var expectedLength: Int64?
  private(set) var received: Int64 = 0

  func append(_ data: Data) {
    condition.withLock {
      chunks.append(data)
      received += Int64(data.count)
      condition.broadcast()
    }
  }

  func setExpectedLength(_ length: Int64?) {
    condition.withLock { expectedLength = length }
  }

  func finish(_ error: Error?) {
    condition.withLock {
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

  /// Everything buffered so far, waiting up to `timeout` for something to arrive.
  func read(timeout: TimeInterval) -> Read {
    condition.withLock {
      let deadline = Date().addingTimeInterval(timeout)
      while chunks.isEmpty && !finished && !cancelled {
        if !condition.wait(until: deadline) { break }
      }
      if cancelled { return .cancelled }
      if !chunks.isEmpty {
        let data = chunks.count == 1 ? chunks[0] : chunks.reduce(into: Data(), { $0.append($1) })
        chunks.removeAll(keepingCapacity: true)
        return .bytes(data)
      }
      if finished { return error.map { .failed($0) } ?? .end }
      return .timedOut
    }
  }
}
