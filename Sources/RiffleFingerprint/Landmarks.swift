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

  /// Landmarks of peaks sorted by (frame, bin), as they would be had the recording been played
  /// at `1 / speed` times its speed: a recording played 3% fast (`speed` 1.03) has every peak
  /// 3% higher and 3% earlier than the song, and its peaks moved back hash as the song's do.
  /// Each peak lies where its fine position, so moved, rounds to.
  public static func landmarks(
    _ peaks: [Peak], parameters p: FingerprintParameters, speed: Double = 1
  ) -> [Landmark] {
    let timeScale = Float(speed)
    let binScale = Float(1 / speed)
    var placed = peaks.map { peak in
      Peak(
        frame: max(0, Int((peak.fineFrame * timeScale).rounded())),
        bin: Int((peak.fineBin * binScale).rounded()), prominence: peak.prominence)
    }
    placed.sort { ($0.frame, $0.bin) < ($1.frame, $1.bin) }
    return pairs(placed, parameters: p)
  }

  /// Landmarks of peaks already sorted by (frame, bin), at their whole positions; only those
  /// of anchors in `anchorBins` when given (a table built a range of hashes at a time).
  static func pairs(
    _ peaks: [Peak], parameters p: FingerprintParameters, anchorBins: Range<Int> = 0..<512
  ) -> [Landmark] {
    let maxDelta = min(p.maxFrameDelta, 63)
    let maxBinDelta = min(p.maxBinDelta, 63)
    var out: [Landmark] = []
    out.reserveCapacity(peaks.count * p.fanOut)
    let anchorBins = anchorBins.clamped(to: 0..<512)
    for (i, anchor) in peaks.enumerated() where anchorBins.contains(anchor.bin) {
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
