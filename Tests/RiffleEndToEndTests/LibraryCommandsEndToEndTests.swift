import Foundation
import RiffleLibrary
import RiffleTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `riffle library add`, `scan` and `search` through the real binary, over real encoded files.
@Suite("riffle library: add, scan, search, and a scan killed halfway")
struct LibraryCommandsEndToEndTests {
  /// Runs the binary with config and data in `dir`.
  private func riffle(_ arguments: [String], in dir: TemporaryDirectory) throws -> (
    status: Int32, stdout: String, stderr: String
  ) {
    try runProgram(
      TestFiles.riffleBinary, arguments,
      environment: [
        "XDG_CONFIG_HOME": dir.file("config").path, "XDG_DATA_HOME": dir.file("data").path,
        "XDG_CACHE_HOME": dir.file("cache").path,
      ])
  }

  @Test("add remembers the folder; scan reports songs and bad files; search prints lines")
  func addScanSearch() throws {
    let dir = try TemporaryDirectory("riffle-library-e2e")
    let music = dir.file("Mü sic")
    let cover = TestFiles.fixture("cover.jpg")
    try AudioEncoder.encode([
      .init(
        path: music.appendingPathComponent("Björk/Post/01 Army of Me.mp3").path, format: .mp3,
        tags: ["title": "Army of Me", "artist": "Björk", "album": "Post", "track": "1"],
        cover: cover),
      .init(
        path: music.appendingPathComponent("Björk/Post/02 Hyperballad.m4a").path, format: .m4a,
        tags: ["title": "Hyperballad", "artist": "Björk", "album": "Post", "track": "2"]),
      .init(
        path: music.appendingPathComponent("Other/x.flac").path, format: .flac,
        tags: ["title": "Elsewhere", "artist": "Someone"]),
      .init(path: music.appendingPathComponent("loose/untagged.ogg").path, format: .ogg),
    ])
    try Data("not a song".utf8).write(to: music.appendingPathComponent("loose/fake.mp3"))

    let missing = try riffle(["library", "add", dir.file("nowhere").path], in: dir)
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("no such folder"))

    let add = try riffle(["library", "add", music.path], in: dir)
    #expect(add.status == 0, "\(add.stderr)")
    let config = try String(contentsOf: dir.file("config/riffle/config.toml"), encoding: .utf8)
    #expect(config.contains("\"\(music.path)\""))

    let scan = try riffle(["library", "scan"], in: dir)
    #expect(scan.status == 0, "\(scan.stderr)")
    let lines = scan.stdout.split(separator: "\n").map(String.init)
    #expect(lines.contains("\(music.path)/loose/fake.mp3: not audio Riffle plays (text)"))
    let summary = try #require(lines.last)
    #expect(
      summary.hasPrefix(
        "4 songs, 1 album, 2 artists: 4 new, 0 changed, 0 removed, 1 unreadable, "),
      "\(summary)")

    let search = try riffle(["library", "search", "bjo"], in: dir)
    #expect(search.status == 0)
    #expect(
      search.stdout.split(separator: "\n").sorted() == [
        "Björk - Post - 01 Army of Me  \(music.path)/Björk/Post/01 Army of Me.mp3",
        "Björk - Post - 02 Hyperballad  \(music.path)/Björk/Post/02 Hyperballad.m4a",
      ])
    let loose = try riffle(["library", "search", "untag"], in: dir)
    #expect(
      loose.stdout
        == "Unknown artist - Unknown album - untagged  \(music.path)/loose/untagged.ogg\n")
    let none = try riffle(["library", "search", "zzz"], in: dir)
    #expect(none.status == 1 && none.stdout.isEmpty)
    #expect(none.stderr.contains("no songs in the library match 'zzz'"))

    let again = try riffle(["library", "scan"], in: dir)
    #expect(again.stdout.contains("4 songs, 1 album, 2 artists: 0 new, 0 changed, 0 removed"))
  }

  @Test("kill -9 in the middle of a scan: the index is whole, and the next scan finishes it")
  func killedScan() throws {
    let dir = try TemporaryDirectory("riffle-library-kill")
    let music = dir.file("music")
    let total = 1_500
    let first = music.appendingPathComponent("a/0000.mp3")
    try AudioEncoder.encode([
      .init(path: first.path, format: .mp3, tags: ["title": "Copy", "artist": "Many"])
    ])
    for number in 1..<total {
      let folder = music.appendingPathComponent(String(format: "%c", 97 + number % 20))
      try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        at: first, to: folder.appendingPathComponent(String(format: "%04d.mp3", number)))
    }
    #expect(try riffle(["library", "add", music.path], in: dir).status == 0)
    let index = try LibraryIndex(url: dir.file("data/riffle/library.sqlite"))

    let scan = try ChildProcess(
      TestFiles.riffleBinary, ["library", "scan", "--no-loudness", "--quiet"],
      environment: [
        "XDG_CONFIG_HOME": dir.file("config").path, "XDG_DATA_HOME": dir.file("data").path,
      ])
    var written = 0
    let deadline = Date().addingTimeInterval(60)
    while written == 0 && Date() < deadline {
      written = (try? index.counts().songs) ?? 0
      usleep(2_000)
    }
    kill(scan.pid, SIGKILL)
    #expect(scan.wait() == 128 + SIGKILL)
    written = try index.counts().songs
    #expect(written > 0 && written < total, "\(written) of \(total) written before the kill")
    #expect(try index.integrityCheck() == "ok")

    let rescan = try riffle(["library", "scan", "--no-loudness"], in: dir)
    #expect(rescan.status == 0, "\(rescan.stderr)")
    #expect(
      rescan.stdout.hasPrefix(
        "\(total) songs, 0 albums, 1 artist: \(total - written) new, 0 changed"),
      "\(rescan.stdout)")
    #expect(try index.integrityCheck() == "ok")
    #expect(try index.counts().songs == total)
  }
}
