import Foundation
import RiffleAudio
import RiffleTestSupport
import Testing

@Suite("Decoding")
struct DecoderTests {
  @Test("an MP3 decodes to exactly as many frames as mpg123 itself gives")
  func mp3MatchesReferenceLength() throws {
    let file = TestFiles.fixture("short-1.mp3")
    let pcm = try DecoderFactory.decodeAll(Data(contentsOf: file))
    let frames = pcm.count / PCMFormat.bytesPerFrame
    let reference = try WAVFile.decodedByMPG123(file)
    #expect(reference.sampleRate == 44_100)
    #expect(abs(frames - reference.frames) <= 1152, "ours \(frames), mpg123 \(reference.frames)")
    #expect(abs(Double(frames) / 44_100 - 2.0) < 0.1)
  }

  @Test("mono 22.05 kHz MP3 comes out as stereo 44.1 kHz of the same length")
  func monoLowRateIsConverted() throws {
    let pcm = try DecoderFactory.decodeAll(Data(contentsOf: TestFiles.fixture("mono-22k.mp3")))
    let seconds = Double(pcm.count / PCMFormat.bytesPerFrame) / Double(PCMFormat.sampleRate)
    #expect(abs(seconds - 2.0) < 0.1, "decoded \(seconds) s")
    // Left and right carry the same signal once mono is spread to both.
    let samples = pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    let differing = stride(from: 0, to: samples.count - 1, by: 2).filter {
      samples[$0] != samples[$0 + 1]
    }.count
    #expect(differing == 0)
    #expect(samples.contains { abs(Int($0)) > 1000 }, "decoded audio is silent")
  }

  @Test("bytes that are not audio are refused by name, not decoded as noise")
  func corruptIsRefused() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("corrupt.mp3"))
    #expect(AudioSniffer.kind(of: bytes) == .unknown)
    #expect(throws: DecodeError.unsupported(.unknown)) { try DecoderFactory.decodeAll(bytes) }
  }

  @Test("an MP3 cut after its first frames still decodes what it has")
  func truncatedMP3() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("short-1.mp3"))
    let pcm = try DecoderFactory.decodeAll(bytes.prefix(bytes.count / 2))
    let seconds = Double(pcm.count / PCMFormat.bytesPerFrame) / 44_100
    #expect(seconds > 0.7 && seconds < 1.3, "decoded \(seconds) s of half a 2 s file")
  }
}

@Suite("Sniffing")
struct SnifferTests {
  @Test("a stream joined mid-frame (a radio station) is still MP3, and decodes; noise is not")
  func joinedMidFrame() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("short-1.mp3"))
    let cut = bytes.dropFirst(bytes.count / 3 + 7)
    #expect(AudioSniffer.kind(of: Data(cut)) == .mp3)
    let pcm = try DecoderFactory.decodeAll(Data(cut))
    #expect(pcm.count > 44_100 * PCMFormat.bytesPerFrame / 2)
    var random = SystemRandomNumberGenerator()
    for _ in 0..<50 {
      let noise = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) })
      #expect(AudioSniffer.kind(of: noise) == .unknown)
    }
    #expect(
      AudioSniffer.kind(of: Data(String(repeating: "<p>not audio</p>", count: 300).utf8))
        == .unknown)
  }

  @Test("formats are told apart by their first bytes")
  func kinds() throws {
    #expect(AudioSniffer.kind(of: Data("ID3\u{04}\0\0\0\0\0\0".utf8)) == .mp3)
    #expect(AudioSniffer.kind(of: Data([0, 0, 0, 0x20] + Array("ftypM4A ".utf8))) == .mp4)
    #expect(AudioSniffer.kind(of: Data("RIFF\0\0\0\0WAVEfmt ".utf8)) == .wav)
    #expect(AudioSniffer.kind(of: Data("OggS\0\0".utf8)) == .ogg)
    #expect(AudioSniffer.kind(of: Data("fLaC\0\0".utf8)) == .flac)
    #expect(AudioSniffer.kind(of: Data("<html>not found</html>".utf8)) == .unknown)
    #expect(AudioSniffer.kind(of: Data()) == .unknown)
  }

  @Test("an MP3 without an ID3 tag is found by two frame headers in a row")
  func bareFrames() throws {
    let file = try Data(contentsOf: TestFiles.fixture("short-1.mp3"))
    // Skip the ID3 tag (10-byte header + synchsafe size) to reach the first frame.
    let bytes = [UInt8](file)
    var start = 0
    if bytes.starts(with: Array("ID3".utf8)) {
      let size = Int(bytes[6]) << 21 | Int(bytes[7]) << 14 | Int(bytes[8]) << 7 | Int(bytes[9])
      start = 10 + size
    }
    #expect(AudioSniffer.kind(of: Data(bytes[start...])) == .mp3)
    // One plausible header followed by junk is noise, not MP3.
    var noise = Array(bytes[start..<start + 4]) + [UInt8](repeating: 0x55, count: 2000)
    noise[3] = bytes[start + 3]
    #expect(AudioSniffer.kind(of: Data(noise)) == .unknown)
  }
}
