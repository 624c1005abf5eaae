import Foundation

/// The fingerprint index on disk: a small header, then each song's id, audio key, duration
/// and landmarks, all little-endian. Kept per song so an update rewrites only what changed.
///
/// ```
/// "RFPI" | version u32 | parameter signature u32 | song count u32
/// per song: id (u16 length + UTF-8) | audio key (u16 length + UTF-8) | duration f64 bits u64
///           | landmark count u32 | (hash u32, frame u32) * count
/// ```
public enum IndexFile {
  public static let magic = Data("RFPI".utf8)
  public static let version: UInt32 = 2

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
    out.reserveCapacity(16 + songs.reduce(0) { $0 + 64 + $1.landmarks.count * 8 })
    out.append(magic)
    append(&out, version)
    append(&out, parameters.signature)
    append(&out, UInt32(songs.count))
    for song in songs {
      appendString(&out, song.id)
      appendString(&out, song.audioKey)
      append(&out, song.duration.bitPattern)
      append(&out, UInt32(song.landmarks.count))
      for landmark in song.landmarks {
        append(&out, landmark.hash)
        append(&out, landmark.frame)
      }
    }
    return out
  }

  public static func decode(_ data: Data, parameters: FingerprintParameters) throws -> [SongPrint] {
    var reader = Reader(bytes: [UInt8](data))
    guard data.count >= 4, Array(reader.take(4)) == [UInt8](magic) else {
      throw ReadError.notAnIndex
    }
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
      guard reader.remaining >= landmarkCount * 8 else { throw ReadError.truncated }
      var landmarks: [Landmark] = []
      landmarks.reserveCapacity(landmarkCount)
      for _ in 0..<landmarkCount {
        landmarks.append(Landmark(hash: try reader.u32(), frame: try reader.u32()))
      }
      songs.append(SongPrint(id: id, audioKey: key, duration: duration, landmarks: landmarks))
    }
    guard reader.remaining == 0 else { throw ReadError.notAnIndex }
    return songs
  }

  private static func append<T: FixedWidthInteger>(_ out: inout Data, _ value: T) {
    withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
  }

  private static func appendString(_ out: inout Data, _ text: String) {
    let bytes = Array(text.utf8.prefix(Int(UInt16.max)))
    append(&out, UInt16(bytes.count))
    out.append(contentsOf: bytes)
  }

  private struct Reader {
    let bytes: [UInt8]
    var at = 0

    var remaining: Int { bytes.count - at }

    mutating func take(_ n: Int) -> ArraySlice<UInt8> {
      defer { at += n }
      return bytes[at..<at + n]
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
      let size = MemoryLayout<T>.size
      guard remaining >= size else { throw ReadError.truncated }
      var value: T = 0
      for (i, byte) in take(size).enumerated() { value |= T(byte) << (8 * i) }
      return value
    }

    mutating func u32() throws -> UInt32 { try integer(UInt32.self) }
    mutating func u64() throws -> UInt64 { try integer(UInt64.self) }

    mutating func string() throws -> String {
      let length = Int(try integer(UInt16.self))
      guard remaining >= length else { throw ReadError.truncated }
      return String(decoding: take(length), as: UTF8.self)
    }
  }
}
