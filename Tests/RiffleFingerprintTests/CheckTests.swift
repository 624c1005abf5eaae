import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleFingerprint

/// Babble-like interference: tones that glide and stop, as loud as the music.
func voices(seconds: Double, seed: UInt64) -> [Float] {
  var random = SeededRandom(seed: seed)
  var out: [Float] = []
  while Double(out.count) < seconds * 44_100 {
    let length = random.int(2_000...9_000)
    let start = 120 + 200 * random.unit()
    let glide = 1 + 0.6 * Double(random.signed())
    var phase = 0.0
    for i in 0..<length {
      let progress: Double = Double(i) / Double(length)
      let hertz: Double = start * (1 + (glide - 1) * progress)
      phase += 2 * .pi * hertz / 44_100
      var sample = 0.0
      for harmonic in 1...8 { sample += sin(Double(harmonic) * phase) / Double(harmonic) }
      let hiss: Float = 0.02 * random.signed()
      out.append(Float(0.25 * sample) + hiss)
    }
    out += [Float](repeating: 0, count: random.int(0...3_000))
  }
  return Array(out.prefix(Int(seconds * 44_100)))
}

@Suite("Checking a candidate by its bits")
struct CheckTests {
  @Test("a song's bits agree with a recording of it far beyond chance, another song's do not")
  func agreementSeparates() {
    let fingerprinter = Fingerprinter()
    let p = fingerprinter.parameters
    let song = melody(seconds: 20, seed: 3)
    let other = melody(seconds: 20, seed: 4)
    let songBits = fingerprinter.print(id: "a", mono: song).bits
    let otherBits = fingerprinter.print(id: "b", mono: other).bits
    // 6 s from 7 s in, under voices as loud as the music.
    let excerpt = Array(song[308_700..<573_300])
    let noisy = zip(excerpt, voices(seconds: 6, seed: 9)).map { $0 + $1 }
    let heard = fingerprinter.recording(mono: noisy)
    let bits = try! #require(heard.bits(speed: 1, parameters: p))
    let offset = Int((7 / p.frameSeconds).rounded())
    let right = BandBits.agreement(
      song: songBits, query: bits, offsetFrames: offset, speed: 1, lag: p.bandLag)
    let wrong = BandBits.agreement(
      song: otherBits, query: bits, offsetFrames: offset, speed: 1, lag: p.bandLag)
    let elsewhere = BandBits.agreement(
      song: songBits, query: bits, offsetFrames: offset + 200, speed: 1, lag: p.bandLag)
    #expect(right > 8, "right \(right)")
    #expect(abs(wrong) < 4, "other song \(wrong)")
    #expect(abs(elsewhere) < 4, "other place \(elsewhere)")
  }

  @Test("agreement counts bits: the same words agree fully, their complements not at all")
  func agreementArithmetic() {
    let words: [UInt32] = (0..<100).map { UInt32(truncatingIfNeeded: $0 &* 2_654_435_761) }
    let same = BandBits.agreement(song: words, query: words, offsetFrames: 0, speed: 1, lag: 4)
    // 96 frames compared, 32 bits each: (n/2) / sqrt(n/4) = sqrt(n).
    #expect(abs(same - (96.0 * 32).squareRoot()) < 1e-9)
    let flipped = BandBits.agreement(
      song: words, query: words.map { ~$0 }, offsetFrames: 0, speed: 1, lag: 4)
    #expect(abs(flipped + same) < 1e-9)
    // Nothing lined up: nothing said.
    #expect(BandBits.agreement(song: words, query: words, offsetFrames: 500, speed: 1, lag: 4) == 0)
  }

  @Test("bits made a piece at a time are exactly those of the whole recording")
  func streamedBits() {
    let samples = melody(seconds: 23.7, seed: 5)
    let whole = Fingerprinter().print(id: "x", mono: samples)
    let stream = streamed(samples, sizes: [7, 50_000, 123_457, 3, 99_999], rest: 88_888)
    #expect(whole.bits.count > 900)
    #expect(stream.bits == whole.bits)
  }

  @Test("a bit says the difference of two bands grew in decibels: as Haitsma and Kalker count")
  func bitsAreDecibelChanges() {
    // The bits are compared as products of band energies; counted as the definition says,
    // by differences of logarithms, they are the same on every frame.
    let p = FingerprintParameters()
    let spectrogram = SpectrumAnalyzer.spectrogram(
      Resampler(decimation: p.decimation).downsample(melody(seconds: 8, seed: 12)),
      parameters: p)
    let bits = BandBits.bits(spectrogram, parameters: p)
    let width = min(BandBits.topBin(p, maxSpeed: 1), spectrogram.bins)
    let sums = BandBits.powerSums(spectrogram, upTo: width)
    let edges = BandBits.edges(p, speed: 1).map { min($0, width) }
    func decibels(_ frame: Int) -> [Double] {
      let base = frame * (width + 1)
      return (0..<BandBits.bandCount).map { band in
        let low = edges[band]
        let high = max(low + 1, edges[band + 1])
        let power = high <= width ? sums[base + high] - sums[base + low] : 0
        return 10 * log10(max(0, power) + 1e-9)
      }
    }
    #expect(bits.count == spectrogram.frames)
    var compared = 0
    for frame in p.bandLag..<spectrogram.frames {
      let now = decibels(frame)
      let before = decibels(frame - p.bandLag)
      for band in 0..<(BandBits.bandCount - 1) {
        let change = (now[band] - now[band + 1]) - (before[band] - before[band + 1])
        // A change within rounding of nothing may go either way.
        guard abs(change) > 1e-9 else { continue }
        #expect((bits[frame] >> UInt32(band)) & 1 == (change > 0 ? 1 : 0))
        compared += 1
      }
    }
    #expect(compared > 10_000)
    #expect(bits.prefix(p.bandLag).allSatisfy { $0 == 0 })
  }

  @Test("a recording's bits at a speed are the song's bits when it was played that fast")
  func bitsAtSpeed() throws {
    let fingerprinter = Fingerprinter()
    let p = fingerprinter.parameters
    let song = melody(seconds: 16, seed: 12)
    let songBits = fingerprinter.print(id: "a", mono: song).bits
    let heard = fingerprinter.recording(mono: played(Array(song[88_200..<441_000]), speed: 1.03))
    let offset = Int((2 / p.frameSeconds).rounded())
    let atSpeed = BandBits.agreement(
      song: songBits, query: try #require(heard.bits(speed: 1.03, parameters: p)),
      offsetFrames: offset, speed: 1.03, lag: p.bandLag)
    let unmoved = BandBits.agreement(
      song: songBits, query: try #require(heard.bits(speed: 1, parameters: p)),
      offsetFrames: offset, speed: 1, lag: p.bandLag)
    #expect(atSpeed > 2 * max(unmoved, 5), "at 1.03: \(atSpeed), at 1: \(unmoved)")
    #expect(heard.bits(speed: 1.2, parameters: p) == nil)
  }

  @Test("the rule: the song with clearly the most evidence; else hashes backed by some")
  func rule() {
    /// The rule's answer for candidates given as (hashes, evidence), best by hashes first.
    func choose(_ candidates: (Int, Double)...) -> Int? {
      MatchRule.choose(
        candidates.map { MatchRule.Candidate(score: $0.0, evidence: $0.1, queryHashes: 900) },
        seconds: 5, parameters: FingerprintParameters())
    }
    // Evidence well beyond chance and beyond every other song names the song, wherever it
    // stands by hashes.
    #expect(choose((7, 1), (6, 12)) == 1)
    #expect(choose((7, 1), (6, 0), (3, 12)) == 2)
    // Two songs that agree alike (a passage they share): neither.
    #expect(choose((7, 11), (6, 9)) == nil)
    #expect(choose((7, 12), (6, 0), (6, 9.5)) == nil)
    #expect(choose((7, 12), (6, 0), (6, 9)) == 0)
    // Songs of one make (the synthesized benchmark's) reach 10 to 11.7 by chance: 10.5 is the
    // floor of the first tier.
    #expect(choose((7, 10.4), (4, 7)) == nil)
    #expect(choose((7, 10.5), (4, 7.5)) == 0)
    // Under `minEvidence`, a song must stand further from the rest...
    #expect(choose((7, 9.5), (4, 5.1)) == nil)
    #expect(choose((7, 9.5), (4, 5)) == 0)
    #expect(choose((7, 8), (4, 3.5)) == 0)
    // ...and under `minEvidenceAlone` it is not named on the evidence at all.
    #expect(choose((7, 7.9), (4, 0)) == nil)
    // Hashes that clear their thresholds name the first, with some evidence behind them...
    #expect(choose((30, 6), (10, 0)) == 0)
    #expect(choose((29, 6.5), (10, 0)) == nil)
    // ...but not with none: a held note's pair repeated through a song gathers hashes by
    // chance.
    #expect(choose((30, 5.9), (10, 0)) == nil)
    #expect(choose((60, 5.9), (16, 0)) == nil)
    // Hashes far ahead (20 or more, 4 times the second's) need less: the bass line the voices
    // leave agrees by the dozen while the song's peaks above lie under the voices.
    #expect(choose((60, 4), (15, 0)) == 0)
    #expect(choose((41, 4.8), (8, 3)) == 0)
    #expect(choose((60, 3.9), (10, 0)) == nil)
    #expect(choose((19, 5.9), (4, 0)) == nil)
    #expect(choose() == nil)
    // A longer recording needs more: evidence grows with the square root of its length for
    // any likeness, a song's own or one make's.
    let p = FingerprintParameters()
    let twelve = [
      MatchRule.Candidate(score: 7, evidence: 12, queryHashes: 900),
      MatchRule.Candidate(score: 5, evidence: 8, queryHashes: 900),
    ]
    #expect(MatchRule.choose(twelve, seconds: 3, parameters: p) == 0)
    #expect(MatchRule.choose(twelve, seconds: 5, parameters: p) == 0)
    #expect(MatchRule.choose(twelve, seconds: 10, parameters: p) == nil)
    let fifteen = [
      MatchRule.Candidate(score: 7, evidence: 14.2, queryHashes: 900),
      MatchRule.Candidate(score: 5, evidence: 8, queryHashes: 900),
    ]
    #expect(MatchRule.choose(fifteen, seconds: 10, parameters: p) == 0)
    // Hashes that clear their thresholds need no more evidence behind them at 10 s than at 5:
    // a song of the recording's make does not lead the rest by three times the hashes.
    let led = [
      MatchRule.Candidate(score: 30, evidence: 6.5, queryHashes: 1_800),
      MatchRule.Candidate(score: 9, evidence: 4, queryHashes: 1_800),
    ]
    #expect(MatchRule.choose(led, seconds: 10, parameters: p) == 0)
    #expect(MatchRule.choose(led, seconds: 20, parameters: p) == 0)
    var close = led
    close[1].score = 11
    #expect(MatchRule.choose(close, seconds: 10, parameters: p) == nil)
  }

  @Test("the best agreement over a few offsets, in one pass, is the best of each alone")
  func bestOfShifts() {
    let song: [UInt32] = (0..<400).map { UInt32(truncatingIfNeeded: $0 &* 2_654_435_761) }
    var random = SeededRandom(seed: 4)
    // The recording: the song from frame 100, a third of its bits flipped, and silence.
    let query: [UInt32] = (0..<150).map { i in
      i % 17 == 0 ? 0 : song[100 + i] ^ UInt32(truncatingIfNeeded: random.next() & random.next())
    }
    for speed in [1.0, 1.02] {
      for offset in [96, 100, 103, 390] {
        let each = (-2...2).map {
          BandBits.agreement(
            song: song, query: query, offsetFrames: offset + $0, speed: speed, lag: 4)
        }
        let best = BandBits.bestAgreement(
          song: song, query: query, offsetFrames: offset, shifts: -2...2, speed: speed, lag: 4)
        #expect(abs(best - each.max()!) < 1e-9, "\(offset) at \(speed)")
      }
    }
  }

  @Test("silence agrees with silence on every bit, and says nothing")
  func silenceSaysNothing() {
    let words = [UInt32](repeating: 0, count: 200)
    #expect(BandBits.agreement(song: words, query: words, offsetFrames: 0, speed: 1, lag: 4) == 0)
    let bits = Fingerprinter().print(id: "quiet", mono: [Float](repeating: 0, count: 441_000)).bits
    #expect(bits.allSatisfy { $0 == 0 })
  }

  @Test(
    "a song heard through voices as loud as it is named by its evidence where hashes fall short")
  func namedThroughVoices() throws {
    let fingerprinter = Fingerprinter()
    let songs = (0..<6).map { melody(seconds: 20, seed: UInt64(40 + $0)) }
    let index = FingerprintIndex(
      songs: songs.enumerated().map { fingerprinter.print(id: "s\($0)", mono: $1) })
    var named = 0
    var byHashesAlone = 0
    for (i, song) in songs.enumerated() {
      let excerpt = Array(song[132_300..<352_800])
      let noisy = zip(excerpt, voices(seconds: 5, seed: UInt64(i))).map { $0 + 1.4 * $1 }
      let heard = fingerprinter.recording(mono: noisy)
      let match = index.match(heard)
      #expect(match == nil || match?.songID == "s\(i)", "named \(String(describing: match))")
      if match?.songID == "s\(i)" { named += 1 }
      if let best = index.bestCandidate(peaks: heard.peaks), best.songID == "s\(i)",
        OffsetVotes.isConfident(best, parameters: index.parameters)
      {
        byHashesAlone += 1
      }
    }
    #expect(named > byHashesAlone, "named \(named), by hashes alone \(byHashesAlone)")
    // A recording of none of them names nothing.
    let stranger = fingerprinter.recording(
      mono: zip(melody(seconds: 5, seed: 99), voices(seconds: 5, seed: 77)).map { $0 + $1 })
    #expect(index.match(stranger) == nil)
  }

  @Test(
    "bits count at most a little more than the peaks, but in full where no other song agrees so")
  func bitsInFull() {
    let p = FingerprintParameters()
    let root2 = 2.0.squareRoot()
    // Songs of one make: their bands move alike, their notes differ.
    #expect(
      FingerprintIndex.evidence(peaks: 4, bits: 29, seconds: 5, parameters: p) == (4 + 7) / root2)
    #expect(
      FingerprintIndex.evidence(peaks: -2, bits: 10, seconds: 5, parameters: p) == (-2 + 3) / root2)
    #expect(
      FingerprintIndex.evidence(peaks: 9, bits: 5, seconds: 5, parameters: p) == (9 + 5) / root2)
    // The song itself through a phone line: its bass, and most of its peaks, gone.
    #expect(
      FingerprintIndex.evidence(peaks: 7.9, bits: 41, seconds: 5, parameters: p) == (7.9 + 41)
        / root2)
    // The bar grows with the recording, as chance agreement of one make does.
    #expect(
      FingerprintIndex.evidence(peaks: 7, bits: 41, seconds: 10, parameters: p) == (7 + 10) / root2)
    #expect(
      FingerprintIndex.evidence(peaks: 7, bits: 50, seconds: 10, parameters: p) == (7 + 50) / root2)
  }

  @Test("an alignment the hashes placed a few speed steps off is checked at speed 1 too")
  func checkedAtSpeedOne() throws {
    let fingerprinter = Fingerprinter()
    let song = melody(seconds: 20, seed: 41)
    let print = fingerprinter.print(id: "s", mono: song)
    let heard = fingerprinter.recording(
      mono: zip(Array(song[132_300..<352_800]), voices(seconds: 5, seed: 3)).map { $0 + $1 })
    let index = FingerprintIndex(songs: [print])
    let truth = try #require(index.match(heard))
    #expect(truth.speed == 1)
    #expect(index.atSpeedOne(truth, frames: heard.probe.frames) == nil)

    // The same moment as hashes voting at 1.02 would place it: the middle frame lines up.
    let frames = heard.probe.frames
    var off = truth
    off.speed = 1.02
    off.offsetFrames = truth.offsetFrames - Int((Double(frames) / 2 * 0.02).rounded())
    let atOne = try #require(index.atSpeedOne(off, frames: frames))
    #expect(atOne.speed == 1 && abs(atOne.offsetFrames - truth.offsetFrames) <= 1)
    #expect(abs(atOne.offset - Double(atOne.offsetFrames) * index.parameters.frameSeconds) < 1e-9)
    let missed = index.evidence(for: off, with: heard)
    let found = index.evidence(for: atOne, with: heard)
    #expect(found > missed + 2, "at 1.02 \(missed), at 1 \(found)")
    // Further off, the song's higher peaks tell the speed: no second try.
    var further = off
    further.speed = 1.03
    #expect(index.atSpeedOne(further, frames: frames) == nil)

    var memo = FingerprintIndex.EvidenceMemo()
    let checked = index.checked([[off]], denseFrom: 1, heard, memo: &memo)
    #expect(checked[0].best.speed == 1)
    // Counted a little less: the better of two tries is higher than either by chance.
    #expect(checked[0].best.evidence == max(missed, found - index.parameters.speedOnePenalty))
    var p = index.parameters
    p.checksAtSpeedOne = false
    var alone = FingerprintIndex.EvidenceMemo()
    let unchecked = FingerprintIndex(songs: [print], parameters: p)
      .checked([[off]], denseFrom: 1, heard, memo: &alone)
    #expect(unchecked[0].best.speed == 1.02)
    #expect(unchecked[0].best.evidence == missed)
  }

  @Test("the search again at speed 1 with denser peaks answers only what the first left unnamed")
  func denseSearchOnlyAfter() throws {
    let fingerprinter = Fingerprinter()
    let songs = (0..<6).map { melody(seconds: 20, seed: UInt64(40 + $0)) }
    let prints = songs.enumerated().map { fingerprinter.print(id: "s\($0)", mono: $1) }
    let index = FingerprintIndex(songs: prints)
    var p = fingerprinter.parameters
    p.denseCandidates = 0
    let firstOnly = FingerprintIndex(songs: prints, parameters: p)
    var named = 0
    var namedFirst = 0
    for (i, song) in songs.enumerated() {
      for loudness: Float in [1.4, 2.5] {
        let excerpt = Array(song[132_300..<352_800])
        let noisy = zip(excerpt, voices(seconds: 5, seed: UInt64(10 + i))).map {
          $0 + loudness * $1
        }
        let heard = fingerprinter.recording(mono: noisy)
        let match = index.match(heard)
        let first = firstOnly.match(heard)
        #expect(match == nil || match?.songID == "s\(i)", "named \(String(describing: match))")
        // What the first search names, it names alike with the second search on.
        if let first {
          #expect(first.songID == "s\(i)")
          #expect(match?.songID == first.songID && match?.offset == first.offset)
          #expect(match?.score == first.score && match?.evidence == first.evidence)
          namedFirst += 1
        }
        if match != nil { named += 1 }
      }
    }
    // Most are named by the first search (the second adds where real music's bass is what
    // the voices leave: docs/fingerprinting.md, "Denser at speed 1").
    #expect(namedFirst >= 8 && named >= namedFirst, "named \(named), first \(namedFirst)")
    let stranger = fingerprinter.recording(
      mono: zip(melody(seconds: 5, seed: 99), voices(seconds: 5, seed: 77)).map { $0 + 2 * $1 })
    #expect(index.match(stranger) == nil)
  }

  @Test("a song held twice is named with its twin, where the two would keep each other unnamed")
  func songHeldTwice() throws {
    let fingerprinter = Fingerprinter()
    let songs = (0..<4).map { melody(seconds: 20, seed: UInt64(60 + $0)) }
    // Song 0 again, quieter and a second later: a compilation's copy of an album's song.
    let twin = [Float](repeating: 0, count: 44_100) + songs[0].map { 0.7 * $0 }
    let prints =
      songs.enumerated().map { fingerprinter.print(id: "s\($0)", mono: $1) }
      + [fingerprinter.print(id: "twin", mono: twin)]
    let excerpt = Array(songs[0][132_300..<352_800])
    let noisy = zip(excerpt, voices(seconds: 5, seed: 3)).map { $0 + 0.5 * $1 }
    let heard = fingerprinter.recording(mono: noisy)

    let match = try #require(FingerprintIndex(songs: prints).match(heard))
    #expect(Set([match.songID] + match.sameAudio) == ["s0", "twin"])
    #expect(abs(match.offset - (match.songID == "s0" ? 3 : 4)) < 0.1, "\(match.offset)")
    // Without the twin test, the two agree alike and neither is named.
    var p = fingerprinter.parameters
    p.sameAudioShare = 2
    #expect(FingerprintIndex(songs: prints, parameters: p).match(heard) == nil)
    // Alone, song 0 is named with no twin; a recording of none of them names nothing.
    let alone = try #require(FingerprintIndex(songs: Array(prints.prefix(4))).match(heard))
    #expect(alone.songID == "s0" && alone.sameAudio.isEmpty)
    let stranger = fingerprinter.recording(
      mono: zip(melody(seconds: 5, seed: 99), voices(seconds: 5, seed: 4)).map { $0 + 0.5 * $1 })
    #expect(FingerprintIndex(songs: prints).match(stranger) == nil)
  }

  @Test("a print's bits are kept in the prints file and read back by song number")
  func storedBits() throws {
    let fingerprinter = Fingerprinter()
    let prints = (0..<3).map {
      fingerprinter.print(id: "s\($0)", mono: melody(seconds: 8, seed: UInt64(60 + $0)))
    }
    let data = IndexFile.encode(prints, parameters: fingerprinter.parameters)
    let back = try IndexFile.decode(data, parameters: fingerprinter.parameters)
    #expect(back == prints)
    #expect(back[1].bits.count > 300)
    let index = FingerprintIndex(songs: prints)
    #expect(index.bits(ofSong: 2) == prints[2].bits)
    #expect(index.bits(ofSong: 3).isEmpty)
    // A bit count that runs past the record is refused.
    var packed = IndexFile.pack(prints[0].peaks, bits: prints[0].bits)
    packed[0] = 0xFF
    packed[1] = 0xFF
    #expect(throws: IndexFile.ReadError.self) {
      try packed.withUnsafeBytes { try IndexFile.unpackBits($0) }
    }
  }
}
