/// A pair of peaks as one number, and when its anchor happened.
public struct Landmark: Equatable, Hashable, Sendable {
  /// (anchor bin, bin difference, frame difference) packed by `LandmarkHasher.hash`.
  public var hash: UInt32
  /// The anchor's frame.
  public var frame: UInt32

  public init(hash: UInt32, frame: UInt32) {
    self.hash = hash
    self.frame = frame
  }
}

/// Pairs each peak (the anchor) with the next peaks in its target zone and hashes each pair.
///
/// A hash holds the anchor's bin (9 bits), the bin difference + 64 (7 bits) and the frame
/// difference (6 bits): 22 bits, so the index can be a flat table over every possible hash.
public enum LandmarkHasher {
  public static let hashBits = 22

  public static func hash(bin: Int, binDelta: Int, frameDelta: Int) -> UInt32 {
    precondition((0..<512).contains(bin) && (-63...63).contains(binDelta))
    precondition((1...63).contains(frameDelta))
    return UInt32(bin) << 13 | UInt32(binDelta + 64) << 6 | UInt32(frameDelta)
  }

  /// The parts of a hash, for tests and diagnostics.
  public static func parts(of hash: UInt32) -> (bin: Int, binDelta: Int, frameDelta: Int) {
    (Int(hash >> 13), Int((hash >> 6) & 0x7F) - 64, Int(hash & 0x3F))
  }

  /// Landmarks of peaks sorted by (frame, bin).
  public static func landmarks(_ peaks: [Peak], parameters p: FingerprintParameters)
    -> [Landmark]
  {
    let maxDelta = min(p.maxFrameDelta, 63)
    let maxBinDelta = min(p.maxBinDelta, 63)
    var out: [Landmark] = []
    out.reserveCapacity(peaks.count * p.fanOut)
    for (i, anchor) in peaks.enumerated() where anchor.bin < 512 {
      var paired = 0
      var j = i + 1
      while j < peaks.count && paired < p.fanOut {
        let target = peaks[j]
        let dt = target.frame - anchor.frame
        if dt > maxDelta { break }
        let df = target.bin - anchor.bin
        if dt >= max(1, p.minFrameDelta) && abs(df) <= maxBinDelta {
          out.append(
            Landmark(
              hash: hash(bin: anchor.bin, binDelta: df, frameDelta: dt),
              frame: UInt32(anchor.frame)))
          paired += 1
        }
        j += 1
      }
    }
    return out
  }
}
