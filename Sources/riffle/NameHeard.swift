import Foundation
import RiffleAPI
import RiffleAudio
import RiffleCore
import RiffleFingerprint
import RiffleLibrary

/// A station's `i`: what the output played in its last seconds (the tap's recent ring, kept only
/// while a station plays) matched against the catalogs Riffle knows: the library's fingerprints
/// on disk (`riffle:library`, made by `riffle library scan --fingerprints` or the first `riffle
/// identify`), the song named by the library index (its id is its file's URL), and the bundled
/// catalog's (the store `riffle identify` keeps for it). The library's store is read as it is,
/// never brought up to date here: that can take minutes, and the station plays on. The better
/// score names the song.
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
      inLibrary(recording, store: store, library: library), inCatalog(recording, paths: paths))
    guard let (heard, _) = best else { return .failure(Failure("No song matched")) }
    return .success(heard)
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
    return (heard(song, source: "your library"), match)
  }

  /// The bundled catalog's song for `recording`: the catalog `riffle identify` searches, its
  /// store (in the cache) made the first time if it is not there yet (a few songs, seconds).
  static func inCatalog(_ recording: Recording, paths: AppPaths) -> (HeardSong, FingerprintMatch)? {
    guard let catalog = Catalog.locate(), let songs = try? FeedSource().loadAllPages(catalog)
    else { return nil }
    let store = FingerprintStore(folder: paths.cache.appendingPathComponent("fingerprints"))
    let update = store.update(feed: catalog, songs: songs) { _ in }
    guard let match = update.index.match(recording),
      let song = songs.first(where: { $0.id == match.songID })
    else { return nil }
    return (heard(song, source: "the bundled catalog"), match)
  }

  private static func heard(_ song: Song, source: String) -> HeardSong {
    HeardSong(
      title: TextSanitizer.sanitize(song.title),
      artist: TextSanitizer.sanitize(song.displayName), source: source)
  }

  /// The library index's song for a file, found among its folder's songs.
  static func librarySong(at url: URL, in index: LibraryIndex?) -> Song? {
    guard let index else { return nil }
    let folder = url.deletingLastPathComponent().path
    let songs = (try? index.songs(.folder(folder), limit: 100_000)) ?? []
    return songs.first { $0.path == url.path || $0.song.id == url.absoluteString }?.song
  }
}
