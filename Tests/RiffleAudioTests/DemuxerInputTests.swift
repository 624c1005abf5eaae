import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleAudio

@Suite("FFmpeg's input store")
struct DemuxerInputTests {
  private func read(_ store: DemuxerInput, _ count: Int) -> (Int32, [UInt8]) {
    var buffer = [UInt8](repeating: 0, count: count)
    let result = buffer.withUnsafeMutableBufferPointer {
      store.read(into: $0.baseAddress!, count: count)
    }
    return (result, Array(buffer.prefix(max(0, Int(result)))))
  }

  @Test("runs fed after a seek sit at their offsets, and a run that bridges a gap joins them")
  func segments() {
    let store = DemuxerInput()
    store.append(Data([0, 1, 2, 3]))
    store.cursor = 10
    store.append(Data([10, 11]))
    #expect(store.contiguous(from: 0) == 4)
    #expect(store.contiguous(from: 10) == 2)
    #expect(!store.has(2, count: 4))
    store.cursor = 3
    store.append(Data([3, 4, 5, 6, 7, 8, 9, 10]))
    #expect(store.contiguous(from: 0) == 12)
    #expect(store.bytes(at: 0, count: 12) == Array(0...11))
  }

  @Test("a read where nothing has arrived is the end for now, and marks the store starved")
  func starvedRead() {
    let store = DemuxerInput()
    store.append(Data([1, 2, 3]))
    #expect(read(store, 8).1 == [1, 2, 3])
    #expect(read(store, 8).0 < 0)
    #expect(store.starved)
    store.starved = false
    store.length = 3
    #expect(read(store, 8).0 < 0, "the real end")
    #expect(!store.starved)
    #expect(store.isFinished && store.isWhole)
  }

  @Test("seeks answer the size only once it is known")
  func seekAndSize() {
    let store = DemuxerInput()
    #expect(store.seek(0, whence: 0x10000) == -1, "AVSEEK_SIZE unknown")
    store.append(Data(count: 100))
    store.finish()
    #expect(store.seek(0, whence: 0x10000) == 100)
    #expect(store.seek(-10, whence: SEEK_END) == 90)
    #expect(store.seek(5, whence: SEEK_CUR) == 95)
    #expect(store.seek(-200, whence: SEEK_SET) == -1)
  }

  @Test("the MP4 sample table is found past the audio box without the audio's bytes")
  func sampleTable() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("moov-last.m4a"))
    let store = DemuxerInput()
    store.append(bytes.prefix(40_000))
    #expect(!store.hasMP4SampleTable)
    // The box headers say where the table is: only its bytes are needed.
    store.cursor = Int64(bytes.count - 3_000)
    store.append(bytes.suffix(3_000))
    #expect(store.hasMP4SampleTable)
    let fastStart = DemuxerInput()
    fastStart.append(try Data(contentsOf: TestFiles.fixture("short.m4a")).prefix(2_000))
    #expect(fastStart.hasMP4SampleTable)
  }
}
