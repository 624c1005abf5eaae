import Foundation

/// A listen waiting to be sent: the track, when it started, and the services that have not
/// taken it yet.
public struct PendingListen: Codable, Equatable, Sendable {
  public var id: String
  public var track: ScrobbleTrack
  /// When the song started playing, in whole seconds since 1970 (what both services take).
  public var listenedAt: Int
  public var services: Set<ScrobbleServiceKind>

  public init(
    id: String = UUID().uuidString, track: ScrobbleTrack, listenedAt: Int,
    services: Set<ScrobbleServiceKind>
  ) {
    self.id = id
    self.track = track
    self.listenedAt = listenedAt
    self.services = services
  }

  enum CodingKeys: String, CodingKey {
    case id, track
    case listenedAt = "listened_at"
    case services
  }
}

/// The listens not yet sent, kept in `$XDG_DATA_HOME/riffle/scrobbles.json` and rewritten
/// whole through `AtomicFile` on every change: a kill -9 at any moment leaves the file before
/// the change or after it. A listen leaves a service's list only after that service answered
/// 2xx for it (or refused it for good), so none is lost; one killed between the answer and
/// the write is sent again at the next start (both services drop a repeat of the same listen).
///
/// Not thread-safe: `Scrobbler` uses it on its own queue. Holds no token or secret.
public struct ScrobbleQueue: Sendable {
  public let file: URL
  public private(set) var listens: [PendingListen]

  /// The file's shape: a version, then the listens oldest first.
  struct Document: Codable {
    var version: Int
    var listens: [PendingListen]
  }

  /// An empty queue for `file`, without reading it.
  public init(file: URL, listens: [PendingListen] = []) {
    self.file = file
    self.listens = listens
  }

  /// What `load` found.
  public enum LoadProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be read as a queue; it was moved to `movedTo` so nothing is lost
    /// silently and the next save starts afresh.
    case unreadable(movedTo: String?, reason: String)

    public var description: String {
      switch self {
      case .unreadable(let movedTo, let reason):
        let kept = movedTo.map { " (kept as \($0))" } ?? ""
        return "Listens waiting to be scrobbled could not be read: \(reason)\(kept)"
      }
    }
  }

  /// Reads the queue from `file` (empty when there is none), after removing temporary files a
  /// killed writer left beside it. A file that cannot be read is moved aside and reported.
  public static func load(from file: URL) -> (ScrobbleQueue, LoadProblem?) {
    AtomicFile.removeStaleTemporaries(in: file.deletingLastPathComponent())
    guard FileManager.default.fileExists(atPath: file.path) else {
      return (ScrobbleQueue(file: file), nil)
    }
    let reason: String
    do {
      let data = try Data(contentsOf: file)
      let document = try JSONDecoder().decode(Document.self, from: data)
      if document.version == 1 {
        let listens = document.listens.filter { !$0.services.isEmpty }
        return (ScrobbleQueue(file: file, listens: listens), nil)
      }
      reason = "version \(document.version) is newer than this Riffle knows"
    } catch let error as DecodingError {
      reason = Self.describe(error)
    } catch {
      reason = "\(error)"
    }
    let aside = file.deletingLastPathComponent().appendingPathComponent(
      "\(file.lastPathComponent).unreadable-\(Int(Date().timeIntervalSince1970))-"
        + UUID().uuidString.prefix(8))
    let moved = (try? FileManager.default.moveItem(at: file, to: aside)) != nil
    return (
      ScrobbleQueue(file: file),
      .unreadable(movedTo: moved ? aside.lastPathComponent : nil, reason: reason)
    )
  }

  private static func describe(_ error: DecodingError) -> String {
    switch error {
    case .dataCorrupted: return "not valid JSON (cut short?)"
    case .keyNotFound(let key, _): return "'\(key.stringValue)' is missing"
    case .typeMismatch, .valueNotFound: return "a field has the wrong type"
    @unknown default: return "not a queue"
    }
  }

  /// The listens a service still has to take, oldest first.
  public func pending(for kind: ScrobbleServiceKind) -> [PendingListen] {
    listens.filter { $0.services.contains(kind) }
  }

  public mutating func append(_ listen: PendingListen) {
    guard !listen.services.isEmpty else { return }
    listens.append(listen)
  }

  /// `kind` took (or refused for good) these listens: they leave its list, and the queue when
  /// no service is left.
  public mutating func remove(_ ids: Set<String>, for kind: ScrobbleServiceKind) {
    for index in listens.indices where ids.contains(listens[index].id) {
      listens[index].services.remove(kind)
    }
    listens.removeAll { $0.services.isEmpty }
  }

  /// Writes the queue through `AtomicFile`; an empty queue removes the file.
  public func save() throws {
    if listens.isEmpty {
      if FileManager.default.fileExists(atPath: file.path) {
        try FileManager.default.removeItem(at: file)
      }
      return
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(Document(version: 1, listens: listens))
    try AtomicFile.write(data, to: file)
  }
}
