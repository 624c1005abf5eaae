import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleAudio

/// Reading the frame count of an MP3's Xing/Info tag before mpg123 does, and what the decoder
/// does with a count no stream can hold.
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

  /// The frame count read from the start of `bytes`, fed to the scan in `piece`-byte steps.
  private func scan(_ bytes: Data, piece: Int = 1 << 20) -> MP3InfoTag.Finding {
    let head = [UInt8](bytes)
    guard let start = MP3InfoTag.audioStart(head) else { return .needMore }
    var audio: [UInt8] = []
    var search = 0
    var finding = MP3InfoTag.Finding.needMore
    for from in stride(from: Int(start), to: head.count, by: piece) where finding == .needMore {
      audio += head[from..<min(head.count, from + piece)]
      finding = MP3InfoTag.frames(in: audio, searchFrom: &search)
    }
    return finding
  }

  @Test("the audio starts after the ID3v2 tag: its syncsafe size, plus a footer when flagged")
  func audioStart() {
    let header: [UInt8] = [0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0x02, 0x01]
    #expect(MP3InfoTag.audioStart(header) == Int64(10 + 257))
    var footed = header
    footed[5] = 0x10
    #expect(MP3InfoTag.audioStart(footed) == Int64(10 + 257 + 10))
    #expect(MP3InfoTag.audioStart([0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0, 0, 0]) == 0)
    #expect(MP3InfoTag.audioStart(Array(header.prefix(9))) == nil)
  }

  @Test(
    "the frame count of LAME's tag, MPEG 1 and 2, whole or a byte at a time",
    arguments: [("mono-22k.mp3", 79), ("short-1.mp3", 78)])
  func lameTag(fixture: String, frames: Int64) throws {
    let bytes = try Data(contentsOf: TestFiles.fixture(fixture))
    #expect(scan(bytes) == .frames(frames))
    #expect(scan(bytes, piece: 1) == .frames(frames))
    // Cut inside the tag, before the frame count.
    let info = try #require(bytes.range(of: Data("Info".utf8))).lowerBound
    #expect(scan(bytes.prefix(info + 10)) == .needMore)
  }

  @Test("a first frame without a tag has no count")
  func noTag() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("short-1.mp3"))
    let info = try #require(bytes.range(of: Data("Info".utf8))).lowerBound
    var plain = bytes
    plain.replaceSubrange(info..<info + 4, with: Array("Junk".utf8))
    #expect(scan(plain) == .absent)
  }

  @Test("a 22 kHz MP3 whose tag claims 4,294,967,295 frames plays as long as it is (took 40 s)")
  func lyingFrameCount() throws {
    let honest = try DecoderFactory.decodeAll(Data(contentsOf: TestFiles.fixture("mono-22k.mp3")))
    let lying = try claiming(.max)
    #expect(scan(lying) == .frames(Int64(UInt32.max)))
    for piece in [lying.count, 7] {
      let decoder = try MP3Decoder()
      decoder.setInputLength(Int64(lying.count))
      var pcm = Data()
      for start in stride(from: 0, to: lying.count, by: piece) {
        try decoder.feed(lying.subdata(in: start..<min(lying.count, start + piece)))
        pcm += try decodeAvailable(decoder).pcm
      }
      // The tag's frame is played as a frame of silence, and there is no gapless trim.
      let seconds = { (pcm: Data) in Double(pcm.count / PCMFormat.bytesPerFrame) / 44_100 }
      #expect(abs(seconds(pcm) - seconds(honest)) < 0.1, "fed in pieces of \(piece)")
      let duration = try #require(decoder.duration)
      #expect(abs(duration - seconds(honest)) < 0.3)
    }
  }
}

extension MP3InfoTagTests {
  @Test("a sync pattern before the first real frame is passed over; a size not syncsafe is skipped")
  func falseSync() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("mono-22k.mp3"))
    let start = try #require(MP3InfoTag.audioStart([UInt8](bytes.prefix(10))))
    // A valid-looking header with no tag and no frame after it, just before the real first one.
    var spoofed = bytes
    spoofed.insert(
      contentsOf: [0xFF, 0xF3, 0x80, 0xC4] + [UInt8](repeating: 0, count: 60), at: Int(start))
    #expect(scan(spoofed) == .frames(79))
    #expect(scan(spoofed, piece: 1) == .frames(79))
    // An ID3 size with a high bit set: mpg123 reads on right after the 10-byte header.
    var unsafe = [UInt8](bytes.prefix(10))
    unsafe[7] = 0xCD
    #expect(MP3InfoTag.audioStart(unsafe) == 10)
  }
}
