import Foundation
import RiffleFingerprint

/// The spectrum of what is heard now, for the page's bars: the PCM the output was given (its
/// tap), taken where the listener is (what the output still holds is accounted for), through
/// FFTW in bands spaced by pitch, smoothed so bars fall gently.
///
/// Runs only while shown and playing: the view model starts it (the output's tap then keeps
/// what is written) and stops it (the tap stops, the ticker slows), so hidden it costs nothing.
@MainActor
public final class Visualizer {
  /// The `count` mono samples being heard now, or nil (nothing playing, not enough yet).
  public typealias Samples = (Int) -> [Float]?

  private let samples: Samples
  private let enable: (Bool) -> Void
  private let analyzer = SpectrumBands()
  private var shown: [Double] = []
  /// How far a bar may fall in one frame (30 a second): from full to nothing in a third of a
  /// second, the usual feel of a level meter; rises show at once.
  static let fall = 0.1

  /// `enable` turns the output's tap on and off.
  public init(samples: @escaping Samples, enable: @escaping (Bool) -> Void) {
    self.samples = samples
    self.enable = enable
  }

  public private(set) var isRunning = false

  /// Starts or stops taking audio in.
  public func run(_ on: Bool) {
    guard on != isRunning else { return }
    isRunning = on
    enable(on)
    if !on { shown = [] }
  }

  /// The next frame: `count` levels 0...1, low to high; silence until audio has come in.
  public func frame(count: Int) -> [Double] {
    guard count > 0 else { return [] }
    let levels =
      samples(analyzer.size).map { analyzer.levels(of: $0, count: count) }
      ?? [Double](repeating: 0, count: count)
    if shown.count != count { shown = [Double](repeating: 0, count: count) }
    for i in 0..<count { shown[i] = max(levels[i], shown[i] - Self.fall) }
    return shown
  }
}
