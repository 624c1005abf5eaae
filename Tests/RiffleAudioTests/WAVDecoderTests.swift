import Foundation
import RiffleAudio
import Testing

@Suite("WAV decoding")
struct WAVDecoderTests {
  /// A ramp that differs per channel, so swaps and drops show.
  static func stereoRamp(frames: Int) -> [Int16] {
    (0..<frames).flatMap { [Int16($0 % 30_000), Int16(-($0 % 20_000))] }
  }

  @Test("16-bit stereo 44.1 kHz is passed through sample for sample")
  func passThrough() throws {
    let samples = Self.stereoRamp(frames: 5_000)
    let wav = WAVWriter.data(samples: samples, channels: 2, sampleRate: 44_100)
    #expect(AudioSniffer.kind(of: wav) == .wav)
    let pcm = try DecoderFactory.decodeAll(wav)
    let decoded = pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    // The last source frame only ever closes an interpolation span.
    #expect(decoded.count == samples.count - 2)
    #expect(Array(decoded.prefix(200)) == Array(samples.prefix(200)))
    #expect(decoded.last == samples[samples.count - 3])
  }

  @Test("mono at 22.05 kHz becomes stereo at 44.1 kHz of the same length")
  func monoHalfRate() throws {
    let samples = (0..<11_025).map { Int16(($0 % 100) * 100) }
    let wav = WAVWriter.data(samples: samples, channels: 1, sampleRate: 22_050)
    let pcm = try DecoderFactory.decodeAll(wav)
    let decoded = pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    let frames = decoded.count / 2
    #expect(abs(frames - 22_050) <= 2, "\(frames) frames")
    #expect(stride(from: 0, to: decoded.count, by: 2).allSatisfy { decoded[$0] == decoded[$0 + 1] })
    // Every other output frame is a source sample; the ones between are midpoints.
    #expect(decoded[0] == samples[0] && decoded[2] == 50 && decoded[4] == samples[1])
  }

  @Test("the duration comes from the data chunk")
  func duration() throws {
    let wav = WAVWriter.data(
      samples: [Int16](repeating: 0, count: 88_200), channels: 2, sampleRate: 44_100)
    let decoder = try DecoderFactory.make(for: .wav)
    try decoder.feed(wav.prefix(100))
    #expect(decoder.hasFormat)
    #expect(decoder.duration == 1.0)
  }

  @Test("a compressed WAV encoding is refused with a reason")
  func compressedRefused() throws {
    var wav = WAVWriter.data(samples: [0, 0], channels: 1, sampleRate: 8_000)
    wav[20] = 0x11  // IMA ADPCM
    #expect(throws: DecodeError.corrupt("WAV encoding 17 is not plain PCM")) {
      try DecoderFactory.decodeAll(wav)
    }
  }

  @Test("seeking lands on the frame asked for and says which byte to read from")
  func seek() throws {
    let samples = Self.stereoRamp(frames: 44_100)
    let wav = WAVWriter.data(samples: samples, channels: 2, sampleRate: 44_100)
    let decoder = try DecoderFactory.make(for: .wav)
    try decoder.feed(wav.prefix(44))
    let (frame, offset) = try decoder.seek(toFrame: 1_000)
    #expect(frame == 1_000)
    #expect(offset == 44 + 4_000)
    try decoder.feed(wav[Int(offset)...])
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 2)
    defer { buffer.deallocate() }
    guard case .pcm(let count) = try decoder.decode(into: buffer) else {
      Issue.record("no audio after the seek")
      return
    }
    let out = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count]).bindMemory(to: Int16.self))
    #expect(Array(out.prefix(4)) == Array(samples[2_000..<2_004]))
  }
}
