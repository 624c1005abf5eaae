import Foundation
import RiffleAPI

/// Where the playing thread reads a song's bytes from: a download as it arrives (`SongBuffer`)
/// or a file on this machine (`SongFile`).
protocol SongBytes: AnyObject, Sendable {
  /// The bytes from the read position on, or why there are none; a download waits up to
  /// `timeout` for some to arrive, or until `interrupt` says to stop waiting.
  func read(timeout: TimeInterval, interrupt: () -> Bool) -> SongBuffer.Read
  /// Moves the read position to a byte offset. False when a download must restart there.
  func seek(to offset: Int64) -> Bool
  /// The whole song's length in bytes, once known.
  var expectedLength: Int64? { get }
  /// Wakes a reader waiting for bytes (to notice a seek).
  func poke()
  func cancel()
  var isCancelled: Bool { get }
}

extension SongBuffer: SongBytes {}

/// A local song (the bundled catalog, a copy in the cache), read a piece at a time as the
/// decoder asks, at the decoder's pace.
///
/// A download is kept whole in a `SongBuffer` so the song can seek back and be cached; a local
/// file already is all of that, so nothing of it is held beyond the piece being decoded, and a
/// seek anywhere just moves the read position. The file is opened by the first read, on the
/// playing thread, by the rules of `LocalFile`; a file that cannot be read fails the song with
/// the same message a download of it would.
final class SongFile: SongBytes, @unchecked Sendable {
  /// How much one read hands the decoder: about 2.7 s of a 192 kbps MP3.
  static let pieceSize = 64 * 1024

  private let url: URL
  // Read, seek and the length are asked for only by the playing thread; cancelling comes from
  // any thread.
  private var file: Result<LocalFile, HTTPError>?
  private var position: Int64 = 0
  private let lock = NSLock()
  private var cancelled = false

  init(url: URL) {
    self.url = url
  }

  func read(timeout: TimeInterval, interrupt: () -> Bool) -> SongBuffer.Read {
    if isCancelled { return .cancelled }
    do {
      let piece = try openedFile().read(at: position, count: Self.pieceSize)
      if piece.isEmpty { return .end }
      position += Int64(piece.count)
      return .bytes(piece)
    } catch {
      return .failed(error)
    }
  }

  func seek(to offset: Int64) -> Bool {
    position = max(0, offset)
    return true
  }

  var expectedLength: Int64? { try? openedFile().size }

  func poke() {}

  func cancel() {
    lock.withLock { cancelled = true }
  }

  var isCancelled: Bool { lock.withLock { cancelled } }

  /// The open file, opened by the first call.
  private func openedFile() throws(HTTPError) -> LocalFile {
    if file == nil {
      file = Result { () throws(HTTPError) -> LocalFile in try LocalFile(url: url) }
    }
    return try file!.get()
  }
}
