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
    let x =
      [Float](repeating: 0, count: frontPadding) + input
      + [Float](repeating: 0, count: paddedTapCount)
    return x.withUnsafeBufferPointer { filter($0, outputs: input.count / decimation) }
  }

  /// Zeros before the first input sample, so the filter is centred on it.
  var frontPadding: Int { taps.count / 2 }
  /// The taps padded with zeros to whole SIMD vectors: each output reads this many inputs.
  var paddedTapCount: Int { (taps.count + 7) / 8 * 8 }

  /// `out[n] = sum over k of taps[k] * x[n * decimation + k]` for n in 0..<outputs: the one
  /// loop behind both the whole-signal and the streaming resampler (`PeakStream`), which
  /// therefore agree to the bit. `x` must hold `(outputs - 1) * decimation + paddedTapCount`
  /// samples.
  func filter(_ x: UnsafeBufferPointer<Float>, outputs: Int) -> [Float] {
    let lanes = 8
    let padded = paddedTapCount
    precondition(outputs == 0 || x.count >= (outputs - 1) * decimation + padded)
    let h = taps + [Float](repeating: 0, count: padded - taps.count)
    return h.withUnsafeBufferPointer { h in
      let hp = UnsafeRawPointer(h.baseAddress!)
      let xp = UnsafeRawPointer(x.baseAddress!)
      return [Float](unsafeUninitializedCapacity: outputs) { out, count in
        for n in 0..<outputs {
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
        count = outputs
      }
    }
  }
}

#if canImport(Glibc)
  import Glibc
#endif
