import Testing

@testable import RiffleAudio

@Suite("Volume: the gain on PCM")
struct PCMGainTests {
  private func scaled(_ samples: [Int16], by gain: Double) -> [Int16] {
    var copy = samples
    copy.withUnsafeMutableBytes { PCMGain.apply(gain, to: $0) }
    return copy
  }

  @Test("Half halves every sample; full leaves them; zero is silence; extremes do not wrap")
  func gains() {
    let samples: [Int16] = [0, 1000, -1000, 32767, -32768, 3]
    #expect(scaled(samples, by: 1) == samples)
    #expect(scaled(samples, by: 0.5) == [0, 500, -500, 16383, -16384, 1])
    #expect(scaled(samples, by: 0) == [0, 0, 0, 0, 0, 0])
    #expect(scaled([32767, -32768], by: 0.99999) == [32766, -32768])
  }
}
