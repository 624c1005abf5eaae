/// A deterministic random source (SplitMix64): the same seed gives the same values anywhere,
/// so a benchmark is reproducible and a failing randomized test can be replayed.
public struct SeededRandom: Sendable {
  private var state: UInt64
  public init(seed: UInt64) { state = seed &* 0x2545_F491_4F6C_DD1D &+ 1 }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  /// Uniform in 0..<1.
  public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
  public mutating func int(_ range: ClosedRange<Int>) -> Int {
    range.lowerBound + Int(next() % UInt64(range.count))
  }
  /// Uniform in -1...1 as a Float (for noise).
  public mutating func signed() -> Float { Float(unit() * 2 - 1) }
}
