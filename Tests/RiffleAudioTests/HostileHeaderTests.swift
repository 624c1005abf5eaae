import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleAudio

/// Headers that claim what no audio has cost a bounded amount of work and memory, and are
/// refused as damaged (found by the `decoder` fuzz target, docs/hardening.md).
@Suite("Hostile headers")
struct HostileHeaderTests {
  /// A mono WAV of `frames` samples of a ramp, saying `sampleRate` in its header.
  private func wav(sampleRate: Int, frames: Int) -> Data {
    let samples = (0..<frames).map { Int16(truncatingIfNeeded: $0 * 64) }
    return WAVWriter.data(samples: samples, channels: 1, sampleRate: sampleRate)
  }

  @Test(
    "a WAV claiming a sample rate no audio has is refused before a resampler is built",
    arguments: [134_262_852, 999, 1, 768_001])
  func absurdRate(rate: Int) throws {
    #expect(throws: DecodeError.corrupt("an unplayable sample rate of \(rate) Hz")) {
      try DecoderFactory.decodeAll(wav(sampleRate: rate, frames: 4_000))
    }
  }

  @Test(
    "rates at either end of the playable range still play, at 44.1 kHz stereo",
    arguments: [1_000, 8_000, 192_000, 768_000])
  func edgeRates(rate: Int) throws {
    let seconds = 0.5
    let pcm = try DecoderFactory.decodeAll(
      wav(sampleRate: rate, frames: Int(Double(rate) * seconds)))
    let frames = Double(pcm.count / PCMFormat.bytesPerFrame)
    #expect(abs(frames / Double(PCMFormat.sampleRate) - seconds) < 0.01, "\(frames) frames")
  }

  @Test("ID3v2 tags are skipped, not parsed: mpg123 allocated what a tag claimed to hold")
  func id3Skipped() throws {
    // short-1.mp3 opens with an ID3v2 tag (the encoder's name).
    let bytes = try Data(contentsOf: TestFiles.fixture("short-1.mp3"))
    #expect(bytes.starts(with: Array("ID3".utf8)))
    let decoder = try MP3Decoder()
    try decoder.feed(bytes)
    decoder.finishInput()
    let pcm = try decodeAvailable(decoder).pcm
    #expect(pcm.count > 80_000 * PCMFormat.bytesPerFrame, "the song plays past its tag")
    #expect(decoder.id3v2TextFrames == 0)
  }

  @Test("FFmpeg allocates up to 64 MB in one block and no more")
  func allocationCap() throws {
    #expect(FFmpegLibraries.largestAllocation == 64 << 20)
    #expect(try FFmpegLibraries.allocates(16 << 20))
    #expect(try !FFmpegLibraries.allocates(FFmpegLibraries.largestAllocation + 1))
  }

  @Test("many small MP4 boxes fed in small pieces: each box header is read once")
  func boxSearchIsLinear() {
    // ftyp, then 20,000 empty `free` boxes, then the sample table.
    var bytes = Data([0, 0, 0, 16] + Array("ftypM4A ".utf8) + [0, 0, 0, 0])
    for _ in 0..<20_000 { bytes.append(contentsOf: [0, 0, 0, 8] + Array("free".utf8)) }
    bytes.append(
      contentsOf: [0, 0, 0, 16] + Array("moov".utf8) + [0, 0, 0, 8] + Array("mvhd".utf8))
    let store = DemuxerInput()
    var found: [Int] = []
    var offset = 0
    while offset < bytes.count {
      let end = min(bytes.count, offset + 5)
      store.append(bytes.subdata(in: offset..<end))
      offset = end
      if store.hasMP4SampleTable { found.append(offset) }
    }
    #expect(found == [bytes.count], "found only once the whole table is here")
    // ftyp and the free boxes once each, then the moov header again on each of the few feeds
    // its body takes (asked from the start each time, it was millions).
    #expect(store.boxHeadersRead <= 20_001 + 4)
    #expect(store.boxSearchOffset == Int64(bytes.count - 16))
  }

  @Test("a 64-bit box size near the largest offset ends the search (it trapped on overflow)")
  func hugeBoxSize() throws {
    // The fuzz corpus keeps the same bytes (crash-mp4-box-size-overflow.m4a).
    var bytes = Data([0, 0, 0, 8] + Array("ftyp".utf8))
    bytes.append(
      contentsOf: [0, 0, 0, 1] + Array("mdat".utf8) + [0x7F] + Array(repeating: 0xFF, count: 7))
    bytes.append(contentsOf: [0, 0, 0, 8] + Array("moov".utf8))
    let store = DemuxerInput()
    store.append(bytes)
    #expect(!store.hasMP4SampleTable)
  }
}
