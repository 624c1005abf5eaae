import Foundation

/// What a start without arguments picks up: the source, the song and the point in it, up next,
/// the volume, shuffle and repeat. Saved on quit and whenever the source changes.
public struct SavedSession: Equatable, Sendable, Codable {
  /// The format of the file; another number is read as no session.
  public static let version = 1

  public var version: Int
  public var source: SourceKind
  public var resumeAt: ResumePoint?
  public var queue: [Song]
  public var volume: Int
  public var isMuted: Bool
  public var shuffle: Bool
  public var repeatMode: RepeatMode

  public init(
    source: SourceKind, resumeAt: ResumePoint?, queue: [Song], volume: Int, isMuted: Bool,
    shuffle: Bool, repeatMode: RepeatMode
  ) {
    self.version = Self.version
    self.source = source
    self.resumeAt = resumeAt
    self.queue = queue
    self.volume = volume
    self.isMuted = isMuted
    self.shuffle = shuffle
    self.repeatMode = repeatMode
  }
}

extension PlayerState {
  /// The session as it stands, when there is a source to come back to (the queue view is not
  /// one: what it showed is in the queue).
  public var session: SavedSession? {
    guard let kind = source?.kind ?? opening?.kind, kind != .queue else { return nil }
    let point = currentSong.map { ResumePoint(songID: $0.id, position: position) }
    return SavedSession(
      source: kind, resumeAt: point ?? resumeAt, queue: queue, volume: volume,
      isMuted: isMuted, shuffle: shuffle, repeatMode: repeatMode)
  }
}
