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
    // Taps padded with zeros to whole SIMD vectors; the input padded with silence at both
    // ends, so every output is the same straight loop.
    let lanes = 8
    let padded = (taps.count + lanes - 1) / lanes * lanes
    let h = taps + [Float](repeating: 0, count: padded - taps.count)
    let x = [Float](repeating: 0, count: half) + input + [Float](repeating: 0, count: padded)
    return x.withUnsafeBufferPointer { x in
      h.withUnsafeBufferPointer { h in
        let hp = UnsafeRawPointer(h.baseAddress!)
        let xp = UnsafeRawPointer(x.baseAddress!)
        return [Float](unsafeUninitializedCapacity: outCount) { out, count in
          for n in 0..<outCount {
            // x[n * decimation - half + k] for k in taps, shifted by the front padding.
            let base = n * decimation
            var acc = SIMD8<Float>()
            var k = 0
            while k < padded {
              let hv = hp.loadUnaligned(fromByteOffset: k * 4, as: SIMD8<Float>.self)
              let xv = xp.loadUnaligned(fromByteOffset: (base + k) * 4, as: SIMD8<Float>.self)
              acc += hv * xv
              k += lanes
            }
            out[n] = acc.sum()
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
