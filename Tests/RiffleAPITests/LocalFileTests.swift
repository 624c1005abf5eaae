import Foundation
import RiffleAPI
import RiffleTestSupport
import Testing

@Suite("LocalFile: the rules every file:// read follows")
struct LocalFileTests {
  /// A file of `count` bytes whose byte n is n % 251.
  private func pattern(_ count: Int, in dir: TemporaryDirectory) throws -> URL {
    let url = dir.file("song.bin")
    try Data((0..<count).map { UInt8($0 % 251) }).write(to: url)
    return url
  }

  @Test("reads from any offset; its size is the file's; past the end reads nothing")
  func readsAtOffsets() throws {
    let dir = try TemporaryDirectory()
    let file = try LocalFile(url: try pattern(1000, in: dir))
    #expect(file.size == 1000)
    #expect(try file.read(at: 0, count: 4) == Data([0, 1, 2, 3]))
    #expect(try file.read(at: 500, count: 3) == Data([249, 250, 0]))
    #expect(try file.read(at: 998, count: 10) == Data([(998 % 251), (999 % 251)].map(UInt8.init)))
    #expect(try file.read(at: 1000, count: 10).isEmpty)
    #expect(try file.read(at: 5000, count: 10).isEmpty)
  }

  @Test("file://localhost/ names this machine; file://server/ is refused as another's")
  func hosts() throws {
    let dir = try TemporaryDirectory()
    let url = try pattern(10, in: dir)
    let local = try #require(URL(string: "file://localhost" + url.path))
    #expect(try LocalFile(url: local).size == 10)
    let remote = try #require(URL(string: "file://server" + url.path))
    #expect(throws: HTTPError.unsupportedURL(remote.absoluteString)) {
      try LocalFile(url: remote)
    }
  }

  @Test("a missing file, a folder and a named pipe are unreadable, at once")
  func unreadable() throws {
    let dir = try TemporaryDirectory()
    let missing = dir.file("none.mp3")
    #expect(throws: HTTPError.fileUnreadable(path: missing.path)) { try LocalFile(url: missing) }
    #expect(throws: HTTPError.fileUnreadable(path: dir.url.path)) { try LocalFile(url: dir.url) }
    let fifo = dir.file("pipe.mp3")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    // Without O_NONBLOCK the open would wait for a writer that never comes.
    #expect(throws: HTTPError.fileUnreadable(path: fifo.path)) { try LocalFile(url: fifo) }
  }
}
