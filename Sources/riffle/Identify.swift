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
      a file that cannot be read or decoded exits 2. A recording played fast or slow (up to 5%, \
      pitch and tempo together) is named too, with its speed. Only the first \
      \(Int(Identify.maxSeconds)) s of a longer recording are listened to. The source's \
      fingerprints are kept in $XDG_CACHE_HOME/riffle/fingerprints and updated when it gains \
      songs; a folder is scanned into the library index first, as 'riffle FOLDER' does. With a library added and scanned ('riffle library scan'), its songs are \
      searched too: their fingerprints are kept in $XDG_DATA_HOME/riffle/fingerprints and made \
      at the first identify after a scan for the songs that are new or changed (a library \
      song's source is "library" in --json).

      Examples:
        riffle identify clip.wav                  # against the bundled catalog
        riffle identify clip.mp3 https://apitest.suno.com/api/songs
        riffle identify clip.m4a ~/Music/Soundtracks   # a folder of music, scanned first
        riffle identify --json clip.wav           # {"title": ..., "offset": ..., "speed": ...}
      """)

  /// What is listened to of a longer recording: a minute is far more than a match needs.
  static let maxSeconds = 60.0

  @Argument(
    help: ArgumentHelp("The recording: WAV, MP3 or anything Riffle plays.", valueName: "file"))
  var file: String

  @Argument(
    help: ArgumentHelp(
      """
      What to search, as for the player: a feed (URL or file), a folder of music or a \
      playlist file. None searches the bundled catalog.
      """,
      valueName: "source"))
  var source: String?

  @Flag(
    help: """
      Print one JSON object: title, artist, handle, id, source, offset and speed of the match, \
      its score and how far its bits and peaks agree (evidence), the songs that hold the \
      same recording (same), or "matched": false and why.
      """)
  var json = false

  func run() throws {
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
      // Mapped, not read: of a two-hour recording only the first minute is decoded.
      recording = try Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped)
      let decoded = try DecoderFactory.decodePrefix(
        recording, maxFrames: Int(Self.maxSeconds) * PCMFormat.sampleRate)
      pcm = decoded.pcm
      if decoded.cut {
        note("the recording is longer than \(Int(Self.maxSeconds)) s: listening to its start")
      }
    } catch let error as DecodeError {
      fail("cannot decode '\(file)': \(error)")
    } catch {
      fail("cannot read '\(file)': \((error as NSError).localizedDescription)")
    }
    let searched: IdentifySource
    do {
      searched = try IdentifySource.load(source, note: note)
    } catch {
      fail(error.message)
    }
    let songs = searched.songs
    let store = Catalog.cacheStore()
    let update = store.update(feed: searched.key, songs: songs) { count in
      note("Fingerprinting \(count) new songs...")
    }
    for problem in update.problems { note("skipped \(TextSanitizer.sanitize(problem))") }
    let heard = store.fingerprinter.recording(
      mono: pcm.withUnsafeBytes { Resampler.mono(pcm16: $0, channels: PCMFormat.channels) })
    // With a library configured and scanned, its songs are searched too (IdentifyLibrary.swift).
    let inLibrary = matchInLibrary(heard)
    let inFeed = update.index.match(heard).flatMap { match in
      IdentifyResult.named(match, among: songs).map { ($0, match) }
    }
    guard let (named, match) = LibraryPrints.better(inLibrary, inFeed) else {
      let why = IdentifyResult.noMatch(peaks: heard.peaks.count, seconds: Self.seconds(of: pcm))
      if json {
        print(IdentifyResult.json(["matched": false, "message": why]))
      } else {
        print(why)
      }
      throw ExitCode(1)
    }
    if json {
      let source =
        inLibrary.map { $0.0.song.id == named.song.id } == true
        ? LibraryPrints.sourceName : searched.name
      print(IdentifyResult.json(for: named, match: match, sourceName: source))
    } else {
      print(
        IdentifyResult.line(for: named.song, at: match.offset, speed: match.speed)
          + IdentifyResult.sameAudioNote(named.sameAudio))
    }
  }

  /// The best library song for `recording`, its store brought up to date with the library index
  /// first; nil without a library, and a library that cannot be read is a note, not a failure.
  private func matchInLibrary(_ recording: Recording) -> (IdentifyResult.Named, FingerprintMatch)? {
    let songs: [Song]
    do {
      guard let found = try LibraryPrints.songs(configured: Library.folders()) else { return nil }
      songs = found
    } catch {
      note("cannot read the library: \(TextSanitizer.sanitize(String(describing: error)))")
      return nil
    }
    let update = LibraryPrints.store().update(feed: LibraryPrints.key, songs: songs) { count in
      note("Fingerprinting \(count) library songs...")
    }
    for problem in update.problems { note("skipped \(TextSanitizer.sanitize(problem))") }
    return update.index.match(recording).flatMap { match in
      IdentifyResult.named(match, among: songs).map { ($0, match) }
    }
  }

  static func seconds(of pcm: Data) -> Double {
    Double(pcm.count / PCMFormat.bytesPerFrame) / Double(PCMFormat.sampleRate)
  }

  private func note(_ message: String) {
    FileHandle.standardError.write(Data("riffle: \(message)\n".utf8))
  }

  /// Every error (file, feed) exits 2; 1 is kept for "no match".
  private func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("riffle: \(message)\n".utf8))
    Foundation.exit(2)
  }
}

/// How a match is said, on the command line and in the player.
enum IdentifyResult {
  /// The song a match names and the songs of the same source that hold the same audio there
  /// (`FingerprintMatch.sameAudio`: a song held twice), named beside it.
  struct Named {
    var song: Song
    var sameAudio: [Song] = []
  }

  /// The songs of `match` among `songs`; nil when its song is not among them.
  static func named(_ match: FingerprintMatch, among songs: [Song]) -> Named? {
    guard let song = songs.first(where: { $0.id == match.songID }) else { return nil }
    let twins = match.sameAudio.compactMap { id in songs.first { $0.id == id } }
    return Named(song: song, sameAudio: twins)
  }

  /// " (the same recording as "TITLE" by NAME)", for each song that holds the same audio.
  static func sameAudioNote(_ songs: [Song]) -> String {
    guard !songs.isEmpty else { return "" }
    let names = songs.map { song in
      let (title, name) = titleAndName(song)
      return "\"\(title)\" by \(name)"
    }
    return " (the same recording as \(names.joined(separator: " and ")))"
  }

  /// "No song matched", and why when the recording itself explains it.
  static func noMatch(peaks: Int, seconds: Double) -> String {
    if seconds < 1 { return "No song matched (the recording is shorter than a second)" }
    if peaks == 0 { return "No song matched (the recording is silent)" }
    return "No song matched"
  }

  /// A speed worth saying: "played 3% fast"; nothing within half a percent of 1.
  static func speedNote(_ speed: Double) -> String {
    let percent = Int(((speed - 1) * 100).rounded())
    guard abs(speed - 1) >= 0.005, percent != 0 else { return "" }
    return " (played \(abs(percent))% \(percent > 0 ? "fast" : "slow"))"
  }

  static func line(for song: Song, at offset: Double, speed: Double) -> String {
    line(for: song, at: offset) + speedNote(speed)
  }

  /// The answer for scripts: one JSON object on one line.
  static func json(for song: Song, match: FingerprintMatch, source: URL) -> String {
    json(for: song, match: match, sourceName: source.absoluteString)
  }

  /// The same, with the source named as scripts see it: a feed's URL, or "library"; the
  /// songs that hold the same audio as "same" (id, title, artist, handle; none: empty).
  static func json(for named: Named, match: FingerprintMatch, sourceName: String) -> String {
    var object = songFields(named.song)
    object["same"] = named.sameAudio.map(songFields)
    object["matched"] = true
    object["source"] = sourceName
    object["offset"] = (match.offset * 1000).rounded() / 1000
    object["speed"] = (match.speed * 10_000).rounded() / 10_000
    object["score"] = match.score
    object["evidence"] = match.evidence.map { ($0 * 10).rounded() / 10 } ?? NSNull()
    return json(object)
  }

  /// A song as JSON names it: id, title, artist, handle, sanitized.
  static func songFields(_ song: Song) -> [String: Any] {
    [
      "id": TextSanitizer.sanitize(song.id), "title": TextSanitizer.sanitize(song.title),
      "artist": TextSanitizer.sanitize(song.displayName),
      "handle": TextSanitizer.sanitize(song.handle),
    ]
  }

  static func json(for song: Song, match: FingerprintMatch, sourceName: String) -> String {
    json(for: Named(song: song), match: match, sourceName: sourceName)
  }

  static func json(_ object: [String: Any]) -> String {
    let data =
      (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }

  static func line(for song: Song, at offset: Double) -> String {
    let (title, name) = titleAndName(song)
    // Songs from sources without handles are named without the empty "(@)".
    let handle = song.handle.isEmpty ? "" : " (@\(TextSanitizer.sanitize(song.handle)))"
    return "\(title) by \(name)\(handle) at \(formatTime(offset.rounded()))"
  }

  /// A song's title and artist as a line says them, sanitized, with words for the missing.
  static func titleAndName(_ song: Song) -> (title: String, name: String) {
    (
      song.title.isEmpty ? "Untitled" : TextSanitizer.sanitize(song.title),
      song.displayName.isEmpty ? "Unknown artist" : TextSanitizer.sanitize(song.displayName)
    )
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
