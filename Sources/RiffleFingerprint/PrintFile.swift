import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One song's record in an index file, as stored: its peaks still packed.
struct PackedPrint {
  var id: String
  var audioKey: String
  var duration: Double
  var peakCount: Int
  /// The packed peaks (`IndexFile.pack`); valid until the reader moves on.
  var packed: UnsafeRawBufferPointer
  /// Where the whole record lies in the file it was read from (0, 0 when it was not read).
  var record: PrintRecord = PrintRecord(offset: 0, length: 0)

  /// The song's peaks.
  func peaks() throws -> [Peak] { try IndexFile.unpack(packed, count: peakCount) }
  /// The song's bits.
  func bits() throws -> [UInt32] { try IndexFile.unpackBits(packed) }
}

/// Where one song's record lies in a prints file, and (in a table) a checksum of its packed
/// peaks (`checksum(_:)`), so a record changed in place is not read as the song's.
struct PrintRecord: Equatable, Sendable {
  var offset: Int
  var length: Int
  var checksum: UInt32 = 0

  /// Whether `other` lies where this does (checksums aside).
  func isAt(_ other: PrintRecord) -> Bool { offset == other.offset && length == other.length }

  /// FNV-1a over the bytes: cheap next to reading them (a song's are a few kilobytes).
  static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var hash: UInt32 = 2_166_136_261
    for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
    return hash
  }
}

/// Reads an index file (`IndexFile`'s format) one song at a time through a small buffer, so a
/// file of any size costs a megabyte or so of memory (a mapping would count every page read
/// towards the process's memory).
final class PrintFileReader {
  private let descriptor: Int32
  private var buffer: UnsafeMutableRawBufferPointer
  private var start = 0
  private var end = 0
  private var atEnd = false
  /// The file offset of `buffer[0]`.
  private var bufferOffset = 0
  /// Songs the header announces.
  private(set) var count = 0
  private(set) var read = 0

  init(url: URL, parameters: FingerprintParameters) throws {
    descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw IndexFile.ReadError.notAnIndex }
    buffer = .allocate(byteCount: 1 << 20, alignment: 8)
    let head = try bytes(16)
    guard IndexFile.magic.elementsEqual(UnsafeRawBufferPointer(rebasing: head[0..<4])) else {
      throw IndexFile.ReadError.notAnIndex
    }
    let version = head.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian
    guard version == IndexFile.version else { throw IndexFile.ReadError.otherVersion(version) }
    guard
      head.loadUnaligned(fromByteOffset: 8, as: UInt32.self).littleEndian == parameters.signature
    else { throw IndexFile.ReadError.otherParameters }
    count = Int(head.loadUnaligned(fromByteOffset: 12, as: UInt32.self).littleEndian)
  }

  deinit {
    buffer.deallocate()
    close(descriptor)
  }

  /// The next song, or nil after the last; throws when the file is cut short or damaged.
  func next() throws -> PackedPrint? {
    guard read < count else {
      guard try fill(1) == false else { throw IndexFile.ReadError.notAnIndex }
      return nil
    }
    let offset = bufferOffset + start
    let id = try string()
    let key = try string()
    let duration = Double(bitPattern: try integer(UInt64.self))
    let peakCount = Int(try integer(UInt32.self))
    let packedCount = Int(try integer(UInt32.self))
    // Each peak takes at least a byte.
    guard peakCount <= packedCount, packedCount <= PrintRecord.maxPacked else {
      throw IndexFile.ReadError.notAnIndex
    }
    let packed = try bytes(packedCount)
    read += 1
    return PackedPrint(
      id: id, audioKey: key, duration: duration, peakCount: peakCount, packed: packed,
      record: PrintRecord(offset: offset, length: bufferOffset + start - offset))
  }

  /// Makes `n` bytes available from `start`; false when the file ends first.
  private func fill(_ n: Int) throws -> Bool {
    if end - start >= n { return true }
    if n > buffer.count {
      let larger = UnsafeMutableRawBufferPointer.allocate(
        byteCount: max(n, buffer.count * 2), alignment: 8)
      larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
      buffer.deallocate()
      buffer = larger
    } else if start > 0 {
      memmove(buffer.baseAddress!, buffer.baseAddress! + start, end - start)
    }
    bufferOffset += start
    end -= start
    start = 0
    while end < n && !atEnd {
      let got = Glibc.read(descriptor, buffer.baseAddress! + end, buffer.count - end)
      if got < 0 {
        if errno == EINTR { continue }
        throw IndexFile.ReadError.truncated
      }
      if got == 0 { atEnd = true }
      end += got
    }
    return end - start >= n
  }

  private func bytes(_ n: Int) throws -> UnsafeRawBufferPointer {
    guard try fill(n) else { throw IndexFile.ReadError.truncated }
    defer { start += n }
    return UnsafeRawBufferPointer(rebasing: buffer[start..<start + n])
  }

  private func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
    let raw = try bytes(MemoryLayout<T>.size)
    return T(littleEndian: raw.loadUnaligned(as: T.self))
  }

  private func string() throws -> String {
    let length = Int(try integer(UInt16.self))
    return String(decoding: try bytes(length), as: UTF8.self)
  }
}

/// Writes an index file one song at a time to a temporary file beside the destination, and
/// renames it into place when finished (a crash leaves the old file or the new one).
final class PrintFileWriter {
  private let destination: URL
  private let temporary: URL
  private let handle: FileHandle
  private var pending = Data()
  private(set) var count = 0
  /// (id, audio key) of each song written, in order.
  private(set) var entries: [(id: String, audioKey: String)] = []

  init(to destination: URL, parameters: FingerprintParameters) throws {
    self.destination = destination
    try FileManager.default.createDirectory(
      at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
    temporary = destination.deletingLastPathComponent().appendingPathComponent(
      ".\(destination.lastPathComponent).\(getpid()).tmp")
    guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
      throw CocoaError(.fileWriteNoPermission)
    }
    handle = try FileHandle(forWritingTo: temporary)
    pending.append(IndexFile.magic)
    Self.append(&pending, IndexFile.version)
    Self.append(&pending, parameters.signature)
    Self.append(&pending, UInt32(0))  // the count, written at the end
  }

  func append(_ print: SongPrint) throws {
    let packed = IndexFile.pack(print.peaks, bits: print.bits, bass: print.bass)
    try packed.withUnsafeBytes { bytes in
      try append(
        PackedPrint(
          id: print.id, audioKey: print.audioKey, duration: print.duration,
          peakCount: print.peaks.count, packed: bytes))
    }
  }

  func append(_ print: PackedPrint) throws {
    Self.appendString(&pending, print.id)
    Self.appendString(&pending, print.audioKey)
    Self.append(&pending, print.duration.bitPattern)
    Self.append(&pending, UInt32(print.peakCount))
    Self.append(&pending, UInt32(print.packed.count))
    pending.append(contentsOf: print.packed)
    entries.append((print.id, print.audioKey))
    count += 1
    if pending.count >= 1 << 20 { try flush() }
  }

  private func flush() throws {
    try handle.write(contentsOf: pending)
    pending.removeAll(keepingCapacity: true)
  }

  /// Writes the count, syncs and renames the file into place.
  func finish() throws {
    try flush()
    try handle.seek(toOffset: 12)
    var count = Data()
    Self.append(&count, UInt32(self.count))
    try handle.write(contentsOf: count)
    try handle.synchronize()
    try handle.close()
    guard rename(temporary.path, destination.path) == 0 else {
      throw CocoaError(.fileWriteUnknown)
    }
  }

  /// Removes the temporary file of a write given up.
  func abandon() {
    try? handle.close()
    unlink(temporary.path)
  }

  static func append<T: FixedWidthInteger>(_ out: inout Data, _ value: T) {
    withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
  }

  static func appendString(_ out: inout Data, _ text: String) {
    let bytes = Array(text.utf8.prefix(Int(UInt16.max)))
    append(&out, UInt16(bytes.count))
    out.append(contentsOf: bytes)
  }
}

extension PrintRecord {
  /// The most packed bytes a record may hold (a day of audio takes some 3.5 MB).
  static let maxPacked = 1 << 28
  /// The most bytes a whole record may take: its packed peaks, two strings and 20 bytes.
  static let maxLength = maxPacked + 2 * (2 + Int(UInt16.max)) + 16
}

/// A prints file held open to read single songs' peaks where the table says their records lie
/// (`FingerprintIndex.peaks(ofSong:)`): a `pread` of a few kilobytes per song, never the whole
/// file. The descriptor is opened once, so a file renamed over this one later (an update) does
/// not change what is read; a file changed or cut in place gives no peaks rather than wrong
/// ones, as far as the record's own checks can tell: its id, its lengths and its packing.
final class PrintFilePeaks: @unchecked Sendable {
  private let descriptor: Int32
  private let records: [PrintRecord]
  private let ids: [String]

  /// Nil when the file cannot be opened or is not a prints file for these parameters.
  init?(url: URL, records: [PrintRecord], ids: [String], parameters: FingerprintParameters) {
    guard records.count == ids.count else { return nil }
    descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    self.records = records
    self.ids = ids
    var head = [UInt8](repeating: 0, count: 16)
    guard Self.read(descriptor, into: &head, at: 0),
      IndexFile.magic.elementsEqual(head[0..<4]),
      Self.u32(head, 4) == IndexFile.version, Self.u32(head, 8) == parameters.signature
    else {
      close(descriptor)
      return nil
    }
  }

  deinit { close(descriptor) }

  /// Song `song`'s peaks (its number among `ids`), or none when its record is not there as
  /// the table says.
  func peaks(_ song: Int) -> [Peak] { stored(song)?.peaks ?? [] }

  /// Song `song`'s peaks and bits, or nil when its record is not there as the table says.
  func stored(_ song: Int) -> StoredPrint? {
    guard records.indices.contains(song) else { return nil }
    let record = records[song]
    guard record.offset >= 16, (0...PrintRecord.maxLength).contains(record.length) else {
      return nil
    }
    var bytes = [UInt8](repeating: 0, count: record.length)
    guard Self.read(descriptor, into: &bytes, at: record.offset) else { return nil }
    return try? Self.parse(bytes, id: ids[song], checksum: record.checksum)
  }

  /// One whole record: its id must be `id`, its lengths must fill it exactly and its packed
  /// peaks must have the checksum.
  static func parse(_ bytes: [UInt8], id: String, checksum: UInt32) throws -> StoredPrint {
    var at = 0
    func take(_ n: Int) throws -> ArraySlice<UInt8> {
      guard n >= 0, bytes.count - at >= n else { throw IndexFile.ReadError.truncated }
      defer { at += n }
      return bytes[at..<at + n]
    }
    func u16() throws -> Int { Int(try take(2).reversed().reduce(0) { $0 << 8 | Int($1) }) }
    func u32() throws -> Int { Int(try take(4).reversed().reduce(0) { $0 << 8 | Int($1) }) }
    guard String(decoding: try take(try u16()), as: UTF8.self) == id else {
      throw IndexFile.ReadError.notAnIndex
    }
    _ = try take(try u16())  // the audio key
    _ = try take(8)  // the duration
    let count = try u32()
    let packedCount = try u32()
    guard packedCount == bytes.count - at else { throw IndexFile.ReadError.notAnIndex }
    return try bytes.withUnsafeBytes {
      let packed = UnsafeRawBufferPointer(rebasing: $0[at...])
      guard PrintRecord.checksum(packed) == checksum else { throw IndexFile.ReadError.notAnIndex }
      return try StoredPrint(packed: packed, count: count)
    }
  }

  /// Fills `bytes` from `offset`; false when the file ends first or cannot be read.
  private static func read(_ descriptor: Int32, into bytes: inout [UInt8], at offset: Int) -> Bool {
    bytes.withUnsafeMutableBytes { buffer in
      var done = 0
      while done < buffer.count {
        let n = pread(
          descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return false }
        done += n
      }
      return true
    }
  }

  private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    bytes[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
  }
}
