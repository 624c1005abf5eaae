import Foundation

/// The fingerprint index on disk (the prints file): a small header, then each song's id,
/// audio key, duration and peaks, all little-endian. Kept per song so an update rewrites only
/// what changed.
///
/// ```
/// "RFPI" | version u32 | parameter signature u32 | song count u32
/// per song: id (u16 length + UTF-8) | audio key (u16 length + UTF-8) | duration f64 bits u64
///           | peak count u32 | packed byte count u32 | packed: bit count u32, the bits (u32
///           each), bass count u32, the bass's bits (u8 each), the peaks
/// ```
///
/// A song's landmarks are made from its peaks when wanted (`SongPrint.landmarks`), so the
/// peaks are what is kept: about 20 a second against some 180 landmarks. They are packed in
/// (frame, bin) order, each as one LEB128 varint of its frame's distance from the previous
/// peak's, shifted left by 10 bits, or its bin (under 575, `SongPrint.binRange`): two bytes a
/// peak while peaks are under 16 frames apart, 0.04 KB per second of audio. Before them lie
/// the song's dense bits (`BandBits`), a word a frame: 0.17 KB per second, read only to check
/// a candidate; then the bass's bits (`BandBits.bassBits`), a byte a frame: 0.04 KB a second.
public enum IndexFile {
  public static let magic = Data("RFPI".utf8)
  public static let version: UInt32 = 6
  /// Bits of a packed peak that hold its bin.
  static let binBits: UInt64 = 10

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
    out.reserveCapacity(16 + songs.reduce(0) { $0 + 64 + $1.peaks.count * 3 })
    out.append(magic)
    append(&out, version)
    append(&out, parameters.signature)
    append(&out, UInt32(songs.count))
    for song in songs {
      appendString(&out, song.id)
      appendString(&out, song.audioKey)
      append(&out, song.duration.bitPattern)
      let packed = pack(song.peaks, bits: song.bits, bass: song.bass)
      append(&out, UInt32(song.peaks.count))
      append(&out, UInt32(packed.count))
      out.append(contentsOf: packed)
    }
    return out
  }

  /// Whole peaks sorted by (frame, bin) with bins in `SongPrint.binRange`, as a print holds
  /// them, packed.
  static func pack(_ peaks: [Peak], bits: [UInt32] = [], bass: [UInt8] = []) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(peaks.count * 2 + bits.count * 4 + bass.count + 8)
    for word in [UInt32(bits.count)] + bits {
      withUnsafeBytes(of: word.littleEndian) { out.append(contentsOf: $0) }
    }
    withUnsafeBytes(of: UInt32(bass.count).littleEndian) { out.append(contentsOf: $0) }
    out += bass
    var previousFrame = 0
    for peak in peaks {
      precondition(
        peak.frame >= previousFrame && SongPrint.binRange.contains(peak.bin),
        "peaks must be whole and sorted (SongPrint.wholePeaks)")
      var value = UInt64(peak.frame - previousFrame) << binBits | UInt64(peak.bin)
      while value >= 0x80 {
        out.append(UInt8(value & 0x7F) | 0x80)
        value >>= 7
      }
      out.append(UInt8(value))
      previousFrame = peak.frame
    }
    return out
  }

  /// Reads an index without copying the file first: `data` may be mapped
  /// (`Data(contentsOf:options: .alwaysMapped)`). Every count is checked against the bytes
  /// left, so a damaged or cut file is an error, never a crash or a huge allocation.
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
        let peakCount = Int(try reader.u32())
        let packedCount = Int(try reader.u32())
        guard reader.remaining >= packedCount else { throw ReadError.truncated }
        let packed = UnsafeRawBufferPointer(rebasing: bytes[reader.at..<reader.at + packedCount])
        let peaks = try unpack(packed, count: peakCount)
        let bits = try unpackBits(packed)
        let bass = try unpackBass(packed)
        reader.at += packedCount
        songs.append(
          SongPrint(
            id: id, audioKey: key, duration: duration, peaks: peaks, bits: bits, bass: bass))
      }
      guard reader.remaining == 0 else { throw ReadError.notAnIndex }
      return songs
    }
  }

  /// A packed print's three parts: its bits, its bass's bits and its peaks; throws when a
  /// count does not fit the bytes.
  static func sections(_ bytes: UnsafeRawBufferPointer) throws -> (
    bits: UnsafeRawBufferPointer, bass: UnsafeRawBufferPointer, peaks: UnsafeRawBufferPointer
  ) {
    guard bytes.count >= 8 else { throw ReadError.notAnIndex }
    let count = Int(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
    guard count <= (bytes.count - 8) / 4 else { throw ReadError.notAnIndex }
    let end = 4 + count * 4
    let bassCount = Int(
      UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: end, as: UInt32.self)))
    guard bassCount <= bytes.count - end - 4 else { throw ReadError.notAnIndex }
    let bassEnd = end + 4 + bassCount
    return (
      UnsafeRawBufferPointer(rebasing: bytes[4..<end]),
      UnsafeRawBufferPointer(rebasing: bytes[(end + 4)..<bassEnd]),
      UnsafeRawBufferPointer(rebasing: bytes[bassEnd...])
    )
  }

  /// A packed print's bass's bits back.
  static func unpackBass(_ bytes: UnsafeRawBufferPointer) throws -> [UInt8] {
    Array(try sections(bytes).bass)
  }

  /// A packed print's bits back.
  static func unpackBits(_ bytes: UnsafeRawBufferPointer) throws -> [UInt32] {
    let bits = try sections(bytes).bits
    return (0..<bits.count / 4).map {
      UInt32(littleEndian: bits.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))
    }
  }

  /// Packed peaks back; throws unless the bytes hold exactly `count` peaks, each a varint of
  /// at most 64 bits with a bin a print can hold.
  static func unpack(_ bytes: UnsafeRawBufferPointer, count: Int) throws -> [Peak] {
    // Each peak takes at least a byte.
    guard count <= bytes.count else { throw ReadError.notAnIndex }
    var peaks: [Peak] = []
    peaks.reserveCapacity(count)
    try forEachPeak(bytes, count: count) { frame, bin in
      peaks.append(Peak(frame: frame, bin: bin, prominence: 0))
    }
    return peaks
  }

  /// Calls `body(frame, bin)` for each packed peak, in order, without building an array;
  /// throws when the bytes do not hold `count` peaks exactly.
  static func forEachPeak(
    _ packed: UnsafeRawBufferPointer, count: Int, _ body: (Int, Int) throws -> Void
  ) throws {
    let bytes = try sections(packed).peaks
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
      guard count == 0 else { throw ReadError.notAnIndex }
      return
    }
    let size = bytes.count
    let binMask = (UInt64(1) << binBits) - 1
    var at = 0
    var frame = 0
    var seen = 0
    while at < size {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        guard at < size, shift < 63 else { throw ReadError.notAnIndex }
        let byte = base[at]
        at += 1
        value |= UInt64(byte & 0x7F) << shift
        shift += 7
        if byte & 0x80 == 0 { break }
      }
      let bin = Int(value & binMask)
      let delta = value >> binBits
      guard seen < count, SongPrint.binRange.contains(bin), delta <= UInt64(Int32.max) else {
        throw ReadError.notAnIndex
      }
      frame += Int(delta)
      guard frame <= Int(Int32.max) else { throw ReadError.notAnIndex }
      try body(frame, bin)
      seen += 1
    }
    guard seen == count else { throw ReadError.notAnIndex }
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
