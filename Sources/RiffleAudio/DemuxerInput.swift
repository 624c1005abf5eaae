import CFFmpeg
import Foundation

/// The bytes fed to an `FFmpegDecoder`, by file offset, for libavformat to read at any position.
///
/// libavformat pulls bytes and seeks while the player pushes them as they download, possibly in
/// separate runs after a seek with a Range request. The store keeps each run as a segment and
/// answers libavformat's reads from them; a read where no byte has arrived yet returns end of
/// file and marks the store `starved`, so the decoder knows it is "not yet", not "never".
final class DemuxerInput {
  private struct Segment {
    var start: Int64
    var bytes: Data
    var end: Int64 { start + Int64(bytes.count) }
  }

  /// Sorted, neither overlapping nor touching.
  private var segments: [Segment] = []
  /// Where the next fed byte belongs.
  var cursor: Int64 = 0
  /// The whole input's size, when known.
  var length: Int64?
  /// Set when the feeder said nothing more will come after `cursor`.
  private var ended = false
  /// libavformat's read position.
  var readPosition: Int64 = 0
  /// A read found no byte at its position before the end of the input.
  var starved = false
  /// Counts feeds, so a retry can tell whether anything changed.
  private(set) var version = 0
  /// The offset of the first top-level MP4 box the search for the sample table has not yet
  /// passed: box headers never change once here, so each search goes on from the last.
  private(set) var boxSearchOffset: Int64 = 0
  /// Box headers read by that search in all (it reads each box's header once, however the
  /// bytes are split into feeds).
  private(set) var boxHeadersRead = 0

  /// The last byte offset of the input plus one, once known.
  var end: Int64? { length ?? (ended ? cursor : nil) }

  /// True when no more bytes will come: the input ended, or everything up to its length is fed.
  var isFinished: Bool { ended || length.map { cursor >= $0 } ?? false }

  /// True when every byte of the input is here.
  var isWhole: Bool { end.map { contiguous(from: 0) >= $0 } ?? false }

  func finish() {
    ended = true
    version += 1
  }

  func append(_ data: Data) {
    defer {
      cursor += Int64(data.count)
      version += 1
    }
    guard !data.isEmpty else { return }
    let start = cursor
    let end = start + Int64(data.count)
    if let last = segments.indices.last, segments[last].end == start {
      // The usual case, in order after the last run: no search, no copy of the run.
      segments[last].bytes.append(data)
      return
    }
    let touching = segments.indices.filter {
      segments[$0].start <= end && segments[$0].end >= start
    }
    if touching.isEmpty {
      let at = segments.firstIndex { $0.start > start } ?? segments.count
      segments.insert(Segment(start: start, bytes: data), at: at)
      return
    }
    let first = touching.first!
    if touching.count == 1 && segments[first].start <= start {
      // The usual case: the download goes on where the segment ends.
      let have = segments[first].end
      if end > have { segments[first].bytes.append(data.suffix(Int(end - have))) }
      return
    }
    // A run that bridges or covers others: rebuild it as one segment.
    let mergedStart = min(start, segments[first].start)
    let mergedEnd = max(end, segments[touching.last!].end)
    var merged = Data(count: Int(mergedEnd - mergedStart))
    for index in touching {
      let segment = segments[index]
      let offset = Int(segment.start - mergedStart)
      merged.replaceSubrange(offset..<offset + segment.bytes.count, with: segment.bytes)
    }
    let offset = Int(start - mergedStart)
    merged.replaceSubrange(offset..<offset + data.count, with: data)
    segments.removeSubrange(first...touching.last!)
    segments.insert(Segment(start: mergedStart, bytes: merged), at: first)
  }

  /// How many bytes from `offset` on have arrived without a gap.
  func contiguous(from offset: Int64) -> Int64 {
    guard let segment = segments.first(where: { $0.start <= offset && offset < $0.end }) else {
      return 0
    }
    return segment.end - offset
  }

  /// The bytes `offset..<offset + count`, when they have all arrived.
  func bytes(at offset: Int64, count: Int) -> [UInt8]? {
    guard count >= 0, has(offset, count: Int64(count)),
      let segment = segments.first(where: { $0.start <= offset && offset < $0.end })
    else { return count == 0 ? [] : nil }
    let start = segment.bytes.startIndex + Int(offset - segment.start)
    return [UInt8](segment.bytes[start..<start + count])
  }

  /// True when the MP4 `moov` box (the sample table) has wholly arrived: the top-level boxes are
  /// walked from the start by their sizes, skipping the audio (`mdat`) without needing its bytes.
  /// Asked after every feed, so the walk goes on from where the last one stopped
  /// (`boxSearchOffset`) rather than from the start: a file of many small boxes fed in small
  /// pieces would otherwise cost the square of its size.
  var hasMP4SampleTable: Bool {
    while let size32 = bigEndian(at: boxSearchOffset, count: 4),
      let type = bigEndian(at: boxSearchOffset + 4, count: 4)
    {
      boxHeadersRead += 1
      let isSampleTable = type == 0x6D6F_6F76  // "moov"
      var size = Int64(size32)
      if size == 1 {
        // A 64-bit size follows the type.
        guard let large = bigEndian(at: boxSearchOffset + 8, count: 8) else { return false }
        size = Int64(bitPattern: large)
      } else if size == 0 {
        // The box runs to the end of the file: the last one.
        guard let end else { return false }
        return isSampleTable && has(boxSearchOffset, count: end - boxSearchOffset)
      }
      guard size >= 8 else { return false }
      if isSampleTable { return has(boxSearchOffset, count: size) }
      // A size that points beyond any file ends the search (and never overflows an offset).
      let (next, overflow) = boxSearchOffset.addingReportingOverflow(size)
      guard !overflow, next < Int64.max / 2 else { return false }
      boxSearchOffset = next
    }
    return false
  }

  /// The big-endian number in the bytes `offset..<offset + count` (at most 8), when they have
  /// all arrived; read in place.
  private func bigEndian(at offset: Int64, count: Int) -> UInt64? {
    guard has(offset, count: Int64(count)),
      let segment = segments.first(where: { $0.start <= offset && offset < $0.end })
    else { return nil }
    let start = segment.bytes.startIndex + Int(offset - segment.start)
    return segment.bytes[start..<start + count].reduce(0) { $0 << 8 | UInt64($1) }
  }

  /// True when the bytes `offset..<offset + count` have all arrived.
  func has(_ offset: Int64, count: Int64) -> Bool {
    count <= 0 || contiguous(from: offset) >= count
  }

  // MARK: - libavformat's callbacks

  func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
    if let end, readPosition >= end { return riffle_av_error_eof() }
    guard
      let segment = segments.first(where: { $0.start <= readPosition && readPosition < $0.end })
    else {
      starved = true
      return riffle_av_error_eof()
    }
    let offset = Int(readPosition - segment.start)
    let n = min(count, segment.bytes.count - offset)
    segment.bytes.withUnsafeBytes { raw in
      buffer.update(
        from: raw.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self), count: n)
    }
    readPosition += Int64(n)
    return Int32(n)
  }

  func seek(_ offset: Int64, whence: Int32) -> Int64 {
    let how = whence & ~riffle_avseek_force()
    if how == riffle_avseek_size() { return end ?? -1 }
    let target: Int64
    switch how {
    case SEEK_SET: target = offset
    case SEEK_CUR: target = readPosition + offset
    case SEEK_END:
      guard let end else { return -1 }
      target = end + offset
    default: return -1
    }
    guard target >= 0 else { return -1 }
    readPosition = target
    return target
  }

  static let readCallback:
    @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = {
      opaque, buffer, size in
      guard let opaque, let buffer, size > 0 else { return riffle_av_error_eof() }
      return Unmanaged<DemuxerInput>.fromOpaque(opaque).takeUnretainedValue()
        .read(into: buffer, count: Int(size))
    }

  static let seekCallback: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = {
    opaque, offset, whence in
    guard let opaque else { return -1 }
    return Unmanaged<DemuxerInput>.fromOpaque(opaque).takeUnretainedValue()
      .seek(offset, whence: whence)
  }
}
