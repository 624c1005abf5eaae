/// A point of the spectrogram that stands out: the loudest in its neighbourhood.
public struct Peak: Equatable, Hashable, Sendable {
  public var frame: Int
  public var bin: Int
  /// How far it stands above the level around it (natural-log power).
  public var prominence: Float
  /// Where the peak really lies between frames and between bins (a parabola through the
  /// point and its neighbours): what a change of speed is applied to, and what is hashed.
  public var fineFrame: Float
  public var fineBin: Float

  public init(
    frame: Int, bin: Int, prominence: Float, fineFrame: Float? = nil, fineBin: Float? = nil
  ) {
    self.frame = frame
    self.bin = bin
    self.prominence = prominence
    self.fineFrame = fineFrame ?? Float(frame)
    self.fineBin = fineBin ?? Float(bin)
  }
}

/// Finds spectral peaks: local maxima in a time-frequency neighbourhood, above an adaptive
/// threshold (the level of nearby bins plus a margin), at most `peaksPerSecond` per second.
public enum PeakPicker {
  public static func peaks(in spectrogram: Spectrogram, parameters p: FingerprintParameters)
    -> [Peak]
  {
    capped(candidates(in: spectrogram, parameters: p), parameters: p)
  }

  /// A recording's peaks, as it is searched with: at every speed, up to
  /// `queryPeaksPerSecond` a second, and beside them its bass's and its treble's
  /// (`queryLowPeaksPerSecond`, `queryHighPeaksPerSecond`); and, searched again at speed 1,
  /// up to `denseQueryPeaksPerSecond` with up to `denseQueryLowPeaksPerSecond` of its bass
  /// beside them (the same peaks when that is no more). One picking, capped twice.
  public static func recordingPeaks(
    in spectrogram: Spectrogram, parameters: FingerprintParameters
  ) -> (peaks: [Peak], dense: [Peak]) {
    var p = parameters
    p.peaksPerSecond = parameters.queryPeaksPerSecond
    p.lowPeaksPerSecond = parameters.queryLowPeaksPerSecond
    p.highPeaksPerSecond = parameters.queryHighPeaksPerSecond
    let found = candidates(in: spectrogram, parameters: p)
    let peaks = capped(found, parameters: p)
    var dense = p
    dense.peaksPerSecond = max(p.peaksPerSecond, parameters.denseQueryPeaksPerSecond)
    dense.lowPeaksPerSecond = max(p.lowPeaksPerSecond, parameters.denseQueryLowPeaksPerSecond)
    guard dense != p else { return (peaks, peaks) }
    return (peaks, capped(found, parameters: dense))
  }

  /// Every point that is a peak, before the cap per second, in (frame, bin) order; frames are
  /// numbered from `firstFrame` (the spectrogram's first row, when it is a piece of a longer
  /// one).
  static func candidates(
    in spectrogram: Spectrogram, parameters p: FingerprintParameters, firstFrame: Int = 0
  ) -> [Peak] {
    let frames = spectrogram.frames
    let bins = spectrogram.bins
    guard frames > 0, bins > 0 else { return [] }
    let low = min(max(0, p.minBin), bins)
    let high = min(p.maxBin, bins)
    guard high > low else { return [] }
    let values = spectrogram.values

    // The level around each point sets its threshold: the mean over nearby bins of the same
    // frame (all of the frame when `levelBinRadius` is 0). Loud passages then do not flood the
    // picker and quiet ones still give peaks; a local mean also follows coloured noise (pink
    // noise lifts the low bins far more than the high ones).
    var levels = [Float](repeating: 0, count: values.count)
    var prefix = [Float](repeating: 0, count: high - low + 1)
    prefix.withUnsafeMutableBufferPointer { prefix in
      levels.withUnsafeMutableBufferPointer { levels in
        for frame in 0..<frames {
          spectrogram.localMeans(
            frame: frame, low: low, high: high, radius: p.levelBinRadius, prefix: prefix
          ) { bin, mean in levels[frame * bins + bin] = mean }
        }
      }
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
      let row = frame * bins
      for bin in low..<high {
        let value = values[row + bin]
        let level = levels[row + bin]
        if value >= max(level + p.peakAboveMean, p.peakFloor) && value == neighbourhood[row + bin] {
          let left = bin > 0 ? values[row + bin - 1] : value
          let right = bin + 1 < bins ? values[row + bin + 1] : value
          let before = frame > 0 ? values[row - bins + bin] : value
          let after = frame + 1 < frames ? values[row + bins + bin] : value
          // Held notes rank higher than sounds that move (voices glide and stop): the share
          // of the frames within `peakHoldFrames` either side where the same bin (or one
          // beside it) stays above half the threshold, weighted.
          var held: Float = 0
          if p.peakHoldFrames > 0 {
            var up = 0
            for distance in 1...p.peakHoldFrames {
              for other in [frame - distance, frame + distance] where other >= 0 && other < frames {
                let at = other * bins + bin
                let near = max(
                  values[at],
                  max(values[at - (bin > low ? 1 : 0)], values[at + (bin + 1 < high ? 1 : 0)]))
                if near >= levels[at] + p.peakAboveMean / 2 { up += 1 }
              }
            }
            held = p.peakHoldWeight * Float(up) / Float(2 * p.peakHoldFrames)
          }
          candidates.append(
            Peak(
              frame: firstFrame + frame, bin: bin, prominence: value - level + held,
              fineFrame: Float(firstFrame + frame) + vertexOffset(before, value, after),
              fineBin: Float(bin) + vertexOffset(left, value, right)))
        }
      }
    }
    return candidates
  }

  /// Where the top of the parabola through three equally spaced values lies, relative to the
  /// middle one (within -0.5...0.5 when the middle one is the largest).
  static func vertexOffset(_ a: Float, _ b: Float, _ c: Float) -> Float {
    let curvature = a - 2 * b + c
    guard curvature < 0 else { return 0 }
    return max(-0.5, min(0.5, 0.5 * (a - c) / curvature))
  }

  /// Frames in one second, the block over which the peak cap applies.
  static func framesPerSecond(_ p: FingerprintParameters) -> Int {
    max(1, Int((Double(p.sampleRate) / Double(p.hop)).rounded()))
  }

  /// Keeps the `peaksPerSecond` most prominent peaks of each second and, beside them, the
  /// `lowPeaksPerSecond` most prominent of the rest below `lowPeaksBelowBin` and the
  /// `highPeaksPerSecond` most prominent of the rest from `highPeaksFromBin` up; in (frame,
  /// bin) order. The whole recording's picker and the index build's stream both cap through
  /// here.
  static func capped(_ peaks: [Peak], parameters p: FingerprintParameters) -> [Peak] {
    let perBlock = p.peaksPerSecond
    let lowPerBlock = p.lowPeaksPerSecond
    let highPerBlock = p.highPeaksPerSecond
    // The two bands never overlap: a peak is counted once.
    let highFrom = max(p.highPeaksFromBin, lowPerBlock > 0 ? p.lowPeaksBelowBin : 0)
    let blockFrames = framesPerSecond(p)
    func stronger(_ a: Peak, _ b: Peak) -> Bool {
      (a.prominence, -a.frame, -a.bin) > (b.prominence, -b.frame, -b.bin)
    }
    var kept: [Peak] = []
    var start = 0
    while start < peaks.count {
      let block = peaks[start].frame / blockFrames
      var end = start
      while end < peaks.count && peaks[end].frame / blockFrames == block { end += 1 }
      let ranked = peaks[start..<end].sorted(by: stronger)
      var chosen = Array(ranked.prefix(perBlock))
      if lowPerBlock > 0 {
        chosen += ranked.dropFirst(perBlock).lazy.filter { $0.bin < p.lowPeaksBelowBin }
          .prefix(lowPerBlock)
      }
      if highPerBlock > 0 {
        chosen += ranked.dropFirst(perBlock).lazy.filter { $0.bin >= highFrom }
          .prefix(highPerBlock)
      }
      kept += chosen.sorted { ($0.frame, $0.bin) < ($1.frame, $1.bin) }
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
