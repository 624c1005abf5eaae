import Foundation
import RiffleAPI
import RiffleTestSupport
import Testing

@testable import RiffleAudio

@Suite("SongFile: a local song read at the decoder's pace")
struct SongFileTests {
  /// Bytes first..<first+count of a file whose byte n is n % 251.
  private func slice(_ first: Int, _ count: Int) -> Data {
    Data((first..<(first + count)).map { UInt8($0 % 251) })
  }

  private func file(_ count: Int, in dir: TemporaryDirectory) throws -> URL {
    let url = dir.file("song.mp3")
    try slice(0, count).write(to: url)
    return url
  }

  /// The next read's bytes, or nil with what it gave instead.
  private func bytes(_ song: SongFile) -> Data? {
    if case .bytes(let data) = song.read(timeout: 0, interrupt: { false }) { return data }
    return nil
  }

  private func isEnd(_ song: SongFile) -> Bool {
    if case .end = song.read(timeout: 0, interrupt: { false }) { return true }
    return false
  }

  @Test("hands over one piece per read, not the whole file, then the end")
  func piecesThenEnd() throws {
    let dir = try TemporaryDirectory()
    let size = SongFile.pieceSize * 2 + 100
    let song = SongFile(url: try file(size, in: dir))
    #expect(song.expectedLength == Int64(size))
    #expect(bytes(song) == slice(0, SongFile.pieceSize))
    #expect(bytes(song) == slice(SongFile.pieceSize, SongFile.pieceSize))
    #expect(bytes(song) == slice(SongFile.pieceSize * 2, 100))
    #expect(isEnd(song))
    #expect(isEnd(song))
  }

  @Test("a seek anywhere, back or ahead, moves the read there without a download")
  func seeks() throws {
    let dir = try TemporaryDirectory()
    let size = SongFile.pieceSize * 3
    let song = SongFile(url: try file(size, in: dir))
    #expect(bytes(song) == slice(0, SongFile.pieceSize))
    #expect(song.seek(to: 150_000))
    #expect(bytes(song) == slice(150_000, size - 150_000))
    #expect(isEnd(song))
    // Back to the start, after the end: read from the file again.
    #expect(song.seek(to: 10))
    #expect(bytes(song) == slice(10, SongFile.pieceSize))
    #expect(song.seek(to: Int64(size) + 5))
    #expect(isEnd(song))
  }

  @Test("a file that cannot be read fails the song with the download's message")
  func unreadable() throws {
    let dir = try TemporaryDirectory()
    let missing = dir.file("gone.mp3")
    let song = SongFile(url: missing)
    guard case .failed(let error) = song.read(timeout: 0, interrupt: { false }) else {
      Issue.record("a missing file read as something")
      return
    }
    #expect((error as? HTTPError)?.userMessage == "Cannot read \(missing.path)")
    #expect(song.expectedLength == nil)
  }

  @Test("once cancelled, a read says so")
  func cancelled() throws {
    let dir = try TemporaryDirectory()
    let song = SongFile(url: try file(1000, in: dir))
    #expect(bytes(song) == slice(0, 1000))
    song.cancel()
    #expect(song.isCancelled)
    guard case .cancelled = song.read(timeout: 0, interrupt: { false }) else {
      Issue.record("a cancelled song still read")
      return
    }
  }
}
