import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A file mapped read-only; unmapped when the last reference goes.
final class MappedFile: @unchecked Sendable {
  let bytes: UnsafeRawBufferPointer

  init(url: URL) throws {
    let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw IndexFile.ReadError.notAnIndex }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw IndexFile.ReadError.notAnIndex }
    let size = Int(status.st_size)
    guard size > 0 else { throw IndexFile.ReadError.truncated }
    guard let address = mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0),
      address != MAP_FAILED
    else { throw IndexFile.ReadError.notAnIndex }
    bytes = UnsafeRawBufferPointer(start: address, count: size)
  }

  deinit { munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count) }
}

/// The inverted table stored ready to map (`.rfpt` beside the `.rfpi` of the prints): a query
/// reads only the rows of its own hashes, and opening it costs nothing whatever its size.
///
/// ```
/// "RFPT" | version u32 | parameter signature u32 | song count u32 | posting count u64
/// offsets: (2^22 + 1) u32 | postings: u32 each (song << 16 | anchor frame)
/// per song: id (u16 length + UTF-8) | audio key (u16 length + UTF-8)
///           | its record's offset in the prints file u64 | the record's length u32
///           | checksum of its packed peaks u32 (`PrintRecord.checksum`)
/// ```
///
/// Built in a stream from the prints file (`build`): a first pass counts each hash's
/// postings, then the rows are filled a range of hashes at a time, as many as fit a fixed
/// buffer, each range by one more pass over the prints, and written where they belong. Each
/// pass makes the songs' landmarks again from their packed peaks, only those of anchors in
/// the bins of its range of hashes (the anchor's bin is a hash's top bits). What the build
/// holds is the counts, the fill positions (16 MB each) and the buffer, however large the
/// catalog.
///
/// Where each song's record lies in the prints file is kept so that its peaks can be read
/// back by song number (`FingerprintIndex.peaks(ofSong:)`). An update rewrites the prints file
/// with the songs kept first, in the same order and the same bytes, so a table that stays
/// valid (its songs the first of the file's) keeps valid offsets; `FingerprintStore.index`
/// checks them too.
enum TableFile {
  static let magic = Data("RFPT".utf8)
  static let version: UInt32 = 2
  static let headerSize = 24
  static var offsetCount: Int { (1 << LandmarkHasher.hashBits) + 1 }

  /// A mapped table: its rows, and the songs they number.
  struct Opened {
    var file: MappedFile
    var offsets: UnsafeBufferPointer<UInt32>
    var postings: UnsafeBufferPointer<UInt32>
    var entries: [(id: String, audioKey: String)]
    /// Where each song's record lies in the prints file the table was built from.
    var records: [PrintRecord]
  }

  /// Maps a table and checks its shape; throws when it is not one this riffle wrote for these
  /// parameters, or is cut short.
  static func open(_ url: URL, parameters: FingerprintParameters) throws -> Opened {
    let file = try MappedFile(url: url)
    let bytes = file.bytes
    guard bytes.count >= headerSize, magic.elementsEqual(bytes.prefix(4)) else {
      throw IndexFile.ReadError.notAnIndex
    }
    func u32(_ at: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
    let version = UInt32(littleEndian: u32(4))
    guard version == Self.version else { throw IndexFile.ReadError.otherVersion(version) }
    guard UInt32(littleEndian: u32(8)) == parameters.signature else {
      throw IndexFile.ReadError.otherParameters
    }
    let songCount = Int(UInt32(littleEndian: u32(12)))
    let postingCount = Int(
      UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
    let postingsAt = headerSize + 4 * offsetCount
    guard postingCount <= (bytes.count - postingsAt) / 4 else {
      throw IndexFile.ReadError.truncated
    }
    let base = bytes.baseAddress!
    let offsets = UnsafeBufferPointer(
      start: (base + headerSize).assumingMemoryBound(to: UInt32.self), count: offsetCount)
    let postings = UnsafeBufferPointer(
      start: (base + postingsAt).assumingMemoryBound(to: UInt32.self), count: postingCount)
    // The rows must stay inside the postings: checked once here, so a query never reads
    // outside the file.
    guard offsets[0] == 0, Int(offsets[offsetCount - 1]) == postingCount else {
      throw IndexFile.ReadError.notAnIndex
    }
    var previous: UInt32 = 0
    for offset in offsets {
      guard offset >= previous else { throw IndexFile.ReadError.notAnIndex }
      previous = offset
    }
    var at = postingsAt + 4 * postingCount
    func string() throws -> String {
      guard bytes.count - at >= 2 else { throw IndexFile.ReadError.truncated }
      let length = Int(
        UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
      at += 2
      guard bytes.count - at >= length else { throw IndexFile.ReadError.truncated }
      defer { at += length }
      return String(
        decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<at + length]), as: UTF8.self)
    }
    func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
      guard bytes.count - at >= MemoryLayout<T>.size else { throw IndexFile.ReadError.truncated }
      defer { at += MemoryLayout<T>.size }
      return T(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: T.self))
    }
    var entries: [(id: String, audioKey: String)] = []
    var records: [PrintRecord] = []
    // Each song takes at least 20 bytes.
    guard songCount <= (bytes.count - at) / 20 else { throw IndexFile.ReadError.truncated }
    entries.reserveCapacity(songCount)
    records.reserveCapacity(songCount)
    for _ in 0..<songCount {
      entries.append((try string(), try string()))
      let offset = try integer(UInt64.self)
      let length = try integer(UInt32.self)
      let checksum = try integer(UInt32.self)
      guard offset <= UInt64(Int.max / 2) else { throw IndexFile.ReadError.notAnIndex }
      records.append(PrintRecord(offset: Int(offset), length: Int(length), checksum: checksum))
    }
    guard at == bytes.count else { throw IndexFile.ReadError.notAnIndex }
    // Every posting names a song of the table.
    guard songCount > 0 || postingCount == 0 else { throw IndexFile.ReadError.notAnIndex }
    return Opened(
      file: file, offsets: offsets, postings: postings, entries: entries, records: records)
  }

  /// Builds the table of the first `FingerprintIndex.maxSongs` songs of the prints file at
  /// `prints` into `url` (through a temporary file and a rename), holding at most
  /// `bufferPostings` postings at a time.
  static func build(
    from prints: URL, to url: URL, parameters: FingerprintParameters,
    bufferPostings: Int = 12 << 20
  ) throws {
    let buckets = 1 << LandmarkHasher.hashBits
    // Pass 1: how many postings each hash has, and the songs' names and records.
    var counts = [UInt32](repeating: 0, count: buckets + 1)
    var entries: [(id: String, audioKey: String)] = []
    var records: [PrintRecord] = []
    var peaks: [Peak] = []
    try eachSong(prints, parameters: parameters) { song, print in
      entries.append((print.id, print.audioKey))
      var record = print.record
      record.checksum = PrintRecord.checksum(print.packed)
      records.append(record)
      try unpack(print, into: &peaks, bins: SongPrint.binRange)
      counts.withUnsafeMutableBufferPointer { counts in
        for landmark in LandmarkHasher.pairs(peaks, parameters: parameters)
        where landmark.frame <= FingerprintIndex.maxFrame {
          counts[Int(landmark.hash) + 1] += 1
        }
      }
    }
    var total = 0
    for i in 0..<buckets {
      total += Int(counts[i + 1])
      guard total <= Int(UInt32.max) else { throw IndexFile.ReadError.notAnIndex }
      counts[i + 1] = UInt32(total)
    }
    let offsets = counts
    counts = []

    // Named as AtomicFile names its temporary files, so a killed build's is cleaned up.
    let temporary = url.deletingLastPathComponent().appendingPathComponent(
      ".\(url.lastPathComponent).\(getpid()).tmp")
    let descriptor = Glibc.open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission) }
    var closed = false
    defer {
      if !closed {
        close(descriptor)
        unlink(temporary.path)
      }
    }
    func write(_ data: UnsafeRawBufferPointer, at position: Int) throws {
      var done = 0
      while done < data.count {
        let n = pwrite(
          descriptor, data.baseAddress! + done, data.count - done, off_t(position + done))
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { throw CocoaError(.fileWriteOutOfSpace) }
        done += n
      }
    }
    var header = Data()
    header.append(magic)
    PrintFileWriter.append(&header, version)
    PrintFileWriter.append(&header, parameters.signature)
    PrintFileWriter.append(&header, UInt32(entries.count))
    PrintFileWriter.append(&header, UInt64(total))
    try header.withUnsafeBytes { try write($0, at: 0) }
    try offsets.map(\.littleEndian).withUnsafeBytes { try write($0, at: headerSize) }
    let postingsAt = headerSize + 4 * (buckets + 1)
    var names = Data()
    for (entry, record) in zip(entries, records) {
      PrintFileWriter.appendString(&names, entry.id)
      PrintFileWriter.appendString(&names, entry.audioKey)
      PrintFileWriter.append(&names, UInt64(record.offset))
      PrintFileWriter.append(&names, UInt32(record.length))
      PrintFileWriter.append(&names, record.checksum)
    }
    try names.withUnsafeBytes { try write($0, at: postingsAt + 4 * total) }
    entries = []
    records = []

    // Pass 2 and on: the rows a range of hashes at a time.
    var fill = offsets
    var first = 0
    while first < buckets {
      var last = first + 1
      while last < buckets && Int(offsets[last + 1] - offsets[first]) <= bufferPostings {
        last += 1
      }
      let base = Int(offsets[first])
      let size = Int(offsets[last]) - base
      if size > 0 {
        var rows = [UInt32](repeating: 0, count: size)
        let range = UInt32(first)..<UInt32(last)
        // The anchors whose landmarks can fall in the range, and the peaks they pair with.
        let lowest = LandmarkHasher.parts(of: range.lowerBound).bin
        let highest = LandmarkHasher.parts(of: range.upperBound - 1).bin
        let anchors = lowest..<highest + 1
        let reach = parameters.maxBinDelta
        let targets = lowest - reach..<highest + 1 + reach
        try rows.withUnsafeMutableBufferPointer { rows in
          try fill.withUnsafeMutableBufferPointer { fill in
            try eachSong(prints, parameters: parameters) { song, print in
              let tag = UInt32(song) << 16
              try unpack(print, into: &peaks, bins: targets)
              for landmark in LandmarkHasher.pairs(
                peaks, parameters: parameters, anchorBins: anchors)
              {
                let hash = landmark.hash
                guard range.contains(hash), landmark.frame <= FingerprintIndex.maxFrame else {
                  continue
                }
                let slot = Int(fill[Int(hash)])
                fill[Int(hash)] += 1
                rows[slot - base] = (tag | landmark.frame).littleEndian
              }
            }
          }
          try write(UnsafeRawBufferPointer(rows), at: postingsAt + 4 * base)
        }
      }
      first = last
    }
    guard fsync(descriptor) == 0 else { throw CocoaError(.fileWriteUnknown) }
    close(descriptor)
    closed = true
    guard rename(temporary.path, url.path) == 0 else {
      unlink(temporary.path)
      throw CocoaError(.fileWriteUnknown)
    }
  }

  /// The peaks of a packed print in `bins` (the others pair with no anchor of a pass: the
  /// landmarks of its anchors are the same without them), into `peaks`.
  static func unpack(_ print: PackedPrint, into peaks: inout [Peak], bins: Range<Int>) throws {
    peaks.removeAll(keepingCapacity: true)
    guard print.peakCount <= print.packed.count else { throw IndexFile.ReadError.notAnIndex }
    try IndexFile.forEachPeak(print.packed, count: print.peakCount) { frame, bin in
      if bins.contains(bin) { peaks.append(Peak(frame: frame, bin: bin, prominence: 0)) }
    }
  }

  /// Every song of a prints file in order, up to the most a table can number.
  static func eachSong(
    _ url: URL, parameters: FingerprintParameters, _ body: (Int, PackedPrint) throws -> Void
  ) throws {
    let reader = try PrintFileReader(url: url, parameters: parameters)
    var song = 0
    while song < FingerprintIndex.maxSongs, let print = try reader.next() {
      try body(song, print)
      song += 1
    }
  }
}
