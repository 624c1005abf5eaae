import Foundation

/// A recording's spectrogram as evidence for a song's peaks: how far each point stands out
/// above the bins around it, ranked against the same bin at every other moment of the
/// recording. A song's stored peaks, lined up with the recording at a candidate's offset and
/// speed, are looked up here: where the song was loud the recording is loud too, however much
/// louder voices in the room are elsewhere in the frame (they mask some of the song's points,
/// they do not move them). Ranking each bin against itself makes a song whose peaks sit where
/// this recording is always loud (a voice's band, a drone) no likelier to agree than any
/// other: by chance the looked-up points rank anywhere (docs/fingerprinting.md, "Checking a
/// candidate").
public struct PeakProbe: Sendable {
  public let frames: Int
  public let bins: Int
  /// Normal scores of each point's rank within its bin, bin by bin (`bin * frames + frame`):
  /// about N(0, 1) for a point taken at random, high where the recording stands out.
  let scores: [Float]

  /// Heights are quantized to this (natural-log power, 0.35 dB) for ranking by counting;
  /// those under `lowest` (3 below the bins around: nothing stands out) rank as one.
  static let step: Float = 0.08
  static let lowest: Float = -3
  static let levels = 200
  /// The lowest bin (1.4 kHz) whose points count as loud as their neighbours.
  static let widenedFrom = 128

  public init(spectrogram: Spectrogram, parameters p: FingerprintParameters) {
    let frames = spectrogram.frames
    let bins = spectrogram.bins
    self.frames = frames
    self.bins = bins
    guard frames > 0, bins > 0 else {
      scores = []
      return
    }
    // How far each point stands above the mean of the bins within `levelBinRadius` either
    // side in its frame (as the peak picker's threshold measures it). A high peak may fall a
    // bin off (a speed between two steps moves bin 200 by half a bin): from `widenedFrom` up,
    // each point counts as loud as the loudest of it and the bins beside it. Lower, where a
    // bin is a semitone or more, widening would make a bass line loud at every note beside
    // the one it plays. Quantized and laid out bin by bin, so each bin's ranking reads its
    // frames in a row.
    var level = [UInt16](repeating: 0, count: frames * bins)
    var prefix = [Float](repeating: 0, count: bins + 1)
    var height = [Float](repeating: 0, count: bins)
    level.withUnsafeMutableBufferPointer { level in
      spectrogram.values.withUnsafeBufferPointer { values in
        prefix.withUnsafeMutableBufferPointer { prefix in
          height.withUnsafeMutableBufferPointer { height in
            for frame in 0..<frames {
              let row = frame * bins
              spectrogram.localMeans(
                frame: frame, low: 0, high: bins, radius: p.levelBinRadius, prefix: prefix
              ) { bin, mean in height[bin] = values[row + bin] - mean }
              for bin in 0..<bins {
                var value = height[bin]
                if bin >= Self.widenedFrom {
                  value = max(value, height[bin - 1])
                  if bin + 1 < bins { value = max(value, height[bin + 1]) }
                }
                // Clamped, then truncated: the floor within 0...levels - 1, without a call
                // to floorf for each of a recording's points.
                let quantized = (value - Self.lowest) / Self.step
                level[bin * frames + frame] = UInt16(
                  max(0, min(Float(Self.levels - 1), quantized)))
              }
            }
          }
        }
      }
    }
    // Each bin's levels counted over the frames; a point's rank is the points below it plus
    // half those level with it, turned into a normal score. A rank is (below + level with
    // it / 2) / frames: the score of each of its 2 x frames possible values is made once.
    let halves = 2 * frames
    let quantiles = (0...halves).map { Float(Self.normalQuantile(Double($0) / Double(halves))) }
    var scores = [Float](repeating: 0, count: frames * bins)
    var counts = [Int32](repeating: 0, count: Self.levels)
    var below = [Int32](repeating: 0, count: Self.levels)
    scores.withUnsafeMutableBufferPointer { scores in
      level.withUnsafeBufferPointer { level in
        for bin in 0..<bins {
          let column = bin * frames
          for i in 0..<Self.levels { counts[i] = 0 }
          for frame in 0..<frames { counts[Int(level[column + frame])] += 1 }
          var sum: Int32 = 0
          for i in 0..<Self.levels {
            below[i] = sum
            sum += counts[i]
          }
          for frame in 0..<frames {
            let at = Int(level[column + frame])
            scores[column + frame] = quantiles[Int(2 * below[at] + counts[at])]
          }
        }
      }
    }
    self.scores = scores
  }

  /// How far a song's peaks (in frame order, as a print keeps them), lined up with the
  /// recording (song frame = `offsetFrames` + recording frame x `speed`, recording bin = song
  /// bin x `speed`), stand out in it: the sum of their points' scores over the square root of
  /// their number, the best of the frame before, on and after the alignment. About 0 by
  /// chance; nil when fewer than `minimumPeaks` fall within the recording.
  public func agreement(
    peaks: [Peak], offsetFrames: Int, speed: Double, minimumPeaks: Int = 5
  ) -> Double? {
    guard frames > 0 else { return nil }
    var points: [(frame: Int, bin: Int)] = []
    points.reserveCapacity(64)
    let firstSongFrame = Double(offsetFrames) - speed
    let lastSongFrame = Double(offsetFrames) + Double(frames) * speed
    // The peaks are in frame order: the first that can fall within the recording, by
    // halving.
    var low = 0
    var high = peaks.count
    while low < high {
      let middle = (low + high) / 2
      if Double(peaks[middle].frame) < firstSongFrame { low = middle + 1 } else { high = middle }
    }
    for peak in peaks[low...] {
      let songFrame = Double(peak.frame)
      if songFrame > lastSongFrame { break }
      let frame = Int(((songFrame - Double(offsetFrames)) / speed).rounded())
      let bin = Int((Double(peak.bin) * speed).rounded())
      guard frame >= -1, frame <= frames, bin >= 0, bin < bins else { continue }
      points.append((frame, bin))
    }
    var best: Double?
    for shift in -1...1 {
      var sum: Double = 0
      var count = 0
      for point in points {
        let frame = point.frame + shift
        guard frame >= 0, frame < frames else { continue }
        sum += Double(scores[point.bin * frames + frame])
        count += 1
      }
      guard count >= minimumPeaks else { continue }
      let z = sum / Double(count).squareRoot()
      best = max(best ?? z, z)
    }
    return best
  }

  /// The standard normal quantile of `p` in (0, 1): Newton's method on `erfc`, kept within
  /// a bracket that halves when a step would leave it (a table of twice the frames' values is
  /// made per recording, so its cost does not matter).
  public static func normalQuantile(_ p: Double) -> Double {
    let p = min(max(p, 1e-12), 1 - 1e-12)
    var low = -8.0
    var high = 8.0
    var x = 0.0
    for _ in 0..<100 {
      let cdf = 0.5 * erfc(-x / 2.0.squareRoot())
      if cdf < p { low = x } else { high = x }
      let density = exp(-x * x / 2) / (2 * Double.pi).squareRoot()
      var next = x - (cdf - p) / density
      if !(next > low && next < high) { next = (low + high) / 2 }
      if abs(next - x) < 1e-9 { return next }
      x = next
    }
    return x
  }
}
