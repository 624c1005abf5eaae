import Foundation
import Testing

@testable import RiffleFingerprint

@Suite("Spectrum bands for the visualizer")
struct SpectrumBandsTests {
  static func sine(_ hertz: Double, amplitude: Double, count: Int = 2048) -> [Float] {
    (0..<count).map { Float(amplitude * sin(2 * Double.pi * hertz * Double($0) / 44_100)) }
  }

  @Test("a tone lights the band it falls in, at its level; silence lights none")
  func tone() {
    let bands = SpectrumBands()
    for hertz in [100.0, 1000, 5000] {
      let levels = bands.levels(of: Self.sine(hertz, amplitude: 1), count: 32)
      let loudest = levels.indices.max { levels[$0] < levels[$1] }!
      // The band of `hertz` on the log scale from 40 Hz to 16 kHz.
      let expected = Int(32 * log(hertz / 40) / log(16_000 / 40))
      #expect(abs(loudest - expected) <= 1, "\(hertz) Hz: band \(loudest), levels \(levels)")
      #expect(levels[loudest] > 0.95, "full scale is near 1")
    }
    // -30 dB: halfway up the 60 dB scale.
    let quiet = bands.levels(of: Self.sine(1000, amplitude: 0.0316), count: 32)
    #expect(abs(quiet.max()! - 0.5) < 0.05, "\(quiet.max()!)")
    #expect(bands.levels(of: [Float](repeating: 0, count: 2048), count: 32).allSatisfy { $0 == 0 })
    #expect(bands.levels(of: [], count: 8) == [Double](repeating: 0, count: 8))
    #expect(bands.levels(of: Self.sine(1000, amplitude: 1), count: 0) == [])
  }
}
