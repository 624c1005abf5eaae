import Foundation
import RiffleAPI
import RiffleAudio
import RiffleCore
import RiffleFingerprint
import RiffleLibrary

/// A station's `i`: what the output played in its last seconds (the tap's recent ring, kept only
/// while a station plays) matched against every store of prints Riffle keeps: the library's on
/// disk (`riffle:library`, made by `riffle library scan --fingerprints` or the first `riffle
/// identify`), the song named by the library index (its id is its file's URL); the bundled
/// catalog's (the store `riffle identify` keeps for it, made here the first time); and every
/// other store in the cache that names its songs (`StoreNames`: a feed's, a search's, up
/// next's... made by `i` on their pages or by `riffle identify --feed`). The stores are read as
/// they are, never brought up to date here: that can take minutes, and the station plays on.
/// The best score names the song.
enum NameHeard {
  /// Less than this is too little to name anything.
  static let minimumSeconds = 3.0

  static func live(
    output: @escaping @Sendable () -> (any AudioOutput)?, paths: AppPaths,
    library: @escaping @Sendable () -> LibraryIndex?
  ) -> @Sendable (Double, @escaping @Sendable (Result<HeardSong, Failure>) -> Void) -> Void {
    { seconds, done in
      // Taken now, on the caller's thread: what was heard when the key was pressed.
      let samples =
        output().map { $0.tap.recent(seconds: seconds, queued: $0.queuedSeconds()) } ?? []
      BackgroundWork.run("riffle.name-heard") {
        done(name(samples, paths: paths, library: library))
      }
    }
  }

  static func name(_ samples: [Float], paths: AppPaths, library: () -> LibraryIndex?) -> Result<
    HeardSong, Failure
  > {
    guard Double(samples.count) >= minimumSeconds * Double(PCMFormat.sampleRate) else {
      return .failure(Failure("Not enough of the station heard yet"))
    }
    let store = LibraryPrints.store(paths)
    let recording = store.fingerprinter.recording(mono: samples)
    let best = LibraryPrints.better(
      inLibrary(recording, store: store, library: library), inStores(recording, paths: paths))
    guard let (heard, _) = best else { return .failure(Failure("No song matched")) }
    return .success(heard)
  }

  /// The best song for `recording` among the cache's stores that name their songs, the
  /// bundled catalog's among them (made first when it is not there yet: a few songs, seconds).
  static func inStores(_ recording: Recording, paths: AppPaths) -> (HeardSong, FingerprintMatch)? {
    let store = Catalog.cacheStore(paths)
    if let catalog = Catalog.locate(), let songs = try? FeedSource().loadAllPages(catalog) {
      _ = store.update(feed: catalog, songs: songs) { _ in }
    }
    var best: (HeardSong, FingerprintMatch)?
    for (prints, names) in store.namedStores() {
      let match: FingerprintMatch?
      do {
        match = try store.storedIndex(prints: prints).match(recording)
      } catch {
        FileHandle.standardError.write(Data("fingerprints: \(error)\n".utf8))
        continue
      }
      guard let match, let entry = names.songs[match.songID] else { continue }
      let found = HeardSong(title: entry.title, artist: entry.artist, source: names.source)
      best = LibraryPrints.better(best, (found.sanitized, match))
    }
    return best
  }

  /// The library's song for `recording`, from its store as it is; nil without one.
  static func inLibrary(
    _ recording: Recording, store: FingerprintStore, library: () -> LibraryIndex?
  )
    -> (HeardSong, FingerprintMatch)?
  {
    guard FileManager.default.fileExists(atPath: store.file(for: LibraryPrints.key).path) else {
      return nil
    }
    let match: FingerprintMatch?
    do {
      match = try store.storedIndex(for: LibraryPrints.key).match(recording)
    } catch {
      FileHandle.standardError.write(Data("fingerprints: \(error)\n".utf8))
      return nil
    }
    guard let match, let url = URL(string: match.songID), url.isFileURL,
      let song = librarySong(at: url, in: library())
    else { return nil }
    let heard = HeardSong(title: song.title, artist: song.displayName, source: "your library")
    return (heard.sanitized, match)
  }

  /// The library index's song for a file, found among its folder's songs.
  static func librarySong(at url: URL, in index: LibraryIndex?) -> Song? {
    guard let index else { return nil }
    let folder = url.deletingLastPathComponent().path
    let songs = (try? index.songs(.folder(folder), limit: 100_000)) ?? []
    return songs.first { $0.path == url.path || $0.song.id == url.absoluteString }?.song
  }
}
