/// A point of the spectrogram that stands out: the loudest in its neighbourhood.
public struct Peak: Equatable, Hashable, Sendable {
  public var frame: Int
  public var bin: Int
  /// How far it stands above its frame's mean level (natural-log power).
  public var prominence: Float

  public init(frame: Int, bin: Int, prominence: Float) {
    self.frame = frame
    self.bin = bin
    self.prominence = prominence
  }
}

/// Finds spectral peaks: local maxima in a time-frequency neighbourhood, above an adaptive
/// threshold (the frame's mean level plus a margin), at most `peaksPerSecond` per second.
public enum PeakPicker {
  public static func peaks(in spectrogram: Spectrogram, parameters p: FingerprintParameters)
    -> [Peak]
  {
    let frames = spectrogram.frames
    let bins = spectrogram.bins
    guard frames > 0, bins > 0 else { return [] }
    let low = min(max(0, p.minBin), bins)
    let high = min(p.maxBin, bins)
    guard high > low else { return [] }
    let values = spectrogram.values

    // The frame means set the threshold, so loud passages do not flood the picker with peaks
    // and quiet ones still give some.
    var means = [Float](repeating: 0, count: frames)
    for frame in 0..<frames {
      var sum: Float = 0
      for bin in low..<high { sum += values[frame * bins + bin] }
      means[frame] = sum / Float(high - low)
    }

    // The 2-D neighbourhood maximum is separable: along frequency, then along time.
    var alongBins = [Float](repeating: 0, count: values.count)
    for frame in 0..<frames {
      slidingMax(
        values, &alongBins, start: frame * bins, count: bins, stride: 1,
        radius: p.peakBinRadius)
    }
    var neighbourhood = [Float](repeating: 0, count: values.count)
    for bin in 0..<bins {
      slidingMax(
        alongBins, &neighbourhood, start: bin, count: frames, stride: bins,
        radius: p.peakFrameRadius)
    }

    var candidates: [Peak] = []
    for frame in 0..<frames {
      let threshold = max(means[frame] + p.peakAboveMean, p.peakFloor)
      let row = frame * bins
      for bin in low..<high {
        let value = values[row + bin]
        if value >= threshold && value == neighbourhood[row + bin] {
          candidates.append(Peak(frame: frame, bin: bin, prominence: value - means[frame]))
        }
      }
    }
    return capped(candidates, perBlock: p.peaksPerSecond, blockFrames: framesPerSecond(p))
  }

  /// Frames in one second, the block over which the peak cap applies.
  static func framesPerSecond(_ p: FingerprintParameters) -> Int {
    max(1, Int((Double(p.sampleRate) / Double(p.hop)).rounded()))
  }

  /// Keeps the `perBlock` most prominent peaks of each block of frames, in (frame, bin) order.
  static func capped(_ peaks: [Peak], perBlock: Int, blockFrames: Int) -> [Peak] {
    var kept: [Peak] = []
    var start = 0
    while start < peaks.count {
      let block = peaks[start].frame / blockFrames
      var end = start
      while end < peaks.count && peaks[end].frame / blockFrames == block { end += 1 }
      let strongest = peaks[start..<end].sorted {
        ($0.prominence, -$0.frame, -$0.bin) > ($1.prominence, -$1.frame, -$1.bin)
      }.prefix(perBlock)
      kept += strongest.sorted { ($0.frame, $0.bin) < ($1.frame, $1.bin) }
      start = end
    }
    return kept
  }

  /// `output[i] = max(input[i - radius ... i + radius])` along one line of a 2-D array, with a
  /// monotonic queue: O(count) whatever the radius.
  static func slidingMax(
    _ input: [Float], _ output: inout [Float], start: Int, count: Int, stride: Int, radius: Int
  ) {
    var queue = [Int](repeating: 0, count: count)  // indices along the line, values decreasing
    var head = 0
    var tail = 0
    var next = 0  // next index to enter the window
    for i in 0..<count {
      let windowEnd = min(count - 1, i + radius)
      while next <= windowEnd {
        let value = input[start + next * stride]
        while tail > head && input[start + queue[tail - 1] * stride] <= value { tail -= 1 }
        queue[tail] = next
        tail += 1
        next += 1
      }
      while queue[head] < i - radius { head += 1 }
      output[start + i * stride] = input[start + queue[head] * stride]
    }
  }
}
