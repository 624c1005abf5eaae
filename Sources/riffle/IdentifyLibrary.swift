import Foundation
import RiffleAPI
import RiffleCore
import RiffleFingerprint
import RiffleLibrary

/// The library's fingerprints for `riffle identify`: kept in `$XDG_DATA_HOME/riffle/fingerprints`
/// (beside the library's own index, not in the cache: they cost minutes to make), under the key
/// `riffle:library`, brought up to date with the library index's rows at each identify. A song
/// is fingerprinted again only when its file's size or modification time changed; songs gone
/// from the index leave the store.
enum LibraryPrints {
  static let key = URL(string: "riffle:library")!

  /// What `riffle identify` prints as the source of a library song.
  static let sourceName = "library"

  static func store(_ paths: AppPaths = .fromEnvironment()) -> FingerprintStore {
    FingerprintStore(folder: paths.data.appendingPathComponent("fingerprints"))
  }

  /// Every song of the library index, in album order; nil when no library is configured or it
  /// was never scanned (identify then searches the feed alone, as before).
  static func songs(configured folders: [String]) throws -> [Song]? {
    let url = LibraryIndex.defaultURL()
    guard !folders.isEmpty, FileManager.default.fileExists(atPath: url.path) else { return nil }
    let index = try LibraryIndex(url: url)
    var songs: [Song] = []
    let page = 1_000
    while true {
      let more = try index.playerSongs(.all, offset: songs.count, limit: page)
      songs += more
      if more.count < page { break }
    }
    return songs.isEmpty ? nil : songs
  }

  /// The better of two answers: the higher score (a feed's song and a library's are ranked
  /// alike; a tie keeps the first, the library's).
  static func better<T>(_ a: (T, FingerprintMatch)?, _ b: (T, FingerprintMatch)?) -> (
    T, FingerprintMatch
  )? {
    guard let a else { return b }
    guard let b else { return a }
    return b.1.score > a.1.score ? b : a
  }
}
