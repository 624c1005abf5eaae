import Foundation

/// The frame count an MP3's Xing/Info (LAME) tag claims, read before mpg123 reads it.
///
/// When mpg123 resamples (22.05 kHz and every rate but 44.1 kHz), it turns a claimed frame
/// count into output samples with a loop over every claimed frame, several times as it starts
/// decoding and again for `mpg123_length`: an MP3 of 16 KB whose tag claimed 4,294,967,295
/// frames kept the decoder busy for 40 s (found by the `decoder` fuzz target). `MP3Decoder`
/// reads the claim first and has mpg123 ignore a tag that claims more than the stream can hold.
enum MP3InfoTag {
  /// What the bytes at the start of the audio say.
  enum Finding: Equatable {
    /// The first frame, or the part of it that holds the tag, has not arrived yet.
    case needMore
    /// The first frame has no tag, or a tag without a frame count.
    case absent
    case frames(Int64)
  }

  /// Frames no stream plausibly has: 72 hours at 44.1 kHz, 200 at 8 kHz.
  static let mostFrames: Int64 = 10_000_000

  /// Where the audio starts in a stream whose first bytes are `head`: after an ID3v2 tag (a
  /// 10-byte header with a syncsafe size, and a footer when its flag says so), else at 0. Nil
  /// until the 10 bytes are there.
  static func audioStart(_ head: [UInt8]) -> Int64? {
    guard head.count >= 10 else { return nil }
    guard head[0...2] == [0x49, 0x44, 0x33] else { return 0 }  // "ID3"
    // mpg123 skips no further than the header when the size is not syncsafe.
    guard head[6...9].allSatisfy({ $0 & 0x80 == 0 }) else { return 10 }
    let size = head[6...9].reduce(Int64(0)) { $0 << 7 | Int64($1 & 0x7F) }
    let footer: Int64 = head[5] & 0x10 != 0 ? 10 : 0
    return 10 + size + footer
  }

  /// Reads the tag of the first MPEG audio frame in `audio` (the bytes from where the audio
  /// starts). A frame counts when it carries the tag or the next frame's header follows it, so
  /// a sync pattern inside a tag or cover art is passed over, as mpg123 passes it. `searchFrom`
  /// is where the search goes on: no frame starts before it, so bytes arriving one at a time
  /// are each looked at once.
  static func frames(in audio: [UInt8], searchFrom: inout Int) -> Finding {
    var at = searchFrom
    defer { searchFrom = at }
    while at + 4 <= audio.count {
      guard let length = AudioSniffer.mpegFrameLength(audio, at: at) else {
        at += 1
        continue
      }
      let tag = at + tagOffset(audio, frameAt: at)
      guard tag + 12 <= audio.count else { return .needMore }
      let name = audio[tag..<tag + 4]
      if name.elementsEqual("Xing".utf8) || name.elementsEqual("Info".utf8) {
        let number = { (at: Int) in audio[at..<at + 4].reduce(Int64(0)) { $0 << 8 | Int64($1) } }
        return number(tag + 4) & 0x1 != 0 ? .frames(number(tag + 8)) : .absent
      }
      guard at + length + 4 <= audio.count else { return .needMore }
      if AudioSniffer.mpegFrameLength(audio, at: at + length) != nil { return .absent }
      at += 1
    }
    // The last three bytes may yet start a header.
    return .needMore
  }

  /// Where a Layer III frame's tag would start: after the header, the CRC and the side
  /// information, as mpg123 looks for it. Other layers have none: 0, the header itself, which
  /// never reads as a tag.
  private static func tagOffset(_ audio: [UInt8], frameAt at: Int) -> Int {
    let version = (audio[at + 1] >> 3) & 0x3  // 3: MPEG 1
    let layer = (audio[at + 1] >> 1) & 0x3  // 1: Layer III
    let hasCRC = audio[at + 1] & 0x1 == 0
    let mono = audio[at + 3] >> 6 == 3
    guard layer == 1 else { return 0 }
    let sideInfo = version == 3 ? (mono ? 17 : 32) : (mono ? 9 : 17)
    return 4 + (hasCRC ? 2 : 0) + sideInfo
  }
}
