import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleFingerprint

@Suite("Mapped table")
struct TableFileTests {
  let dir: TemporaryDirectory
  let parameters = FingerprintParameters()
  let songs = (0..<12).map { randomPrint("song-\($0)", seed: UInt64($0) + 40) }

  init() throws { dir = try TemporaryDirectory("riffle-table") }

  func writePrints(_ prints: [SongPrint]) throws -> URL {
    let url = dir.file("prints.rfpi")
    let writer = try PrintFileWriter(to: url, parameters: parameters)
    for print in prints { try writer.append(print) }
    try writer.finish()
    return url
  }

  @Test("built a few hashes at a time, the table holds the rows built in memory, in order")
  func streamedEqualsMemory() throws {
    let prints = try writePrints(songs)
    // 1,000 postings at a time: the 36,000 postings take dozens of passes.
    try TableFile.build(
      from: prints, to: dir.file("t.rfpt"), parameters: parameters, bufferPostings: 1_000)
    let table = try TableFile.open(dir.file("t.rfpt"), parameters: parameters)
    let memory = MemoryTable(songs: songs)
    #expect(Array(table.offsets) == Array(memory.offsets))
    #expect(Array(table.postings) == Array(memory.postings))
    #expect(table.entries.map(\.id) == songs.map(\.id))

    let index = FingerprintIndex(table: table, added: [], parameters: parameters)
    let match = try #require(index.match(excerpt(songs[7], from: 300, to: 700)))
    #expect(match.songID == "song-7")
    #expect(abs(match.offset - 300 * parameters.frameSeconds) < 1e-9)
  }

  @Test("songs added after the table are searched beside it, numbered after it")
  func addedBeside() throws {
    let prints = try writePrints(Array(songs.prefix(8)))
    try TableFile.build(from: prints, to: dir.file("t.rfpt"), parameters: parameters)
    let table = try TableFile.open(dir.file("t.rfpt"), parameters: parameters)
    let index = FingerprintIndex(table: table, added: Array(songs[8...]), parameters: parameters)
    #expect(index.songIDs == songs.map(\.id))
    #expect(index.postingCount == 12 * 3_000)
    #expect(try #require(index.match(excerpt(songs[10], from: 100, to: 600))).songID == "song-10")
    #expect(try #require(index.match(excerpt(songs[2], from: 100, to: 600))).songID == "song-2")
  }

  @Test("a table cut short, of another version or not a table is refused, not read")
  func damaged() throws {
    let prints = try writePrints(songs)
    let url = dir.file("t.rfpt")
    try TableFile.build(from: prints, to: url, parameters: parameters)
    let whole = try Data(contentsOf: url)
    try whole.prefix(whole.count - 100).write(to: url)
    #expect(throws: IndexFile.ReadError.self) { try TableFile.open(url, parameters: parameters) }
    var other = whole
    other[4] = 9
    try other.write(to: url)
    #expect(throws: IndexFile.ReadError.otherVersion(9)) {
      try TableFile.open(url, parameters: parameters)
    }
    // Rows that run backwards would send a query outside the postings.
    var backwards = whole
    backwards[TableFile.headerSize + 4 * 1000] = 0xFF
    backwards[TableFile.headerSize + 4 * 1000 + 3] = 0x7F
    try backwards.write(to: url)
    #expect(throws: IndexFile.ReadError.self) { try TableFile.open(url, parameters: parameters) }
    try Data("RFPT".utf8).write(to: url)
    #expect(throws: IndexFile.ReadError.self) { try TableFile.open(url, parameters: parameters) }
  }

  @Test("the prints file read a song at a time gives what was written, packed")
  func readerRoundTrip() throws {
    let prints = try writePrints(songs)
    var read: [SongPrint] = []
    try TableFile.eachSong(prints, parameters: parameters) { _, print in
      var landmarks: [Landmark] = []
      try IndexFile.forEachLandmark(print.packed, count: print.landmarkCount) {
        landmarks.append(Landmark(hash: $0, frame: $1))
      }
      read.append(
        SongPrint(
          id: print.id, audioKey: print.audioKey, duration: print.duration, landmarks: landmarks))
    }
    let sorted = songs.map { song in
      var song = song
      song.landmarks.sort { ($0.frame, $0.hash) < ($1.frame, $1.hash) }
      return song
    }
    #expect(read == sorted)
    #expect(try IndexFile.decode(Data(contentsOf: prints), parameters: parameters) == sorted)
  }
}
