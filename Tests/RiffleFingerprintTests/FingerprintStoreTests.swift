import Foundation
import RiffleAPI
import RiffleCore
import RiffleTestSupport
import Testing

@testable import RiffleFingerprint

@Suite("Fingerprint store", .serialized)
struct FingerprintStoreTests {
  let dir: TemporaryDirectory
  let feed = URL(string: "file:///feeds/test.json")!

  init() throws {
    dir = try TemporaryDirectory("riffle-fp")
    for name in ["riffle-001", "riffle-003", "riffle-006"] {
      try FileManager.default.copyItem(
        at: TestFiles.catalog.appendingPathComponent("audio/\(name).mp3"),
        to: dir.file("\(name).mp3"))
    }
  }

  func song(_ name: String) -> Song {
    Song(
      id: name, title: "T \(name)", displayName: "A", handle: "a",
      audioURL: dir.file("\(name).mp3"))
  }

  var store: FingerprintStore { FingerprintStore(folder: dir.file("cache")) }

  @Test("the first update fingerprints every song and writes the file; the next reads it")
  func firstAndSecond() throws {
    let first = store.update(feed: feed, songs: [song("riffle-001"), song("riffle-003")])
    #expect(first.fingerprinted == ["riffle-001", "riffle-003"])
    #expect(first.problems.isEmpty)
    #expect(FileManager.default.fileExists(atPath: store.file(for: feed).path))
    let stored = store.stored(for: feed)
    #expect(stored.map(\.id) == ["riffle-001", "riffle-003"])
    #expect(stored.allSatisfy { $0.peaks.count > 100 && $0.duration > 15 })
    let p = store.fingerprinter.parameters
    #expect(stored.allSatisfy { $0.landmarks(parameters: p).count > 1_000 })
    #expect(first.index.peaks(ofSong: 1) == stored[1].peaks)

    let again = store.update(feed: feed, songs: [song("riffle-001"), song("riffle-003")])
    #expect(again.fingerprinted.isEmpty)
    #expect(again.index.songIDs == first.index.songIDs)
    #expect(again.index.postingCount == first.index.postingCount)
  }

  @Test("an update names its songs beside the prints; the store is found and searched by them")
  func namesBeside() throws {
    let secretFeed = URL(string: "https://user:hunter2@music.example.org/feed.json?token=s3cret")!
    let songs = [song("riffle-001"), song("riffle-003")]
    _ = store.update(feed: secretFeed, songs: songs)
    let named = store.namedStores()
    #expect(named.count == 1)
    #expect(named.first?.prints == store.file(for: secretFeed))
    #expect(named.first?.names.source == "the feed at music.example.org")
    #expect(named.first?.names.songs["riffle-003"] == .init(title: "T riffle-003", artist: "A"))
    // The names file holds no part of the address but its host.
    let text = try String(contentsOf: store.namesFile(for: secretFeed), encoding: .utf8)
    for secret in ["s3cret", "hunter2", "user", "feed.json"] { #expect(!text.contains(secret)) }

    // Found by its file alone, the store answers as the feed's does.
    let index = try store.storedIndex(prints: try #require(named.first?.prints))
    #expect(index.songIDs == ["riffle-001", "riffle-003"])

    // A song gone from the feed leaves the names; a file that is not names is passed over.
    _ = store.update(feed: secretFeed, songs: [songs[1]])
    #expect(store.namedStores().first?.names.songs.keys.sorted() == ["riffle-003"])
    try Data("not json".utf8).write(to: store.namesFile(for: secretFeed))
    #expect(store.namedStores().isEmpty)
  }

  @Test("a store's source is said as the user knows it, never its address")
  func sourceNames() {
    #expect(StoreNames.source(ofKey: URL(string: "riffle:queue")!) == "up next")
    #expect(StoreNames.source(ofKey: URL(string: "riffle:server")!) == "your server")
    #expect(StoreNames.source(ofKey: URL(string: "riffle:search")!) == "a search")
    #expect(StoreNames.source(ofKey: URL(string: "riffle:unknown")!) == "a page you opened")
    #expect(
      StoreNames.source(ofKey: URL(fileURLWithPath: "/home/u/feeds/mine.json"))
        == "the feed mine.json")
    #expect(
      StoreNames.source(ofKey: URL(string: "http://127.0.0.1:8080/f.json?key=abc")!)
        == "the feed at 127.0.0.1")
    #expect(
      StoreNames.source(ofKey: URL(fileURLWithPath: "/home/u/Music/Soundtracks", isDirectory: true))
        == "the folder Soundtracks")
    #expect(
      StoreNames.source(ofKey: URL(fileURLWithPath: "/home/u/lists/road trip.m3u8"))
        == "the playlist road trip.m3u8")
    #expect(
      StoreNames.source(ofKey: URL(string: "https://u:pw@example.com/mix.pls?token=t")!)
        == "the playlist at example.com")
  }

  @Test("a song added to the feed is the only one fingerprinted; a removed one is dropped")
  func incremental() throws {
    _ = store.update(feed: feed, songs: [song("riffle-001"), song("riffle-003")])
    let grown = store.update(
      feed: feed, songs: [song("riffle-001"), song("riffle-003"), song("riffle-006")])
    #expect(grown.fingerprinted == ["riffle-006"])
    #expect(store.stored(for: feed).map(\.id) == ["riffle-001", "riffle-003", "riffle-006"])

    let shrunk = store.update(feed: feed, songs: [song("riffle-006")])
    #expect(shrunk.fingerprinted.isEmpty)
    #expect(store.stored(for: feed).map(\.id) == ["riffle-006"])
  }

  @Test("songs added go beside the mapped table, which is built again when one is removed")
  func tableKeptForAdded() throws {
    let feed = self.feed
    _ = store.update(feed: feed, songs: [song("riffle-001"), song("riffle-003")])
    let table = store.tableFile(for: feed)
    func identity() throws -> String {
      let values = try FileManager.default.attributesOfItem(atPath: table.path)
      return "\(values[.systemFileNumber] ?? 0) \(values[.modificationDate] ?? 0)"
    }
    let built = try identity()
    let grown = store.update(
      feed: feed, songs: [song("riffle-001"), song("riffle-003"), song("riffle-006")])
    #expect(grown.index.songIDs == ["riffle-001", "riffle-003", "riffle-006"])
    #expect(try identity() == built)
    // The prints file was written again, the kept songs first: the table's records of them
    // still lie where it says, and the added song's peaks are in memory.
    let stored = store.stored(for: feed)
    for number in 0..<3 {
      #expect(!stored[number].peaks.isEmpty)
      #expect(grown.index.peaks(ofSong: number) == stored[number].peaks)
    }
    let added = try #require(store.stored(for: feed).last)
    let query = excerpt(added, from: 200, to: 600)
    #expect(try #require(grown.index.match(query)).songID == "riffle-006")

    let shrunk = store.update(feed: feed, songs: [song("riffle-003"), song("riffle-006")])
    #expect(shrunk.index.songIDs == ["riffle-003", "riffle-006"])
    #expect(try identity() != built)
    #expect(try #require(shrunk.index.match(query)).songID == "riffle-006")
    #expect(shrunk.index.peaks(ofSong: 1) == stored[2].peaks)
  }

  @Test("a killed build's temporary file is removed by the next update; none is left behind")
  func staleTemporary() throws {
    try FileManager.default.createDirectory(
      at: dir.file("cache"), withIntermediateDirectories: true)
    let stale = dir.file("cache/.\(store.tableFile(for: feed).lastPathComponent).999999999.tmp")
    try Data("half a table".utf8).write(to: stale)
    _ = store.update(feed: feed, songs: [song("riffle-001")])
    #expect(!FileManager.default.fileExists(atPath: stale.path))
    let names = try FileManager.default.contentsOfDirectory(atPath: dir.file("cache").path)
    #expect(
      names.sorted()
        == [store.file(for: feed), store.tableFile(for: feed), store.namesFile(for: feed)].map(
          \.lastPathComponent
        ).sorted())
  }

  @Test("a damaged table is built again")
  func damagedTable() throws {
    _ = store.update(feed: feed, songs: [song("riffle-001")])
    try Data("RFPT garbage".utf8).write(to: store.tableFile(for: feed))
    let again = store.update(feed: feed, songs: [song("riffle-001")])
    #expect(again.fingerprinted.isEmpty)
    #expect(again.problems.isEmpty)
    #expect(again.index.postingCount > 1_000)
  }

  @Test("a song whose audio file changed is fingerprinted again")
  func changedAudio() throws {
    _ = store.update(feed: feed, songs: [song("riffle-001"), song("riffle-003")])
    let file = dir.file("riffle-003.mp3")
    try FileManager.default.removeItem(at: file)
    try FileManager.default.copyItem(
      at: TestFiles.catalog.appendingPathComponent("audio/riffle-006.mp3"), to: file)
    let update = store.update(feed: feed, songs: [song("riffle-001"), song("riffle-003")])
    #expect(update.fingerprinted == ["riffle-003"])
  }

  @Test("an index of another format version or damaged is rebuilt")
  func rebuilt() throws {
    _ = store.update(feed: feed, songs: [song("riffle-001")])
    var data = try Data(contentsOf: store.file(for: feed))
    data[4] = 3  // the version that kept landmarks
    try data.write(to: store.file(for: feed))
    #expect(store.stored(for: feed).isEmpty)
    let again = store.update(feed: feed, songs: [song("riffle-001")])
    #expect(again.fingerprinted == ["riffle-001"])
    #expect(again.index.peaks(ofSong: 0) == store.stored(for: feed)[0].peaks)
    data[4] = 0
    try data.write(to: store.file(for: feed))
    #expect(store.update(feed: feed, songs: [song("riffle-001")]).fingerprinted == ["riffle-001"])
    try Data("garbage".utf8).write(to: store.file(for: feed))
    #expect(store.update(feed: feed, songs: [song("riffle-001")]).fingerprinted == ["riffle-001"])
  }

  @Test("a song that cannot be fetched or decoded is reported and left out")
  func problems() throws {
    try Data("not audio at all".utf8).write(to: dir.file("bad.mp3"))
    var missing = song("riffle-001")
    missing.id = "missing"
    missing.audioURL = dir.file("nowhere.mp3")
    let update = store.update(feed: feed, songs: [song("bad"), missing, song("riffle-001")])
    #expect(update.index.songIDs == ["riffle-001"])
    #expect(update.problems.count == 2)
    #expect(update.problems[0].hasPrefix("T bad: not an audio format"))
  }
}
