import Foundation
import RiffleAPI
import RiffleAudio
import RiffleCore
import RiffleTestSupport
import Testing

@testable import RiffleFingerprint

/// A sine at 44.1 kHz.
func tone(_ hertz: Double, seconds: Double, amplitude: Float = 0.5) -> [Float] {
  (0..<Int(seconds * 44_100)).map {
    amplitude * Float(sin(2 * Double.pi * hertz * Double($0) / 44_100))
  }
}

func rms(_ x: ArraySlice<Float>) -> Float {
  (x.reduce(0) { $0 + $1 * $1 } / Float(max(1, x.count))).squareRoot()
}

@Suite("Resampling and spectra")
struct PipelineTests {
  @Test("the resampler keeps a 1 kHz tone and removes one above the new Nyquist frequency")
  func lowPass() {
    let resampler = Resampler(decimation: 4)
    let kept = resampler.downsample(tone(1_000, seconds: 0.5))
    let removed = resampler.downsample(tone(8_000, seconds: 0.5))
    #expect(kept.count == 22_050 / 4)
    // Away from the edges, where the filter sees only signal.
    #expect(abs(rms(kept[200..<5_000]) - Float(0.5 / 2.squareRoot())) < 0.01)
    #expect(rms(removed[200..<5_000]) < 0.001, "8 kHz would alias to 3 kHz")
  }

  @Test("stereo 16-bit PCM is averaged to mono")
  func downmix() {
    let pcm: [Int16] = [16_384, 0, -32_768, -32_768]
    let mono = pcm.withUnsafeBytes { Resampler.mono(pcm16: $0, channels: 2) }
    #expect(mono == [0.25, -1])
  }

  @Test("FFTW's spectrum of a tone peaks in the tone's bin, every frame")
  func spectrumPeak() {
    let p = FingerprintParameters()
    // 1076.66 Hz is bin 100 at 11025 Hz / 1024.
    let hertz = 100 * Double(p.sampleRate) / Double(p.windowSize)
    let samples = Resampler(decimation: 4).downsample(tone(hertz, seconds: 1))
    let s = SpectrumAnalyzer.spectrogram(samples, parameters: p)
    #expect(s.frames == 1 + (samples.count - 1024) / 256)
    #expect(s.bins == 512)
    for frame in 2..<(s.frames - 2) {
      let row = (0..<s.bins).map { s[frame, $0] }
      #expect(row.firstIndex(of: row.max()!) == 100)
    }
  }

  @Test("a song's own excerpt, noisy and quieter, matches it at the right time")
  func fingerprintsMatch() throws {
    let catalog = TestFiles.catalog.appendingPathComponent("audio")
    let fingerprinter = Fingerprinter()
    var prints: [SongPrint] = []
    var songs: [[Float]] = []
    for name in ["riffle-002", "riffle-004", "riffle-005"] {
      let pcm = try DecoderFactory.decodeAll(
        Data(contentsOf: catalog.appendingPathComponent("\(name).mp3")))
      let mono = pcm.withUnsafeBytes { Resampler.mono(pcm16: $0, channels: 2) }
      songs.append(mono)
      prints.append(
        SongPrint(
          id: name, audioKey: name, duration: 0,
          peaks: fingerprinter.peaks(mono: mono)))
    }
    let index = FingerprintIndex(songs: prints)
    var generator = TestRandom(seed: 3)
    let start = 7.3
    let clip = songs[1][Int(start * 44_100)..<Int((start + 6) * 44_100)].map { sample in
      let noise = Float(Int64(generator.next() % 2001) - 1000) / 1000 * 0.15
      return sample * 0.3 + noise
    }
    let match = try #require(index.match(fingerprinter.landmarks(mono: clip)))
    #expect(match.songID == "riffle-004")
    #expect(abs(match.offset - start) < 0.05, "offset \(match.offset)")
    #expect(match.score > 2 * max(match.runnerUp, 1))
  }
}
