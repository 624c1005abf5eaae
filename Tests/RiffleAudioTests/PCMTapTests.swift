import Foundation
import Testing

@testable import RiffleAudio

@Suite("PCMTap: what is heard now, for the visualizer")
struct PCMTapTests {
  /// Stereo 16-bit frames whose left and right are both `value(i)`.
  static func frames(_ count: Int, from start: Int) -> [Int16] {
    (0..<count).flatMap { i -> [Int16] in
      let v = Int16((start + i) % 30_000)
      return [v, v]
    }
  }

  static func write(_ tap: PCMTap, _ samples: [Int16]) {
    samples.withUnsafeBytes { tap.append($0) }
  }

  @Test("off: nothing kept; on: the frames that end what is queued behind the last written")
  func heard() {
    let tap = PCMTap()
    Self.write(tap, Self.frames(1000, from: 0))
    #expect(tap.heard(count: 10, queued: 0) == nil, "off keeps nothing")
    tap.isEnabled = true
    Self.write(tap, Self.frames(44_100, from: 0))
    // Nothing queued: the last 4 frames written (mono: the mean of two equal channels).
    let last = tap.heard(count: 4, queued: 0)!
    #expect(
      last.map { Int(($0 * 32_768).rounded()) }
        == [44_096, 44_097, 44_098, 44_099].map { $0 % 30_000 })
    // 0.1 s still in the output: the frames 4,410 before the end.
    let earlier = tap.heard(count: 2, queued: 0.1)!
    #expect(earlier.map { Int(($0 * 32_768).rounded()) } == [39_688, 39_689].map { $0 % 30_000 })
    // More queued than kept, or more asked than written: nil.
    #expect(tap.heard(count: 2, queued: 5) == nil)
    #expect(tap.heard(count: 50_000, queued: 0) == nil)
    tap.isEnabled = false
    tap.isEnabled = true
    #expect(tap.heard(count: 2, queued: 0) == nil, "on again starts afresh")
  }

  @Test("the recent ring: empty while off; on, the last seconds heard, at most its capacity")
  func recent() {
    let tap = PCMTap()
    Self.write(tap, Self.frames(1000, from: 0))
    #expect(tap.recent(seconds: 10, queued: 0).isEmpty, "off keeps nothing")
    tap.keepsRecent = true
    #expect(tap.heard(count: 4, queued: 0) == nil, "the visualizer's ring stays off")
    // 13 s written: more than the ring holds (about 11.9 s).
    let written = 13 * 44_100
    Self.write(tap, Self.frames(written, from: 0))
    let ten = tap.recent(seconds: 10, queued: 0)
    #expect(ten.count == 441_000)
    #expect(Int((ten.last! * 32_768).rounded()) == (written - 1) % 30_000)
    #expect(Int((ten.first! * 32_768).rounded()) == (written - 441_000) % 30_000)
    // 0.5 s still in the output: the piece ends 22,050 frames earlier.
    let behind = tap.recent(seconds: 1, queued: 0.5)
    #expect(Int((behind.last! * 32_768).rounded()) == (written - 22_051) % 30_000)
    // Asking more than kept gives what is kept.
    #expect(tap.recent(seconds: 60, queued: 0).count == PCMTap.recentCapacity)
    tap.keepsRecent = false
    #expect(tap.recent(seconds: 1, queued: 0).isEmpty, "off frees it")
  }
}
