import Foundation
import RiffleAudio
import RiffleTestSupport
import Testing

/// The other formats FFmpeg takes, made at test time from an MP3 fixture with the ffmpeg
/// program (committed fixtures stay few and small).
@Suite("FFmpeg decoding (ADTS AAC, FLAC, Ogg, WAV)", .serialized)
struct FFmpegFormatsTests {
  struct Format: CustomTestStringConvertible, Sendable {
    var file: String
    var kind: AudioKind
    var arguments: [String]
    /// How far audio decoded after a seek may be from the same audio played through, as the
    /// RMS of the difference over the RMS of the signal; 0 means sample for sample (1 LSB).
    /// Decoded at another rate than 44.1 kHz, the resampler starts at another phase after a
    /// seek; Opus (CELT) also fills bands from its own random generator, like AAC's noise
    /// substitution, so it cannot match exactly either.
    var seekTolerance = 0.0
    var testDescription: String { file }
  }

  static let formats = [
    Format(
      file: "clip.aac", kind: .aac, arguments: ["-c:a", "aac", "-aac_pns", "0", "-f", "adts"]),
    Format(file: "clip.flac", kind: .flac, arguments: ["-c:a", "flac"]),
    Format(file: "clip.ogg", kind: .ogg, arguments: ["-c:a", "libvorbis", "-q:a", "4"]),
    Format(
      file: "clip.opus", kind: .ogg, arguments: ["-c:a", "libopus", "-b:a", "96k"],
      seekTolerance: 0.1
    ),
    Format(
      file: "mono-48k.wav", kind: .wav,
      arguments: ["-ac", "1", "-ar", "48000", "-c:a", "pcm_s16le"], seekTolerance: 0.01),
  ]

  private func make(_ format: Format, in dir: TemporaryDirectory) throws -> URL {
    let out = dir.file(format.file)
    let result = try runProgram(
      "/usr/bin/ffmpeg",
      ["-nostdin", "-loglevel", "error", "-i", TestFiles.fixture("short-1.mp3").path]
        + format.arguments + ["-map_metadata", "-1", out.path])
    try #require(result.status == 0, "ffmpeg: \(result.stderr)")
    return out
  }

  @Test("a music video's preview (an MP4 with a video track first) plays its sound")
  func musicVideoPreview() throws {
    let dir = try TemporaryDirectory()
    let out = dir.file("preview.m4v")
    let result = try runProgram(
      "/usr/bin/ffmpeg",
      [
        "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10",
        "-i", TestFiles.fixture("short-1.mp3").path, "-map", "0:v", "-map", "1:a", "-c:v",
        "mpeg4", "-c:a", "aac", "-shortest", "-movflags", "+faststart", out.path,
      ])
    try #require(result.status == 0, "ffmpeg: \(result.stderr)")
    let bytes = try Data(contentsOf: out)
    #expect(AudioSniffer.kind(of: bytes) == .mp4)
    let pcm = samples(try DecoderFactory.decodeAll(bytes))
    #expect(abs(Double(pcm.count / 2) / 44_100 - 2.0) < 0.1, "\(pcm.count) samples")
    #expect(pcm.contains { abs(Int($0)) > 1000 }, "sound, not silence")
  }

  @Test("decodes like the ffmpeg program, fed whole or in pieces", arguments: formats)
  func matchesFFmpegProgram(_ format: Format) throws {
    let dir = try TemporaryDirectory()
    let file = try make(format, in: dir)
    let bytes = try Data(contentsOf: file)
    #expect(AudioSniffer.kind(of: bytes) == format.kind)
    let pcm = samples(try DecoderFactory.decodeAll(bytes))
    let reference = try WAVFile.decodedByFFmpeg(file)
    #expect(
      pcm.count == reference.samples.count, "ours \(pcm.count), ffmpeg's \(reference.samples.count)"
    )
    #expect(largestDifference(pcm[...], reference.samples[...]) <= 1)
    #expect(abs(Double(pcm.count / 2) / 44_100 - 2.0) < 0.05)
    let sizes = (0..<32).map { _ in Int.random(in: 1...9000) }
    #expect(try samples(decodeInPieces(bytes, sizes: sizes)) == pcm, "piece sizes \(sizes)")
    #expect(try samples(decodeInPieces(bytes, sizes: sizes, knownLength: false)) == pcm)
  }

  @Test(
    "seeking lands on the asked frame and plays on as playing through would", arguments: formats)
  func seek(_ format: Format) throws {
    let dir = try TemporaryDirectory()
    let bytes = try Data(contentsOf: make(format, in: dir))
    let whole = samples(try DecoderFactory.decodeAll(bytes))
    let decoder = try DecoderFactory.make(for: format.kind)
    decoder.setInputLength(Int64(bytes.count))
    try decoder.feed(bytes)
    _ = try decodeAvailable(decoder)
    let target: Int64 = 50_000
    let (reached, offset) = try decoder.seek(toFrame: target)
    #expect(reached == target)
    #expect(offset == Int64(bytes.count), "all bytes are here: nothing more to feed")
    decoder.finishInput()
    let pcm = try decodeAvailable(decoder).pcm
    let after = samples(pcm)
    let expected = whole[(Int(target) * 2)...]
    #expect(after.count == expected.count)
    if format.seekTolerance > 0 {
      let error = zip(after, expected).map { Double(Int($0) - Int($1)) }
      let power = expected.map { Double($0) * Double($0) }.reduce(0, +)
      let ratio = (error.map { $0 * $0 }.reduce(0, +) / power).squareRoot()
      #expect(ratio < format.seekTolerance, "difference \(ratio) of the signal")
    } else {
      #expect(largestDifference(after[...], expected) <= 1)
    }
  }

  @Test("formats without an index start before their end arrives", arguments: [0, 2, 3])
  func startsEarly(_ index: Int) throws {
    let dir = try TemporaryDirectory()
    let format = Self.formats[index]
    let out = dir.file(format.file)
    let song = TestFiles.catalog.appendingPathComponent("audio/riffle-003.mp3")
    let result = try runProgram(
      "/usr/bin/ffmpeg",
      ["-nostdin", "-loglevel", "error", "-i", song.path] + format.arguments + [out.path])
    try #require(result.status == 0, "ffmpeg: \(result.stderr)")
    let bytes = try Data(contentsOf: out)
    let decoder = try DecoderFactory.make(for: format.kind)
    decoder.setInputLength(Int64(bytes.count))
    try decoder.feed(bytes.prefix(bytes.count / 2))
    let (pcm, done) = try decodeAvailable(decoder)
    let seconds = Double(pcm.count / PCMFormat.bytesPerFrame) / 44_100
    #expect(!done)
    // All but the lookahead (and libavformat's read buffer) of the half decodes: seconds of it.
    #expect(seconds > 0.5, "\(seconds) s of the first half of a 15.8 s song")
  }

  @Test("a seek before the whole file is here waits for it (no index to find the bytes)")
  func seekWaitsForWholeFile() throws {
    let dir = try TemporaryDirectory()
    let bytes = try Data(contentsOf: make(Self.formats[1], in: dir))
    let decoder = try DecoderFactory.make(for: .flac)
    decoder.setInputLength(Int64(bytes.count))
    try decoder.feed(bytes.prefix(100_000))
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 8192, alignment: 16)
    defer { buffer.deallocate() }
    while case .pcm = try decoder.decode(into: buffer) {}
    let (reached, offset) = try decoder.seek(toFrame: 60_000)
    #expect(reached == 60_000)
    #expect(offset == 100_000, "the download goes on where it was")
    #expect(try decoder.decode(into: buffer) == .needMore)
    try decoder.feed(bytes.suffix(from: 100_000))
    var frames = 0
    while case .pcm(let count) = try decoder.decode(into: buffer) { frames += count / 4 }
    let whole = try DecoderFactory.decodeAll(bytes).count / 4
    #expect(frames == whole - 60_000)
  }
}
