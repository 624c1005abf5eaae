import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleFingerprint

@Suite("The whole of a small index")
struct ScanTests {
  /// Six melodies of 20 s, fingerprinted once, and a recording of 6 s of the third from 7 s
  /// in under voices as loud as the music (`voices`). None of the parameters a scan reads
  /// shapes a print or a recording.
  static let material: (prints: [SongPrint], recording: Recording) = {
    let fingerprinter = Fingerprinter()
    let songs = (0..<6).map { melody(seconds: 20, seed: UInt64(30 + $0)) }
    return (
      songs.enumerated().map { fingerprinter.print(id: "s\($0)", mono: $1) },
      fingerprinter.recording(
        mono: mixed(Array(songs[2][308_700..<573_300]), voices(seconds: 6, seed: 12), snr: 0))
    )
  }()

  /// An index of the six made with `p`, and the recording, its peaks kept only when
  /// `keepPeaks` (without them no hash can find the song); the frame the recording starts at.
  func setUp(_ p: FingerprintParameters = FingerprintParameters(), keepPeaks: Bool = false)
    -> (index: FingerprintIndex, recording: Recording, offset: Int)
  {
    let index = FingerprintIndex(songs: Self.material.prints, parameters: p)
    var recording = Self.material.recording
    if !keepPeaks {
      recording.peaks = []
      recording.densePeaks = []
    }
    return (index, recording, Int((7 / p.frameSeconds).rounded()))
  }

  @Test("a song the hashes cannot find is found by its bits at every offset, and named")
  func scanFindsTheSong() throws {
    let (index, recording, offset) = setUp()
    let scanned = index.scanned(recording)
    #expect(scanned.count == 6)
    let third = try #require(scanned.first { $0.first?.songNumber == 2 })
    #expect(third.allSatisfy { $0.speed == 1 && $0.score == 0 })
    #expect(third.contains { abs($0.offsetFrames - offset) <= 1 }, "\(third.map(\.offsetFrames))")
    let match = try #require(index.match(recording))
    #expect(match.songID == "s2")
    #expect(abs(match.offset - 7) < 0.1, "offset \(match.offset)")
    #expect(match.speed == 1)
  }

  @Test("a scan compares every frame of the recording up to 5 hours of songs, every second above")
  func scanQueryStepBySize() {
    let p = FingerprintParameters()
    #expect(p.scanQueryStep(indexSeconds: 600) == 1)
    #expect(p.scanQueryStep(indexSeconds: 5 * 3600) == 1)
    #expect(p.scanQueryStep(indexSeconds: 5 * 3600 + 1) == 2)
    #expect(p.scanQueryStep(indexSeconds: p.scanSeconds) == 2)
    var coarse = p
    coarse.scanQueryStep = 0
    #expect(coarse.scanQueryStep(indexSeconds: 60) == 1)
    // The same song is found and placed to the frame either way.
    var large = p
    large.scanLargeSeconds = 10
    let (index, recording, offset) = setUp(large)
    let third = index.scanned(recording).first { $0.first?.songNumber == 2 } ?? []
    #expect(third.contains { abs($0.offsetFrames - offset) <= 1 }, "\(third.map(\.offsetFrames))")
  }

  @Test("a recording of a song not in the index is not named by the scan")
  func scanNamesNoStranger() {
    let p = FingerprintParameters()
    let fingerprinter = Fingerprinter(parameters: p)
    let index = setUp().index
    for seed in 0..<4 {
      var recording = fingerprinter.recording(
        mono: mixed(
          Array(melody(seconds: 8, seed: UInt64(70 + seed)).prefix(264_600)),
          voices(seconds: 6, seed: UInt64(80 + seed)), snr: 0))
      recording.peaks = []
      recording.densePeaks = []
      #expect(!index.scanned(recording).isEmpty)
      #expect(index.match(recording) == nil)
    }
  }

  @Test("an index of more songs or more audio than a scan allows is not scanned")
  func scanOnlySmallIndexes() {
    var fewSongs = FingerprintParameters()
    fewSongs.scanMaxSongs = 5
    var fewSeconds = FingerprintParameters()
    fewSeconds.scanSeconds = 100
    for p in [fewSongs, fewSeconds] {
      let (index, recording, _) = setUp(p)
      #expect(index.scanned(recording).isEmpty)
      #expect(index.match(recording) == nil)
    }
    // A recording longer than a scan is asked for.
    var shortRecordings = FingerprintParameters()
    shortRecordings.scanMaxRecordingSeconds = 5
    let (index, recording, _) = setUp(shortRecordings)
    #expect(index.scanned(recording).isEmpty)
  }

  @Test("a scan adds a song's offsets after those the hashes found, not twice")
  func scanAddsAfterHashes() throws {
    let (index, recording, _) = setUp(keepPeaks: true)
    let found = index.alignments(
      peaks: recording.peaks, songs: 10, perSong: index.parameters.alignmentsPerSong)
    let added = index.addingScanned(recording, to: found)
    #expect(added.count >= found.count)
    for (before, after) in zip(found, added) {
      #expect(Array(after.prefix(before.count)) == before)
      let offsets = after.dropFirst(before.count).map(\.offsetFrames)
      for offset in offsets {
        #expect(
          after.filter { abs($0.offsetFrames - offset) < Int(OffsetVotes.minSeparation) }.count
            == 1)
      }
    }
    #expect(Set(added.map { $0[0].songNumber }).count == added.count)
  }

  @Test("an offset the scan found counts scanPenalty less, and never backs a song's hashes")
  func scannedOffsetsCountLess() throws {
    let (index, recording, offset) = setUp(keepPeaks: true)
    let p = index.parameters
    #expect(p.scanPenalty > 0)
    // Song 2 as the hashes might have it, at a chance offset 300 frames off, and as a scan
    // finds it, where the recording was cut from.
    let byHashes = index.match(
      song: 2, offset: Int64(offset + 300), score: 40, runnerUp: 0, queryHashes: 500)
    var byScan = index.match(song: 2, offset: Int64(offset), score: 0, runnerUp: 0, queryHashes: 0)
    byScan.fromScan = true
    let stored = index.stored(ofSong: 2)
    let there = index.measures(for: byScan, with: recording, stored: stored)
    let chance = index.measures(for: byHashes, with: recording, stored: stored)
    #expect(there.evidence > chance.evidence + 5 + p.scanPenalty)
    var memo = FingerprintIndex.EvidenceMemo()
    let checked = index.checked([[byHashes, byScan]], denseFrom: 1, recording, memo: &memo)
    let best = try #require(checked.first?.best)
    #expect(abs((best.evidence ?? 0) - (there.evidence - p.scanPenalty)) < 1e-9)
    #expect(best.offsetFrames == offset)
    #expect(abs((best.evidenceWithoutBass ?? -99) - chance.without) < 1e-9)
    #expect(checked.first?.score == 40)
  }

  @Test("a song the hashes placed where it agrees less is placed where it agrees the most")
  func placedWhereItAgreesMost() throws {
    let (index, recording, offset) = setUp(keepPeaks: true)
    let p = index.parameters
    let stored = index.stored(ofSong: 2)
    // Song 2 as hashes gathered at a repeat might place it: 300 frames off.
    var elsewhere = index.match(
      song: 2, offset: Int64(offset + 300), score: 40, runnerUp: 3, queryHashes: 500)
    elsewhere.evidence = index.measures(for: elsewhere, with: recording, stored: stored).evidence
    let moved = index.placed(elsewhere, recording)
    #expect(abs(moved.offsetFrames - offset) <= 1, "\(moved.offsetFrames)")
    #expect(abs(moved.offset - 7) < 0.1)
    #expect(moved.speed == 1 && !moved.fromScan)
    #expect((moved.evidence ?? 0) > (elsewhere.evidence ?? 0) + FingerprintIndex.evidenceTie)
    // What the hashes found stays: the song, its hashes, how far it led.
    #expect(moved.songID == "s2" && moved.score == 40 && moved.runnerUp == 3)

    // Where it agrees as much already, it stays.
    var there = index.match(
      song: 2, offset: Int64(offset), score: 40, runnerUp: 3, queryHashes: 500)
    there.evidence = index.measures(for: there, with: recording, stored: stored).evidence
    #expect(index.placed(there, recording) == there)

    // Not an answer found away from speed 1, nor one the scan found, nor with it turned off.
    var fast = elsewhere
    fast.speed = 1.03
    #expect(index.placed(fast, recording) == fast)
    var scanned = elsewhere
    scanned.fromScan = true
    #expect(index.placed(scanned, recording) == scanned)
    var off = p
    off.placesByScan = false
    let unplaced = setUp(off, keepPeaks: true).index
    #expect(unplaced.placed(elsewhere, recording) == elsewhere)
  }

  @Test("a song placed at one of two copies of a passage stays there: they agree alike")
  func exactRepeatStays() throws {
    // A passage, another, and the first again, each 430 frames long (1,024 samples a frame
    // at 44.1 kHz) so that both copies fall on the same frame grid; the recording is 6 s of
    // the second copy from 2 s in, under voices 5 dB below it.
    let frame = 1_024
    let passage = Array(melody(seconds: 10, seed: 51).prefix(430 * frame))
    let other = Array(melody(seconds: 10, seed: 52).prefix(430 * frame))
    let song = passage + other + passage
    let fingerprinter = Fingerprinter()
    let index = FingerprintIndex(
      songs: [fingerprinter.print(id: "loop", mono: song)], parameters: fingerprinter.parameters)
    let start = 860 * frame + 86 * frame
    let recording = fingerprinter.recording(
      mono: mixed(Array(song[start..<(start + 258 * frame)]), voices(seconds: 6, seed: 53), snr: 5))
    let stored = try #require(index.stored(ofSong: 0))
    for offset in [86, 946] {
      var answer = index.match(
        song: 0, offset: Int64(offset), score: 30, runnerUp: 0, queryHashes: 400)
      answer.evidence = index.measures(for: answer, with: recording, stored: stored).evidence
      #expect((answer.evidence ?? 0) > 10, "copy at \(offset): \(answer.evidence ?? 0)")
      #expect(index.placed(answer, recording) == answer, "copy at \(offset) moved")
    }
    // Between the copies, where neither is, it is moved to one of them.
    var between = index.match(song: 0, offset: 500, score: 30, runnerUp: 0, queryHashes: 400)
    between.evidence = index.measures(for: between, with: recording, stored: stored).evidence
    let moved = index.placed(between, recording).offsetFrames
    #expect([86, 946].contains { abs($0 - moved) <= 1 }, "\(moved)")
  }
}
