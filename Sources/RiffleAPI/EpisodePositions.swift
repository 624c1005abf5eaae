import Foundation

/// Where each podcast episode was left, and which were played to (near) their end, in
/// `$XDG_DATA_HOME/riffle/episode-positions.json`, written through `AtomicFile` on a queue of its
/// own: a crash leaves the old positions or the new ones.
///
/// Positions come from the player's progress many times a minute; they are written at most every
/// `saveInterval` seconds, at once on a pause, and on `flush` (quit). An episode is marked played
/// once it is within `playedMargin` of its end (or has ended), and then starts from the
/// beginning again.
public final class EpisodePositions: @unchecked Sendable {
  public struct Entry: Codable, Equatable, Sendable {
    public var position: Double
    public var played: Bool
  }

  public let file: URL
  /// Seconds before the end from which an episode counts as played (credits, an outro).
  public static let playedMargin = 30.0
  /// The longest a noted position waits to be written.
  public static let saveInterval = 5.0

  private let lock = NSLock()
  private var entries: [String: Entry]
  private var dirty = false
  private var lastSave = Date.distantPast
  private let queue = DispatchQueue(label: "riffle.positions")

  public init(file: URL) {
    self.file = file
    entries =
      (try? Data(contentsOf: file)).flatMap {
        try? JSONDecoder().decode([String: Entry].self, from: $0)
      } ?? [:]
  }

  public func entry(_ id: String) -> Entry? { lock.withLock { entries[id] } }

  /// Where to start episode `id`: where it was left, unless it was played (or barely begun).
  public func resumePoint(_ id: String) -> Double? {
    lock.withLock {
      guard let entry = entries[id], !entry.played, entry.position >= 5 else { return nil }
      return entry.position
    }
  }

  /// Notes that `id` is at `position` of `duration` (when known); `now` writes at once.
  public func note(_ id: String, position: Double, duration: Double?, now: Bool = false) {
    guard position.isFinite, position >= 0 else { return }
    let due: Bool = lock.withLock {
      let played =
        duration.map { $0 > 0 && position >= max($0 - Self.playedMargin, $0 * 0.9) } ?? false
      let entry = Entry(position: played ? 0 : position, played: played)
      // Once played, it stays played until it is played part-way again from the start.
      if let old = entries[id], old.played, !played, position < 5 { return false }
      guard entries[id] != entry else { return false }
      entries[id] = entry
      dirty = true
      return now || played || Date().timeIntervalSince(lastSave) >= Self.saveInterval
    }
    if due { save() }
  }

  /// Marks `id` played (it ended).
  public func markPlayed(_ id: String) {
    lock.withLock {
      entries[id] = Entry(position: 0, played: true)
      dirty = true
    }
    save()
  }

  /// Writes what is noted and waits for it (on quit).
  public func flush() {
    save()
    queue.sync {}
  }

  private func save() {
    queue.async { [self] in
      let snapshot: [String: Entry]? = lock.withLock {
        guard dirty else { return nil }
        dirty = false
        lastSave = Date()
        return entries
      }
      guard let snapshot else { return }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      do {
        try AtomicFile.write(try encoder.encode(snapshot), to: file)
      } catch {
        FileHandle.standardError.write(Data("episode positions: \(error)\n".utf8))
      }
    }
  }
}
