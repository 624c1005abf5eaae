import Foundation
import RiffleCore
import RiffleTestSupport
import Testing

@testable import RiffleLibrary

/// SYLT frames in real MP3s (ffmpeg encodes, mutagen adds the frames), read through TagLib.
@Suite("Synced lyrics in ID3v2 tags (SYLT) and the order of a local file's lyrics")
struct EmbeddedSyncedLyricsTests {
  private static let tags = ["title": "Paper Boats", "artist": "Riffle", "album": "Tests"]

  private func mp3(
    _ dir: TemporaryDirectory, name: String = "song.mp3",
    _ frames: [SyncedLyricsFixture.Frame], unsynced: String? = nil
  ) throws -> String {
    let path = dir.file(name).path
    try SyncedLyricsFixture.writeMP3(
      path, seconds: 1, tags: Self.tags, frames: frames, unsynced: unsynced)
    return path
  }

  @Test("UTF-16 text listed out of order comes back in time order, in seconds, escapes removed")
  func utf16Unsorted() throws {
    let dir = try TemporaryDirectory("riffle-sylt")
    let path = try mp3(
      dir,
      [
        .init(
          lines: [
            ("Zweite Zeile ß", 4_250), ("\u{1B}]0;pwned\u{07}Erste \u{1B}[31mZeile", 1_500),
            ("坂本", 9_000), ("", 6_000),
          ], encoding: 1)
      ])
    let outcome = EmbeddedSyncedLyrics.read(path: path)
    #expect(
      outcome
        == .synced(
          SyncedLyrics([
            LyricLine(time: 1.5, text: "Erste Zeile"),
            LyricLine(time: 4.25, text: "Zweite Zeile ß"),
            LyricLine(time: 6, text: ""), LyricLine(time: 9, text: "坂本"),
          ])))
  }

  @Test("frames timed in MPEG frames are not used; a millisecond frame of lyrics is preferred")
  func chooseFrame() throws {
    let dir = try TemporaryDirectory("riffle-sylt")
    let mpegOnly = try mp3(dir, name: "mpeg.mp3", [.init(lines: [("Frames", 38)], format: 1)])
    #expect(EmbeddedSyncedLyrics.read(path: mpegOnly) == .none("SYLT timed in MPEG frames"))
    let mixed = try mp3(
      dir, name: "mixed.mp3",
      [
        .init(lines: [("Frames", 38)], format: 1, description: "a"),
        .init(lines: [("Transcript", 100)], type: 2, description: "b"),
        .init(lines: [("Sung", 200)], type: 1, description: "c"),
      ])
    #expect(
      EmbeddedSyncedLyrics.read(path: mixed)
        == .synced(SyncedLyrics([LyricLine(time: 0.2, text: "Sung")])))
  }

  @Test("an empty frame, a frame of blank lines and a file without SYLT give none")
  func emptyFrames() throws {
    let dir = try TemporaryDirectory("riffle-sylt")
    let empty = try mp3(dir, name: "empty.mp3", [.init(lines: [])])
    #expect(EmbeddedSyncedLyrics.read(path: empty) == .none("empty SYLT frame"))
    let blank = try mp3(dir, name: "blank.mp3", [.init(lines: [("  ", 10), ("", 20)])])
    #expect(EmbeddedSyncedLyrics.read(path: blank) == .none("empty SYLT frame"))
    let plain = try mp3(dir, name: "plain.mp3", [])
    #expect(EmbeddedSyncedLyrics.read(path: plain) == .none("no SYLT frame"))
  }

  @Test("a huge frame is capped: 5,000 lines, 500 characters a line")
  func hugeFrame() throws {
    let dir = try TemporaryDirectory("riffle-sylt")
    var lines = (0..<6_000).map { ("line \($0)", $0 * 10) }
    lines[0] = (String(repeating: "é", count: 10_000), 0)
    let path = try mp3(dir, [.init(lines: lines)])
    guard case .synced(let synced) = EmbeddedSyncedLyrics.read(path: path) else {
      Issue.record("no lyrics read")
      return
    }
    #expect(synced.lines.count == EmbeddedSyncedLyrics.mostLines)
    #expect(synced.lines[0].text == String(repeating: "é", count: 500))
    #expect(synced.lines.last == LyricLine(time: 49.99, text: "line 4999"))
  }

  @Test("files TagLib cannot open or that are not MP3 give unreadable or none, never a crash")
  func badFiles() throws {
    let dir = try TemporaryDirectory("riffle-sylt")
    #expect(EmbeddedSyncedLyrics.read(path: dir.file("missing.mp3").path) == .unreadable)
    let text = dir.file("text.mp3")
    try Data("just some text, not audio\n".utf8).write(to: text)
    #expect(EmbeddedSyncedLyrics.read(path: text.path) == .none("no SYLT frame"))
    // Not opened at all: no ID3v2 in a FLAC as Riffle sees it.
    #expect(
      EmbeddedSyncedLyrics.read(path: dir.file("song.flac").path) == .none("no ID3v2 in .flac"))
    let zero = dir.file("zero.mp3")
    try Data().write(to: zero)
    #expect(EmbeddedSyncedLyrics.read(path: zero.path) == .none("no SYLT frame"))
    // A tag cut short in the middle of the SYLT frame.
    let whole = try Data(
      contentsOf: URL(
        fileURLWithPath: try mp3(dir, name: "whole.mp3", [.init(lines: [("Words", 100)])])))
    let cut = dir.file("cut.mp3")
    try whole.prefix(60).write(to: cut)
    if case .synced = EmbeddedSyncedLyrics.read(path: cut.path) {
      Issue.record("lyrics read from a tag cut short")
    }
  }

  @Test("a .lrc beside wins over SYLT, SYLT over the tags' USLT in the index, USLT over nothing")
  func order() throws {
    let dir = try TemporaryDirectory("riffle-sylt")
    let music = dir.file("Music")
    try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
    let both = music.appendingPathComponent("both.mp3")
    try SyncedLyricsFixture.writeMP3(
      both.path, seconds: 1, tags: Self.tags, frames: [.init(lines: [("From SYLT", 500)])],
      unsynced: "From USLT")
    let uslt = music.appendingPathComponent("uslt.mp3")
    try SyncedLyricsFixture.writeMP3(
      uslt.path, seconds: 1, tags: Self.tags, frames: [], unsynced: "[00:01.00]Timed USLT")
    let index = try LibraryIndex(url: dir.file("data/library.sqlite"))
    let scanner = LibraryScanner(index: index)
    scanner.measuresLoudness = false
    _ = try scanner.scan(roots: [music])
    #expect(try index.lyrics(path: both.path) == "From USLT")
    #expect(
      LocalLyrics.find(both, index: index)
        == .synced(SyncedLyrics([LyricLine(time: 0.5, text: "From SYLT")])))
    #expect(
      LocalLyrics.find(uslt, index: index)
        == .synced(SyncedLyrics([LyricLine(time: 1, text: "Timed USLT")])))
    #expect(LocalLyrics.find(uslt, index: nil) == nil)
    try Data("[00:02.00]From the file beside\n".utf8)
      .write(to: music.appendingPathComponent("both.lrc"))
    #expect(
      LocalLyrics.find(both, index: index)
        == .synced(SyncedLyrics([LyricLine(time: 2, text: "From the file beside")])))
  }
}
