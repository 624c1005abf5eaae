import Foundation
import RiffleAPI
import RiffleTestSupport
import Testing

/// Counts the chunks a stream hands on once its first `TransferLoop.batchAfterBytes` are in.
private final class ChunkCounter: @unchecked Sendable {
  private let condition = NSCondition()
  private var data = Data()
  private var late = 0
  private var done = false

  var handlers: StreamHandlers {
    StreamHandlers(
      onData: { chunk in
        self.condition.withLock {
          if self.data.count >= 64 * 1024 { self.late += 1 }
          self.data.append(chunk)
        }
        return true
      },
      onComplete: { _ in
        self.condition.withLock {
          self.done = true
          self.condition.broadcast()
        }
      })
  }

  /// The bytes and the chunks past the first 64 KB, once the stream ended.
  func result(timeout: Double) -> (Data, Int)? {
    condition.withLock {
      let deadline = Date().addingTimeInterval(timeout)
      while !done { if !condition.wait(until: deadline) { return nil } }
      return (data, late)
    }
  }
}

@Suite("A station's bytes batched on the transfer thread", .serialized)
struct StreamBatchingTests {
  /// A client of the tests' own: batching holds only while every transfer on its thread is a
  /// batched stream, and other suites use the shared client at the same time.
  let client = HTTPClient()

  @Test("past its first 64 KB, a batched stream is handed on in batches (not every packet), whole")
  func batches() throws {
    // 128 KB/s sent in 6.4 KB pieces every 50 ms: two seconds of them past the first 64 KB.
    let body = Data((0..<(65_536 + 256_000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
    let server = try LoopbackHTTPServer { _ in
      .throttled(body, contentType: "audio/mpeg", bytesPerSecond: 128_000)
    }
    defer { server.stop() }
    func run(batchDelay: Double) throws -> (Data, Int) {
      let counter = ChunkCounter()
      var request = HTTPRequest(url: server.url("/live.mp3"))
      request.batchDelay = batchDelay
      client.stream(request, handlers: counter.handlers)
      return try #require(counter.result(timeout: 15))
    }
    let (plain, packets) = try run(batchDelay: 0)
    let (batched, batches) = try run(batchDelay: 0.1)
    #expect(plain == body && batched == body)
    // A turn every 100 ms at most: about 20 in those two seconds, against about 40 packets.
    #expect(batches <= 25, "\(batches) chunks batched, \(packets) unbatched")
    #expect(Double(batches) < 0.75 * Double(packets), "\(batches) batched, \(packets) unbatched")
  }

  @Test("a request made while a batched stream plays is not held up by the batching")
  func otherRequestsGoAtOnce() throws {
    let stream = Data(repeating: 7, count: 400_000)
    let server = try LoopbackHTTPServer { request in
      request.path == "/live.mp3"
        ? .throttled(stream, contentType: "audio/mpeg", bytesPerSecond: 100_000)
        : .respond(status: 200, body: Data("ok".utf8))
    }
    defer { server.stop() }
    let counter = ChunkCounter()
    var request = HTTPRequest(url: server.url("/live.mp3"))
    request.batchDelay = 2
    let transfer = client.stream(request, handlers: counter.handlers)
    defer { transfer.cancel() }
    // Past the first 64 KB: the transfer thread now sleeps 2 s between turns.
    Thread.sleep(forTimeInterval: 1.2)
    let began = Date()
    let other = ChunkCounter()
    client.stream(HTTPRequest(url: server.url("/page")), handlers: other.handlers)
    let (page, _) = try #require(other.result(timeout: 5))
    #expect(page == Data("ok".utf8))
    #expect(Date().timeIntervalSince(began) < 1, "the page waited for the batch")
  }
}
