import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleAudio

/// Reading the frame counts of an MP3's Xing/Info tags before mpg123 does, and what the
/// decoder does with a count no stream can hold.
@Suite("MP3 Info tag")
struct MP3InfoTagTests {
  /// A fixture with its Info tag's frame count replaced.
  private func claiming(_ frames: UInt32, fixture: String = "mono-22k.mp3") throws -> Data {
    var bytes = try Data(contentsOf: TestFiles.fixture(fixture))
    let info = try #require(bytes.range(of: Data("Info".utf8))).lowerBound
    bytes.replaceSubrange(
      info + 8..<info + 12, with: withUnsafeBytes(of: frames.bigEndian, Array.init))
    return bytes
  }

  @Test(
    "the frame count of LAME's tag, MPEG 1 and 2; none before the count has arrived",
    arguments: [("mono-22k.mp3", 79), ("short-1.mp3", 78)])
  func lameTag(fixture: String, frames: Int64) throws {
    let bytes = try Data(contentsOf: TestFiles.fixture(fixture))
    #expect(MP3InfoTag.claims(in: [UInt8](bytes)) == [frames])
    let info = try #require(bytes.range(of: Data("Info".utf8))).lowerBound
    #expect(MP3InfoTag.claims(in: [UInt8](bytes.prefix(info + 11))) == [])
    #expect(MP3InfoTag.claims(in: [UInt8](bytes.prefix(info + 12))) == [frames])
  }

  @Test("a frame without a tag has no count")
  func noTag() throws {
    var bytes = try Data(contentsOf: TestFiles.fixture("short-1.mp3"))
    let info = try #require(bytes.range(of: Data("Info".utf8))).lowerBound
    bytes.replaceSubrange(info..<info + 4, with: Array("Junk".utf8))
    #expect(MP3InfoTag.claims(in: [UInt8](bytes)) == [])
  }

  @Test("tags later in the stream are read too: mpg123 reads the first frame it decodes")
  func laterTags() throws {
    // The fuzz input: an honest tag at the start, one claiming 2^32 - 1 frames after damage.
    let bytes = try Data(
      contentsOf: TestFiles.repoRoot.appendingPathComponent(
        "Tests/Fuzz/corpus/decoder/slow-mp3-info-frames-mid-stream.mp3"))
    #expect(MP3InfoTag.claims(in: [UInt8](bytes)).contains(Int64(UInt32.max)))
  }

  @Test(
    "a lying tag after damage mid-stream costs the decoder no time (the fuzz input took 50 s)",
    arguments: [Int.max, 512])
  func laterLyingTagDecodesQuickly(piece: Int) throws {
    let bytes = try Data(
      contentsOf: TestFiles.repoRoot.appendingPathComponent(
        "Tests/Fuzz/corpus/decoder/slow-mp3-info-frames-mid-stream.mp3"))
    let decoder = try MP3Decoder()
    decoder.setInputLength(Int64(bytes.count))
    let began = Date()
    var start = 0
    do {
      while start < bytes.count {
        let end = start + min(piece, bytes.count - start)
        try decoder.feed(bytes.subdata(in: start..<end))
        _ = try decodeAvailable(decoder)
        start = end
      }
      decoder.finishInput()
      _ = try decodeAvailable(decoder)
    } catch is DecodeError {
      // Damaged bytes may end the song early; what counts here is how long it took.
    }
    _ = decoder.duration
    let seconds = Date().timeIntervalSince(began)
    // 4 KB of input: milliseconds, however loaded the machine.
    #expect(seconds < 3, "decoding took \(seconds) s")
  }

  @Test(
    "a 22 kHz MP3 whose tag claims 4,294,967,295 frames plays as long as it is (took 40 s)",
    arguments: [Int.max, 7, 1])
  func lyingFrameCount(piece: Int) throws {
    let honest = try DecoderFactory.decodeAll(Data(contentsOf: TestFiles.fixture("mono-22k.mp3")))
    let lying = try claiming(.max)
    let decoder = try MP3Decoder()
    decoder.setInputLength(Int64(lying.count))
    var pcm = Data()
    var start = 0
    while start < lying.count {
      let end = start + min(piece, lying.count - start)
      try decoder.feed(lying.subdata(in: start..<end))
      pcm += try decodeAvailable(decoder).pcm
      start = end
    }
    // The tag's frame is played as a frame of silence, and there is no gapless trim.
    let seconds = { (pcm: Data) in Double(pcm.count / PCMFormat.bytesPerFrame) / 44_100 }
    #expect(abs(seconds(pcm) - seconds(honest)) < 0.1)
    let duration = try #require(decoder.duration)
    #expect(abs(duration - seconds(honest)) < 0.3)
  }
}
