import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The user's likes on this machine: song id -> liked, kept in one JSON file written atomically.
///
/// Reads once at start; every change rewrites the file on a serial queue, latest state last, so
/// the file on disk is always whole and at most one change behind.
public final class LikeStore: @unchecked Sendable {
  public let file: URL
  private let queue = DispatchQueue(label: "riffle.likes")
  private let lock = NSLock()
  private var likes: [String: Bool]
  /// Whether what a killed writer left beside the file was cleared (on the save queue, once).
  private var sweptTemporaries = false

  /// What went wrong reading the file, if anything (the file is then kept aside, not lost).
  public private(set) var loadProblem: String?

  public init(file: URL) {
    self.file = file
    likes = [:]
    guard FileManager.default.fileExists(atPath: file.path) else { return }
    let reason: String
    do {
      let data = try Data(contentsOf: file)
      likes = try JSONDecoder().decode(Stored.self, from: data).likes
      return
    } catch is DecodingError {
      reason = "Likes file was unreadable"
    } catch {
      reason = "Likes file could not be read"
    }
    // Never overwrite what we cannot read: move it aside for the user, under a name no earlier
    // unreadable file has taken; if even that fails, do not save over it this session.
    let stamp = Int(Date().timeIntervalSince1970)
    var aside = file.appendingPathExtension("unreadable-\(stamp)")
    var n = 1
    while FileManager.default.fileExists(atPath: aside.path) {
      n += 1
      aside = file.appendingPathExtension("unreadable-\(stamp)-\(n)")
    }
    do {
      try FileManager.default.moveItem(at: file, to: aside)
      loadProblem = "\(reason); kept as \(aside.lastPathComponent)"
    } catch {
      canSave = false
      loadProblem = "\(reason) and cannot be moved aside; likes will not be saved this session"
    }
  }

  /// False when an unreadable likes file could not be moved aside: it is never overwritten.
  public private(set) var canSave = true

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
    Trace.mark("like-set \(songID) \(liked)")
    guard canSave else {
      completion?(
        POSIXError(code: EACCES, operation: "save likes (\(file.lastPathComponent) is kept)"))
      return
    }
    queue.async { [self] in
      if !sweptTemporaries {
        sweptTemporaries = true
        AtomicFile.removeStaleTemporaries(in: file.deletingLastPathComponent())
      }
      let snapshot = lock.withLock { likes }
      do {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try AtomicFile.write(encoder.encode(Stored(likes: snapshot)), to: file)
        Trace.mark("like-saved \(songID) \(liked)")
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
