import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One song's record in an index file, as stored: its landmarks still packed.
struct PackedPrint {
  var id: String
  var audioKey: String
  var duration: Double
  var landmarkCount: Int
  /// The packed landmarks (`IndexFile.pack`); valid until the reader moves on.
  var packed: UnsafeRawBufferPointer
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
    let id = try string()
    let key = try string()
    let duration = Double(bitPattern: try integer(UInt64.self))
    let landmarkCount = Int(try integer(UInt32.self))
    let packedCount = Int(try integer(UInt32.self))
    guard landmarkCount <= packedCount / 2, packedCount <= 1 << 28 else {
      throw IndexFile.ReadError.notAnIndex
    }
    let packed = try bytes(packedCount)
    read += 1
    return PackedPrint(
      id: id, audioKey: key, duration: duration, landmarkCount: landmarkCount, packed: packed)
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
    let packed = IndexFile.pack(print.landmarks)
    try packed.withUnsafeBytes { bytes in
      try append(
        PackedPrint(
          id: print.id, audioKey: print.audioKey, duration: print.duration,
          landmarkCount: print.landmarks.count, packed: bytes))
    }
  }

  func append(_ print: PackedPrint) throws {
    Self.appendString(&pending, print.id)
    Self.appendString(&pending, print.audioKey)
    Self.append(&pending, print.duration.bitPattern)
    Self.append(&pending, UInt32(print.landmarkCount))
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

extension IndexFile {
  /// Calls `body(hash, frame)` for each packed landmark, without building an array; throws
  /// when the bytes do not hold `count` landmarks exactly.
  static func forEachLandmark(
    _ bytes: UnsafeRawBufferPointer, count: Int, _ body: (UInt32, UInt32) -> Void
  ) throws {
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
      guard count == 0 else { throw ReadError.notAnIndex }
      return
    }
    let size = bytes.count
    var at = 0
    var frame: UInt32 = 0
    var seen = 0
    while at < size {
      var delta: UInt32 = 0
      var shift: UInt32 = 0
      while true {
        guard at < size, shift < 32 else { throw ReadError.notAnIndex }
        let byte = base[at]
        at += 1
        delta |= UInt32(byte & 0x7F) << shift
        shift += 7
        if byte & 0x80 == 0 { break }
      }
      frame = frame &+ delta
      guard at + 2 <= size else { throw ReadError.notAnIndex }
      let head = UInt32(base[at]) | UInt32(base[at + 1]) << 8
      at += 2
      let bin = head >> 7
      let pairs = Int(head & 0x7F) + 1
      guard seen + pairs <= count, at + 2 * pairs <= size else { throw ReadError.notAnIndex }
      for _ in 0..<pairs {
        body(bin << 13 | (UInt32(base[at]) | UInt32(base[at + 1]) << 8), frame)
        at += 2
      }
      seen += pairs
    }
    guard seen == count else { throw ReadError.notAnIndex }
  }
}
