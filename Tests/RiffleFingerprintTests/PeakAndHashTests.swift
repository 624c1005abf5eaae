import Foundation
import Testing

@testable import RiffleFingerprint

/// A flat spectrogram (level 0) with chosen points raised.
func spectrogram(frames: Int, bins: Int = 64, raised: [(Int, Int, Float)]) -> Spectrogram {
  var values = [Float](repeating: 0, count: frames * bins)
  for (frame, bin, level) in raised { values[frame * bins + bin] = level }
  return Spectrogram(frames: frames, bins: bins, values: values)
}

/// Seven peaks in the first second and a bit: four above bin 25 of prominence 9, 8, 4 and 2
/// (bins 20, 40, 30, 50), three below it of 3.5, 3 and 1.5 (bins 15, 10, 5).
func quotaSpectrogram() -> Spectrogram {
  spectrogram(
    frames: 50,
    raised: [
      (0, 10, 3), (10, 20, 9), (20, 30, 4), (30, 40, 8), (36, 5, 1.5), (40, 15, 3.5),
      (45, 50, 2),
    ])
}

/// Parameters for small hand-made spectrograms.
func smallParameters() -> FingerprintParameters {
  var p = FingerprintParameters()
  p.minBin = 2
  p.maxBin = 64
  p.peakBinRadius = 3
  p.peakFrameRadius = 2
  p.peakAboveMean = 1
  p.levelBinRadius = 0
  p.peakFloor = -100
  return p
}

@Suite("Spectral peaks")
struct PeakTests {
  @Test("isolated points above the frame's mean are peaks, in (frame, bin) order")
  func isolatedPeaks() {
    let s = spectrogram(frames: 20, raised: [(3, 10, 8), (3, 40, 6), (12, 20, 9)])
    let peaks = PeakPicker.peaks(in: s, parameters: smallParameters())
    #expect(peaks.map { [$0.frame, $0.bin] } == [[3, 10], [3, 40], [12, 20]])
  }

  @Test("only the largest value of a neighbourhood survives, in time and in frequency")
  func neighbourhoodSuppression() {
    // (5, 10) beats (5, 12) (2 bins away) and (6, 10) (1 frame away); (9, 10) is 4 frames
    // away, outside the radius of 2, so it stays.
    let s = spectrogram(
      frames: 20, raised: [(5, 10, 9), (5, 12, 7), (6, 10, 8), (9, 10, 7)])
    let peaks = PeakPicker.peaks(in: s, parameters: smallParameters())
    #expect(peaks.map { [$0.frame, $0.bin] } == [[5, 10], [9, 10]])
  }

  @Test("the threshold follows the frame's level: a point no higher than its frame is no peak")
  func adaptiveThreshold() {
    var s = spectrogram(frames: 10, raised: [(4, 30, 5)])
    // Raise frame 4 everywhere to 4.5: the point is only 0.5 above its frame's mean now.
    for bin in 0..<s.bins where bin != 30 { s.values[4 * s.bins + bin] = 4.5 }
    #expect(PeakPicker.peaks(in: s, parameters: smallParameters()).isEmpty)
  }

  @Test("with a local level, a peak above quiet bins counts even when other bins are loud")
  func localLevel() {
    // Bins 2..<30 are loud (8, as under pink noise); a point of 4 stands at bin 50 over 0.
    var s = spectrogram(frames: 10, raised: [(5, 50, 4)])
    for frame in 0..<10 {
      for bin in 2..<30 { s.values[frame * s.bins + bin] = 8 + Float(bin % 3) * 0.01 }
    }
    var p = smallParameters()
    p.peakAboveMean = 2
    p.peakBinRadius = 1
    // Against the whole frame's mean (about 3.6) the point is only 0.4 above: no peak.
    #expect(!PeakPicker.peaks(in: s, parameters: p).contains { $0.bin == 50 })
    // Against the 10 bins either side (all 0 but itself: mean 0.19) it is a peak.
    p.levelBinRadius = 10
    let peak = PeakPicker.peaks(in: s, parameters: p).first { $0.bin == 50 }
    #expect(peak?.frame == 5)
    #expect(abs((peak?.prominence ?? 0) - (4 - 4 / 21)) < 1e-5)
  }

  @Test("bins outside minBin..<maxBin never hold peaks")
  func binRange() {
    let s = spectrogram(frames: 10, raised: [(2, 1, 9), (6, 30, 9)])
    #expect(PeakPicker.peaks(in: s, parameters: smallParameters()).map(\.bin) == [30])
  }

  @Test("at most peaksPerSecond peaks a second, the most prominent kept")
  func capPerSecond() {
    var p = smallParameters()
    p.peaksPerSecond = 2
    p.lowPeaksPerSecond = 0
    // 43 frames make a second at 11025 Hz / 256. Four peaks in the first second.
    let s = spectrogram(
      frames: 50, raised: [(0, 10, 3), (10, 20, 9), (20, 30, 4), (30, 40, 8), (45, 50, 2)])
    let peaks = PeakPicker.peaks(in: s, parameters: p)
    #expect(peaks.map { [$0.frame, $0.bin] } == [[10, 20], [30, 40], [45, 50]])
  }

  @Test("beside them, up to lowPeaksPerSecond more of the rest below lowPeaksBelowBin")
  func lowBandQuota() {
    var p = smallParameters()
    p.peaksPerSecond = 2
    p.lowPeaksPerSecond = 2
    p.lowPeaksBelowBin = 25
    // The first second: the two most prominent (bins 40 and 20), then of the rest below bin
    // 25 the two most prominent (bins 15 and 10; bin 5 is the weakest). Bin 30 is above.
    let s = quotaSpectrogram()
    let peaks = PeakPicker.peaks(in: s, parameters: p)
    #expect(
      peaks.map { [$0.frame, $0.bin] } == [[0, 10], [10, 20], [30, 40], [40, 15], [45, 50]])
    // Without the quota: the cap alone.
    p.lowPeaksPerSecond = 0
    #expect(PeakPicker.peaks(in: s, parameters: p).count == 3)
  }

  @Test("and up to highPeaksPerSecond more of the rest from highPeaksFromBin up")
  func highBandQuota() {
    var p = smallParameters()
    p.peaksPerSecond = 2
    p.lowPeaksPerSecond = 1
    p.lowPeaksBelowBin = 25
    p.highPeaksPerSecond = 1
    p.highPeaksFromBin = 100
    p.maxBin = 128
    // The first second: the two most prominent (bins 40 and 20); of the rest, the strongest
    // below bin 25 (bin 15) and the strongest from bin 100 up (bin 120, not the weaker 110).
    let s = spectrogram(
      frames: 50, bins: 128,
      raised: [
        (0, 10, 3), (10, 20, 9), (20, 30, 4), (30, 40, 8), (40, 15, 3.5), (12, 110, 2),
        (24, 120, 3), (45, 50, 2),
      ])
    let peaks = PeakPicker.peaks(in: s, parameters: p)
    #expect(
      peaks.map { [$0.frame, $0.bin] } == [[10, 20], [24, 120], [30, 40], [40, 15], [45, 50]])
    // Neither a song's print nor a recording keeps any by default (the matching time).
    #expect(FingerprintParameters().highPeaksPerSecond == 0)
    #expect(FingerprintParameters().queryHighPeaksPerSecond == 0)
  }

  @Test("a recording to name keeps its song-sized cap and, beside it, bass peaks of its own")
  func recordingBassQuota() {
    // Eight loud tones between 1 and 4 kHz, each moving every 200 ms (some 40 peaks a second,
    // so the cap chooses), and a quieter bass line under them, 26 dB down.
    var random = TestRandom(seed: 3)
    var audio = [Float](repeating: 0, count: 44_100 * 4)
    for segment in 0..<20 {
      let range = segment * 8_820..<(segment + 1) * 8_820
      var tones = (0..<8).map { _ in (Float(1_000 + random.next() % 3_000), Float(0.1)) }
      tones.append((Float(60 + random.next() % 200), 0.005))
      for (hz, amplitude) in tones {
        for i in range {
          audio[i] += amplitude * sin(2 * Float.pi * hz * Float(i) / 44_100)
        }
      }
    }
    var bassOnly = FingerprintParameters()
    bassOnly.queryHighPeaksPerSecond = 0
    var plain = bassOnly
    plain.queryLowPeaksPerSecond = 0
    let without = Set(
      Fingerprinter(parameters: plain).recording(mono: audio).peaks.map { [$0.frame, $0.bin] })
    let with = Fingerprinter(parameters: bassOnly).recording(mono: audio).peaks.map {
      [$0.frame, $0.bin]
    }
    let added = with.filter { !without.contains($0) }
    #expect(without.isSubset(of: Set(with)))
    #expect(!added.isEmpty)
    #expect(added.allSatisfy { $0[1] < FingerprintParameters().lowPeaksBelowBin })
    #expect(added.count <= 8 * 5)
    // A song's print keeps none beside its cap.
    #expect(FingerprintParameters().lowPeaksPerSecond == 0)
  }

  @Test("searched again at speed 1, a recording keeps more of its peaks: the cap's and the next")
  func recordingDensePeaks() {
    var p = smallParameters()
    p.queryPeaksPerSecond = 2
    p.queryLowPeaksPerSecond = 1
    p.lowPeaksBelowBin = 25
    p.denseQueryPeaksPerSecond = 4
    p.denseQueryLowPeaksPerSecond = 1
    // The first second: the two most prominent (bins 20 and 40) and the bass's strongest of
    // the rest (bin 15); densely, the four most prominent (bins 20, 40, 30 and 15) and the
    // bass's strongest of the rest (bin 10). Bin 5 is the weakest: in neither.
    let s = quotaSpectrogram()
    let picked = PeakPicker.recordingPeaks(in: s, parameters: p)
    #expect(
      picked.peaks.map { [$0.frame, $0.bin] } == [[10, 20], [30, 40], [40, 15], [45, 50]])
    #expect(
      picked.dense.map { [$0.frame, $0.bin] } == [
        [0, 10], [10, 20], [20, 30], [30, 40], [40, 15], [45, 50],
      ])
    // No more than the cap and its bass: the same peaks.
    p.denseQueryPeaksPerSecond = 2
    let same = PeakPicker.recordingPeaks(in: s, parameters: p)
    #expect(same.dense == same.peaks)
  }

  @Test("the neighbourhood maximum equals the naive one, for every radius and at the edges")
  func neighbourhoodMax() {
    var generator = TestRandom(seed: 7)
    for (frames, bins) in [(1, 1), (13, 97), (40, 5), (3, 64)] {
      let values = (0..<(frames * bins)).map { _ in Float(generator.next() % 1000) - 500 }
      for (binRadius, frameRadius) in [(0, 0), (1, 0), (0, 1), (8, 4), (3, 10), (200, 200)] {
        let fast = PeakPicker.neighbourhoodMax(
          values, frames: frames, bins: bins, binRadius: binRadius, frameRadius: frameRadius)
        var naive: [Float] = []
        for frame in 0..<frames {
          for bin in 0..<bins {
            var best = -Float.infinity
            for f in max(0, frame - frameRadius)...min(frames - 1, frame + frameRadius) {
              for b in max(0, bin - binRadius)...min(bins - 1, bin + binRadius) {
                best = max(best, values[f * bins + b])
              }
            }
            naive.append(best)
          }
        }
        #expect(fast == naive, "\(frames) x \(bins), radii \(binRadius), \(frameRadius)")
      }
    }
  }
}

@Suite("Landmark hashes")
struct HashTests {
  @Test("a hash packs anchor bin, bin difference and frame difference and unpacks to them")
  func packing() {
    for (bin, df, dt) in [(0, -63, 1), (511, 63, 63), (100, 0, 5), (37, -1, 2)] {
      let hash = LandmarkHasher.hash(bin: bin, binDelta: df, frameDelta: dt)
      #expect(hash < 1 << LandmarkHasher.hashBits)
      let parts = LandmarkHasher.parts(of: hash)
      #expect(parts.bin == bin && parts.binDelta == df && parts.frameDelta == dt)
    }
    #expect(
      LandmarkHasher.hash(bin: 10, binDelta: 1, frameDelta: 2)
        != LandmarkHasher.hash(bin: 10, binDelta: 2, frameDelta: 1))
  }

  @Test("each anchor pairs with the next peaks inside its target zone, up to the fan-out")
  func pairing() {
    var p = FingerprintParameters()
    p.fanOut = 2
    p.maxFrameDelta = 10
    p.maxBinDelta = 20
    let peaks = [
      Peak(frame: 0, bin: 100, prominence: 1),
      Peak(frame: 0, bin: 105, prominence: 1),  // same frame: not a target (dt < 1)
      Peak(frame: 3, bin: 150, prominence: 1),  // 50 bins away: outside the zone
      Peak(frame: 4, bin: 110, prominence: 1),
      Peak(frame: 6, bin: 90, prominence: 1),
      Peak(frame: 8, bin: 95, prominence: 1),  // beyond the fan-out for the first anchor
      Peak(frame: 20, bin: 100, prominence: 1),  // 12+ frames after everything else
    ]
    let landmarks = LandmarkHasher.landmarks(peaks, parameters: p)
    let first = landmarks.filter { $0.frame == 0 }.map { LandmarkHasher.parts(of: $0.hash) }
    #expect(
      first.map { [$0.bin, $0.binDelta, $0.frameDelta] } == [
        [100, 10, 4], [100, -10, 6], [105, 5, 4], [105, -15, 6],
      ])
    #expect(landmarks.filter { $0.frame == 20 }.isEmpty)
    #expect(landmarks.allSatisfy { LandmarkHasher.parts(of: $0.hash).frameDelta <= 10 })
  }
}

/// A small deterministic generator for test data (Knuth's MMIX linear congruential constants;
/// the high bits are the random ones).
struct TestRandom {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return state >> 24
  }
}
