import Foundation
import Testing

@testable import RiffleFingerprint

/// Random landmarks, as a song's would be: `count` hashes over `frames` frames.
func randomPrint(_ id: String, seed: UInt64, count: Int = 3_000, frames: Int = 2_000)
  -> SongPrint
{
  var generator = TestRandom(seed: seed)
  let landmarks = (0..<count).map { _ in
    Landmark(
      hash: UInt32(generator.next() % (1 << LandmarkHasher.hashBits)),
      frame: UInt32(generator.next() % UInt64(frames)))
  }.sorted { $0.frame < $1.frame }
  return SongPrint(id: id, audioKey: "file:///\(id)", duration: 46, landmarks: landmarks)
}

/// The landmarks of `print` between two frames, as a query starting at `from` would see them.
func excerpt(_ print: SongPrint, from: UInt32, to: UInt32) -> [Landmark] {
  print.landmarks.filter { $0.frame >= from && $0.frame < to }.map {
    Landmark(hash: $0.hash, frame: $0.frame - from)
  }
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
    #expect(index.postingCount == 20 * 3_000)
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
    #expect(try #require(index.match(shifted)).offset == 0)
  }
}

@Suite("Index file")
struct IndexFileTests {
  let songs = [randomPrint("a", seed: 1, count: 50), randomPrint("b", seed: 2, count: 0)]

  @Test("songs written and read back are the same")
  func roundTrip() throws {
    let p = FingerprintParameters()
    let data = IndexFile.encode(songs, parameters: p)
    let packed = IndexFile.pack(songs[0].landmarks).count
    #expect(data.count == 16 + (2 + 1 + 2 + 9 + 8 + 4 + 4 + packed) + (2 + 1 + 2 + 9 + 8 + 4 + 4))
    // Read back in (frame, hash) order.
    var expected = songs
    expected[0].landmarks.sort { ($0.frame, $0.hash) < ($1.frame, $1.hash) }
    #expect(try IndexFile.decode(data, parameters: p) == expected)
  }

  @Test("landmarks are packed by anchor: pairs of one anchor share its frame and bin")
  func packing() throws {
    let anchor = (0..<12).map {
      Landmark(
        hash: LandmarkHasher.hash(bin: 300, binDelta: $0 - 6, frameDelta: $0 + 1), frame: 70_000)
    }
    let other = Landmark(
      hash: LandmarkHasher.hash(bin: 12, binDelta: 3, frameDelta: 9), frame: 70_200)
    let packed = IndexFile.pack(anchor + [other])
    // 3 varint bytes (70,000) + 2 + 12 * 2, then 2 varint bytes (200) + 2 + 2.
    #expect(packed.count == 29 + 6)
    let back = try packed.withUnsafeBytes { try IndexFile.unpack($0, count: 13) }
    #expect(Set(back) == Set(anchor + [other]))
    #expect(throws: IndexFile.ReadError.self) {
      try packed.withUnsafeBytes { try IndexFile.unpack($0, count: 12) }
    }
    #expect(throws: IndexFile.ReadError.self) {
      try packed.dropLast().withUnsafeBytes { try IndexFile.unpack($0, count: 13) }
    }
  }

  @Test("real landmarks take under a kilobyte per second of audio on disk")
  func sizePerSecond() throws {
    let samples = melody(seconds: 20)
    let print = SongPrint(
      id: "m", audioKey: "", duration: 20, landmarks: Fingerprinter().landmarks(mono: samples))
    let bytes = IndexFile.encode([print], parameters: FingerprintParameters()).count
    #expect(print.landmarks.count > 1_000)
    #expect(Double(bytes) / 20 < 1_000)
    #expect(Double(bytes) / Double(print.landmarks.count) < 3)
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
    data[4] = 9
    #expect(throws: IndexFile.ReadError.otherVersion(9)) {
      try IndexFile.decode(data, parameters: p)
    }
  }
}
