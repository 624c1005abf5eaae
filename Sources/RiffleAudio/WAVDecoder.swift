import Foundation

/// Uncompressed WAV (RIFF/WAVE): 8, 16, 24 and 32-bit integer or 32-bit float PCM, any channel
/// count and rate, converted to `PCMFormat` (mono doubled, channels past two dropped, other
/// rates linearly interpolated to 44.1 kHz). Recordings to identify often come as WAV.
public final class WAVDecoder: AudioDecoder {
  struct Format: Equatable {
    var channels: Int
    var rate: Int
    var bits: Int
    var isFloat: Bool
    var blockAlign: Int { channels * bits / 8 }
  }

  private var pending = Data()
  private var format: Format?
  /// Bytes of sample data still to come; nil when the header's size is unknown (streams).
  private var dataLeft: Int64?
  private var dataStart: Int64 = 0
  private var dataSize: Int64?
  private var inputLength: Int64?
  /// Where the linear interpolator stands between the two source frames it holds.
  private var phase: Double = 0
  private var previous: (Float, Float)?
  private var current: (Float, Float)?

  public init() {}

  public var hasFormat: Bool { format != nil }

  public var duration: Double? {
    guard let format, format.blockAlign > 0 else { return nil }
    let bytes = dataSize ?? inputLength.map { $0 - dataStart }
    return bytes.map { Double($0 / Int64(format.blockAlign)) / Double(format.rate) }
  }

  public func setInputLength(_ bytes: Int64) { inputLength = bytes }

  public func feed(_ bytes: Data) throws {
    pending.append(bytes)
    if format == nil { try parseHeader() }
  }

  public func decode(into buffer: UnsafeMutableRawBufferPointer) throws -> DecodeStep {
    guard let format else { return .needMore }
    if dataLeft == 0 { return .done }
    let out = buffer.bindMemory(to: Int16.self)
    let capacity = out.count / 2
    var written = 0
    var used = 0
    let step = Double(format.rate) / Double(PCMFormat.sampleRate)
    pending.withUnsafeBytes { raw in
      let available = min(raw.count, dataLeft.map { Int(min($0, Int64(Int.max))) } ?? raw.count)
      while written < capacity {
        // Hold the two source frames the output point lies between (the last frame of a
        // file is only ever the right-hand one).
        func next() -> (Float, Float)? {
          guard used + format.blockAlign <= available else { return nil }
          defer { used += format.blockAlign }
          return Self.frame(raw, at: used, format: format)
        }
        if previous == nil {
          guard let first = next() else { return }
          previous = first
        }
        if current == nil {
          guard let second = next() else { return }
          current = second
        }
        while phase >= 1 {
          guard let frame = next() else { return }
          previous = current
          current = frame
          phase -= 1
        }
        let a = previous!
        let b = current!
        let t = Float(phase)
        out[2 * written] = Self.clip(a.0 + (b.0 - a.0) * t)
        out[2 * written + 1] = Self.clip(a.1 + (b.1 - a.1) * t)
        written += 1
        phase += step
      }
    }
    pending.removeFirst(used)
    if let left = dataLeft { dataLeft = left - Int64(used) }
    if written > 0 { return .pcm(written * PCMFormat.bytesPerFrame) }
    return dataLeft == 0 ? .done : .needMore
  }

  public func seek(toFrame frame: Int64) throws -> (frame: Int64, inputOffset: Int64) {
    guard let format else { throw DecodeError.corrupt("cannot seek before the header") }
    let sourceFrame = frame * Int64(format.rate) / Int64(PCMFormat.sampleRate)
    var byteOffset = sourceFrame * Int64(format.blockAlign)
    if let dataSize { byteOffset = min(byteOffset, dataSize) }
    pending = Data()
    previous = nil
    current = nil
    phase = 0
    if let dataSize { dataLeft = dataSize - byteOffset }
    let reached =
      byteOffset / Int64(format.blockAlign) * Int64(PCMFormat.sampleRate)
      / Int64(format.rate)
    return (reached, dataStart + byteOffset)
  }

  /// Reads the RIFF header up to the start of the sample data, once enough bytes are in.
  private func parseHeader() throws {
    let b = [UInt8](pending)
    guard b.count >= 12 else { return }
    guard b[0..<4] == [0x52, 0x49, 0x46, 0x46], b[8..<12] == [0x57, 0x41, 0x56, 0x45] else {
      throw DecodeError.corrupt("not a RIFF/WAVE file")
    }
    func u32(_ at: Int) -> Int {
      Int(b[at]) | Int(b[at + 1]) << 8 | Int(b[at + 2]) << 16 | Int(b[at + 3]) << 24
    }
    func u16(_ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
    var at = 12
    var found: Format?
    while at + 8 <= b.count {
      let id = String(decoding: b[at..<at + 4], as: UTF8.self)
      let size = u32(at + 4)
      let body = at + 8
      if id == "data" {
        guard let format = found else { throw DecodeError.corrupt("WAV data before its format") }
        self.format = format
        dataStart = Int64(body)
        dataSize = size == 0xFFFF_FFFF || size == 0 ? nil : Int64(size)
        dataLeft = dataSize
        pending.removeFirst(body)
        return
      }
      guard body + size <= b.count else { return }  // wait for the whole chunk
      if id == "fmt " {
        guard size >= 16 else { throw DecodeError.corrupt("WAV format chunk too short") }
        var tag = u16(body)
        if tag == 0xFFFE && size >= 26 { tag = u16(body + 24) }  // extensible: the sub-format
        let format = Format(
          channels: u16(body + 2), rate: u32(body + 4), bits: u16(body + 14), isFloat: tag == 3)
        guard tag == 1 || (tag == 3 && format.bits == 32) else {
          throw DecodeError.corrupt("WAV encoding \(tag) is not plain PCM")
        }
        guard format.channels > 0, format.rate > 0, [8, 16, 24, 32].contains(format.bits) else {
          throw DecodeError.corrupt("unusable WAV format")
        }
        found = format
      }
      at = body + size + (size & 1)
    }
  }

  /// One source frame as (left, right) in -1...1.
  private static func frame(_ raw: UnsafeRawBufferPointer, at offset: Int, format: Format)
    -> (Float, Float)
  {
    func sample(_ channel: Int) -> Float {
      let at = offset + channel * format.bits / 8
      switch (format.bits, format.isFloat) {
      case (8, _): return (Float(raw[at]) - 128) / 128
      case (16, _):
        return Float(Int16(bitPattern: UInt16(raw[at]) | UInt16(raw[at + 1]) << 8)) / 32_768
      case (24, _):
        let value = Int32(
          bitPattern: UInt32(raw[at]) << 8 | UInt32(raw[at + 1]) << 16
            | UInt32(raw[at + 2]) << 24)
        return Float(value >> 8) / 8_388_608
      case (_, true):
        return Float(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))
      default:
        return Float(raw.loadUnaligned(fromByteOffset: at, as: Int32.self)) / 2_147_483_648
      }
    }
    let left = sample(0)
    return (left, format.channels > 1 ? sample(1) : left)
  }

  private static func clip(_ value: Float) -> Int16 {
    Int16(max(-32_768, min(32_767, (value * 32_768).rounded())))
  }
}
