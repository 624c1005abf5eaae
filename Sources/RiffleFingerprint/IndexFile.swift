import Foundation

/// The fingerprint index on disk: a small header, then each song's id, audio key, duration
/// and landmarks, all little-endian. Kept per song so an update rewrites only what changed.
///
/// ```
/// "RFPI" | version u32 | parameter signature u32 | song count u32
/// per song: id (u16 length + UTF-8) | audio key (u16 length + UTF-8) | duration f64 bits u64
///           | landmark count u32 | packed byte count u32 | packed landmarks
/// ```
///
/// Landmarks are packed by anchor, since every pair of one anchor shares its frame and its
/// anchor bin: per anchor, the frame's distance from the previous anchor's (a LEB128 varint,
/// usually one byte), a u16 of anchor bin (9 bits) and pair count - 1 (7 bits), then per pair
/// a u16 of the hash's other 13 bits (bin difference and frame difference). About 2.2 bytes a
/// landmark where a plain (hash, frame) pair takes 8: 0.4 KB per second of audio.
public enum IndexFile {
  public static let magic = Data("RFPI".utf8)
  public static let version: UInt32 = 3

  /// Why a stored index cannot be used (it is then rebuilt).
  public enum ReadError: Error, Equatable, CustomStringConvertible {
    case notAnIndex
    case otherVersion(UInt32)
    case otherParameters
    case truncated

    public var description: String {
      switch self {
      case .notAnIndex: return "not a fingerprint index"
      case .otherVersion(let v): return "index format \(v), this riffle writes \(IndexFile.version)"
      case .otherParameters: return "made with other fingerprint parameters"
      case .truncated: return "the index file is cut short"
      }
    }
  }

  public static func encode(_ songs: [SongPrint], parameters: FingerprintParameters) -> Data {
    var out = Data()
    out.reserveCapacity(16 + songs.reduce(0) { $0 + 64 + $1.landmarks.count * 3 })
    out.append(magic)
    append(&out, version)
    append(&out, parameters.signature)
    append(&out, UInt32(songs.count))
    for song in songs {
      appendString(&out, song.id)
      appendString(&out, song.audioKey)
      append(&out, song.duration.bitPattern)
      let packed = pack(song.landmarks)
      append(&out, UInt32(song.landmarks.count))
      append(&out, UInt32(packed.count))
      out.append(contentsOf: packed)
    }
    return out
  }

  /// Landmarks in (frame, hash) order, packed by anchor.
  static func pack(_ landmarks: [Landmark]) -> [UInt8] {
    let sorted = landmarks.sorted { ($0.frame, $0.hash) < ($1.frame, $1.hash) }
    var out: [UInt8] = []
    out.reserveCapacity(sorted.count * 3)
    var previousFrame: UInt32 = 0
    var i = 0
    while i < sorted.count {
      let frame = sorted[i].frame
      let bin = sorted[i].hash >> 13
      var end = i + 1
      while end < sorted.count && end - i < 128 && sorted[end].frame == frame
        && sorted[end].hash >> 13 == bin
      {
        end += 1
      }
      var delta = frame - previousFrame
      while delta >= 0x80 {
        out.append(UInt8(delta & 0x7F) | 0x80)
        delta >>= 7
      }
      out.append(UInt8(delta))
      appendU16(&out, UInt16(truncatingIfNeeded: bin << 7 | UInt32(end - i - 1)))
      for landmark in sorted[i..<end] {
        appendU16(&out, UInt16(landmark.hash & 0x1FFF))
      }
      previousFrame = frame
      i = end
    }
    return out
  }

  /// Reads an index without copying the file first: `data` may be mapped
  /// (`Data(contentsOf:options: .alwaysMapped)`), and only the landmarks are decoded out of it.
  /// Every count is checked against the bytes left, so a damaged or cut file is an error,
  /// never a crash or a huge allocation.
  public static func decode(_ data: Data, parameters: FingerprintParameters) throws -> [SongPrint] {
    try data.withUnsafeBytes { bytes in
      var reader = Reader(bytes: bytes)
      guard bytes.count >= 4, magic.elementsEqual(bytes.prefix(4)) else {
        throw ReadError.notAnIndex
      }
      reader.at = 4
      let version = try reader.u32()
      guard version == Self.version else { throw ReadError.otherVersion(version) }
      guard try reader.u32() == parameters.signature else { throw ReadError.otherParameters }
      let count = try reader.u32()
      var songs: [SongPrint] = []
      for _ in 0..<count {
        let id = try reader.string()
        let key = try reader.string()
        let duration = Double(bitPattern: try reader.u64())
        let landmarkCount = Int(try reader.u32())
        let packedCount = Int(try reader.u32())
        guard reader.remaining >= packedCount else { throw ReadError.truncated }
        // Each landmark takes at least two bytes.
        guard landmarkCount <= packedCount / 2 else { throw ReadError.notAnIndex }
        let landmarks = try unpack(
          UnsafeRawBufferPointer(rebasing: bytes[reader.at..<reader.at + packedCount]),
          count: landmarkCount)
        reader.at += packedCount
        songs.append(SongPrint(id: id, audioKey: key, duration: duration, landmarks: landmarks))
      }
      guard reader.remaining == 0 else { throw ReadError.notAnIndex }
      return songs
    }
  }

  static func unpack(_ bytes: UnsafeRawBufferPointer, count: Int) throws -> [Landmark] {
    var landmarks: [Landmark] = []
    landmarks.reserveCapacity(count)
    var reader = Reader(bytes: bytes)
    var frame: UInt32 = 0
    while reader.remaining > 0 {
      var delta: UInt32 = 0
      var shift: UInt32 = 0
      while true {
        let byte = try reader.u8()
        guard shift < 32 else { throw ReadError.notAnIndex }
        delta |= UInt32(byte & 0x7F) << shift
        shift += 7
        if byte & 0x80 == 0 { break }
      }
      frame = frame &+ delta
      let head = UInt32(try reader.u16())
      let bin = head >> 7
      let pairs = Int(head & 0x7F) + 1
      guard landmarks.count + pairs <= count else { throw ReadError.notAnIndex }
      for _ in 0..<pairs {
        landmarks.append(Landmark(hash: bin << 13 | UInt32(try reader.u16()), frame: frame))
      }
    }
    guard landmarks.count == count else { throw ReadError.notAnIndex }
    return landmarks
  }

  private static func append<T: FixedWidthInteger>(_ out: inout Data, _ value: T) {
    withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
  }

  private static func appendU16(_ out: inout [UInt8], _ value: UInt16) {
    out.append(UInt8(value & 0xFF))
    out.append(UInt8(value >> 8))
  }

  private static func appendString(_ out: inout Data, _ text: String) {
    let bytes = Array(text.utf8.prefix(Int(UInt16.max)))
    append(&out, UInt16(bytes.count))
    out.append(contentsOf: bytes)
  }

  private struct Reader {
    let bytes: UnsafeRawBufferPointer
    var at = 0

    var remaining: Int { bytes.count - at }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
      let size = MemoryLayout<T>.size
      guard remaining >= size else { throw ReadError.truncated }
      defer { at += size }
      return T(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: T.self))
    }

    mutating func u8() throws -> UInt8 { try integer(UInt8.self) }
    mutating func u16() throws -> UInt16 { try integer(UInt16.self) }
    mutating func u32() throws -> UInt32 { try integer(UInt32.self) }
    mutating func u64() throws -> UInt64 { try integer(UInt64.self) }

    mutating func string() throws -> String {
      let length = Int(try integer(UInt16.self))
      guard remaining >= length else { throw ReadError.truncated }
      defer { at += length }
      return String(
        decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<at + length]), as: UTF8.self)
    }
  }
}
