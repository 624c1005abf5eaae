import Foundation
import Testing

@testable import RiffleAudio

private struct DownloadFailed: Error, Equatable {
  var reason: String
}

/// What a read gave, in a form that compares.
private enum Got: Equatable {
  case bytes([UInt8])
  case end
  case failed(String)
  case cancelled
  case timedOut

  init(_ read: SongBuffer.Read) {
    switch read {
    case .bytes(let data): self = .bytes([UInt8](data))
    case .end: self = .end
    case .failed(let error): self = .failed((error as? DownloadFailed)?.reason ?? "\(error)")
    case .cancelled: self = .cancelled
    case .timedOut: self = .timedOut
    }
  }
}

private func read(_ buffer: SongBuffer, timeout: TimeInterval = 0.05) -> Got {
  Got(buffer.read(timeout: timeout))
}

/// Bytes first..<first+count of a file whose byte n is n % 251.
private func slice(_ first: Int, _ count: Int) -> Data {
  Data((first..<(first + count)).map { UInt8($0 % 251) })
}

/// Runs a read on another thread and hands its result back.
private final class BackgroundRead: @unchecked Sendable {
  private let condition = NSCondition()
  private var result: Got?
  private var finishedAt: Date?

  init(_ buffer: SongBuffer, timeout: TimeInterval) {
    Thread.detachNewThread { [self] in
      let got = Got(buffer.read(timeout: timeout))
      condition.withLock {
        result = got
        finishedAt = Date()
        condition.broadcast()
      }
    }
  }

  /// The result, or nil when the read has not returned within `timeout`.
  func wait(_ timeout: TimeInterval) -> (got: Got, at: Date)? {
    condition.withLock {
      let deadline = Date().addingTimeInterval(timeout)
      while result == nil {
        if !condition.wait(until: deadline) { break }
      }
      guard let result, let finishedAt else { return nil }
      return (result, finishedAt)
    }
  }
}

@Suite("SongBuffer")
struct SongBufferTests {
  @Test("Chunks are read back in the order they were appended, each byte once")
  func appendReadOrder() {
    let buffer = SongBuffer()
    let generation = buffer.generation
    #expect(buffer.append(slice(0, 100), generation: generation))
    #expect(buffer.append(slice(100, 50), generation: generation))
    #expect(read(buffer) == .bytes([UInt8](slice(0, 150))))
    #expect(buffer.append(slice(150, 10), generation: generation))
    #expect(read(buffer) == .bytes([UInt8](slice(150, 10))))
    #expect(read(buffer) == .timedOut)
  }

  @Test("A read hands over at most 64 KB; the next goes on from there, then the end")
  func readsAreBounded() {
    let buffer = SongBuffer()
    let generation = buffer.generation
    let size = SongBuffer.largestRead * 2 + 10
    #expect(buffer.append(slice(0, size), generation: generation))
    buffer.finish(nil, generation: generation)
    #expect(read(buffer) == .bytes([UInt8](slice(0, SongBuffer.largestRead))))
    #expect(read(buffer) == .bytes([UInt8](slice(SongBuffer.largestRead, SongBuffer.largestRead))))
    #expect(read(buffer) == .bytes([UInt8](slice(SongBuffer.largestRead * 2, 10))))
    #expect(read(buffer) == .end)
  }

  @Test("A read with nothing to give times out after about its wait")
  func readTimesOut() {
    let buffer = SongBuffer()
    let started = Date()
    #expect(read(buffer, timeout: 0.2) == .timedOut)
    let waited = Date().timeIntervalSince(started)
    #expect(waited >= 0.19, "waited \(waited) s")
    #expect(waited < 1, "waited \(waited) s")
  }

  @Test("A read that is interrupted returns before its wait is over")
  func readInterrupted() {
    let buffer = SongBuffer()
    let started = Date()
    #expect(Got(buffer.read(timeout: 5, interrupt: { true })) == .timedOut)
    #expect(Date().timeIntervalSince(started) < 1)
  }

  @Test("A blocked read wakes as soon as bytes arrive")
  func blockedReadWakesOnAppend() {
    let buffer = SongBuffer()
    let reader = BackgroundRead(buffer, timeout: 5)
    Thread.sleep(forTimeInterval: 0.1)
    let appendedAt = Date()
    #expect(buffer.append(slice(0, 10), generation: buffer.generation))
    let result = reader.wait(5)
    #expect(result?.got == .bytes([UInt8](slice(0, 10))))
    if let result { #expect(result.at.timeIntervalSince(appendedAt) < 0.5) }
  }

  @Test("After the last bytes, a finished download reads as the end")
  func end() {
    let buffer = SongBuffer()
    let generation = buffer.generation
    _ = buffer.append(slice(0, 20), generation: generation)
    buffer.finish(nil, generation: generation)
    #expect(read(buffer) == .bytes([UInt8](slice(0, 20))))
    #expect(read(buffer) == .end)
    #expect(read(buffer) == .end)
  }

  @Test("A failed download gives the bytes it had, then the failure")
  func failure() {
    let buffer = SongBuffer()
    let generation = buffer.generation
    _ = buffer.append(slice(0, 20), generation: generation)
    buffer.finish(DownloadFailed(reason: "Connection to cdn was cut off"), generation: generation)
    #expect(read(buffer) == .bytes([UInt8](slice(0, 20))))
    #expect(read(buffer) == .failed("Connection to cdn was cut off"))
    #expect(!buffer.isComplete)
    #expect(buffer.completeData == nil)
  }

  @Test("Cancelling wakes a blocked reader at once with .cancelled")
  func cancelWakesReader() {
    let buffer = SongBuffer()
    let reader = BackgroundRead(buffer, timeout: 10)
    Thread.sleep(forTimeInterval: 0.1)
    #expect(reader.wait(0) == nil)
    let cancelledAt = Date()
    buffer.cancel()
    let result = reader.wait(5)
    #expect(result?.got == .cancelled)
    if let result { #expect(result.at.timeIntervalSince(cancelledAt) < 0.5) }
    #expect(buffer.isCancelled)
  }

  @Test("After cancel, appends are refused and reads say cancelled even with bytes left")
  func cancelRefusesAppends() {
    let buffer = SongBuffer()
    let generation = buffer.generation
    _ = buffer.append(slice(0, 10), generation: generation)
    buffer.cancel()
    #expect(!buffer.append(slice(10, 10), generation: generation))
    #expect(read(buffer) == .cancelled)
  }

  @Test("A finish wakes a blocked reader with the end")
  func finishWakesReader() {
    let buffer = SongBuffer()
    let reader = BackgroundRead(buffer, timeout: 10)
    Thread.sleep(forTimeInterval: 0.1)
    buffer.finish(nil, generation: buffer.generation)
    #expect(reader.wait(5)?.got == .end)
  }

  @Test("After a restart, the older download's chunks, length and end are refused")
  func generationGuards() {
    let buffer = SongBuffer()
    let first = buffer.generation
    _ = buffer.append(slice(0, 100), generation: first)
    buffer.setLength(10_000, generation: first)
    let second = buffer.restart(at: 5_000)
    #expect(second != first)
    #expect(buffer.generation == second)
    #expect(!buffer.append(slice(100, 100), generation: first))
    buffer.finish(DownloadFailed(reason: "stale"), generation: first)
    buffer.setLength(99, generation: first)
    #expect(buffer.expectedLength == 10_000)
    #expect(buffer.append(slice(5_000, 30), generation: second))
    #expect(read(buffer) == .bytes([UInt8](slice(5_000, 30))))
    #expect(read(buffer) == .timedOut)
    buffer.finish(nil, generation: second)
    #expect(read(buffer) == .end)
  }

  @Test("A restart wakes a blocked reader, which then reads the new download")
  func restartWakesReader() {
    let buffer = SongBuffer()
    _ = buffer.append(slice(0, 10), generation: buffer.generation)
    #expect(read(buffer) == .bytes([UInt8](slice(0, 10))))
    let generation = buffer.restart(at: 2_000)
    #expect(buffer.append(slice(2_000, 5), generation: generation))
    #expect(read(buffer) == .bytes([UInt8](slice(2_000, 5))))
  }

  @Test("A seek inside what has arrived just moves the read position")
  func seekInside() {
    let buffer = SongBuffer()
    let generation = buffer.generation
    _ = buffer.append(slice(0, 1_000), generation: generation)
    #expect(read(buffer) == .bytes([UInt8](slice(0, 1_000))))
    #expect(buffer.seek(to: 250))
    #expect(read(buffer) == .bytes([UInt8](slice(250, 750))))
    #expect(buffer.seek(to: 0))
    #expect(read(buffer) == .bytes([UInt8](slice(0, 1_000))))
    #expect(buffer.generation == generation)
  }

  @Test("A seek a little ahead of a running download waits there for the bytes")
  func seekJustAhead() {
    let buffer = SongBuffer()
    let generation = buffer.generation
    _ = buffer.append(slice(0, 1_000), generation: generation)
    #expect(buffer.seek(to: 1_500))
    #expect(read(buffer) == .timedOut)
    _ = buffer.append(slice(1_000, 1_000), generation: generation)
    #expect(read(buffer) == .bytes([UInt8](slice(1_500, 500))))
  }

  @Test("A seek beyond what will soon arrive, or past the end, needs a new download")
  func seekBeyond() {
    let buffer = SongBuffer()
    let generation = buffer.generation
    _ = buffer.append(slice(0, 1_000), generation: generation)
    #expect(!buffer.seek(to: 1_000 + 64 * 1024 + 1))
    #expect(!buffer.seek(to: 5_000_000))
    #expect(!buffer.seek(to: -1))
    // The position did not move: the next read starts where it was.
    #expect(read(buffer) == .bytes([UInt8](slice(0, 1_000))))
    buffer.finish(nil, generation: generation)
    #expect(buffer.seek(to: 1_000))
    #expect(!buffer.seek(to: 1_001))
  }

  @Test("After a restart, seeks before its start need another download")
  func seekBeforeRestartBase() {
    let buffer = SongBuffer()
    _ = buffer.append(slice(0, 1_000), generation: buffer.generation)
    let generation = buffer.restart(at: 10_000)
    _ = buffer.append(slice(10_000, 1_000), generation: generation)
    #expect(!buffer.seek(to: 500))
    #expect(!buffer.seek(to: 9_999))
    #expect(buffer.seek(to: 10_400))
    #expect(read(buffer) == .bytes([UInt8](slice(10_400, 600))))
  }

  @Test("completeData is the whole file only when it arrived whole from byte 0")
  func completeData() {
    let buffer = SongBuffer()
    let generation = buffer.generation
    buffer.setLength(300, generation: generation)
    _ = buffer.append(slice(0, 200), generation: generation)
    #expect(buffer.completeData == nil)
    #expect(!buffer.isComplete)
    _ = buffer.append(slice(200, 100), generation: generation)
    #expect(buffer.completeData == nil)
    buffer.finish(nil, generation: generation)
    #expect(buffer.completeData == slice(0, 300))
    #expect(buffer.isComplete)
  }

  @Test("A download that ended short of its declared length is not complete")
  func shortOfLength() {
    let buffer = SongBuffer()
    let generation = buffer.generation
    buffer.setLength(300, generation: generation)
    _ = buffer.append(slice(0, 299), generation: generation)
    buffer.finish(nil, generation: generation)
    #expect(buffer.completeData == nil)
    #expect(!buffer.isComplete)
  }

  @Test("Without a declared length, a finished download from byte 0 is complete")
  func completeWithoutLength() {
    let buffer = SongBuffer()
    let generation = buffer.generation
    _ = buffer.append(slice(0, 42), generation: generation)
    buffer.finish(nil, generation: generation)
    #expect(buffer.completeData == slice(0, 42))
  }

  @Test("A download restarted past byte 0 is never complete, even when it finishes")
  func restartedNotComplete() {
    let buffer = SongBuffer()
    _ = buffer.append(slice(0, 100), generation: buffer.generation)
    let generation = buffer.restart(at: 100)
    buffer.setLength(200, generation: generation)
    _ = buffer.append(slice(100, 200), generation: generation)
    buffer.finish(nil, generation: generation)
    #expect(buffer.completeData == nil)
    #expect(!buffer.isComplete)
  }

  @Test("A restart from byte 0 that finishes is complete again")
  func restartAtZeroComplete() {
    let buffer = SongBuffer()
    _ = buffer.append(slice(0, 100), generation: buffer.generation)
    let generation = buffer.restart(at: 0)
    _ = buffer.append(slice(0, 150), generation: generation)
    buffer.finish(nil, generation: generation)
    #expect(buffer.completeData == slice(0, 150))
  }

  @Test("expectedLength after a Range restart is the base plus what remains")
  func expectedLengthWithRange() {
    let buffer = SongBuffer()
    #expect(buffer.expectedLength == nil)
    buffer.setLength(nil, generation: buffer.generation)
    #expect(buffer.expectedLength == nil)
    buffer.setLength(1_000_000, generation: buffer.generation)
    #expect(buffer.expectedLength == 1_000_000)
    let generation = buffer.restart(at: 400_000)
    buffer.setLength(600_000, generation: generation)
    #expect(buffer.expectedLength == 1_000_000)
    let later = buffer.restart(at: 750_000)
    buffer.setLength(250_000, generation: later)
    #expect(buffer.expectedLength == 1_000_000)
  }

  @Test("bounded: the download stops ahead of the reader, continues near the end, old bytes go")
  func boundedWindow() {
    let buffer = SongBuffer(capacity: 1000, aheadLimit: 400, keptBehind: 100)
    var generation = buffer.restart(at: 0)
    buffer.setLength(5000, generation: generation)
    var appended = 0
    var readBytes: [UInt8] = []
    var refills: [Int64] = []
    var mostHeld = 0
    var running = true
    // A 5000-byte song in chunks of 100, read 64 bytes at a time.
    while readBytes.count < 5000 {
      if let (next, offset) = buffer.takeRefill() {
        refills.append(offset)
        #expect(offset == Int64(appended))
        generation = next
        running = true
      }
      // The download keeps coming while it runs; once stopped, only a refill restarts it. The
      // chunk that stopped it is kept.
      while running && appended < 5000 {
        let chunk = slice(appended, 100)
        guard buffer.append(chunk, generation: generation) else {
          appended += 100
          running = false
          break
        }
        appended += 100
        if appended == 5000 { buffer.finish(nil, generation: generation) }
      }
      mostHeld = max(mostHeld, buffer.heldBytes)
      guard case .bytes(let data) = buffer.read(timeout: 0.01) else {
        Issue.record("the reader starved at \(readBytes.count)")
        return
      }
      readBytes += data.prefix(64)
      if data.count > 64 { _ = buffer.seek(to: Int64(readBytes.count)) }
    }
    #expect(readBytes == [UInt8](slice(0, 5000)), "the bytes arrive whole and in order")
    #expect(!refills.isEmpty)
    #expect(mostHeld <= 1100, "held \(mostHeld)")
    #expect(read(buffer) == .end)
    // The start was let go: a seek back there needs a new download, and nothing is cached.
    #expect(!buffer.seek(to: 0))
    #expect(buffer.completeData == nil)
  }

  @Test("a song smaller than the buffer is kept whole, and so can be cached")
  func smallSongKeptWhole() {
    let buffer = SongBuffer(capacity: 1000, aheadLimit: 800, keptBehind: 100)
    let generation = buffer.restart(at: 0)
    for first in stride(from: 0, to: 700, by: 100) {
      #expect(buffer.append(slice(first, 100), generation: generation))
    }
    buffer.finish(nil, generation: generation)
    #expect(buffer.completeData == slice(0, 700))
  }

  @Test("a station's bytes may be batched only while the reader has not run short lately")
  func waitedForBytes() {
    let buffer = SongBuffer()
    let generation = buffer.restart(at: 0)
    // Nothing read yet, nothing here: not to be batched.
    #expect(buffer.waitedForBytes(within: 5))
    _ = buffer.append(Data(repeating: 1, count: 1_000), generation: generation)
    guard case .bytes = buffer.read(timeout: 0.05) else {
      Issue.record("the bytes were not read")
      return
    }
    #expect(!buffer.waitedForBytes(within: 5))
    // The reader waits: it ran short.
    guard case .timedOut = buffer.read(timeout: 0.05) else {
      Issue.record("the read did not wait")
      return
    }
    #expect(buffer.waitedForBytes(within: 5))
    #expect(!buffer.waitedForBytes(within: 0))
  }
}
