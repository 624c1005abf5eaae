import Foundation
import RiffleAudio
import RiffleTestSupport
import Testing

@testable import RiffleLibrary

#if canImport(Glibc)
  import Glibc
#endif

@Suite("LibraryScanner and LibraryIndex over real encoded files")
struct LibraryScannerTests {
  /// A copy of the fixture, an index beside it and a scanner (loudness off unless asked).
  private struct Setup {
    let dir: TemporaryDirectory
    let music: URL
    let index: LibraryIndex
    let scanner: LibraryScanner

    init(loudness: Bool = false) throws {
      dir = try TemporaryDirectory("riffle-library")
      music = try LibraryFixture.copy(into: dir)
      index = try LibraryIndex(url: dir.file("data/library.sqlite"))
      scanner = LibraryScanner(index: index)
      scanner.measuresLoudness = loudness
    }

    func scan() throws -> ScanReport { try scanner.scan(roots: [music]) }
    func path(_ relative: String) -> String { music.appendingPathComponent(relative).path }
    func song(_ relative: String) throws -> LibrarySong? {
      try index.songs(.all, limit: 1000).first { $0.path == path(relative) }
    }
  }

  @Test("a first scan takes every song, reports each bad file and the loop, and counts")
  func firstScan() throws {
    let setup = try Setup()
    let report = try setup.scan()
    #expect(report.counts.songs == LibraryFixture.songCount)
    #expect(report.new == LibraryFixture.songCount)
    #expect(report.changed == 0 && report.removed == 0)
    #expect(report.unreadable == LibraryFixture.unreadable.count)
    for name in LibraryFixture.unreadable {
      #expect(report.issues.contains { $0.path == setup.path("bad/" + name) }, "\(name)")
    }
    let messages = Dictionary(
      report.issues.map { ($0.path, $0.message) }, uniquingKeysWith: { a, _ in a })
    #expect(messages[setup.path("bad/empty.mp3")] == "empty file")
    #expect(messages[setup.path("bad/text.mp3")] == "not audio Riffle plays (text)")
    #expect(messages[setup.path("bad/picture.mp3")] == "not audio Riffle plays (a JPEG picture)")
    #expect(messages[setup.path("bad/loop")]?.hasPrefix("symbolic link loop") == true)
    #expect(messages[setup.path("odd/long.mp3")] == "title tag cut from 9999 to 500 characters")
    #expect(
      messages[setup.path("odd/hostile.mp3")] == "escape sequences removed from the title tag")
    // Albums: Homogenic, Ágætis byrjun, Hits. Artists: Björk, Sigur Rós, 坂本龍一, Alpha, Beta,
    // Ωmega, Esc, Verbose, Señor.
    #expect(report.counts.albums == 3)
    #expect(report.counts.artists == 9)
  }

  @Test("tags of every format map to the fields, covers and lyrics beside included")
  func fieldsPerFormat() throws {
    let setup = try Setup()
    _ = try setup.scan()
    let hunter = try #require(try setup.song("Björk/Homogenic/01 Hunter.flac"))
    #expect(hunter.info.title == "Hunter" && hunter.info.artist == "Björk")
    #expect(hunter.info.album == "Homogenic" && hunter.info.track == 1 && hunter.info.disc == 1)
    #expect(hunter.info.year == 1997 && hunter.info.genre == "Electronic")
    #expect(hunter.info.trackGain == -6.5 && hunter.info.albumGain == -7)
    #expect(hunter.info.hasEmbeddedCover)
    #expect(hunter.coverPath == setup.path("Björk/Homogenic/cover.jpg"))
    #expect(abs((hunter.info.duration ?? 0) - 1) < 0.05)

    let joga = try #require(try setup.song("Björk/Homogenic/02 Jóga.mp3"))
    #expect(joga.info.title == "Jóga" && joga.info.track == 2 && joga.info.hasEmbeddedCover)
    #expect(joga.song.audioURL == URL(fileURLWithPath: setup.path("Björk/Homogenic/02 Jóga.mp3")))
    #expect(joga.song.imageURL == URL(fileURLWithPath: setup.path("Björk/Homogenic/cover.jpg")))

    let bachelorette = try #require(try setup.song("Björk/Homogenic/03 Bachelorette.m4a"))
    #expect(bachelorette.info.albumArtist == "Björk" && bachelorette.info.hasEmbeddedCover)
    #expect(try setup.index.lyrics(path: bachelorette.path) == "I'm a fountain of blood")

    let svefn = try #require(try setup.song("Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg"))
    #expect(svefn.info.artist == "Sigur Rós" && svefn.info.year == 1999)
    #expect(svefn.lrcPath == setup.path("Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.lrc"))
    #expect(try setup.index.lyrics(path: svefn.path) == "Tjú")
    #expect(!svefn.info.hasEmbeddedCover && svefn.coverPath == nil)

    let staralfur = try #require(try setup.song("Sigur Rós/Ágætis byrjun/02 Starálfur.opus"))
    #expect(staralfur.info.title == "Starálfur" && staralfur.info.track == 2)

    let wav = try #require(try setup.song("坂本龍一/戦場のメリークリスマス/01.wav"))
    #expect(wav.info.title == "Merry Christmas Mr. Lawrence" && wav.info.artist == "坂本龍一")

    #expect(try setup.song("odd/utf16.mp3")?.info.title == "Ünïcödé ☃")
    let latin1 = try #require(try setup.song("odd/latin1.mp3"))
    #expect(latin1.info.title == "Café del Mar" && latin1.info.artist == "Señor")
    #expect(try setup.song("odd/hostile.mp3")?.info.title == "Calm")
    #expect(try setup.song("odd/long.mp3")?.info.title.count == TagMapping.longestText)
    #expect(try setup.song("odd/flac-named.mp3")?.info.title == "Really FLAC")
    let untagged = try #require(try setup.song("untagged/a/song.mp3"))
    #expect(untagged.info.title == "song" && untagged.song.displayName == "Unknown artist")
  }

  @Test("album order: artist, album, disc, track; untagged files last by folder and name")
  func albumOrder() throws {
    let setup = try Setup()
    _ = try setup.scan()
    let all = try setup.index.songs(.all, limit: 100)
    let titles = all.map(\.info.title)
    #expect(titles.prefix(3) == ["Hunter", "Jóga", "Bachelorette"])
    #expect(Array(titles.suffix(2)) == ["song", "track"])
    // Paged by offset and limit, the same order.
    let paged = try (0..<8).flatMap { try setup.index.songs(.all, offset: $0 * 2, limit: 2) }
    #expect(paged.map(\.path) == all.map(\.path))
    // An album, an artist (as album artist too).
    let hits = try setup.index.songs(.album("Hits", artist: "Various Artists"))
    #expect(hits.map(\.info.title) == ["First Hit", "Second Hit"])
    #expect(try setup.index.songs(.artist("various artists")).count == 2)
    #expect(try setup.index.songs(.artist("Alpha")).map(\.info.title) == ["First Hit"])
    #expect(try setup.index.playerSongs(.album("homogenic", artist: nil)).count == 3)
    // A folder: only what is under it (not "Björk/Homogenic2"), in album order.
    #expect(
      try setup.index.songs(.folder(setup.path("Björk/") + "/")).map(\.info.title) == [
        "Hunter", "Jóga", "Bachelorette",
      ])
    #expect(try setup.index.songs(.folder(setup.path("untagged/a"))).map(\.info.title) == ["song"])
    #expect(try setup.index.songs(.folder("/")).count == LibraryFixture.songCount)
  }

  @Test("search: prefixes, case and accents aside, every word required, syntax harmless")
  func search() throws {
    let setup = try Setup()
    _ = try setup.scan()
    func titles(_ term: String) throws -> Set<String> {
      Set(try setup.index.songs(.search(term)).map(\.info.title))
    }
    #expect(try titles("bjo") == ["Hunter", "Jóga", "Bachelorette"])
    #expect(try titles("BJÖRK joga") == ["Jóga"])
    // Accents go; letters of their own match as typed and as usually spelt: "AGÆ", "agae".
    #expect(try titles("AGÆT") == ["Svefn-g-englar", "Starálfur"])
    #expect(try titles("agaetis") == ["Svefn-g-englar", "Starálfur"])
    #expect(try titles("staralf") == ["Starálfur"])
    #expect(try titles("坂本龍一") == ["Merry Christmas Mr. Lawrence"])
    #expect(try titles("various") == ["First Hit", "Second Hit"])
    #expect(try titles("electro") == ["Hunter", "Jóga", "Bachelorette"])
    #expect(try titles("nothing matches this") == [])
    for hostile in ["\"", "bjo*", "NEAR(a b)", "a OR", "-", "^", "title:x", "'; DROP TABLE songs"] {
      _ = try titles(hostile)
    }
    #expect(try setup.index.counts().songs == LibraryFixture.songCount)
  }

  @Test("a rescan with nothing changed reads nothing; a changed file is read again")
  func incremental() throws {
    let setup = try Setup()
    _ = try setup.scan()
    let again = try setup.scan()
    #expect(again.new == 0 && again.changed == 0 && again.removed == 0)
    #expect(again.counts.songs == LibraryFixture.songCount)
    // Same size, new time: read again. A bad file replaced by a song becomes one.
    let joga = setup.path("Björk/Homogenic/02 Jóga.mp3")
    var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
    #expect(utimensat(AT_FDCWD, joga, &times, 0) == 0)
    try FileManager.default.removeItem(atPath: setup.path("bad/text.mp3"))
    try FileManager.default.copyItem(
      atPath: setup.path("untagged/a/song.mp3"), toPath: setup.path("bad/text.mp3"))
    try FileManager.default.removeItem(atPath: setup.path("Compilations/Hits/02.mp3"))
    try FileManager.default.createDirectory(
      atPath: setup.path("New/Folder"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: setup.path("untagged/b/track.mp3"), toPath: setup.path("New/Folder/x.mp3"))
    let third = try setup.scan()
    #expect(third.changed == 1)
    #expect(third.new == 2)
    #expect(third.removed == 1)
    #expect(third.unreadable == LibraryFixture.unreadable.count - 1)
    #expect(third.counts.songs == LibraryFixture.songCount + 1)
    #expect(try setup.index.songs(.search("second")).isEmpty)
  }

  @Test("the same song twice is kept and said once, of the copy, by the scan that found it")
  func duplicates() throws {
    let setup = try Setup()
    _ = try setup.scan()
    let copy = setup.path("Björk/Homogenic/02 Jóga (1).mp3")
    try FileManager.default.copyItem(
      atPath: setup.path("Björk/Homogenic/02 Jóga.mp3"), toPath: copy)
    let report = try setup.scan()
    #expect(report.new == 1)
    // (The link loop in the fixture is said at every scan.)
    #expect(
      report.issues.filter { !$0.message.hasPrefix("symbolic link loop") } == [
        ScanIssue(
          path: copy, message: "the same song as \(setup.path("Björk/Homogenic/02 Jóga.mp3"))")
      ])
    #expect(try setup.index.songs(.search("joga")).count == 2)
    #expect(try setup.scan().issues.filter { $0.message.hasPrefix("the same song") }.isEmpty)
  }

  @Test("a cover or .lrc added beside an unchanged song is found by the next scan")
  func besideFiles() throws {
    let setup = try Setup()
    _ = try setup.scan()
    try FileManager.default.copyItem(
      atPath: setup.path("Björk/Homogenic/cover.jpg"),
      toPath: setup.path("Compilations/Hits/Folder.JPG"))
    try "[00:01.00]x".write(
      toFile: setup.path("Compilations/Hits/01.lrc"), atomically: true, encoding: .utf8)
    let report = try setup.scan()
    #expect(report.changed == 0)
    let hit = try #require(try setup.song("Compilations/Hits/01.mp3"))
    #expect(hit.coverPath == setup.path("Compilations/Hits/Folder.JPG"))
    #expect(hit.lrcPath == setup.path("Compilations/Hits/01.lrc"))
  }

  @Test("a root that is missing keeps its songs and says so; dropped only when let go")
  func missingRoot() throws {
    let setup = try Setup()
    _ = try setup.scan()
    let moved = setup.dir.file("elsewhere")
    try FileManager.default.moveItem(at: setup.music, to: moved)
    let report = try setup.scan()
    #expect(report.counts.songs == LibraryFixture.songCount)
    #expect(report.removed == 0)
    #expect(report.issues.first?.message == "folder not found; its songs are kept")
    let other = try TemporaryDirectory()
    let dropped = try setup.scanner.scan(roots: [other.url], dropOutside: true)
    #expect(dropped.counts.songs == 0)
    #expect(dropped.removed == LibraryFixture.songCount)
  }

  @Test("loudness is measured once for songs without ReplayGain, and kept")
  func loudness() throws {
    let setup = try Setup(loudness: true)
    let report = try setup.scan()
    // The FLAC has ReplayGain tags; every other song is measured.
    #expect(report.loudnessMeasured == LibraryFixture.songCount - 1)
    let joga = try #require(try setup.song("Björk/Homogenic/02 Jóga.mp3"))
    let measured = try #require(joga.loudness)
    // A full-scale 440 Hz sine from ffmpeg's lavfi source at 1/8 amplitude: about -21 LUFS.
    #expect(measured > -25 && measured < -15)
    #expect(try #require(try setup.song("Björk/Homogenic/01 Hunter.flac")).loudness == nil)
    #expect(try setup.scan().loudnessMeasured == 0)
  }

  @Test("a full disk fails the scan with a clear error and leaves the index as it was")
  func fullDisk() throws {
    let setup = try Setup()
    _ = try setup.scan()
    for index in 0..<40 {
      try FileManager.default.copyItem(
        atPath: setup.path("odd/long.mp3"), toPath: setup.path("odd/copy\(index).mp3"))
    }
    try setup.index.limitGrowth(toPages: 1)
    setup.scanner.batchSize = 1000
    #expect {
      _ = try setup.scan()
    } throws: { error in
      let error = error as? SQLiteError
      return error?.isDiskFull == true && error?.description.hasPrefix("the disk is full") == true
    }
    #expect(try setup.index.counts().songs == LibraryFixture.songCount)
    #expect(try setup.index.integrityCheck() == "ok")
  }

  @Test("a second scan waits for the first (a lock beside the index), then finds it done")
  func twoScans() throws {
    let setup = try Setup()
    let held = try ScanLock(path: setup.index.url.path + ".lock", waiting: { _ in })
    let other = try LibraryIndex(url: setup.index.url)
    let done = DispatchSemaphore(value: 0)
    let told = Locked(false)
    let music = setup.music
    let thread = Thread {
      let scanner = LibraryScanner(index: other)
      scanner.measuresLoudness = false
      _ = try? scanner.scan(roots: [music], waiting: { _ in told.set(true) })
      done.signal()
    }
    thread.start()
    #expect(done.wait(timeout: .now() + 0.5) == .timedOut)
    #expect(told.get())
    held.release()
    #expect(done.wait(timeout: .now() + 30) == .success)
    #expect(try setup.index.counts().songs == LibraryFixture.songCount)
  }

  @Test("an index of schema 1 upgrades itself and its songs become searchable")
  func migration() throws {
    let dir = try TemporaryDirectory()
    let url = dir.file("library.sqlite")
    let old = try LibraryIndex(url: url, upTo: 1)
    #expect(old.version == 1)
    var info = TrackInfo(title: "Old Song")
    info.artist = "Ölafur"
    try old.write([
      ScannedFile(
        path: "/m/old.mp3", stamp: FileStamp(size: 1, mtime: 1), result: .success(info),
        coverPath: nil, lrcPath: nil)
    ])
    let upgraded = try LibraryIndex(url: url)
    #expect(upgraded.version == LibraryIndex.schemaVersion)
    #expect(try upgraded.songs(.search("olaf")).map(\.info.title) == ["Old Song"])
    // Version 3's folded letters, over a song written before it.
    let two = try LibraryIndex(url: dir.file("two.sqlite"), upTo: 2)
    try two.write([
      ScannedFile(
        path: "/m/weiss.mp3", stamp: FileStamp(size: 1, mtime: 1),
        result: .success(TrackInfo(title: "Weiße Nächte")), coverPath: nil, lrcPath: nil)
    ])
    #expect(try two.songs(.search("weiss")).isEmpty)
    let three = try LibraryIndex(url: dir.file("two.sqlite"))
    #expect(try three.songs(.search("weiss")).map(\.info.title) == ["Weiße Nächte"])
  }

  @Test("ss finds ß, ae finds æ, oe œ, o ø: as typed, as prefixes, kept in step on change")
  func foldedLetters() throws {
    let dir = try TemporaryDirectory()
    let index = try LibraryIndex(url: dir.file("library.sqlite"))
    func song(_ title: String, _ artist: String) -> (path: String, info: TrackInfo) {
      var info = TrackInfo(title: title)
      info.artist = artist
      return ("/m/\(title).flac", info)
    }
    try index.insert([
      song("Straße der Sehnsucht", "Die Ärzte"), song("Ægir", "Kælan Mikla"),
      song("Cœur", "Løvland"), song("Plain", "Nobody"),
    ])
    func titles(_ term: String) throws -> Set<String> {
      Set(try index.songs(.search(term)).map(\.info.title))
    }
    #expect(try titles("strasse") == ["Straße der Sehnsucht"])
    #expect(try titles("stras") == ["Straße der Sehnsucht"])
    #expect(try titles("straß") == ["Straße der Sehnsucht"])
    #expect(try titles("aegir") == ["Ægir"])
    #expect(try titles("kaelan ae") == ["Ægir"])
    #expect(try titles("coeur lov") == ["Cœur"])
    #expect(try titles("arzte") == ["Straße der Sehnsucht"])
    #expect(try titles("plain") == ["Plain"])
    // Retagged: the folded words follow (the update trigger deletes what was indexed).
    try index.insert([song("Straße der Sehnsucht", "Plain Band")])
    #expect(try titles("arzte") == [])
    #expect(try titles("strasse plain") == ["Straße der Sehnsucht"])
    #expect(try index.integrityCheck() == "ok")
  }

  @Test("an index from a newer Riffle is refused with a clear message, not changed")
  func newerSchema() throws {
    let dir = try TemporaryDirectory()
    let url = dir.file("library.sqlite")
    _ = try LibraryIndex(url: url)
    try SQLiteConnection(path: url.path).execute("PRAGMA user_version = 99")
    #expect(throws: LibraryError.newerSchema(99, path: url.path)) {
      _ = try LibraryIndex(url: url)
    }
  }

  @Test("the watcher reports a song added and a folder made, and watches the new folder")
  func watcher() throws {
    let setup = try Setup()
    let reported = Locked<[String]>([])
    let watcher = try LibraryWatcher(roots: [setup.music]) { paths in
      reported.set(reported.get() + paths)
    }
    watcher.settle = .milliseconds(50)
    let before = watcher.watchedFolders
    try FileManager.default.copyItem(
      atPath: setup.path("untagged/a/song.mp3"), toPath: setup.path("untagged/a/new.mp3"))
    try FileManager.default.createDirectory(
      atPath: setup.path("Fresh"), withIntermediateDirectories: true)
    try waitUntil { reported.get().contains(setup.path("Fresh")) }
    #expect(reported.get().contains(setup.path("untagged/a/new.mp3")))
    #expect(watcher.watchedFolders == before + 1)
    try Data("x".utf8).write(to: URL(fileURLWithPath: setup.path("Fresh/inside.mp3")))
    try waitUntil { reported.get().contains(setup.path("Fresh/inside.mp3")) }
    watcher.stop()
  }

  private func waitUntil(_ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(5)
    while !condition() {
      guard Date() < deadline else { throw TimedOut() }
      usleep(10_000)
    }
  }

  struct TimedOut: Error {}
}

/// A value shared with another thread.
final class Locked<Value>: @unchecked Sendable {
  private var value: Value
  private let lock = NSLock()
  init(_ value: Value) { self.value = value }
  func get() -> Value { lock.withLock { value } }
  func set(_ new: Value) { lock.withLock { value = new } }
}
