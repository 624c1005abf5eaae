import Foundation
import RiffleAudio
import RiffleTestSupport
import Testing

@testable import RiffleFingerprint

/// Notes that change every 300 ms (pitch from a seed) over a little noise: enough peaks to pair.
func melody(seconds: Double, seed: UInt64 = 7) -> [Float] {
  var random = SeededRandom(seed: seed)
  var out: [Float] = []
  while Double(out.count) < seconds * 44_100 {
    let hertz = 220 * pow(2, Double(random.int(0...24)) / 12)
    let second = hertz * pow(2, Double(random.int(3...7)) / 12)
    out += (0..<13_230).map { i in
      let t = Double(i) / 44_100
      return Float(0.3 * sin(2 * .pi * hertz * t) + 0.2 * sin(2 * .pi * second * t))
        + 0.01 * random.signed()
    }
  }
  return Array(out.prefix(Int(seconds * 44_100)))
}

/// `samples` played `factor` times as fast (pitch and tempo together), by linear
/// interpolation: what a record played fast does.
func played(_ samples: [Float], speed factor: Double) -> [Float] {
  let count = Int(Double(samples.count) / factor) - 1
  return (0..<count).map { i in
    let x = Double(i) * factor
    let j = Int(x)
    let f = Float(x - Double(j))
    return samples[j] * (1 - f) + samples[min(samples.count - 1, j + 1)] * f
  }
}

/// A `PeakStream` fed `samples` in pieces of `sizes` (then of `rest`), finished: as a decoder
/// hands audio over, in blocks of any size.
func streamed(_ samples: [Float], sizes: [Int], rest: Int) -> PeakStream {
  var stream = PeakStream()
  var at = 0
  var next = sizes.makeIterator()
  while at < samples.count {
    let size = next.next() ?? rest
    stream.append(mono: Array(samples[at..<min(samples.count, at + size)]))
    at += size
  }
  _ = stream.finish()
  return stream
}

@Suite("Speed changes and streaming")
struct SpeedAndStreamTests {
  @Test("peaks found a piece at a time are exactly those of the whole recording")
  func streamEqualsWhole() {
    let samples = melody(seconds: 21.3)
    let whole = Fingerprinter().peaks(mono: samples)
    let stream = streamed(samples, sizes: [1, 4_099, 12_345, 100_000, 3], rest: 77_777)
    #expect(whole.count > 200)
    #expect(stream.peaks == whole)
    #expect(abs(stream.seconds - 21.3) < 0.001)
  }

  @Test("a fine position lies between whole frames and bins, towards the larger neighbour")
  func vertex() {
    #expect(PeakPicker.vertexOffset(1, 2, 1) == 0)
    #expect(PeakPicker.vertexOffset(1, 2, 1.5) > 0.1)
    #expect(PeakPicker.vertexOffset(1.5, 2, 1) < -0.1)
    #expect(PeakPicker.vertexOffset(2, 2, 2) == 0, "flat: no parabola")
  }

  @Test("moving peaks back by the speed gives the song's hashes: bins divided, frames multiplied")
  func speedMovesPeaks() {
    let p = FingerprintParameters()
    let peaks = [
      Peak(frame: 10, bin: 103, prominence: 3, fineFrame: 10, fineBin: 103),
      Peak(frame: 30, bin: 82, prominence: 3, fineFrame: 30, fineBin: 82.4),
    ]
    let landmark = LandmarkHasher.landmarks(peaks, parameters: p, speed: 1.03)
    // 103 / 1.03 = 100, 82.4 / 1.03 = 80; frames 10.3 -> 10, 30.9 -> 31.
    #expect(
      landmark == [
        Landmark(hash: LandmarkHasher.hash(bin: 100, binDelta: -20, frameDelta: 21), frame: 10)
      ])
  }

  @Test("the speeds searched: 1 first, then outwards in steps, both ways")
  func speeds() {
    var p = FingerprintParameters()
    p.maxSpeedChange = 0.02
    p.speedStep = 0.01
    #expect(p.speeds == [1, 1.01, 0.99, 1.02, 0.98])
    p.speedStep = 0
    #expect(p.speeds == [1])
  }

  @Test("a recording played 4% fast or 3% slow is named, at the right place and speed")
  func spedUpRecording() throws {
    let fingerprinter = Fingerprinter()
    let songs = (0..<3).map { melody(seconds: 16, seed: UInt64(10 + $0)) }
    let prints = songs.enumerated().map { i, song in
      fingerprinter.print(id: "s\(i)", mono: song)
    }
    let index = FingerprintIndex(songs: prints)
    for (factor, song) in [(1.04, 2), (0.97, 1)] {
      let excerpt = Array(songs[song][220_500..<573_300])
      let match = try #require(
        index.match(fingerprinter.recording(mono: played(excerpt, speed: factor))))
      #expect(match.songID == "s\(song)")
      #expect(abs(match.offset - 5) < 0.1, "offset \(match.offset)")
      #expect(abs(match.speed - factor) < 0.003, "speed \(match.speed)")
      // Searched at speed 1 only (and no scan of the whole index, which is at speed 1), the
      // same recording is not named; scanned, it is named right or not at all.
      var still = FingerprintParameters()
      still.maxSpeedChange = 0
      let recording = Fingerprinter(parameters: still).recording(
        mono: played(excerpt, speed: factor))
      let scanning = FingerprintIndex(songs: prints, parameters: still).match(recording)
      #expect(scanning == nil || scanning?.songID == "s\(song)", "\(String(describing: scanning))")
      still.scanMaxSongs = 0
      #expect(FingerprintIndex(songs: prints, parameters: still).match(recording) == nil)
    }
  }
}
