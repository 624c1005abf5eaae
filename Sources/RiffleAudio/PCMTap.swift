import Foundation

/// The last seconds of PCM an output has taken, as mono floats, for the visualizer: what is
/// heard now is found from how much was written and how much the output still holds.
///
/// Off (`isEnabled` false) it costs one flag read per write; on, a copy of each write (mono,
/// 44.1 kHz) into a ring. Thread-safe: the playing thread writes, the main queue reads.
public final class PCMTap: @unchecked Sendable {
  /// About three seconds: more than any output holds (PulseAudio's 250 ms, a paced 200 ms).
  public static let capacity = 1 << 17
  private let lock = NSLock()
  private var ring = [Float](repeating: 0, count: capacity)
  /// Frames taken in since the tap was enabled (the ring holds the last `capacity`).
  private var written = 0
  private var enabled = false
  /// The last `recentCapacity` frames, for naming what a station plays (`keepsRecent`); empty
  /// while off, so it costs nothing then.
  private var recentRing: [Float] = []
  private var recentWritten = 0

  /// About 11.9 s at 44.1 kHz: the 10 s a recognition listens to, and some to spare.
  public static let recentCapacity = 1 << 19

  public init() {}

  /// Whether the last seconds are kept for recognition (`recent`). Turning it on starts an
  /// empty history; turning it off frees it.
  public var keepsRecent: Bool {
    get { lock.withLock { !recentRing.isEmpty } }
    set {
      lock.withLock {
        guard newValue != !recentRing.isEmpty else { return }
        recentRing = newValue ? [Float](repeating: 0, count: Self.recentCapacity) : []
        recentWritten = 0
      }
    }
  }

  /// Up to `seconds` of the latest audio heard (`queued` seconds behind what was written), as
  /// mono floats at `PCMFormat.sampleRate`; empty while `keepsRecent` is off.
  public func recent(seconds: Double, queued: Double) -> [Float] {
    lock.withLock {
      guard !recentRing.isEmpty else { return [] }
      let end = max(
        0, recentWritten - Int((max(0, queued) * Double(PCMFormat.sampleRate)).rounded()))
      let wanted = Int((max(0, seconds) * Double(PCMFormat.sampleRate)).rounded())
      let count = min(wanted, end, Self.recentCapacity - (recentWritten - end))
      guard count > 0 else { return [] }
      var out = [Float](repeating: 0, count: count)
      var at = (end - count) & (Self.recentCapacity - 1)
      for i in 0..<count {
        out[i] = recentRing[at]
        at = (at + 1) & (Self.recentCapacity - 1)
      }
      return out
    }
  }

  /// Whether writes are kept. Turning it on starts an empty history.
  public var isEnabled: Bool {
    get { lock.withLock { enabled } }
    set {
      lock.withLock {
        if newValue && !enabled { written = 0 }
        enabled = newValue
      }
    }
  }

  /// Keeps interleaved 16-bit stereo PCM (what the output was given), as mono.
  public func append(_ pcm: UnsafeRawBufferPointer) {
    guard lock.withLock({ enabled || !recentRing.isEmpty }) else { return }
    let frames = pcm.count / PCMFormat.bytesPerFrame
    guard frames > 0 else { return }
    let samples = pcm.bindMemory(to: Int16.self)
    lock.withLock {
      let keepsRecent = !recentRing.isEmpty
      var at = written & (Self.capacity - 1)
      var recentAt = recentWritten & (Self.recentCapacity - 1)
      for frame in 0..<frames {
        let left = Float(Int16(littleEndian: samples[2 * frame]))
        let right = Float(Int16(littleEndian: samples[2 * frame + 1]))
        let mono = (left + right) / 65_536
        if enabled {
          ring[at] = mono
          at = (at + 1) & (Self.capacity - 1)
        }
        if keepsRecent {
          recentRing[recentAt] = mono
          recentAt = (recentAt + 1) & (Self.recentCapacity - 1)
        }
      }
      if enabled { written += frames }
      if keepsRecent { recentWritten += frames }
    }
  }

  /// The `count` frames that end where the listener is now, `queued` seconds of audio behind
  /// what was written; nil until that much has passed through.
  public func heard(count: Int, queued: Double) -> [Float]? {
    lock.withLock {
      let end = written - Int((max(0, queued) * Double(PCMFormat.sampleRate)).rounded())
      guard count > 0, count <= Self.capacity / 2, end >= count, written - end < Self.capacity / 2
      else { return nil }
      var out = [Float](repeating: 0, count: count)
      var at = (end - count) & (Self.capacity - 1)
      for i in 0..<count {
        out[i] = ring[at]
        at = (at + 1) & (Self.capacity - 1)
      }
      return out
    }
  }
}
