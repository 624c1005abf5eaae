import CFFTW
import Foundation

/// Log power over time and frequency: `frames` rows of `bins` values (natural log of power),
/// row-major. The pure parts of the pipeline (peaks, pairs) take this, so tests can build one
/// by hand.
public struct Spectrogram: Equatable, Sendable {
  public var frames: Int
  public var bins: Int
  public var values: [Float]

  public init(frames: Int, bins: Int, values: [Float]) {
    precondition(values.count == frames * bins)
    self.frames = frames
    self.bins = bins
    self.values = values
  }

  public subscript(frame: Int, bin: Int) -> Float {
    values[frame * bins + bin]
  }

  /// For each bin of `low..<high` in `frame`, the mean of the frame's values over the bins
  /// within `radius` of it (within `low..<high`; all of them when `radius` is 0): the level a
  /// point is measured against, by the peak picker and the peak probe alike. `prefix` is
  /// scratch of at least `high - low + 1`.
  @inline(__always)
  func localMeans(
    frame: Int, low: Int, high: Int, radius: Int, prefix: UnsafeMutableBufferPointer<Float>,
    _ body: (_ bin: Int, _ mean: Float) -> Void
  ) {
    let row = frame * bins
    values.withUnsafeBufferPointer { values in
      prefix[0] = 0
      for bin in low..<high { prefix[bin - low + 1] = prefix[bin - low] + values[row + bin] }
      for bin in low..<high {
        let from = radius > 0 ? max(low, bin - radius) : low
        let to = radius > 0 ? min(high, bin + radius + 1) : high
        body(bin, (prefix[to - low] - prefix[from - low]) / Float(to - from))
      }
    }
  }
}

/// Short-time spectra through FFTW with a Hann window.
public enum SpectrumAnalyzer {
  /// The spectrogram of mono samples (at the fingerprint rate).
  public static func spectrogram(_ samples: [Float], parameters: FingerprintParameters)
    -> Spectrogram
  {
    let n = parameters.windowSize
    let hop = parameters.hop
    let bins = n / 2
    guard samples.count >= n else { return Spectrogram(frames: 0, bins: bins, values: []) }
    let frames = 1 + (samples.count - n) / hop
    let plan = FFTPlans.shared.plan(size: n)
    let (input, output) = FFTPlans.buffers(size: n)
    defer {
      fftwf_free(input)
      fftwf_free(output)
    }
    let window = hannWindow(n)
    var values = [Float](repeating: 0, count: frames * bins)
    samples.withUnsafeBufferPointer { x in
      for frame in 0..<frames {
        let start = frame * hop
        for i in 0..<n { input[i] = x[start + i] * window[i] }
        riffle_fftwf_execute_r2c(plan.pointer, input, output)
        let row = frame * bins
        for bin in 0..<bins {
          let re = output[2 * bin]
          let im = output[2 * bin + 1]
          values[row + bin] = logf(re * re + im * im + 1e-10)
        }
      }
    }
    return Spectrogram(frames: frames, bins: bins, values: values)
  }

  private static func hannWindow(_ n: Int) -> [Float] {
    (0..<n).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n))) }
  }
}

/// FFTW plans, made once per size and shared. FFTW's planner is not thread-safe, so planning
/// happens under a lock; executing a plan on other arrays is safe from any thread.
final class FFTPlans: @unchecked Sendable {
  static let shared = FFTPlans()

  final class Plan: @unchecked Sendable {
    let pointer: fftwf_plan
    init(_ pointer: fftwf_plan) { self.pointer = pointer }
  }

  private let lock = NSLock()
  private var plans: [Int: Plan] = [:]

  /// An input of `size` floats and an output of `size / 2 + 1` interleaved complex values,
  /// aligned as FFTW wants; free both with `fftwf_free`.
  static func buffers(size: Int) -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
    let input = fftwf_alloc_real(size)!
    let output = UnsafeMutableRawPointer(fftwf_alloc_complex(size / 2 + 1)!)
      .bindMemory(to: Float.self, capacity: size + 2)
    return (input, output)
  }

  func plan(size: Int) -> Plan {
    lock.withLock {
      if let plan = plans[size] { return plan }
      // Plan on scratch arrays from fftwf_alloc so executions on other fftwf_alloc'd arrays
      // have the same alignment.
      let (input, output) = Self.buffers(size: size)
      defer {
        fftwf_free(input)
        fftwf_free(output)
      }
      let plan = Plan(riffle_fftwf_plan_r2c(Int32(size), input, output)!)
      plans[size] = plan
      return plan
    }
  }
}
