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

  /// `riffle library scan --fingerprints`: the store brought up to date with the index just
  /// written; what could not be fingerprinted is said on stderr, as the scan's unreadable files.
  static func updateAfterScan(folders: [String]) {
    let songs: [Song]
    do {
      songs = try Self.songs(configured: folders) ?? []
    } catch {
      Library.printError("riffle: cannot read the library: \(error)")
      return
    }
    let update = store().update(feed: key, songs: songs) { count in
      Library.printError("riffle: Fingerprinting \(count) library songs...")
    }
    for problem in update.problems {
      Library.printError("riffle: fingerprints: skipped \(TextSanitizer.sanitize(problem))")
    }
    print("Fingerprints: \(update.fingerprinted.count) made, \(songs.count) songs in all")
  }

  /// The better of two answers (`FingerprintMatch.outranks`: more evidence, then more
  /// hashes; a feed's song and a library's are ranked alike; a tie keeps the first, the
  /// library's).
  static func better<T>(_ a: (T, FingerprintMatch)?, _ b: (T, FingerprintMatch)?) -> (
    T, FingerprintMatch
  )? {
    guard let a else { return b }
    guard let b else { return a }
    return b.1.outranks(a.1) ? b : a
  }
}
