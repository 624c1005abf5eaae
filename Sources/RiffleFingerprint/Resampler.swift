/// Turns 44.1 kHz PCM into mono at the fingerprint rate: a windowed-sinc low-pass FIR, then
/// keeping every `decimation`-th sample (the filter is evaluated only at the kept samples).
public struct Resampler: Sendable {
  public let decimation: Int
  public let taps: [Float]

  /// A filter passing below ~4.6 kHz and stopping above the new Nyquist (5.5 kHz).
  public init(decimation: Int = 4, tapCount: Int = 95) {
    self.decimation = decimation
    let cutoff = 0.42 / Double(decimation)  // in cycles per input sample
    let middle = Double(tapCount - 1) / 2
    var taps = (0..<tapCount).map { i -> Double in
      let x = Double(i) - middle
      let sinc = x == 0 ? 2 * cutoff : sin(2 * .pi * cutoff * x) / (.pi * x)
      // Blackman window: ~74 dB stop band, plenty for fingerprints.
      let phase = 2 * .pi * Double(i) / Double(tapCount - 1)
      return sinc * (0.42 - 0.5 * cos(phase) + 0.08 * cos(2 * phase))
    }
    let gain = taps.reduce(0, +)
    taps = taps.map { $0 / gain }
    self.taps = taps.map(Float.init)
  }

  /// Interleaved signed 16-bit PCM with `channels` channels -> mono floats in -1...1.
  public static func mono(pcm16 bytes: UnsafeRawBufferPointer, channels: Int) -> [Float] {
    let samples = bytes.bindMemory(to: Int16.self)
    let frames = samples.count / channels
    let scale = 1 / (32_768 * Float(channels))
    return [Float](unsafeUninitializedCapacity: frames) { out, count in
      for frame in 0..<frames {
        var sum: Int32 = 0
        for channel in 0..<channels {
          sum += Int32(Int16(littleEndian: samples[frame * channels + channel]))
        }
        out[frame] = Float(sum) * scale
      }
      count = frames
    }
  }

  /// Filters and decimates mono samples at the input rate.
  public func downsample(_ input: [Float]) -> [Float] {
    let outCount = input.count / decimation
    let half = taps.count / 2
    return input.withUnsafeBufferPointer { x in
      taps.withUnsafeBufferPointer { h in
        [Float](unsafeUninitializedCapacity: outCount) { out, count in
          for n in 0..<outCount {
            let centre = n * decimation
            var acc: Float = 0
            let first = max(0, half - centre)
            let last = min(h.count, x.count - centre + half)
            var k = first
            while k < last {
              acc += h[k] * x[centre + k - half]
              k += 1
            }
            out[n] = acc
          }
          count = outCount
        }
      }
    }
  }
}

#if canImport(Glibc)
  import Glibc
#endif
