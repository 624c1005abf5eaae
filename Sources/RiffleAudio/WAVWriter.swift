import Foundation

/// Builds a PCM WAV file in memory: for tools (the benchmark, test recordings) that hand audio
/// to other programs or to `riffle identify`.
public enum WAVWriter {
  /// A 16-bit PCM WAV of interleaved `samples`.
  public static func data(samples: [Int16], channels: Int, sampleRate: Int) -> Data {
    var out = Data()
    func u32(_ v: Int) {
      withUnsafeBytes(of: UInt32(v).littleEndian) { out.append(contentsOf: $0) }
    }
    func u16(_ v: Int) {
      withUnsafeBytes(of: UInt16(v).littleEndian) { out.append(contentsOf: $0) }
    }
    let bytes = samples.count * 2
    out.append(contentsOf: Array("RIFF".utf8))
    u32(36 + bytes)
    out.append(contentsOf: Array("WAVEfmt ".utf8))
    u32(16)
    u16(1)
    u16(channels)
    u32(sampleRate)
    u32(sampleRate * channels * 2)
    u16(channels * 2)
    u16(16)
    out.append(contentsOf: Array("data".utf8))
    u32(bytes)
    samples.withUnsafeBufferPointer { buffer in
      for sample in buffer { u16(Int(UInt16(bitPattern: sample))) }
    }
    return out
  }

  /// Mono floats in -1...1 as 16-bit samples (clipped).
  public static func pcm16(_ samples: [Float]) -> [Int16] {
    samples.map { Int16(max(-32_768, min(32_767, ($0 * 32_768).rounded()))) }
  }
}
