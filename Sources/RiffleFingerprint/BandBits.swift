import Foundation

/// A dense signature of a recording, 32 bits a frame (after Haitsma and Kalker's 2002 robust
/// hash): bit b of frame n says whether the energy difference between bands b and b + 1 grew
/// from frame n - lag to frame n. Landmarks keep a few strong points; these bits say something
/// about every frame. A candidate named by the landmarks is lined up with the recording at its
/// offset and speed and the bits are compared: a chance alignment agrees on about half of
/// them, the song played back through voices and a room on clearly more
/// (docs/fingerprinting.md, "Checking a candidate").
public enum BandBits {
  /// Bands between `bandLowHz` and `bandHighHz`; 33 bands make 32 differences, one word.
  public static let bandCount = 33

  /// Band edges in (fractional) bins for a recording played `speed` times fast: its
  /// frequencies are `speed` times the song's.
  static func edges(_ p: FingerprintParameters, speed: Double) -> [Int] {
    let binHz = Double(p.sampleRate) / Double(p.windowSize)
    let ratio = pow(p.bandHighHz / p.bandLowHz, 1 / Double(bandCount))
    return (0...bandCount).map { band in
      let bin = p.bandLowHz * pow(ratio, Double(band)) * speed / binHz
      return max(0, min(p.windowSize / 2, Int(bin.rounded())))
    }
  }

  /// Each frame's running sum of power over its bins (frames x (bins + 1), starting at 0),
  /// so any band's energy is one subtraction: made once per recording, used at every speed.
  /// In `Double`: a high band can hold a millionth of the power below it, which a `Float`
  /// sum would lose.
  public static func powerSums(_ spectrogram: Spectrogram, upTo bins: Int) -> [Double] {
    let width = min(bins, spectrogram.bins)
    var sums = [Double](repeating: 0, count: spectrogram.frames * (width + 1))
    spectrogram.values.withUnsafeBufferPointer { values in
      sums.withUnsafeMutableBufferPointer { out in
        for frame in 0..<spectrogram.frames {
          let row = frame * spectrogram.bins
          let base = frame * (width + 1)
          var sum: Double = 0
          for bin in 0..<width {
            sum += Double(expf(values[row + bin]))
            out[base + bin + 1] = sum
          }
        }
      }
    }
    return sums
  }

  /// Edges of the bass's bands (`FingerprintParameters.bassBandEdges`, bins at speed 1) for a
  /// recording played `speed` times fast.
  static func bassEdges(_ p: FingerprintParameters, speed: Double) -> [Int] {
    p.bassBandEdges.map { max(0, min(p.windowSize / 2, Int((Double($0) * speed).rounded()))) }
  }

  /// The bass's bits of frames `from..<to` (`bits(sums:...)` over the bass's bands), a byte a
  /// frame: what voices as loud as the music leave of it.
  static func bassBits(
    sums: [Double], width: Int, sumsFirst: Int, from: Int, to: Int, speed: Double,
    parameters p: FingerprintParameters
  ) -> [UInt8] {
    guard p.bassBandEdges.count > 1 else { return [] }
    return bits(
      sums: sums, width: width, sumsFirst: sumsFirst, from: from, to: to,
      edges: bassEdges(p, speed: speed), parameters: p
    ).map { UInt8(truncatingIfNeeded: $0) }
  }

  /// The highest bin any band reaches at speeds up to `maxSpeed`.
  static func topBin(_ p: FingerprintParameters, maxSpeed: Double) -> Int {
    (edges(p, speed: maxSpeed).last ?? 0) + 1
  }

  /// The bits of frames `from..<to` from running power sums of frames `sumsFirst...` (each
  /// `width + 1` wide); frames before `lag` (or before the sums start) get 0.
  static func bits(
    sums: [Double], width: Int, sumsFirst: Int, from: Int, to: Int, edges: [Int],
    parameters p: FingerprintParameters
  ) -> [UInt32] {
    guard edges.count > 1 else { return [UInt32](repeating: 0, count: max(0, to - from)) }
    let lag = p.bandLag
    let stride = width + 1
    let edges = edges.map { min($0, width) }
    let bandCount = min(33, edges.count - 1)
    // Each frame's band energies once (a frame serves as `now` and, `lag` frames later, as
    // `before`).
    let first = max(from - lag, sumsFirst, 0)
    let count = max(0, to - first)
    var energy = [Double](repeating: 0, count: count * bandCount)
    for frame in first..<max(first, to) {
      let base = (frame - sumsFirst) * stride
      let row = (frame - first) * bandCount
      for band in 0..<bandCount {
        let low = edges[band]
        let high = max(low + 1, edges[band + 1])
        let power = high <= width ? sums[base + high] - sums[base + low] : 0
        energy[row + band] = max(0, power) + 1e-9
      }
    }
    // The difference of band b and b + 1 grew, in decibels, when
    // log now[b] - log now[b + 1] > log before[b] - log before[b + 1], that is when
    // now[b] x before[b + 1] > now[b + 1] x before[b]: compared as products, with no logarithm
    // (which was most of the time to make a recording's bits at its 21 speeds).
    var out = [UInt32](repeating: 0, count: max(0, to - from))
    energy.withUnsafeBufferPointer { energy in
      out.withUnsafeMutableBufferPointer { out in
        for frame in from..<max(from, to) where frame - lag >= first {
          let now = energy.baseAddress! + (frame - first) * bandCount
          let before = energy.baseAddress! + (frame - lag - first) * bandCount
          var word: UInt32 = 0
          for band in 0..<(bandCount - 1)
          where now[band] * before[band + 1] > now[band + 1] * before[band] {
            word |= 1 << UInt32(band)
          }
          out[frame - from] = word
        }
      }
    }
    return out
  }

  /// The bass's bits of every frame of a spectrogram, as a song's are stored (speed 1).
  public static func bassBits(_ spectrogram: Spectrogram, parameters p: FingerprintParameters)
    -> [UInt8]
  {
    let width = topBin(p, maxSpeed: 1)
    return bassBits(
      sums: powerSums(spectrogram, upTo: width), width: min(width, spectrogram.bins),
      sumsFirst: 0, from: 0, to: spectrogram.frames, speed: 1, parameters: p)
  }

  /// The bits of every frame of a spectrogram, as a song's are stored (speed 1).
  public static func bits(_ spectrogram: Spectrogram, parameters p: FingerprintParameters)
    -> [UInt32]
  {
    let width = topBin(p, maxSpeed: 1)
    return bits(
      sums: powerSums(spectrogram, upTo: width), width: min(width, spectrogram.bins),
      sumsFirst: 0, from: 0, to: spectrogram.frames, edges: edges(p, speed: 1), parameters: p)
  }

  /// How well a recording's bits (made at the candidate's speed) agree with a song's, its
  /// frame i lined up with the song's frame `offsetFrames + i * speed`: the bits that agree
  /// beyond half of those compared, in standard deviations of a chance agreement
  /// ((compared / 2 - differing) / sqrt(compared / 4)), over the frames where neither is
  /// silent. Chance gives about 0 (within 4 or so over thousands of tries); a song heard
  /// through 0 dB of voices, 6 and more.
  public static func agreement(
    song: [UInt32], query: [UInt32], offsetFrames: Int, speed: Double, lag: Int
  ) -> Double {
    bestAgreement(
      song: song, query: query, offsetFrames: offsetFrames, shifts: 0...0, speed: speed, lag: lag)
  }
}

extension BandBits {
  /// The best of `agreement` over the offsets `offsetFrames + shift` for each shift in
  /// `shifts`, in one pass over the recording's frames.
  static func bestAgreement<Word: FixedWidthInteger>(
    song: [Word], query: [Word], offsetFrames: Int, shifts: ClosedRange<Int>,
    speed: Double, lag: Int, bitsPerWord: Int = 32
  ) -> Double {
    let width = shifts.count
    var compared = [Int](repeating: 0, count: width)
    var differing = [Int](repeating: 0, count: width)
    song.withUnsafeBufferPointer { song in
      query.withUnsafeBufferPointer { query in
        for i in lag..<max(lag, query.count) {
          // A word of 0 is a frame with nothing in it (silence, or before `lag`): two
          // silences agree on every bit and say nothing of the song.
          let word = query[i]
          guard word != 0 else { continue }
          let base = offsetFrames + Int((Double(i) * speed).rounded())
          for k in 0..<width {
            let j = base + shifts.lowerBound + k
            guard j >= lag && j < song.count, song[j] != 0 else { continue }
            compared[k] += bitsPerWord
            differing[k] += (song[j] ^ word).nonzeroBitCount
          }
        }
      }
    }
    var best = -Double.infinity
    for k in 0..<width {
      let n = Double(compared[k])
      best = max(best, n > 0 ? (n / 2 - Double(differing[k])) / (n / 4).squareRoot() : 0)
    }
    return best
  }
}

/// A recording to name, as the matcher needs it: its peaks (for the landmarks), its bits at
/// every speed the matcher tries (as a song's would be had it been played that fast: the
/// bands are moved, the frames stay) and its ranked spectrogram (`PeakProbe`, where a song's
/// peaks are looked up), made once from its spectrogram.
public struct Recording: Sendable {
  public var peaks: [Peak]
  /// More of its peaks, for the search at speed 1 (`denseQueryPeaksPerSecond`); its `peaks`
  /// when none were picked.
  public var densePeaks: [Peak]
  /// Bits by speed step (`FingerprintParameters.speedStepNumber`).
  var bitsByStep: [Int: [UInt32]]
  /// The bass's bits by speed step (`BandBits.bassBits`).
  var bassByStep: [Int: [UInt8]]
  /// Where a song's peaks are looked up (`PeakProbe`).
  public var probe: PeakProbe

  public init(
    peaks: [Peak], densePeaks: [Peak]? = nil, spectrogram: Spectrogram,
    parameters p: FingerprintParameters
  ) {
    self.peaks = peaks
    self.densePeaks = densePeaks ?? peaks
    probe = PeakProbe(spectrogram: spectrogram, parameters: p)
    let width = min(BandBits.topBin(p, maxSpeed: 1 + p.maxSpeedChange), spectrogram.bins)
    let sums = BandBits.powerSums(spectrogram, upTo: width)
    var bits: [Int: [UInt32]] = [:]
    var bass: [Int: [UInt8]] = [:]
    for speed in p.speeds {
      bits[p.speedStepNumber(speed)] = BandBits.bits(
        sums: sums, width: width, sumsFirst: 0, from: 0, to: spectrogram.frames,
        edges: BandBits.edges(p, speed: speed), parameters: p)
      bass[p.speedStepNumber(speed)] = BandBits.bassBits(
        sums: sums, width: width, sumsFirst: 0, from: 0, to: spectrogram.frames, speed: speed,
        parameters: p)
    }
    bitsByStep = bits
    bassByStep = bass
  }

  /// Its bass's bits at `speed` (one of the speeds tried), or nil.
  public func bassBits(speed: Double, parameters: FingerprintParameters) -> [UInt8]? {
    bassByStep[parameters.speedStepNumber(speed)]
  }

  /// Its bits at `speed` (one of the speeds tried), or nil.
  public func bits(speed: Double, parameters: FingerprintParameters) -> [UInt32]? {
    bitsByStep[parameters.speedStepNumber(speed)]
  }
}
