import Foundation

/// Frame counts claimed by Xing/Info (LAME) tags in MP3 bytes, read before mpg123 reads them.
///
/// When mpg123 resamples (22.05 kHz and every rate but 44.1 kHz), it turns a claimed frame
/// count into output samples with a loop over every claimed frame, several times as it starts
/// decoding and again for `mpg123_length`: an MP3 of 16 KB whose tag claimed 4,294,967,295
/// frames kept the decoder busy for 40 s (found by the `decoder` fuzz target). It reads such a
/// tag in the first frame it decodes, which after damaged bytes can be far into the stream, so
/// `MP3Decoder` looks at every frame header in what it feeds and has mpg123 ignore Info tags
/// once one claims more than the stream can hold.
enum MP3InfoTag {
  /// Frames no stream plausibly has: 72 hours at 44.1 kHz, 200 at 8 kHz.
  static let mostFrames: Int64 = 10_000_000

  /// How far from a frame's first byte its tag's frame count ends, at most (header, CRC, the
  /// side information of MPEG 1 stereo, then "Xing", flags and the count): the bytes a search
  /// over pieces keeps from one piece to the next.
  static let reach = 4 + 2 + 32 + 12

  /// The frame counts of the tags in `bytes`: at every valid Layer III frame header whose tag
  /// lies wholly in `bytes`, as mpg123 looks for it (after the header, the CRC and the side
  /// information).
  static func claims(in bytes: [UInt8]) -> [Int64] {
    var found: [Int64] = []
    var at = 0
    while at + 4 <= bytes.count {
      defer { at += 1 }
      guard bytes[at] == 0xFF, AudioSniffer.mpegFrameLength(bytes, at: at) != nil,
        (bytes[at + 1] >> 1) & 0x3 == 1  // Layer III
      else { continue }
      let version = (bytes[at + 1] >> 3) & 0x3  // 3: MPEG 1
      let hasCRC = bytes[at + 1] & 0x1 == 0
      let mono = bytes[at + 3] >> 6 == 3
      let sideInfo = version == 3 ? (mono ? 17 : 32) : (mono ? 9 : 17)
      let tag = at + 4 + (hasCRC ? 2 : 0) + sideInfo
      guard tag + 12 <= bytes.count else { continue }
      let name = bytes[tag..<tag + 4]
      guard name.elementsEqual("Xing".utf8) || name.elementsEqual("Info".utf8) else { continue }
      let number = { (at: Int) in bytes[at..<at + 4].reduce(Int64(0)) { $0 << 8 | Int64($1) } }
      if number(tag + 4) & 0x1 != 0 { found.append(number(tag + 8)) }
    }
    return found
  }
}
