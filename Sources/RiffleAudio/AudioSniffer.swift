import Foundation

/// The container or codec of some audio bytes, told from the bytes themselves.
public enum AudioKind: Equatable, Sendable {
  case mp3
  /// MP4/M4A (iTunes previews): AAC inside.
  case mp4
  /// Raw AAC in ADTS frames.
  case aac
  case wav
  case ogg
  case flac
  case unknown

  public var name: String {
    switch self {
    case .mp3: return "MP3"
    case .mp4: return "MP4/AAC"
    case .aac: return "AAC"
    case .wav: return "WAV"
    case .ogg: return "Ogg"
    case .flac: return "FLAC"
    case .unknown: return "unknown"
    }
  }
}

/// Tells audio formats apart by their first bytes: never by URL or content type, which lie.
public enum AudioSniffer {
  /// Bytes worth waiting for before sniffing (fewer are fine at the end of a stream).
  public static let preferredLength = 4096

  public static func kind(of bytes: Data) -> AudioKind {
    let b = [UInt8](bytes.prefix(preferredLength))
    if b.count >= 3 && b[0] == 0x49 && b[1] == 0x44 && b[2] == 0x33 { return .mp3 }  // "ID3"
    if b.count >= 8 && b[4] == 0x66 && b[5] == 0x74 && b[6] == 0x79 && b[7] == 0x70 {  // "ftyp"
      return .mp4
    }
    if b.count >= 12 && b[0...3] == [0x52, 0x49, 0x46, 0x46]
      && b[8...11] == [0x57, 0x41, 0x56, 0x45]
    {
      return .wav
    }
    if b.count >= 4 && b[0...3] == [0x4F, 0x67, 0x67, 0x53] { return .ogg }
    if b.count >= 4 && b[0...3] == [0x66, 0x4C, 0x61, 0x43] { return .flac }
    if let length = adtsFrameLength(b, at: 0),
      b.count < length + 2 || adtsFrameLength(b, at: length) != nil
    {
      return .aac
    }
    if let length = mpegFrameLength(b, at: 0) {
      // One header can happen by chance in noise; two in a row does not.
      if b.count < length + 4 { return .mp3 }
      if mpegFrameLength(b, at: length) != nil { return .mp3 }
    }
    return joinedMidFrame(b)
  }

  /// A live stream (a radio station) is joined wherever its server is: the first frame may
  /// start anywhere in the first bytes. Three frames in a row, each where the one before ends,
  /// say MP3 or ADTS AAC (the decoders find the first frame themselves).
  private static func joinedMidFrame(_ b: [UInt8]) -> AudioKind {
    guard b.count >= 64 else { return .unknown }
    for offset in 1..<(b.count - 4) where b[offset] == 0xFF {
      for (kind, frame) in [
        (AudioKind.mp3, mpegFrameLength as ([UInt8], Int) -> Int?), (.aac, adtsFrameLength),
      ] {
        guard let first = frame(b, offset), let second = frame(b, offset + first),
          frame(b, offset + first + second) != nil
        else { continue }
        return kind
      }
    }
    return .unknown
  }

  /// The length in bytes of the ADTS (raw AAC) frame whose header starts at `offset`, if valid:
  /// a 12-bit sync, layer 0, and a 13-bit length that covers at least the header.
  static func adtsFrameLength(_ b: [UInt8], at offset: Int) -> Int? {
    guard offset + 7 <= b.count, b[offset] == 0xFF, b[offset + 1] & 0xF6 == 0xF0,
      (b[offset + 2] >> 2) & 0xF < 13
    else { return nil }
    let length = Int(b[offset + 3] & 0x3) << 11 | Int(b[offset + 4]) << 3 | Int(b[offset + 5] >> 5)
    return length >= 7 ? length : nil
  }

  /// The length in bytes of the MPEG audio frame whose header starts at `offset`, if valid.
  static func mpegFrameLength(_ b: [UInt8], at offset: Int) -> Int? {
    guard offset + 4 <= b.count, b[offset] == 0xFF, b[offset + 1] & 0xE0 == 0xE0 else {
      return nil
    }
    let version = (b[offset + 1] >> 3) & 0x3  // 0: 2.5, 2: 2, 3: 1
    let layer = (b[offset + 1] >> 1) & 0x3  // 1: III, 2: II, 3: I
    let bitrateIndex = Int(b[offset + 2] >> 4)
    let rateIndex = Int((b[offset + 2] >> 2) & 0x3)
    let padding = Int((b[offset + 2] >> 1) & 0x1)
    guard version != 1, layer != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else {
      return nil
    }
    let v1 = version == 3
    let bitrates: [Int]
    switch (v1, layer) {
    case (true, 3):
      bitrates = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
    case (true, 2): bitrates = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
    case (true, _): bitrates = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
    case (false, 3): bitrates = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
    default: bitrates = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
    }
    let baseRates = [44100, 48000, 32000]
    let sampleRate = baseRates[rateIndex] / (version == 3 ? 1 : version == 2 ? 2 : 4)
    let bitrate = bitrates[bitrateIndex] * 1000
    if layer == 3 {
      return (12 * bitrate / sampleRate + padding) * 4
    }
    let samples = (layer == 1 && !v1) ? 576 : 1152
    return samples / 8 * bitrate / sampleRate + padding
  }
}
