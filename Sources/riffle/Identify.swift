import ArgumentParser
import Foundation
import RiffleAPI
import RiffleAudio
import RiffleCore
import RiffleFingerprint

/// `riffle identify FILE [SOURCE]`: names the song a recording holds, offline, against a feed.
struct Identify: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Name the song in a recording: which song of the feed, and where in it.",
    discussion: """
      Prints "TITLE by NAME (@handle) at M:SS" and exits 0, or "No song matched" and exits 1; \
      a file that cannot be read or decoded exits 2. The feed's fingerprints are kept in \
      $XDG_CACHE_HOME/riffle/fingerprints and updated when the feed gains songs.

      Examples:
        riffle identify clip.wav                  # against the bundled catalog
        riffle identify clip.mp3 https://apitest.suno.com/api/songs
      """)

  @Argument(
    help: ArgumentHelp("The recording: WAV, MP3 or anything Riffle plays.", valueName: "file"))
  var file: String

  @Argument(
    help: ArgumentHelp(
      "The feed to search, as for the player. None searches the bundled catalog.",
      valueName: "source"))
  var source: String?

  func run() throws {
    let feedURL = try Riffle.resolveSource(source)
    let recording: Data
    let pcm: Data
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) else {
      fail("cannot read '\(file)': no such file")
    }
    if isFolder.boolValue { fail("cannot read '\(file)': it is a folder, not a recording") }
    guard FileManager.default.isReadableFile(atPath: file) else {
      fail("cannot read '\(file)': permission denied")
    }
    do {
      recording = try Data(contentsOf: URL(fileURLWithPath: file))
      pcm = try DecoderFactory.decodeAll(recording)
    } catch let error as DecodeError {
      fail("cannot decode '\(file)': \(error)")
    } catch {
      fail("cannot read '\(file)': \((error as NSError).localizedDescription)")
    }
    let songs: [Song]
    do {
      songs = try FeedSource().loadAllPages(feedURL)
    } catch {
      fail("cannot load the feed: \(error.userMessage)")
    }
    let store = FingerprintStore(
      folder: AppPaths.fromEnvironment().cache.appendingPathComponent("fingerprints"))
    let update = store.update(feed: feedURL, songs: songs) { count in
      FileHandle.standardError.write(Data("Fingerprinting \(count) new songs...\n".utf8))
    }
    for problem in update.problems {
      FileHandle.standardError.write(
        Data("riffle: skipped \(TextSanitizer.sanitize(problem))\n".utf8))
    }
    let query = store.fingerprinter.landmarks(pcm16: pcm, channels: PCMFormat.channels)
    guard let match = update.index.match(query),
      let song = songs.first(where: { $0.id == match.songID })
    else {
      print("No song matched")
      throw ExitCode(1)
    }
    print(IdentifyResult.line(for: song, at: match.offset))
  }

  /// Every error (file, feed) exits 2; 1 is kept for "no match".
  private func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("riffle: \(message)\n".utf8))
    Foundation.exit(2)
  }
}

/// How a match is said, on the command line and in the player.
enum IdentifyResult {
  static func line(for song: Song, at offset: Double) -> String {
    let title = song.title.isEmpty ? "Untitled" : TextSanitizer.sanitize(song.title)
    let name =
      song.displayName.isEmpty ? "Unknown artist" : TextSanitizer.sanitize(song.displayName)
    // Songs from sources without handles are named without the empty "(@)".
    let handle = song.handle.isEmpty ? "" : " (@\(TextSanitizer.sanitize(song.handle)))"
    return "\(title) by \(name)\(handle) at \(formatTime(offset.rounded()))"
  }
}

extension FeedSource {
  /// Every page of a feed, blocking (at most 100 pages): identify searches all of it.
  func loadAllPages(_ url: URL) throws(FeedLoadError) -> [Song] {
    var songs: [Song] = []
    var next: URL? = url
    var pages = 0
    while let pageURL = next, pages < 100 {
      let done = DispatchSemaphore(value: 0)
      nonisolated(unsafe) var result: Result<FeedPage, FeedLoadError>?
      load(pageURL) { loaded in
        result = loaded
        done.signal()
      }
      done.wait()
      let page = try result!.get()
      songs += page.songs
      pages += 1
      next = page.paging?.nextPage.flatMap { number in
        page.songs.isEmpty
          ? nil : FeedSource.pageURL(url, page: number, pageSize: page.pageSize)
      }
    }
    return songs
  }
}
