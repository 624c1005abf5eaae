import Foundation
import RiffleTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A small music folder of real encoded files, made once per test run by ffmpeg and copied
/// for each test that changes it: nested folders, Unicode names, every format, missing tags,
/// tags in UTF-16 and Latin-1, hostile tags, covers and lyrics beside songs, and bad files.
enum LibraryFixture {
  /// Songs the fixture holds that the scan must take (the rest are bad files).
  static let songCount = 15
  /// Files the scan must report as unreadable.
  static let unreadable = ["empty.mp3", "text.mp3", "picture.mp3", "cut.mp3"]

  /// The template, made on first use.
  nonisolated(unsafe) private static var made: Result<URL, Error>?
  private static let lock = NSLock()

  /// A fresh copy of the fixture in `dir`, returned as the folder to scan.
  static func copy(into dir: TemporaryDirectory) throws -> URL {
    let template = try self.template()
    let target = dir.file("Music")
    // cp keeps the symbolic link loop as a link (FileManager follows it).
    let result = try runProgram("/bin/cp", ["-a", template.path, target.path])
    guard result.status == 0 else { throw FixtureError(message: result.stderr) }
    return target
  }

  private static func template() throws -> URL {
    lock.lock()
    defer { lock.unlock() }
    if let made { return try made.get() }
    let result = Result { try build() }
    made = result
    return try result.get()
  }

  /// Where the template is made: removed when the test process exits.
  private static let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("riffle-library-fixture-\(getpid())")

  private static func build() throws -> URL {
    let root = folder.appendingPathComponent("Music")
    try? FileManager.default.removeItem(at: folder)
    atexit { try? FileManager.default.removeItem(at: LibraryFixture.folder) }
    let cover = TestFiles.fixture("cover.jpg")
    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
    let bjork = ["artist": "Björk", "album": "Homogenic", "date": "1997", "genre": "Electronic"]
    let jobs: [AudioEncoder.Job] = [
      .init(
        path: path("Björk/Homogenic/01 Hunter.flac"), format: .flac,
        tags: bjork.merging([
          "title": "Hunter", "track": "1/10", "disc": "1/1",
          "REPLAYGAIN_TRACK_GAIN": "-6.50 dB", "REPLAYGAIN_ALBUM_GAIN": "-7.00 dB",
        ]) { $1 }, cover: cover),
      .init(
        path: path("Björk/Homogenic/02 Jóga.mp3"), format: .mp3,
        tags: bjork.merging(["title": "Jóga", "track": "2/10", "disc": "1/1"]) { $1 },
        cover: cover),
      .init(
        path: path("Björk/Homogenic/03 Bachelorette.m4a"), format: .m4a,
        tags: bjork.merging([
          "title": "Bachelorette", "track": "3/10", "album_artist": "Björk",
          "lyrics": "I'm a fountain of blood",
        ]) { $1 }, cover: cover),
      .init(
        path: path("Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg"), format: .ogg,
        tags: [
          "title": "Svefn-g-englar", "artist": "Sigur Rós", "album": "Ágætis byrjun",
          "track": "1", "date": "1999", "LYRICS": "Tjú",
        ]),
      .init(
        path: path("Sigur Rós/Ágætis byrjun/02 Starálfur.opus"), format: .opus,
        tags: [
          "title": "Starálfur", "artist": "Sigur Rós", "album": "Ágætis byrjun", "track": "2",
        ]),
      .init(
        path: path("坂本龍一/戦場のメリークリスマス/01.wav"), format: .wav,
        tags: ["title": "Merry Christmas Mr. Lawrence", "artist": "坂本龍一"]),
      .init(
        path: path("Compilations/Hits/01.mp3"), format: .mp3,
        tags: [
          "title": "First Hit", "artist": "Alpha", "album": "Hits",
          "album_artist": "Various Artists", "track": "1",
        ]),
      .init(
        path: path("Compilations/Hits/02.mp3"), format: .mp3,
        tags: [
          "title": "Second Hit", "artist": "Beta", "album": "Hits",
          "album_artist": "Various Artists", "track": "2",
        ]),
      .init(path: path("untagged/b/track.mp3"), format: .mp3),
      .init(path: path("untagged/a/song.mp3"), format: .mp3),
      .init(
        path: path("odd/utf16.mp3"), format: .mp3, tags: ["title": "Ünïcödé ☃", "artist": "Ωmega"],
        extraOptions: ["-id3v2_version", "3"]),
      .init(
        path: path("odd/hostile.mp3"), format: .mp3,
        tags: ["title": "\u{1B}]0;pwned\u{07}Calm\u{1B}[2J", "artist": "Esc"]),
      .init(
        path: path("odd/long.mp3"), format: .mp3,
        tags: ["title": String(repeating: "Long ", count: 2_000), "artist": "Verbose"]),
      .init(
        path: path("odd/flac-named.mp3"), format: .flac, tags: ["title": "Really FLAC"]),
      .init(path: path("odd/plain.mp3"), format: .mp3, extraOptions: ["-id3v2_version", "0"]),
    ]
    try AudioEncoder.encode(jobs, seconds: 1)
    let fm = FileManager.default
    try fm.copyItem(at: cover, to: root.appendingPathComponent("Björk/Homogenic/cover.jpg"))
    try "[00:00.50]Tjú\n".write(
      toFile: path("Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.lrc"), atomically: true,
      encoding: .utf8)

    // Latin-1: an ID3v2.3 tag whose frames say ISO-8859-1 (ffmpeg writes UTF-16 or UTF-8 for
    // anything not ASCII), over a tagless MP3.
    let plain = try Data(contentsOf: URL(fileURLWithPath: path("odd/plain.mp3")))
    try (id3v23Latin1(["TIT2": "Café del Mar", "TPE1": "Señor"]) + plain).write(
      to: URL(fileURLWithPath: path("odd/latin1.mp3")))
    try fm.removeItem(atPath: path("odd/plain.mp3"))

    // Bad files.
    try fm.createDirectory(atPath: path("bad"), withIntermediateDirectories: true)
    try Data().write(to: URL(fileURLWithPath: path("bad/empty.mp3")))
    try Data("hello, not a song\n".utf8).write(to: URL(fileURLWithPath: path("bad/text.mp3")))
    try Data(contentsOf: cover).write(to: URL(fileURLWithPath: path("bad/picture.mp3")))
    // An MP3 cut inside its tag (the picture): no audio left.
    let tagged = try Data(contentsOf: URL(fileURLWithPath: path("Björk/Homogenic/02 Jóga.mp3")))
    try tagged.prefix(600).write(to: URL(fileURLWithPath: path("bad/cut.mp3")))
    try fm.createSymbolicLink(atPath: path("bad/loop"), withDestinationPath: "..")
    return root
  }

  /// An ID3v2.3 tag of text frames in ISO-8859-1.
  static func id3v23Latin1(_ frames: [String: String]) -> Data {
    var body = Data()
    for (id, text) in frames.sorted(by: { $0.key < $1.key }) {
      let bytes = Data([0]) + text.data(using: .isoLatin1)!
      body += Data(id.utf8)
      body += withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { Data($0) }
      body += Data([0, 0]) + bytes
    }
    let size = body.count
    let syncsafe = [
      UInt8((size >> 21) & 0x7F), UInt8((size >> 14) & 0x7F), UInt8((size >> 7) & 0x7F),
      UInt8(size & 0x7F),
    ]
    return Data("ID3".utf8) + Data([3, 0, 0] + syncsafe) + body
  }

  struct FixtureError: Error {
    var message: String
  }
}
