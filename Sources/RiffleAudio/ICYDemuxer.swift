import Foundation
import RiffleAPI

/// A station's bytes as they arrive, with its ICY metadata taken out: what goes on to the
/// decoder, and the title when a block names a new one.
///
/// Without `icy-metaint` in the answer (a server that sends no metadata) the bytes pass
/// through untouched. A title is passed on only when it differs from the last one, so a
/// station that repeats its block every 16 KB does not redraw the page each time.
final class ICYDemuxer: @unchecked Sendable {
  private let lock = NSLock()
  private var splitter: ICYStreamSplitter?
  private var lastTitle: String?

  /// The longest title passed on; a hostile block may hold 4,080 bytes.
  static let longestTitle = 200

  /// Reads the answer's `icy-metaint` (bytes of audio between blocks); nonsense turns it off.
  func start(metaint: String?) {
    let interval = metaint.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    lock.withLock {
      // A new connection starts a new count.
      splitter = interval.flatMap {
        $0 > 0 && $0 <= 1 << 20 ? ICYStreamSplitter(interval: $0) : nil
      }
    }
  }

  /// The audio in `chunk`, and the newest title it completes when that is a change.
  func split(_ chunk: Data) -> (audio: Data, title: String?) {
    lock.withLock {
      guard var splitter else { return (chunk, nil) }
      let (audio, blocks) = splitter.feed(chunk)
      self.splitter = splitter
      var changed: String?
      for block in blocks {
        guard let title = block.title.map({ String($0.prefix(Self.longestTitle)) }),
          title != lastTitle
        else { continue }
        lastTitle = title
        changed = title
      }
      return (Data(audio), changed)
    }
  }
}
