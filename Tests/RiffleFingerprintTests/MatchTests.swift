import Foundation
import Testing

@testable import RiffleFingerprint

/// Random peaks, as a song's would be: `count` peaks over `frames` frames (20 a second, the
/// most a song keeps), in the bins a peak may sit in.
func randomPrint(_ id: String, seed: UInt64, count: Int = 900, frames: Int = 2_000)
  -> SongPrint
{
  var generator = TestRandom(seed: seed)
  let peaks = (0..<count).map { _ in
    Peak(
      frame: Int(generator.next() % UInt64(frames)), bin: 9 + Int(generator.next() % 503),
      prominence: 0)
  }
  return SongPrint(id: id, audioKey: "file:///\(id)", duration: 46, peaks: peaks)
}

/// The landmarks of `print`'s peaks between two frames, as a query starting at `from` would
/// see them.
func excerpt(_ print: SongPrint, from: Int, to: Int) -> [Landmark] {
  LandmarkHasher.landmarks(
    print.peaks.filter { $0.frame >= from && $0.frame < to }.map {
      Peak(frame: $0.frame - from, bin: $0.bin, prominence: 0)
    }, parameters: FingerprintParameters())
}

/// Landmarks stored of `songs`: what an index of them holds.
func landmarkCount(_ songs: [SongPrint]) -> Int {
  songs.reduce(0) { $0 + $1.landmarks(parameters: FingerprintParameters()).count }
}

@Suite("Matching")
struct MatchTests {
  @Test("votes: the song with the most hashes agreeing on one offset wins, with that offset")
  func bestOffset() throws {
    var votes: [UInt64] =
      Array(repeating: OffsetVotes.vote(song: 1, offset: 40), count: 12)
      + Array(repeating: OffsetVotes.vote(song: 0, offset: 7), count: 5)
      + (0..<9).map { OffsetVotes.vote(song: 0, offset: Int64($0 * 10)) }
      + Array(repeating: OffsetVotes.vote(song: 2, offset: -3), count: 4)
    let best = try #require(OffsetVotes.best(&votes))
    #expect(best.song == 1 && best.offset == 40 && best.score == 12)
    // Song 0's best single offset (7) has 5 votes, its scattered ones one each (10 is one
    // frame from nothing; 0 is far from 7).
    #expect(best.runnerUp == 5)
  }

  @Test("votes one frame apart count together, reported at the fuller frame")
  func adjacentOffsets() throws {
    var votes: [UInt64] =
      Array(repeating: OffsetVotes.vote(song: 0, offset: -1), count: 3)
      + Array(repeating: OffsetVotes.vote(song: 0, offset: 0), count: 6)
      + Array(repeating: OffsetVotes.vote(song: 3, offset: 100), count: 8)
    let best = try #require(OffsetVotes.best(&votes))
    #expect(best.song == 0 && best.offset == 0 && best.score == 9 && best.runnerUp == 8)
  }

  @Test("each song's best few offsets, at least a few frames apart, best first")
  func alignmentsPerSong() {
    var votes: [UInt64] =
      Array(repeating: OffsetVotes.vote(song: 0, offset: 100), count: 9)
      + Array(repeating: OffsetVotes.vote(song: 0, offset: 101), count: 3)
      + Array(repeating: OffsetVotes.vote(song: 0, offset: 400), count: 6)
      + Array(repeating: OffsetVotes.vote(song: 0, offset: 402), count: 5)
      + Array(repeating: OffsetVotes.vote(song: 0, offset: 700), count: 2)
      + Array(repeating: OffsetVotes.vote(song: 1, offset: 50), count: 8)
    var scratch = votes
    let top = votes.withUnsafeMutableBufferPointer { votes in
      scratch.withUnsafeMutableBufferPointer { scratch in
        OffsetVotes.topAlignments(votes, scratch: scratch, keyBits: 40, count: 2, perSong: 2)
      }
    }
    #expect(top.map(\.song) == [0, 1])
    // 100 and 101 count together, at the fuller frame; 402 is too near 400 to count apart,
    // and 700 is third.
    #expect(
      top[0].alignments == [
        OffsetVotes.Alignment(offset: 100, score: 12), OffsetVotes.Alignment(offset: 400, score: 6),
      ])
    #expect(top[1].alignments == [OffsetVotes.Alignment(offset: 50, score: 8)])
  }

  @Test(
    "votes of 32 bits sort and count as those of 64 do (radix passes over 31-bit keys)",
    arguments: [40_000, 80_000])
  func narrowVotes(count: Int) {
    // 10,000 songs' worth of key (14 bits of song over 17 of offset); a few offsets of a few
    // songs drawn often, so that their counts and the frames beside them matter. 80,000 votes
    // are sorted by 16-bit digits, 40,000 by 11-bit ones.
    var generator = TestRandom(seed: 5)
    let wide: [UInt64] = (0..<count).map { i in
      let song = i % 7 == 0 ? Int(generator.next() % 3) : Int(generator.next() % 10_000)
      let offset = i % 7 == 0 ? Int64(generator.next() % 4) : Int64(generator.next() % 60_000)
      return OffsetVotes.vote(song: song, offset: offset - 400)
    }
    func top<Vote: FixedWidthInteger & UnsignedInteger>(_ votes: [Vote]) -> [(
      song: Int, alignments: [OffsetVotes.Alignment]
    )] {
      var votes = votes
      var scratch = votes
      return votes.withUnsafeMutableBufferPointer { votes in
        scratch.withUnsafeMutableBufferPointer { scratch in
          OffsetVotes.topAlignments(votes, scratch: scratch, keyBits: 31, count: 5, perSong: 3)
        }
      }
    }
    var sorted = wide.map { UInt32($0) }
    var scratch = sorted
    sorted.withUnsafeMutableBufferPointer { votes in
      scratch.withUnsafeMutableBufferPointer { scratch in
        OffsetVotes.radixSort(votes, scratch: scratch, keyBits: 31)
      }
    }
    #expect(sorted == wide.map { UInt32($0) }.sorted())
    let fromWide = top(wide)
    let fromNarrow = top(wide.map { UInt32($0) })
    #expect(fromWide.map(\.song) == fromNarrow.map(\.song))
    #expect(fromWide.map(\.alignments) == fromNarrow.map(\.alignments))
    #expect(fromWide.prefix(3).map(\.song).sorted() == [0, 1, 2])
  }

  /// 200,000 votes of chance over 10,000 songs, as a search of a 10,000-song index gathers,
  /// with alignments planted among them: some well above the rest, some near the tenth
  /// song's few votes (ties included), some across the edge of 8 frames the counting groups.
  static func plantedVotes(seed: UInt64) -> [UInt32] {
    var generator = TestRandom(seed: seed)
    var votes: [UInt64] = (0..<200_000).map { _ in
      OffsetVotes.vote(
        song: Int(generator.next() % 10_000), offset: Int64(generator.next() % 12_000) - 500)
    }
    for planted in 0..<40 {
      // Forty songs, none drawn twice.
      let song = Int(generator.next() % 250) * 40 + planted
      // Offsets of every remainder by 8: the last is on the edge, its neighbour in the next 8.
      let offset = Int64(generator.next() % 10_000) / 8 * 8 + Int64(planted % 8)
      let score = planted < 5 ? 20 + planted : 3 + planted % 5
      for i in 0..<score {
        votes.append(OffsetVotes.vote(song: song, offset: offset + Int64(i % 2)))
      }
      // A second, weaker alignment of the same song, further on.
      for _ in 0..<(score / 3) { votes.append(OffsetVotes.vote(song: song, offset: offset + 40)) }
    }
    // Chance order, as rows are read.
    for i in stride(from: votes.count - 1, to: 0, by: -1) {
      votes.swapAt(i, Int(generator.next() % UInt64(i + 1)))
    }
    return votes.map { UInt32($0) }
  }

  @Test(
    "counting the votes by 8 frames first, only the fullest sorted: the songs and alignments of sorting them all, from a threshold too low or too high",
    arguments: [(1, 3), (2, 4), (3, 7), (4, 60)])
  func prunedVotes(seed: UInt64, threshold: Int) throws {
    let votes = Self.plantedVotes(seed: seed)
    var all = votes
    var scratch = votes
    let expected = all.withUnsafeMutableBufferPointer { all in
      scratch.withUnsafeMutableBufferPointer { scratch in
        OffsetVotes.topAlignments(all, scratch: scratch, keyBits: 31, count: 10, perSong: 8)
      }
    }
    let buffer = VoteBuffer<UInt32>()
    buffer.reserve(votes.count)
    let pruned = votes.withUnsafeBufferPointer { votes in
      let copy = UnsafeMutableBufferPointer(rebasing: buffer.votes[0..<votes.count])
      _ = copy.update(fromContentsOf: votes)
      return OffsetVotes.prunedTopAlignments(
        copy, scratch: UnsafeMutableBufferPointer(rebasing: buffer.scratch[0..<votes.count]),
        keyBits: 31, count: 10, perSong: 8, counts: buffer.counts(of: UnsafeBufferPointer(copy)),
        from: threshold)
    }
    let found = try #require(pruned)
    #expect(found.top.map(\.song) == expected.map(\.song))
    #expect(found.top.map(\.alignments) == expected.map(\.alignments))
    #expect(found.threshold == expected.last?.alignments[0].score)
    // The planted songs lead; the votes themselves are left in the order they came.
    #expect(expected.prefix(5).allSatisfy { $0.alignments[0].score >= 20 })
    #expect(Array(buffer.votes[0..<votes.count]) == votes)
  }

  @Test("an alignment across the edge of 8 frames is counted whole in both cells")
  func coarseCountsEdge() {
    let cells = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 16)
    defer { cells.deallocate() }
    let counts = CoarseCounts(cells: cells)
    // Biased offsets 7 and 8 (the bias is a multiple of 8): two cells.
    let before = OffsetVotes.vote(song: 12, offset: 7)
    let after = OffsetVotes.vote(song: 12, offset: 8)
    for _ in 0..<3 { counts.add(before) }
    for _ in 0..<4 { counts.add(after) }
    #expect(counts[before] >= 7 && counts[after] >= 7)
    // Counts stop at 255 instead of wrapping.
    for _ in 0..<300 { counts.add(OffsetVotes.vote(song: 40, offset: 100)) }
    #expect(counts[OffsetVotes.vote(song: 40, offset: 100)] == 255)
  }

  @Test("pruning gives way to sorting every vote when fewer songs than wanted stand out")
  func prunedFewSongs() {
    var generator = TestRandom(seed: 9)
    var votes: [UInt32] = (0..<40_000).map { _ in
      UInt32(
        OffsetVotes.vote(
          song: Int(generator.next() % 10_000), offset: Int64(generator.next() % 12_000)))
    }
    for song in 0..<3 {
      votes += Array(repeating: UInt32(OffsetVotes.vote(song: song, offset: 50)), count: 100)
    }
    let buffer = VoteBuffer<UInt32>()
    var scratch = votes
    let pruned = votes.withUnsafeMutableBufferPointer { votes in
      scratch.withUnsafeMutableBufferPointer { scratch in
        OffsetVotes.prunedTopAlignments(
          votes, scratch: scratch, keyBits: 31, count: 10, perSong: 2,
          counts: buffer.counts(of: UnsafeBufferPointer(votes)), from: 4)
      }
    }
    #expect(pruned == nil)
  }

  @Test("a passage a song plays twice is found at both places")
  func repeatedPassage() throws {
    let passage = randomPrint("passage", seed: 21, count: 450, frames: 1_000).peaks
    let twice = SongPrint(
      id: "twice", audioKey: "", duration: 60,
      peaks: passage + passage.map { Peak(frame: $0.frame + 1_500, bin: $0.bin, prominence: 0) })
    let index = FingerprintIndex(songs: [twice, randomPrint("other", seed: 22)])
    let query = passage.filter { $0.frame >= 200 && $0.frame < 600 }.map {
      Peak(frame: $0.frame - 200, bin: $0.bin, prominence: 0)
    }
    let found = index.alignments(peaks: query, songs: 2, perSong: 4)
    let offsets = try #require(found.first).map(\.offsetFrames)
    #expect(found.first?.first?.songID == "twice")
    #expect(offsets.prefix(2).sorted() == [200, 1_700])
  }

  @Test("searched again at speed 1 with denser peaks: a song the voices crowded out is added")
  func densePeaksAtSpeedOne() throws {
    let song = randomPrint("song", seed: 31)
    let index = FingerprintIndex(
      songs: [song] + (0..<20).map { randomPrint("other\($0)", seed: 40 + UInt64($0)) })
    // Ten seconds of the song under voices as loud: twice its peaks of their own, which take
    // all but one in sixteen of the song's places among the recording's 20 a second.
    let heard = song.peaks.filter { $0.frame >= 400 && $0.frame < 830 }.map {
      Peak(frame: $0.frame - 400, bin: $0.bin, prominence: 0)
    }
    var random = TestRandom(seed: 5)
    let voices = (0..<2 * heard.count).map { _ in
      Peak(frame: Int(random.next() % 430), bin: 9 + Int(random.next() % 503), prominence: 0)
    }
    func ordered(_ peaks: [Peak]) -> [Peak] {
      peaks.sorted { ($0.frame, $0.bin) < ($1.frame, $1.bin) }
    }
    let crowded = ordered(
      voices + heard.enumerated().filter { $0.offset % 16 == 0 }.map(\.element))
    let dense = ordered(voices + heard)
    func scoreAt400(_ songs: [[FingerprintMatch]]) -> Int {
      songs.joined().filter { $0.songID == "song" && $0.offsetFrames == 400 }.map(\.score)
        .max() ?? 0
    }
    let alone = index.alignments(peaks: crowded, songs: 2, perSong: 2)
    let both = index.addingDense(dense, to: alone, songs: 2, perSong: 2)
    // The crowded peaks leave the song unfound at its place; the dense search adds it there,
    // at speed 1, after what the first search found (which stays as it was).
    #expect(scoreAt400(alone) == 0)
    #expect(
      Array(both.songs.prefix(both.denseFrom)).map { $0.prefix(2).map(\.offsetFrames) }
        == alone.map { $0.prefix(2).map(\.offsetFrames) })
    let added = both.songs.joined().filter { $0.songID == "song" && $0.offsetFrames == 400 }
    #expect(!added.isEmpty && added.allSatisfy { $0.speed == 1 })
    #expect(scoreAt400(both.songs) >= 20)
    // With no songs to add (`denseCandidates` 0), only alignments of the songs found.
    var off = FingerprintParameters()
    off.denseCandidates = 0
    let plain = FingerprintIndex(songs: [song], parameters: off)
    let none = plain.addingDense(
      dense, to: plain.alignments(peaks: crowded, songs: 2, perSong: 2), songs: 2, perSong: 2)
    #expect(none.songs.count == none.denseFrom)
  }

  @Test("of two indexes' answers, more evidence outranks more hashes; hashes break a tie")
  func outranks() {
    func answer(_ score: Int, _ evidence: Double?) -> FingerprintMatch {
      var match = FingerprintMatch(
        songID: "s\(score)", offset: 0, score: score, runnerUp: 0, queryHashes: 900)
      match.evidence = evidence
      return match
    }
    // A library song heard clearly through voices beats a feed's with more chance hashes.
    #expect(answer(12, 14).outranks(answer(40, 9)))
    #expect(!answer(40, 9).outranks(answer(12, 14)))
    #expect(answer(30, 10).outranks(answer(20, 10)))
    // Equal answers: neither outranks the other (the first found is kept).
    #expect(!answer(20, 10).outranks(answer(20, 10)))
    // An answer never checked counts as no evidence.
    #expect(answer(5, 1).outranks(answer(50, nil)))
  }

  @Test("two songs hold the same audio where most of the peaks of each lie on the other's")
  func sameAudio() {
    let song = randomPrint("a", seed: 11).peaks.sorted { ($0.frame, $0.bin) < ($1.frame, $1.bin) }
    // The same peaks 300 frames later (a copy with a longer start), some a bin or a frame off
    // (another encoding), a fifth of them gone and others in their place.
    var random = TestRandom(seed: 12)
    let copy =
      song.compactMap { peak -> Peak? in
        switch random.next() % 10 {
        case 0, 1: return nil
        case 2: return Peak(frame: peak.frame + 300, bin: peak.bin + 1, prominence: 0)
        case 3: return Peak(frame: peak.frame + 301, bin: peak.bin, prominence: 0)
        default: return Peak(frame: peak.frame + 300, bin: peak.bin, prominence: 0)
        }
      }
      + randomPrint("noise", seed: 13, count: 150).peaks.map {
        Peak(frame: $0.frame + 300, bin: $0.bin, prominence: 0)
      }
    let copyPeaks = copy.sorted { ($0.frame, $0.bin) < ($1.frame, $1.bin) }
    let other = randomPrint("b", seed: 14).peaks.sorted { ($0.frame, $0.bin) < ($1.frame, $1.bin) }
    let p = FingerprintParameters()
    func same(_ a: [Peak], _ at: Int, _ b: [Peak], _ bt: Int, frames: Int = 215) -> Bool {
      FingerprintIndex.holdSameAudio((a, at, 1), (b, bt, 1), frames: frames, parameters: p)
    }
    #expect(same(song, 500, copyPeaks, 800))
    #expect(same(copyPeaks, 800, song, 500))
    // Not where the recording lines them up elsewhere, nor another song.
    #expect(!same(song, 500, copyPeaks, 900))
    #expect(!same(song, 500, other, 500))
    let shared = FingerprintIndex.sharedPeaks(
      around: (song, 500, 1), (other, 500, 1), frames: 215, parameters: p)
    #expect((shared ?? 1) < 0.1, "\(String(describing: shared))")
    // Nor a song that shares only the recording's 5 s (one drum pattern at one tempo): the
    // songs are compared over 20 s around it.
    let brief =
      (other.filter { $0.frame < 500 || $0.frame >= 715 }
      + song.filter { $0.frame >= 500 && $0.frame < 715 }).sorted {
        ($0.frame, $0.bin) < ($1.frame, $1.bin)
      }
    #expect(
      FingerprintIndex.sharedPeaks((song, 500, 1), (brief, 500, 1), frames: 215) == 1)
    #expect(!same(song, 500, brief, 500))
    // A song too short to show 20 peaks around the recording is nobody's twin.
    let short = Array(song.prefix(10))
    #expect(!same(short, 0, short, 0))
  }

  @Test("no votes, no answer")
  func empty() {
    var votes: [UInt64] = []
    #expect(OffsetVotes.best(&votes) == nil)
  }

  @Test("confidence needs a minimum score, a margin over the runner-up and a share of the query")
  func confidence() {
    let p = FingerprintParameters()
    func match(_ score: Int, _ runnerUp: Int, _ hashes: Int) -> FingerprintMatch {
      FingerprintMatch(
        songID: "a", offset: 0, score: score, runnerUp: runnerUp, queryHashes: hashes)
    }
    #expect(OffsetVotes.isConfident(match(p.minScore, 0, 100), parameters: p))
    #expect(!OffsetVotes.isConfident(match(p.minScore - 1, 0, 100), parameters: p))
    // The margin over the runner-up, either side of it.
    let runnerUp = 12
    let enough = Int((Double(runnerUp) * p.minMarginOverRunnerUp).rounded(.up))
    #expect(OffsetVotes.isConfident(match(enough, runnerUp, 100), parameters: p))
    #expect(!OffsetVotes.isConfident(match(enough - 1, runnerUp, 100), parameters: p))
    let hashes = Int(Double(30) / p.minShareOfQuery) + 100
    #expect(!OffsetVotes.isConfident(match(30, 0, hashes), parameters: p))
  }

  @Test("an index finds the song and where the excerpt starts; a stranger finds nothing")
  func indexMatch() throws {
    let songs = (0..<20).map { randomPrint("song-\($0)", seed: UInt64($0) + 1) }
    let index = FingerprintIndex(songs: songs)
    #expect(index.postingCount == landmarkCount(songs))
    #expect(index.postingCount > 20 * 3_000)
    let query = excerpt(songs[13], from: 431, to: 862)
    let match = try #require(index.match(query))
    #expect(match.songID == "song-13")
    #expect(abs(match.offset - 431 * index.parameters.frameSeconds) < 1e-9)
    #expect(match.score == query.count)

    let stranger = randomPrint("stranger", seed: 999)
    #expect(index.match(excerpt(stranger, from: 0, to: 500)) == nil)
  }

  @Test("a query starting before the song is placed at 0")
  func negativeOffset() throws {
    let song = randomPrint("only", seed: 5)
    let index = FingerprintIndex(songs: [song])
    let shifted = excerpt(song, from: 0, to: 400).map {
      Landmark(hash: $0.hash, frame: $0.frame + 50)
    }
    #expect(shifted.count > 100)
    #expect(try #require(index.match(shifted)).offset == 0)
  }
}

@Suite("Index file")
struct IndexFileTests {
  let songs = [randomPrint("a", seed: 1, count: 50), randomPrint("b", seed: 2, count: 0)]

  @Test("songs written and read back are the same, peaks and all")
  func roundTrip() throws {
    let p = FingerprintParameters()
    let data = IndexFile.encode(songs, parameters: p)
    let packed = IndexFile.pack(songs[0].peaks).count
    // The second song's packed bytes are its bit count and its bass count alone (4 bytes
    // each, no bits, no peaks).
    #expect(
      data.count == 16 + (2 + 1 + 2 + 9 + 8 + 4 + 4 + packed) + (2 + 1 + 2 + 9 + 8 + 4 + 4 + 8))
    #expect(try IndexFile.decode(data, parameters: p) == songs)
    #expect(songs[0].peaks.count == 50)
  }

  @Test("a print's bits and its bass's bits are kept beside its peaks and read back")
  func bitsAndBass() throws {
    let p = FingerprintParameters()
    var song = randomPrint("c", seed: 3, count: 20)
    song.bits = (0..<30).map { UInt32(truncatingIfNeeded: $0 &* 2_654_435_761) }
    song.bass = (0..<30).map { UInt8(truncatingIfNeeded: $0 &* 37) }
    let packed = IndexFile.pack(song.peaks, bits: song.bits, bass: song.bass)
    #expect(packed.count == IndexFile.pack(song.peaks).count + 30 * 4 + 30)
    let stored = try packed.withUnsafeBytes { try StoredPrint(packed: $0, count: 20) }
    #expect(stored.peaks == song.peaks && stored.bits == song.bits && stored.bass == song.bass)
    #expect(try IndexFile.decode(IndexFile.encode([song], parameters: p), parameters: p) == [song])
    // A bass count beyond the bytes is refused.
    var cut = packed
    cut[4 + 30 * 4] = 200
    #expect(throws: IndexFile.ReadError.self) {
      try cut.withUnsafeBytes { try StoredPrint(packed: $0, count: 20) }
    }
  }

  @Test("peaks are packed as one varint each of the frame step and the bin")
  func packing() throws {
    let peaks = [
      Peak(frame: 70_000, bin: 300, prominence: 0),
      Peak(frame: 70_000, bin: 301, prominence: 0),
      Peak(frame: 70_015, bin: 9, prominence: 0),
      Peak(frame: 70_016, bin: 574, prominence: 0),
    ]
    let packed = IndexFile.pack(peaks)
    // The bit count and the bass count (4 bytes each, no bits); 70,000 << 10 | 300 takes 4
    // varint bytes; then 301 (2), 15 << 10 | 9 (2), 1 << 10 | 574 (2).
    #expect(packed.count == 4 + 4 + 4 + 2 + 2 + 2)
    let back = try packed.withUnsafeBytes { try IndexFile.unpack($0, count: 4) }
    #expect(back == peaks)
    #expect(throws: IndexFile.ReadError.self) {
      try packed.withUnsafeBytes { try IndexFile.unpack($0, count: 3) }
    }
    #expect(throws: IndexFile.ReadError.self) {
      try packed.dropLast().withUnsafeBytes { try IndexFile.unpack($0, count: 4) }
    }
    // A bin no print holds is refused.
    #expect(throws: IndexFile.ReadError.self) {
      try [UInt8(0xFF), 0x05].withUnsafeBytes { try IndexFile.unpack($0, count: 1) }
    }
  }

  @Test("a print keeps the peaks at the whole positions the landmarks are made from")
  func wholePeaks() {
    let p = FingerprintParameters()
    let fine = [
      Peak(frame: 12, bin: 120, prominence: 3, fineFrame: 12.4, fineBin: 119.6),
      Peak(frame: 3, bin: 90, prominence: 5, fineFrame: 2.6, fineBin: 90.2),
      Peak(frame: 0, bin: 70, prominence: 1, fineFrame: -0.2, fineBin: 70),
      Peak(frame: 4, bin: 700, prominence: 1),  // a bin no landmark holds
    ]
    let print = SongPrint(id: "f", audioKey: "", duration: 1, peaks: fine)
    #expect(
      print.peaks == [
        Peak(frame: 0, bin: 70, prominence: 0), Peak(frame: 3, bin: 90, prominence: 0),
        Peak(frame: 12, bin: 120, prominence: 0),
      ])
    #expect(print.landmarks(parameters: p) == LandmarkHasher.landmarks(fine, parameters: p))
    #expect(print.landmarks(parameters: p).count == 3)
  }

  @Test("landmarks from a real song's stored peaks are those made straight from the recording")
  func storedPeaksGiveTheLandmarks() throws {
    let p = FingerprintParameters()
    let samples = melody(seconds: 20)
    let fingerprinter = Fingerprinter()
    let made = SongPrint(
      id: "m", audioKey: "k", duration: 20, peaks: fingerprinter.peaks(mono: samples))
    let back = try #require(
      try IndexFile.decode(IndexFile.encode([made], parameters: p), parameters: p).first)
    #expect(back == made)
    let straight = fingerprinter.landmarks(mono: samples)
    #expect(straight.count > 1_000)
    #expect(back.landmarks(parameters: p) == straight)
  }

  @Test("a real song's prints take under 0.1 KB per second of audio on disk")
  func sizePerSecond() throws {
    let samples = melody(seconds: 20)
    let print = SongPrint(
      id: "m", audioKey: "", duration: 20, peaks: Fingerprinter().peaks(mono: samples))
    let bytes = IndexFile.encode([print], parameters: FingerprintParameters()).count
    #expect(print.peaks.count > 200)
    #expect(Double(bytes) / 20 < 100)
    #expect(Double(bytes - 16 - 30) / Double(print.peaks.count) < 2.5)
  }

  @Test("another format version, other parameters, a cut file or other bytes are refused")
  func refusals() {
    let p = FingerprintParameters()
    var data = IndexFile.encode(songs, parameters: p)
    var other = p
    other.fanOut += 1
    #expect(throws: IndexFile.ReadError.otherParameters) {
      try IndexFile.decode(data, parameters: other)
    }
    #expect(throws: IndexFile.ReadError.truncated) {
      try IndexFile.decode(data.prefix(data.count - 3), parameters: p)
    }
    #expect(throws: IndexFile.ReadError.notAnIndex) {
      try IndexFile.decode(Data("{\"songs\": []}".utf8), parameters: p)
    }
    data[4] = 3
    #expect(throws: IndexFile.ReadError.otherVersion(3)) {
      try IndexFile.decode(data, parameters: p)
    }
  }
}
