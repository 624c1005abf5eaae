import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleFingerprint

/// A bass line: notes of 41 to 110 Hz held 250 ms each, with the harmonics of a plucked
/// string fading above them (next to nothing over 600 Hz), over a breath of hiss: what voices in
/// a room leave of much music.
func bassLine(seconds: Double, seed: UInt64) -> [Float] {
  var random = SeededRandom(seed: seed)
  var out: [Float] = []
  while Double(out.count) < seconds * 44_100 {
    let hertz = 41.2 * pow(2, Double(random.int(0...16)) / 12)
    out += (0..<11_025).map { i in
      let t = Double(i) / 44_100
      let decay = exp(-3 * t)
      var sample = 0.0
      for harmonic in 1...6 {
        sample += sin(2 * .pi * Double(harmonic) * hertz * t) / Double(harmonic * harmonic)
      }
      return Float(0.5 * decay * sample) + 0.0005 * random.signed()
    }
  }
  return Array(out.prefix(Int(seconds * 44_100)))
}

@Suite("Checking a candidate by its peaks")
struct ProbeTests {
  @Test("a song's peaks stand out in a recording of it under voices; others' do not")
  func probeSeparates() throws {
    let fingerprinter = Fingerprinter()
    let p = fingerprinter.parameters
    let song = fingerprinter.print(id: "a", mono: melody(seconds: 20, seed: 3))
    let other = fingerprinter.print(id: "b", mono: melody(seconds: 20, seed: 4))
    // 6 s from 7 s in, under voices as loud as the music.
    let excerpt = Array(melody(seconds: 20, seed: 3)[308_700..<573_300])
    let heard = fingerprinter.recording(
      mono: zip(excerpt, voices(seconds: 6, seed: 9)).map { $0 + $1 })
    let offset = Int((7 / p.frameSeconds).rounded())
    func probe(_ print: SongPrint, _ offset: Int) throws -> Double {
      try #require(heard.probe.agreement(peaks: print.peaks, offsetFrames: offset, speed: 1))
    }
    let right = try probe(song, offset)
    let otherSong = try probe(other, offset)
    let otherPlace = try probe(song, offset + 200)
    #expect(right > 8, "right \(right)")
    #expect(abs(otherSong) < 4, "other song \(otherSong)")
    #expect(abs(otherPlace) < 4, "other place \(otherPlace)")
    // Peaks that fall outside the recording say nothing.
    #expect(heard.probe.agreement(peaks: song.peaks, offsetFrames: 5_000, speed: 1) == nil)
  }

  @Test("a point scores by its rank in its own bin: the moment a bin stands out scores highest")
  func ranksPerBin() throws {
    let frames = 40
    let bins = 128
    var values = [Float](repeating: -4, count: frames * bins)
    // Bin 20 stands out at frame 10 only; bin 100 stands out at every frame.
    values[10 * bins + 20] = 3
    for frame in 0..<frames { values[frame * bins + 100] = 3 }
    let probe = PeakProbe(
      spectrogram: Spectrogram(frames: frames, bins: bins, values: values),
      parameters: FingerprintParameters())
    func score(_ frame: Int, _ bin: Int) -> Float { probe.scores[bin * frames + frame] }
    #expect(score(10, 20) > 2)
    #expect((0..<frames).filter { $0 != 10 }.allSatisfy { score($0, 20) < 0 })
    // A bin always loud ranks every moment alike: standing out there is no evidence.
    #expect((0..<frames).allSatisfy { abs(score($0, 100)) < 1e-6 })
  }

  @Test("mains hum under a recording (50 Hz and its harmonics, 10 dB below it) changes nothing")
  func hum() throws {
    let fingerprinter = Fingerprinter()
    let songs = (0..<4).map { melody(seconds: 20, seed: UInt64(30 + $0)) }
    let index = FingerprintIndex(
      songs: songs.enumerated().map { fingerprinter.print(id: "s\($0)", mono: $1) })
    let hum = (0..<220_500).map { i -> Float in
      let t = Double(i) / 44_100
      return Float((1...4).reduce(0.0) { $0 + sin(2 * .pi * 50 * Double($1) * t) / Double($1) })
    }
    for (i, song) in songs.enumerated() {
      let heard = fingerprinter.recording(
        mono: mixed(Array(song[176_400..<396_900]), hum, snr: 10))
      let match = try #require(index.match(heard), "song \(i)")
      #expect(match.songID == "s\(i)")
      #expect(abs(match.offset - 4) < 0.1)
    }
    let strangerUnderHum = fingerprinter.recording(
      mono: mixed(melody(seconds: 5, seed: 99), hum, snr: 10))
    #expect(index.match(strangerUnderHum) == nil)
  }

  @Test("normal quantiles")
  func quantiles() {
    #expect(abs(PeakProbe.normalQuantile(0.5)) < 1e-9)
    #expect(abs(PeakProbe.normalQuantile(0.975) - 1.959_963_985) < 1e-6)
    #expect(abs(PeakProbe.normalQuantile(0.025) + 1.959_963_985) < 1e-6)
    #expect(abs(PeakProbe.normalQuantile(1e-6) + 4.753_424_309) < 1e-5)
    let grid = stride(from: 0.001, to: 1, by: 0.001).map(PeakProbe.normalQuantile)
    #expect(zip(grid, grid.dropFirst()).allSatisfy { $0 < $1 })
  }

  @Test("a bass line under voices as loud as it is named from its low peaks; a stranger's is not")
  func bassUnderVoices() {
    let songs = (0..<6).map { bassLine(seconds: 24, seed: UInt64(80 + $0)) }
    let recordings = songs.enumerated().map { i, song in
      mixed(Array(song[220_500..<440_500]), voices(seconds: 5, seed: UInt64(20 + i)), snr: 0)
    }
    let stranger = mixed(bassLine(seconds: 5, seed: 99), voices(seconds: 5, seed: 77), snr: 0)
    /// How many recordings an index of the songs names, with peaks from `minBin` up.
    func named(minBin: Int) -> Int {
      var p = FingerprintParameters()
      p.minBin = minBin
      return namedRecordings(
        songs: songs, recordings: recordings, strangers: [stranger], parameters: p)
    }
    // Above 100 Hz (as before the bass was heard) the voices leave nothing to go on.
    let withoutBass = named(minBin: 9)
    let withBass = named(minBin: FingerprintParameters().minBin)
    #expect(withoutBass == 0)
    #expect(withBass >= 2, "named \(withBass) of 6")
  }
}

/// How many of `recordings` (the i-th a recording of the i-th song) an index of `songs` made
/// with `p` names, each named right or not at all; no stranger may be named.
func namedRecordings(
  songs: [[Float]], recordings: [[Float]], strangers: [[Float]], parameters p: FingerprintParameters
) -> Int {
  let fingerprinter = Fingerprinter(parameters: p)
  let index = FingerprintIndex(
    songs: songs.enumerated().map { fingerprinter.print(id: "s\($0)", mono: $1) }, parameters: p)
  var named = 0
  for (i, recording) in recordings.enumerated() {
    let match = index.match(fingerprinter.recording(mono: recording))
    #expect(match == nil || match?.songID == "s\(i)", "named \(String(describing: match))")
    if match?.songID == "s\(i)" { named += 1 }
  }
  for stranger in strangers {
    #expect(index.match(fingerprinter.recording(mono: stranger)) == nil)
  }
  return named
}

/// `signal` with `noise` over it, scaled so that their powers differ by `snr` dB.
func mixed(_ signal: [Float], _ noise: [Float], snr: Double) -> [Float] {
  func power(_ x: [Float]) -> Double {
    x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, x.count))
  }
  let scale = Float((power(signal) / max(1e-12, power(noise) * pow(10, snr / 10))).squareRoot())
  return zip(signal, noise).map { $0 + scale * $1 }
}
