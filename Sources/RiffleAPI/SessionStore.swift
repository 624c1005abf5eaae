import Foundation
import RiffleCore

/// The saved session in `$XDG_DATA_HOME/riffle/session.json`, written atomically (a kill -9
/// leaves the old file or the new one).
public enum SessionStore {
  /// The session saved last, or nil with the reason when there is none to use (none saved, a
  /// file that cannot be read or is not a session, another version's format).
  public static func load(from file: URL) -> (session: SavedSession?, problem: String?) {
    guard let data = try? Data(contentsOf: file) else { return (nil, nil) }
    guard let session = try? JSONDecoder().decode(SavedSession.self, from: data),
      session.version == SavedSession.version
    else {
      return (nil, "The saved session could not be read; starting afresh")
    }
    return (session, nil)
  }

  public static func save(_ session: SavedSession, to file: URL) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try AtomicFile.write(try encoder.encode(session), to: file)
  }
}
