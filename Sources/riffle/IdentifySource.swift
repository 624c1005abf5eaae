import Foundation
import RiffleAPI
import RiffleCore
import RiffleLibrary

/// What `riffle identify FILE [SOURCE]` searches: the songs of what the player would open for
/// SOURCE (a feed, a folder of music, a playlist file; none: the bundled catalog), the key
/// their fingerprints are kept under in the cache's store, and how `--json` names the source.
struct IdentifySource {
  var songs: [Song]
  var key: URL
  var name: String

  /// Why a source could not be read: said on stderr, exit 2.
  struct Failure: Error {
    var message: String
  }

  /// The songs of `source`, read as the player reads them (`Riffle.resolveKind`). A folder is
  /// scanned into the library index first (as `riffle FOLDER` does: new and changed files
  /// only, loudness left to `riffle library scan`); `note` is told what is worth saying on the
  /// way (a first scan, files that could not be read, playlist entries skipped).
  static func load(_ source: String?, note: (String) -> Void) throws(Failure) -> IdentifySource {
    guard let source, !source.isEmpty else {
      return try feed(resolving: nil)
    }
    let kind: SourceKind
    do {
      kind = try Riffle.resolveKind(source)
    } catch {
      throw Failure(message: "\(error)")
    }
    switch kind {
    case .library(.folder(let path)):
      return try folder(path, note: note)
    case .playlist(let url):
      return try playlist(url, note: note)
    default:
      return try feed(resolving: source)
    }
  }

  private static func feed(resolving source: String?) throws(Failure) -> IdentifySource {
    let url: URL
    do {
      url = try Riffle.resolveSource(source)
    } catch {
      throw Failure(message: "\(error)")
    }
    do {
      return IdentifySource(
        songs: try FeedSource().loadAllPages(url), key: url, name: url.absoluteString)
    } catch {
      throw Failure(message: "cannot load the feed: \(error.userMessage)")
    }
  }

  /// A folder's songs, in album order, from the library index after scanning it.
  private static func folder(_ path: String, note: (String) -> Void) throws(Failure)
    -> IdentifySource
  {
    let folder = URL(fileURLWithPath: path, isDirectory: true)
    let shown = TextSanitizer.sanitize(folder.lastPathComponent)
    do {
      let index = try LibraryIndex()
      if LibraryLive.firstScan(of: folder, in: index) { note("Scanning \(shown)...") }
      let scanner = LibraryScanner(index: index)
      scanner.measuresLoudness = false
      let report = try scanner.scan(roots: [folder], waiting: note)
      for issue in report.issues {
        note(
          "skipped \(TextSanitizer.sanitize(issue.path)): \(TextSanitizer.sanitize(issue.message))")
      }
      var songs: [Song] = []
      let page = 1_000
      while true {
        let more = try index.playerSongs(.folder(path), offset: songs.count, limit: page)
        songs += more
        if more.count < page { break }
      }
      if songs.isEmpty { note("no music found in \(shown)") }
      return IdentifySource(songs: songs, key: folder, name: path)
    } catch {
      throw Failure(
        message: "cannot read the folder \(shown): \(TextSanitizer.sanitize("\(error)"))")
    }
  }

  /// A playlist file's songs (M3U, PLS, XSPF), read as the player reads it.
  private static func playlist(_ url: URL, note: (String) -> Void) throws(Failure)
    -> IdentifySource
  {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<SourcePage, PlaylistFile.ReadError>?
    PlaylistFile.load(url) { loaded in
      result = loaded
      done.signal()
    }
    done.wait()
    switch result! {
    case .failure(let error):
      throw Failure(message: "cannot load the playlist: \(error.userMessage)")
    case .success(let page):
      if page.skipped > 0 {
        note("\(page.skipped) entries of the playlist name nothing playable: skipped")
      }
      return IdentifySource(songs: page.songs, key: url, name: url.absoluteString)
    }
  }
}
