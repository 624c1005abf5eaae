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

    let neighbourhood = neighbourhoodMax(
      values, frames: frames, bins: bins, binRadius: p.peakBinRadius,
      frameRadius: p.peakFrameRadius)

    var candidates: [Peak] = []
    values.withUnsafeBufferPointer { values in
      levels.withUnsafeBufferPointer { levels in
        neighbourhood.withUnsafeBufferPointer { neighbourhood in
          for frame in 0..<frames {
            let row = frame * bins
            for bin in low..<high {
              let value = values[row + bin]
              let level = levels[row + bin]
              guard value >= max(level + p.peakAboveMean, p.peakFloor),
                value == neighbourhood[row + bin]
              else { continue }
              let left = bin > 0 ? values[row + bin - 1] : value
              let right = bin + 1 < bins ? values[row + bin + 1] : value
              let before = frame > 0 ? values[row - bins + bin] : value
              let after = frame + 1 < frames ? values[row + bins + bin] : value
              // Held notes rank higher than sounds that move (voices glide and stop): the
              // share of the frames within `peakHoldFrames` either side where the same bin (or
              // one beside it) stays above half the threshold, weighted.
              var held: Float = 0
              if p.peakHoldFrames > 0 {
                func up(_ other: Int) -> Int {
                  guard other >= 0 && other < frames else { return 0 }
                  let at = other * bins + bin
                  let near = max(
                    values[at],
                    max(values[at - (bin > low ? 1 : 0)], values[at + (bin + 1 < high ? 1 : 0)]))
                  return near >= levels[at] + p.peakAboveMean / 2 ? 1 : 0
                }
                var count = 0
                for distance in 1...p.peakHoldFrames {
                  count += up(frame - distance) + up(frame + distance)
                }
                held = p.peakHoldWeight * Float(count) / Float(2 * p.peakHoldFrames)
              }
              candidates.append(
                Peak(
                  frame: firstFrame + frame, bin: bin, prominence: value - level + held,
                  fineFrame: Float(firstFrame + frame) + vertexOffset(before, value, after),
                  fineBin: Float(bin) + vertexOffset(left, value, right)))
            }
          }
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

  /// Each point's neighbourhood maximum: the largest value within `binRadius` bins and
  /// `frameRadius` frames of it (the rectangle cut off at the spectrogram's edges). Separable:
  /// along frequency, then along time; each a pass per distance over whole rows, which the
  /// compiler vectorizes (a monotonic queue per line, walked across the rows for the frames,
  /// took a third of a recording's fingerprinting).
  static func neighbourhoodMax(
    _ values: [Float], frames: Int, bins: Int, binRadius: Int, frameRadius: Int
  ) -> [Float] {
    precondition(values.count == frames * bins, "a spectrogram of frames x bins values")
    guard !values.isEmpty else { return values }
    var alongBins = values
    alongBins.withUnsafeMutableBufferPointer { along in
      values.withUnsafeBufferPointer { values in
        for frame in 0..<frames {
          let row = frame * bins
          for distance in stride(from: 1, through: binRadius, by: 1) where distance < bins {
            // Each bin takes the bin `distance` above it and the one below it.
            maximize(
              along.baseAddress! + row, values.baseAddress! + row + distance, bins - distance)
            maximize(
              along.baseAddress! + row + distance, values.baseAddress! + row, bins - distance)
          }
        }
      }
    }
    // Then each frame takes the frames `distance` before and after it, from the maxima along
    // frequency.
    var out = alongBins
    out.withUnsafeMutableBufferPointer { out in
      alongBins.withUnsafeBufferPointer { along in
        for distance in stride(from: 1, through: frameRadius, by: 1) where distance < frames {
          for frame in 0..<frames {
            let row = out.baseAddress! + frame * bins
            if frame + distance < frames {
              maximize(row, along.baseAddress! + (frame + distance) * bins, bins)
            }
            if frame >= distance {
              maximize(row, along.baseAddress! + (frame - distance) * bins, bins)
            }
          }
        }
      }
    }
    return out
  }

  /// `target[i] = max(target[i], source[i])` for `count` values: a loop the compiler
  /// vectorizes (through `SIMD8` it was ten times slower).
  @inline(__always)
  static func maximize(
    _ target: UnsafeMutablePointer<Float>, _ source: UnsafePointer<Float>, _ count: Int
  ) {
    for i in 0..<count {
      let kept = target[i]
      let other = source[i]
      target[i] = other > kept ? other : kept
    }
  }
}
