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
    // 4,000 postings at a time: the landmarks made from the peaks (some 70,000) take dozens
    // of passes, each making them again for its anchors' bins.
    #expect(landmarkCount(songs) > 60_000)
    try TableFile.build(
      from: prints, to: dir.file("t.rfpt"), parameters: parameters, bufferPostings: 4_000)
    let table = try TableFile.open(dir.file("t.rfpt"), parameters: parameters)
    let memory = MemoryTable(songs: songs, parameters: parameters)
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
    #expect(index.postingCount == landmarkCount(songs))
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
      read.append(
        SongPrint(
          id: print.id, audioKey: print.audioKey, duration: print.duration,
          peaks: try print.peaks()))
    }
    #expect(read == songs)
    #expect(try IndexFile.decode(Data(contentsOf: prints), parameters: parameters) == songs)
  }

  @Test("a song's peaks by number: read from the prints file, or from memory for songs added")
  func peaksByNumber() throws {
    let prints = try writePrints(Array(songs.prefix(8)))
    try TableFile.build(from: prints, to: dir.file("t.rfpt"), parameters: parameters)
    let table = try TableFile.open(dir.file("t.rfpt"), parameters: parameters)
    let index = FingerprintIndex(
      table: table, added: Array(songs[8...]), parameters: parameters, prints: prints)
    let inMemory = FingerprintIndex(songs: songs, parameters: parameters)
    for (number, song) in songs.enumerated() {
      #expect(!song.peaks.isEmpty)
      #expect(index.peaks(ofSong: number) == song.peaks)
      #expect(inMemory.peaks(ofSong: number) == song.peaks)
      #expect(index.songNumber(of: song.id) == number)
    }
    #expect(index.peaks(ofSong: 12).isEmpty && index.peaks(ofSong: -1).isEmpty)
    #expect(index.songNumber(of: "song-99") == nil)
    // Queries run off the main queue: many threads at once read the same file.
    let agree = Slots(24)
    DispatchQueue.concurrentPerform(iterations: 24) { n in
      agree.set(n, index.peaks(ofSong: n % 12) == songs[n % 12].peaks)
    }
    #expect(agree.all)
  }

  @Test("a prints file cut short or changed behind the table gives no peaks, not a crash")
  func peaksOfDamagedFile() throws {
    let prints = try writePrints(songs)
    try TableFile.build(from: prints, to: dir.file("t.rfpt"), parameters: parameters)
    let table = try TableFile.open(dir.file("t.rfpt"), parameters: parameters)
    let index = FingerprintIndex(table: table, added: [], parameters: parameters, prints: prints)
    let whole = try Data(contentsOf: prints)

    // Cut short in place: the last song's record is no longer all there.
    let handle = try FileHandle(forWritingTo: prints)
    try handle.truncate(atOffset: UInt64(whole.count - 10))
    #expect(index.peaks(ofSong: 11).isEmpty)
    #expect(index.peaks(ofSong: 0) == songs[0].peaks)

    // A byte of song 3's peaks changed in place.
    var changed = whole
    changed[table.records[3].offset + table.records[3].length - 5] ^= 0x01
    try handle.seek(toOffset: 0)
    try handle.write(contentsOf: changed)
    #expect(index.peaks(ofSong: 3).isEmpty)
    #expect(index.peaks(ofSong: 4) == songs[4].peaks)

    // The songs written again in another order, in place: no song gets another's peaks.
    let other = dir.file("other.rfpi")
    let writer = try PrintFileWriter(to: other, parameters: parameters)
    for print in songs.reversed() { try writer.append(print) }
    try writer.finish()
    try handle.seek(toOffset: 0)
    try handle.write(contentsOf: try Data(contentsOf: other))
    for (number, song) in songs.enumerated() {
      let peaks = index.peaks(ofSong: number)
      #expect(peaks.isEmpty || peaks == song.peaks)
    }
    #expect(index.peaks(ofSong: 0).isEmpty)

    // Garbage, or no file at all when the index is made.
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: Data("RFPI but not really".utf8))
    try handle.close()
    #expect(index.peaks(ofSong: 5).isEmpty)
    try FileManager.default.removeItem(at: prints)
    let orphan = FingerprintIndex(table: table, added: [], parameters: parameters, prints: prints)
    #expect(orphan.peaks(ofSong: 5).isEmpty)
    #expect(orphan.songIDs.count == 12)
  }
}

/// Answers set from many threads.
private final class Slots: @unchecked Sendable {
  private let lock = NSLock()
  private var values: [Bool]
  init(_ count: Int) { values = Array(repeating: false, count: count) }
  func set(_ i: Int, _ value: Bool) { lock.withLock { values[i] = value } }
  var all: Bool { lock.withLock { values.allSatisfy { $0 } } }
}
