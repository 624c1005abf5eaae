import Foundation
import RiffleAudio
import RiffleTestSupport
import Testing

/// Interleaved 16-bit samples of some PCM bytes.
func samples(_ pcm: Data) -> [Int16] {
  pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}

/// The largest difference between two runs of samples, over the shorter one.
func largestDifference(_ a: ArraySlice<Int16>, _ b: ArraySlice<Int16>) -> Int {
  zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
}

/// Decodes what the decoder can give now: the PCM, and whether the stream ended.
func decodeAvailable(_ decoder: AudioDecoder) throws -> (pcm: Data, done: Bool) {
  let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 8192, alignment: 16)
  defer { buffer.deallocate() }
  var pcm = Data()
  while true {
    switch try decoder.decode(into: buffer) {
    case .pcm(let count):
      pcm.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    case .needMore: return (pcm, false)
    case .done: return (pcm, true)
    }
  }
}

/// Feeds `bytes` in pieces of the given sizes (cycling), decoding after each, like the engine.
func decodeInPieces(_ bytes: Data, sizes: [Int], knownLength: Bool = true) throws -> Data {
  let decoder = try DecoderFactory.make(for: AudioSniffer.kind(of: bytes.prefix(4096)))
  if knownLength { decoder.setInputLength(Int64(bytes.count)) }
  var pcm = Data()
  var offset = 0
  var piece = 0
  while offset < bytes.count {
    let size = min(sizes[piece % sizes.count], bytes.count - offset)
    try decoder.feed(bytes.subdata(in: offset..<offset + size))
    offset += size
    piece += 1
    pcm.append(try decodeAvailable(decoder).pcm)
  }
  decoder.finishInput()
  pcm.append(try decodeAvailable(decoder).pcm)
  return pcm
}

@Suite("FFmpeg decoding (AAC in M4A)")
struct FFmpegDecoderTests {
  @Test("an M4A decodes sample for sample like the ffmpeg program's own decoding")
  func matchesFFmpegProgram() throws {
    let file = TestFiles.fixture("short.m4a")
    let pcm = samples(try DecoderFactory.decodeAll(Data(contentsOf: file)))
    let reference = try WAVFile.decodedByFFmpeg(file)
    #expect(
      pcm.count == reference.samples.count, "ours \(pcm.count), ffmpeg's \(reference.samples.count)"
    )
    #expect(largestDifference(pcm[...], reference.samples[...]) <= 1)
    // FFmpeg trims the encoder's delay at the start, not its padding at the end (under one
    // AAC frame of 1024 samples).
    #expect(pcm.count / 2 >= 4 * 44_100 && pcm.count / 2 < 4 * 44_100 + 1024)
  }

  @Test("mono 22.05 kHz AAC comes out as 44.1 kHz stereo, like the ffmpeg program's")
  func monoLowRate() throws {
    let file = TestFiles.fixture("mono-22k.m4a")
    let pcm = samples(try DecoderFactory.decodeAll(Data(contentsOf: file)))
    let reference = try WAVFile.decodedByFFmpeg(file)
    #expect(
      abs(pcm.count - reference.samples.count) <= 2 * 64,
      "ours \(pcm.count), ffmpeg's \(reference.samples.count)")
    #expect(largestDifference(pcm[...], reference.samples[...]) <= 1)
    #expect(pcm.count / 2 >= 2 * 44_100 && pcm.count / 2 < 2 * 44_100 + 2048)
    let differing = stride(from: 0, to: pcm.count - 1, by: 2).filter { pcm[$0] != pcm[$0 + 1] }
    #expect(differing.isEmpty, "mono is the same on both sides")
    #expect(pcm.contains { abs(Int($0)) > 1000 }, "decoded audio is silent")
  }

  @Test("fed in small random pieces, an M4A decodes to the same PCM as fed at once")
  func piecesMatchWhole() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("short.m4a"))
    let whole = try DecoderFactory.decodeAll(bytes)
    var rng = SystemRandomNumberGenerator()
    let sizes = (0..<64).map { _ in Int.random(in: 1...3000, using: &rng) }
    #expect(try decodeInPieces(bytes, sizes: sizes) == whole, "piece sizes \(sizes)")
    #expect(try decodeInPieces(bytes, sizes: sizes, knownLength: false) == whole)
  }

  @Test("a partial download gives needMore, not an early end, and PCM as far as it goes")
  func partialIsNotTheEnd() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("short.m4a"))
    // With and without a Content-Length: the sample table is enough to start.
    for knownLength in [true, false] {
      let decoder = try FFmpegDecoder(kind: .mp4)
      if knownLength { decoder.setInputLength(Int64(bytes.count)) }
      try decoder.feed(bytes.prefix(bytes.count / 2))
      let (pcm, done) = try decodeAvailable(decoder)
      #expect(!done, "half a file is not the end")
      let seconds = Double(pcm.count / PCMFormat.bytesPerFrame) / 44_100
      #expect(seconds > 1.5 && seconds < 2.2, "decoded \(seconds) s of half a 4 s file")
      #expect(
        decoder.duration.map { abs($0 - 4.0) < 0.01 } == true,
        "duration \(String(describing: decoder.duration))")
    }
  }

  @Test("the duration comes from the container, before any audio is decoded")
  func durationFromContainer() throws {
    for (name, seconds) in [("short.m4a", 4.0), ("mono-22k.m4a", 2.0), ("moov-last.m4a", 4.0)] {
      let bytes = try Data(contentsOf: TestFiles.fixture(name))
      let decoder = try DecoderFactory.make(for: .mp4)
      try decoder.feed(bytes)
      decoder.finishInput()
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 16)
      defer { buffer.deallocate() }
      _ = try decoder.decode(into: buffer)
      #expect(
        decoder.duration.map { abs($0 - seconds) < 0.001 } == true,
        "\(name): \(String(describing: decoder.duration))")
    }
  }

  @Test("seeking lands on the asked frame and plays on exactly as playing through would")
  func seekIsSampleAccurate() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("short.m4a"))
    let whole = samples(try DecoderFactory.decodeAll(bytes))
    for target in [Int64(0), 1, 44_100, 100_000, 150_000] {
      let decoder = try DecoderFactory.make(for: .mp4)
      decoder.setInputLength(Int64(bytes.count))
      // Only the start has arrived: the seek says where the bytes must come from.
      try decoder.feed(bytes.prefix(8_000))
      _ = try decodeAvailable(decoder)
      let (reached, offset) = try decoder.seek(toFrame: target)
      #expect(reached == target)
      #expect(offset >= 0 && offset < Int64(bytes.count))
      try decoder.feed(bytes.subdata(in: Int(offset)..<bytes.count))
      decoder.finishInput()
      let pcm = try decodeAvailable(decoder).pcm
      let after = samples(pcm)
      let expected = whole[(Int(target) * 2)...]
      #expect(after.count == expected.count, "from \(target): \(after.count) vs \(expected.count)")
      #expect(largestDifference(after[...], expected) <= 1, "from frame \(target)")
    }
  }

  @Test("an M4A with its sample table at the end waits for the end, then plays whole")
  func moovLast() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("moov-last.m4a"))
    let decoder = try DecoderFactory.make(for: AudioSniffer.kind(of: bytes))
    decoder.setInputLength(Int64(bytes.count))
    try decoder.feed(bytes.prefix(bytes.count - 2_000))
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
    defer { buffer.deallocate() }
    #expect(try decoder.decode(into: buffer) == .needMore)
    #expect(!decoder.hasFormat)
    try decoder.feed(bytes.suffix(2_000))
    #expect(try decodeInPieces(bytes, sizes: [4096]) == DecoderFactory.decodeAll(bytes))
    let reference = try WAVFile.decodedByFFmpeg(TestFiles.fixture("moov-last.m4a"))
    let pcm = samples(try DecoderFactory.decodeAll(bytes))
    #expect(largestDifference(pcm[...], reference.samples[...]) <= 1)
    #expect(pcm.count == reference.samples.count)
  }

  @Test("an M4A cut before its sample table is refused as damaged, in plain words")
  func truncatedBeforeTable() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("truncated.m4a"))
    #expect(AudioSniffer.kind(of: bytes) == .mp4)
    #expect(throws: DecodeError.corrupt("no MP4 sample table (moov box) in the file")) {
      try DecoderFactory.decodeAll(bytes)
    }
  }

  @Test("an M4A cut in its audio says where it stops")
  func truncatedInAudio() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("short.m4a"))
    #expect(throws: DecodeError.corrupt("the file is cut short at 2.0 s of 4.0 s")) {
      try DecoderFactory.decodeAll(bytes.prefix(bytes.count / 2))
    }
  }

  @Test("MP4 boxes full of noise are refused as damaged, never a crash or a hang")
  func noise() throws {
    var rng = SystemRandomNumberGenerator()
    let header = Data(
      [0, 0, 0, 0x18] + Array("ftypM4A ".utf8) + [0, 0, 0, 0] + Array("M4A mp42".utf8))
    for _ in 0..<20 {
      let junk = Data(
        (0..<Int.random(in: 0...40_000, using: &rng)).map { _ in
          UInt8.random(in: 0...255, using: &rng)
        })
      #expect(throws: DecodeError.self) { try DecoderFactory.decodeAll(header + junk) }
    }
    // A real table in front of damaged audio: errors, or noise, but an answer.
    var bytes = try Data(contentsOf: TestFiles.fixture("short.m4a"))
    for index in stride(from: 2_000, to: bytes.count, by: 97) { bytes[index] ^= 0x5A }
    _ = try? DecoderFactory.decodeAll(bytes)
  }

  @Test("M4A bytes pick the FFmpeg decoder whatever the URL says")
  func sniffedNotNamed() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("short.m4a"))
    #expect(AudioSniffer.kind(of: bytes) == .mp4)
    #expect(try DecoderFactory.make(for: AudioSniffer.kind(of: bytes)) is FFmpegDecoder)
    #expect(try DecoderFactory.make(for: .mp3) is MP3Decoder)
  }
}
