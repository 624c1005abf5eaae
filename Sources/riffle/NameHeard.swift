import Foundation
import RiffleAPI
import RiffleAudio
import RiffleCore
import RiffleFingerprint
import RiffleLibrary

/// A station's `i`: what the output played in its last seconds (the tap's recent ring, kept only
/// while a station plays) matched against the library's fingerprints on disk (`riffle:library`,
/// made by `riffle library scan --fingerprints` or the first `riffle identify`), the song named
/// by the library index (its id is its file's URL). The store is read as it is, never brought
/// up to date here: that can take minutes, and the station plays on.
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
    guard FileManager.default.fileExists(atPath: store.file(for: LibraryPrints.key).path) else {
      return .failure(Failure("No song matched"))
    }
    let match: FingerprintMatch?
    do {
      match = try store.storedIndex(for: LibraryPrints.key).match(
        peaks: store.fingerprinter.queryPeaks(mono: samples))
    } catch {
      FileHandle.standardError.write(Data("fingerprints: \(error)\n".utf8))
      return .failure(Failure("No song matched"))
    }
    guard let match, let url = URL(string: match.songID), url.isFileURL,
      let song = librarySong(at: url, in: library())
    else { return .failure(Failure("No song matched")) }
    return .success(
      HeardSong(
        title: TextSanitizer.sanitize(song.title),
        artist: TextSanitizer.sanitize(song.displayName), source: "your library"))
  }

  /// The library index's song for a file, found among its folder's songs.
  static func librarySong(at url: URL, in index: LibraryIndex?) -> Song? {
    guard let index else { return nil }
    let folder = url.deletingLastPathComponent().path
    let songs = (try? index.songs(.folder(folder), limit: 100_000)) ?? []
    return songs.first { $0.path == url.path || $0.song.id == url.absoluteString }?.song
  }
}
