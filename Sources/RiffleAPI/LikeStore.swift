import Foundation

/// The user's likes on this machine: song id -> liked, kept in one JSON file written atomically.
///
/// Reads once at start; every change rewrites the file on a serial queue, latest state last, so
/// the file on disk is always whole and at most one change behind.
public final class LikeStore: @unchecked Sendable {
  public let file: URL
  private let queue = DispatchQueue(label: "riffle.likes")
  private let lock = NSLock()
  private var likes: [String: Bool]

  /// What went wrong reading the file, if anything (the file is then kept aside, not lost).
  public private(set) var loadProblem: String?

  public init(file: URL) {
    self.file = file
    likes = [:]
    guard let data = try? Data(contentsOf: file) else { return }
    do {
      let decoded = try JSONDecoder().decode(Stored.self, from: data)
      likes = decoded.likes
    } catch {
      // Never overwrite what we cannot read: move it aside for the user.
      let aside = file.appendingPathExtension("unreadable-\(Int(Date().timeIntervalSince1970))")
      try? FileManager.default.moveItem(at: file, to: aside)
      loadProblem = "Likes file was unreadable; kept as \(aside.lastPathComponent)"
    }
  }

  private struct Stored: Codable {
    var version = 1
    var likes: [String: Bool]
  }

  /// Every stored like and unlike.
  public var all: [String: Bool] { lock.withLock { likes } }

  /// Records a like or unlike and saves it; `completion` gets the error if saving failed.
  public func set(
    _ songID: String, liked: Bool, completion: (@Sendable (Error?) -> Void)? = nil
  ) {
    lock.withLock { likes[songID] = liked }
    queue.async { [self] in
      let snapshot = lock.withLock { likes }
      do {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try AtomicFile.write(encoder.encode(Stored(likes: snapshot)), to: file)
        completion?(nil)
      } catch {
        completion?(error)
      }
    }
  }

  /// Waits until every change so far is on disk.
  public func flush() {
    queue.sync {}
  }
}
