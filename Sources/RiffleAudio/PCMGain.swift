/// Scales 16-bit PCM by a gain: the player's volume.
public enum PCMGain {
  /// Multiplies every sample in `pcm` (signed 16-bit, native order) by `gain` (0...1). A gain
  /// of 1 leaves the bytes alone; 0 is silence.
  public static func apply(_ gain: Double, to pcm: UnsafeMutableRawBufferPointer) {
    guard gain < 1 else { return }
    let samples = pcm.bindMemory(to: Int16.self)
    guard gain > 0 else {
      samples.update(repeating: 0)
      return
    }
    // Fixed point, 16 fractional bits: exact for the gains the keys give, and cheap.
    let factor = Int32((gain * 65_536).rounded())
    for index in samples.indices {
      samples[index] = Int16(truncatingIfNeeded: (Int32(samples[index]) * factor) >> 16)
    }
  }
}
