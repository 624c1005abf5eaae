import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleFingerprint

@Suite("The bass's bits")
struct BassBitsTests {
  @Test("a bass line's bass bits agree with a recording of it under voices; another's do not")
  func bassBitsSeparate() throws {
    let fingerprinter = Fingerprinter()
    let p = fingerprinter.parameters
    let song = bassLine(seconds: 20, seed: 81)
    let songBass = fingerprinter.print(id: "a", mono: song).bass
    let otherBass = fingerprinter.print(id: "b", mono: bassLine(seconds: 20, seed: 82)).bass
    #expect(songBass.count == fingerprinter.print(id: "a", mono: song).bits.count)
    // 6 s from 7 s in, under voices as loud as the bass.
    let heard = fingerprinter.recording(
      mono: mixed(Array(song[308_700..<573_300]), voices(seconds: 6, seed: 9), snr: 0))
    let bass = try #require(heard.bassBits(speed: 1, parameters: p))
    let offset = Int((7 / p.frameSeconds).rounded())
    func agreement(_ song: [UInt8], _ offset: Int) -> Double {
      BandBits.bestAgreement(
        song: song, query: bass, offsetFrames: offset, shifts: 0...0, speed: 1, lag: p.bandLag,
        bitsPerWord: p.bassBandEdges.count - 2)
    }
    let right = agreement(songBass, offset)
    let otherSong = agreement(otherBass, offset)
    let otherPlace = agreement(songBass, offset + 200)
    #expect(right > 8, "right \(right)")
    #expect(abs(otherSong) < 4, "other song \(otherSong)")
    #expect(abs(otherPlace) < 4, "other place \(otherPlace)")
  }

  @Test("the bass's bits made a piece at a time are exactly those of the whole recording")
  func streamedBass() {
    let samples = bassLine(seconds: 23.7, seed: 5)
    let whole = Fingerprinter().print(id: "x", mono: samples)
    let stream = streamed(samples, sizes: [7, 50_000, 123_457, 3, 99_999], rest: 88_888)
    #expect(whole.bass.count == whole.bits.count)
    #expect(whole.bass.contains { $0 != 0 })
    #expect(stream.bass == whole.bass)
  }

  @Test("the bass counts at most 3 over the peaks, and the better of two measures less")
  func evidenceArithmetic() {
    let p = FingerprintParameters()
    func evidence(_ peaks: Double, _ bits: Double, _ bass: Double) -> Double {
      FingerprintIndex.evidence(peaks: peaks, bits: bits, bass: bass, seconds: 5, parameters: p)
    }
    let root3 = 3.0.squareRoot()
    #expect(p.bassOverPeaks == 3)
    #expect(abs(evidence(4, 2, 6) - (12 / root3 - p.bassPenalty)) < 1e-9)
    // A bass that agrees far more than the peaks (a drum pattern songs of one make share)
    // counts as the peaks + 3.
    #expect(abs(evidence(4, 2, 20) - (13 / root3 - p.bassPenalty)) < 1e-9)
    #expect(abs(evidence(-2, 1, 9) - (2 / root3 - p.bassPenalty)) < 1e-9)
  }

  @Test("a song first by hashes is asked its evidence without the bass")
  func hashesTierWithoutBass() {
    var p = FingerprintParameters()
    p.bassUnderHashes = false
    func choose(_ evidence: Double, underHashes: Double) -> Int? {
      MatchRule.choose(
        [
          MatchRule.Candidate(
            score: 30, evidence: evidence, queryHashes: 900, evidenceUnderHashes: underHashes),
          MatchRule.Candidate(score: 10, evidence: 2, queryHashes: 900),
        ], seconds: 5, parameters: p)
    }
    // 30 hashes to 10 (3 times) with evidence of 7 only with the bass: not named.
    #expect(choose(7, underHashes: 5) == nil)
    #expect(choose(7, underHashes: 6.5) == 0)
    // Evidence far beyond every other song names it by the first tier, bass and all.
    #expect(choose(11, underHashes: 5) == 0)
  }

  @Test("bass lines under voices are named more with their bass's bits, and no stranger")
  func namedWithBass() {
    let songs = (0..<8).map { bassLine(seconds: 24, seed: UInt64(90 + $0)) }
    let recordings = songs.enumerated().map { i, song in
      mixed(Array(song[220_500..<441_000]), voices(seconds: 5, seed: UInt64(40 + i)), snr: -3)
    }
    let strangers = (0..<8).map { i in
      mixed(
        bassLine(seconds: 5, seed: UInt64(200 + i)), voices(seconds: 5, seed: UInt64(60 + i)),
        snr: -3)
    }
    func named(bass: Bool) -> Int {
      var p = FingerprintParameters()
      if !bass { p.bassBandEdges = [] }
      return namedRecordings(
        songs: songs, recordings: recordings, strangers: strangers, parameters: p)
    }
    let without = named(bass: false)
    let with = named(bass: true)
    #expect(with > without, "with the bass's bits \(with) of 8, without \(without)")
  }
}
