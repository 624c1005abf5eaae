import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleFingerprint

@Suite("A backing two songs share")
struct SharedBackingTests {
  @Test("the rule: a rival that shares only a backing stands as far under as its peaks")
  func rule() {
    let p = FingerprintParameters()
    // The benchmark's case (a colobot loop two tracks are built on, under voices, 10 s): the
    // song at 11.7, the other track at 9.8, where 4.5 clear is asked under 14.8.
    var candidates = [
      MatchRule.Candidate(score: 55, evidence: 11.7, queryHashes: 1_800),
      MatchRule.Candidate(score: 54, evidence: 9.8, queryHashes: 1_800),
    ]
    #expect(MatchRule.choose(candidates, seconds: 10, parameters: p) == nil)
    // Their peaks 11.9 and 6.4: the other counts 5.5 under the song.
    candidates[1].rivalEvidence = 11.7 - 5.5
    #expect(MatchRule.choose(candidates, seconds: 10, parameters: p) == 0)
    // Never more than its evidence...
    candidates[1].rivalEvidence = 30
    #expect(MatchRule.choose(candidates, seconds: 10, parameters: p) == nil)
    // ...and the floor still holds: a song at 11 is not named at 10 s however clear.
    candidates[0].evidence = 11
    candidates[1].rivalEvidence = 0
    #expect(MatchRule.choose(candidates, seconds: 10, parameters: p) == nil)
    #expect(MatchRule.choose(candidates, seconds: 5, parameters: p) == 0)
  }

  @Test("a song whose bits another shares, but not its peaks, is named by the peaks")
  func sharedBacking() throws {
    let fingerprinter = Fingerprinter()
    let songs = (0..<2).map { melody(seconds: 20, seed: UInt64(60 + $0)) }
    let song = fingerprinter.print(id: "song", mono: songs[0])
    // Another track on the same backing: the song's bits and bass (its bands move alike),
    // its notes elsewhere (every peak 37 bins up).
    let remix = SongPrint(
      id: "remix", audioKey: "", duration: 20,
      peaks: song.peaks.map { Peak(frame: $0.frame, bin: ($0.bin + 37) % 512, prominence: 0) },
      bits: song.bits, bass: song.bass)
    let other = fingerprinter.print(id: "other", mono: songs[1])
    let index = FingerprintIndex(songs: [song, remix, other])
    let excerpt = Array(songs[0][132_300..<352_800])
    let heard = fingerprinter.recording(
      mono: zip(excerpt, voices(seconds: 5, seed: 3)).map { $0 + 0.5 * $1 })

    // The three as the hashes might leave them: the song where the excerpt was cut, the
    // remix there too, a little under it, and another song a little further.
    var at = FingerprintMatch(songID: "song", offset: 3, score: 40, runnerUp: 0, queryHashes: 900)
    at.offsetFrames = Int((3 / fingerprinter.parameters.frameSeconds).rounded())
    let evidence = index.evidence(for: at, with: heard)
    #expect(evidence > 12, "\(evidence)")
    at.evidence = evidence
    var alike = at
    (alike.songID, alike.songNumber, alike.evidence) = ("remix", 1, evidence - 1)
    var far = at
    (far.songID, far.songNumber, far.evidence) = ("other", 2, evidence - 3.5)
    let checked = [(40, at), (38, alike), (12, far)].map { (score: $0.0, best: $0.1) }

    let weighed = index.weighed(checked, heard)
    #expect(weighed.map(\.best.songID) == ["song", "remix", "other"])
    let rivals = weighed.map(\.rival)
    let peaks = try #require(
      heard.probe.agreement(peaks: song.peaks, offsetFrames: at.offsetFrames, speed: 1))
    let remixPeaks =
      heard.probe.agreement(peaks: remix.peaks, offsetFrames: at.offsetFrames, speed: 1) ?? 0
    #expect(peaks - remixPeaks > 4, "\(peaks) \(remixPeaks)")
    #expect(rivals[0] == nil && rivals[2] == nil, "\(rivals)")
    #expect(rivals[1] == evidence - (peaks - remixPeaks), "\(rivals)")
    #expect(index.chosen(checked, heard)?.songID == "song")

    // Without the rule the two agree alike, and neither is named.
    var p = fingerprinter.parameters
    p.sharedBackingByPeaks = false
    let off = FingerprintIndex(songs: [song, remix, other], parameters: p)
    #expect(off.weighed(checked, heard).allSatisfy { $0.rival == nil })
    #expect(off.chosen(checked, heard) == nil)
    // A copy of the song itself (its peaks agree as well) is its twin, not a rival: taken
    // out in the same pass, the song named with it beside.
    let copy = SongPrint(
      id: "copy", audioKey: "", duration: 20, peaks: song.peaks, bits: song.bits,
      bass: song.bass)
    let twice = FingerprintIndex(songs: [song, copy, other])
    var held = checked
    (held[1].best.songID, held[1].best.songNumber) = ("copy", 1)
    let merged = twice.weighed(held, heard)
    #expect(merged.map(\.best.songID) == ["song", "other"])
    #expect(merged.allSatisfy { $0.rival == nil })
    #expect(merged[0].best.sameAudio == ["copy"])
    #expect(twice.chosen(held, heard)?.sameAudio == ["copy"])
  }
}
