import Foundation
import RiffleAPI
import RiffleCore

/// The names of a store's songs, kept beside its prints in a small JSON file (`.rfpn`): a print
/// holds a song's id and audio, not what it is called, so without them a song found in the
/// store could be named only where its page is loaded. With them, `i` on a station's page
/// names a song from any store the player has made (a feed's, a search's, the queue's...).
///
/// Only titles, artists and where the songs came from, said as the user knows it: never a key
/// itself (a feed's address may carry a token), only its host or file name.
public struct StoreNames: Equatable, Sendable, Codable {
  public struct Entry: Equatable, Sendable, Codable {
    public var title: String
    public var artist: String
  }

  /// Where the songs came from: "up next", "the feed at example.com".
  public var source: String
  /// Each song's names, by id.
  public var songs: [String: Entry]

  public init(source: String, songs: [Song]) {
    self.source = source
    var entries: [String: Entry] = [:]
    for song in songs where entries[song.id] == nil {
      entries[song.id] = Entry(title: song.title, artist: song.displayName)
    }
    self.songs = entries
  }

  /// Read from the file's bytes; nil when they are not a names file.
  public init?(json: Data) {
    guard let names = try? JSONDecoder().decode(StoreNames.self, from: json) else { return nil }
    self = names
  }

  public var json: Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return (try? encoder.encode(self)) ?? Data()
  }

  /// How the user knows the source a store key stands for (`SourceKind.fingerprintKey`).
  public static func source(ofKey key: URL) -> String {
    switch key.scheme {
    case "riffle":
      let kind = String(key.absoluteString.dropFirst("riffle:".count))
      return SourceKind.fingerprintSourceName(kind: kind) ?? "a page you opened"
    case "file":
      // A folder of music (`riffle identify FILE FOLDER`) is a key with a directory path.
      if key.hasDirectoryPath { return "the folder \(key.lastPathComponent)" }
      let kind = PlaylistFile.looksLikePlaylist(key) ? "playlist" : "feed"
      return "the \(kind) \(key.lastPathComponent)"
    default:
      let kind = PlaylistFile.looksLikePlaylist(key) ? "playlist" : "feed"
      return key.host.map { "the \(kind) at \($0)" } ?? "a \(kind)"
    }
  }
}
