import CFFTW
import Foundation

/// Levels of a short piece of audio in bands spaced evenly in pitch (log frequency), for the
/// visualizer. It lives here because this module owns FFTW (the only one that imports it):
/// the same shared plans and Hann window as the fingerprints' spectrogram.
///
/// Not thread-safe: one instance per thread (the player's is used on the main queue). Its
/// buffers are made once, so a frame allocates only its result.
public final class SpectrumBands {
  /// Samples per transform: 2048 at 44.1 kHz is 46 ms, 21.5 Hz a bin.
  public let size: Int
  public let sampleRate: Double
  private let plan: FFTPlans.Plan
  private let input: UnsafeMutablePointer<Float>
  private let output: UnsafeMutablePointer<Float>
  private let window: [Float]

  public init(size: Int = 2048, sampleRate: Double = 44_100) {
    self.size = size
    self.sampleRate = sampleRate
    plan = FFTPlans.shared.plan(size: size)
    (input, output) = FFTPlans.buffers(size: size)
    window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
  }

  deinit {
    fftwf_free(input)
    fftwf_free(output)
  }

  /// `count` levels from 0 (at or below -60 dB of full scale) to 1 (full scale), low to high,
  /// in bands from `lowest` to `highest` Hz. Fewer samples than `size` are padded with silence.
  public func levels(
    of samples: [Float], count: Int, lowest: Double = 40, highest: Double = 16_000
  ) -> [Double] {
    guard count > 0 else { return [] }
    let n = min(size, samples.count)
    for i in 0..<size { input[i] = i < n ? samples[i] * window[i] : 0 }
    riffle_fftwf_execute_r2c(plan.pointer, input, output)
    let bins = size / 2
    let binHz = sampleRate / Double(size)
    // A full-scale sine through a Hann window peaks at size/4 in magnitude.
    let fullScale = Double(size) / 4
    var levels = [Double](repeating: 0, count: count)
    let ratio = highest / lowest
    for band in 0..<count {
      let from = lowest * pow(ratio, Double(band) / Double(count))
      let to = lowest * pow(ratio, Double(band + 1) / Double(count))
      let first = max(1, min(bins - 1, Int(from / binHz)))
      let last = max(first, min(bins - 1, Int((to / binHz).rounded(.up)) - 1))
      var peak: Float = 0
      for bin in first...last {
        let re = output[2 * bin]
        let im = output[2 * bin + 1]
        peak = max(peak, re * re + im * im)
      }
      let decibels = 10 * log10(Double(peak) / (fullScale * fullScale) + 1e-12)
      levels[band] = min(1, max(0, (decibels + 60) / 60))
    }
    return levels
  }
}
