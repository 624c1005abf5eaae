import Foundation
import RiffleCore
import RiffleLibrary
import RiffleTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The library's figures: a scan of 10,000 real encoded files side by side with mpd's own
/// (`mpc update --wait`), the rescan with nothing changed, loudness, and search and paging
/// over an index of 100,000 songs.
enum LibraryFigures {
  static let albums = 1_000
  static let tracksPerAlbum = 10

  /// The scans beside mpd (`library`).
  static func figures(runs: Int) throws -> [Bench.Row] {
    try scanFigures(music: try generatedLibrary(), runs: runs)
  }

  // MARK: - The generated library

  /// 10,000 files (1,000 albums of 10) of real audio with realistic tags, made once and kept
  /// in `.build-bench/library-10k` (about 3 GB; remove it to make it again).
  static func generatedLibrary() throws -> URL {
    let root = TestFiles.repoRoot.appendingPathComponent(".build-bench/library-10k")
    let done = root.appendingPathComponent(".complete-v1")
    if FileManager.default.fileExists(atPath: done.path) { return root }
    try? FileManager.default.removeItem(at: root)
    let bases = root.appendingPathComponent(".bases")
    try FileManager.default.createDirectory(at: bases, withIntermediateDirectories: true)
    FileHandle.standardError.write(Data("library: encoding 10,000 files (once)\n".utf8))

    // 8 s of a catalog song in each format, at the bit rates people keep music in.
    let source = TestFiles.catalog.appendingPathComponent("audio/riffle-002.mp3").path
    let formats: [(AudioEncoder.Format, [String])] = [
      (.mp3, ["-c:a", "libmp3lame", "-b:a", "192k"]), (.flac, ["-c:a", "flac"]),
      (.m4a, ["-c:a", "aac", "-b:a", "192k", "-f", "ipod"]),
      (.ogg, ["-c:a", "libvorbis", "-q:a", "5"]),
      (.opus, ["-c:a", "libopus", "-b:a", "128k", "-ar", "48000"]),
    ]
    var base: [AudioEncoder.Format: URL] = [:]
    for (format, codec) in formats {
      let out = bases.appendingPathComponent("base.\(format.rawValue)")
      let made = try ChildProcess.run(
        "/usr/bin/ffmpeg",
        [
          "-v", "error", "-y", "-i", source, "-t", "8",
          "-map_metadata", "-1",
        ] + codec + [out.path])
      guard made == 0 else { throw BenchError("ffmpeg could not make \(out.lastPathComponent)") }
      base[format] = out
    }
    let cover = TestFiles.fixture("cover.jpg")
    var jobs: [AudioEncoder.Format: [AudioEncoder.Job]] = [:]
    for album in 0..<albums {
      let artist = Names.artist(album % 400)
      let title = Names.album(album)
      let year = 1965 + album % 58
      let format: AudioEncoder.Format =
        switch album % 20 {
        case 0..<12: .mp3
        case 12..<15: .flac
        case 15..<18: .m4a
        case 18: .ogg
        default: .opus
        }
      let folder = root.appendingPathComponent("\(artist)/\(title) (\(year))")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      // A third of the albums embed a cover, a third keep one beside, a third have none.
      let embeds = album % 3 == 0
      if album % 3 == 1 {
        try FileManager.default.copyItem(at: cover, to: folder.appendingPathComponent("cover.jpg"))
      }
      let compilation = album % 10 == 7
      for track in 1...tracksPerAlbum {
        let song = Names.title(album * tracksPerAlbum + track)
        var tags = [
          "title": song, "artist": compilation ? Names.artist((album + track * 37) % 400) : artist,
          "album": title, "track": "\(track)/\(tracksPerAlbum)", "disc": "1/1", "date": "\(year)",
          "genre": Names.genres[album % Names.genres.count],
        ]
        if compilation { tags["album_artist"] = "Various Artists" }
        // Four albums in five carry ReplayGain (a tagger ran over them); the rest get their
        // loudness measured.
        if album % 5 != 0 {
          tags["REPLAYGAIN_TRACK_GAIN"] = String(format: "%.2f dB", -4 - Double(track) / 7)
          tags["REPLAYGAIN_ALBUM_GAIN"] = "-5.10 dB"
        }
        let name = String(format: "%02d %@.%@", track, song, format.rawValue)
        jobs[format, default: []].append(
          AudioEncoder.Job(
            path: folder.appendingPathComponent(name).path, format: format, tags: tags,
            cover: embeds && format.embedsPicture ? cover : nil))
      }
    }
    for (format, list) in jobs { try AudioEncoder.encode(list, source: base[format]) }
    try FileManager.default.removeItem(at: bases)
    try Data().write(to: done)
    return root
  }

  // MARK: - Scans, beside mpd

  static func scanFigures(music: URL, runs: Int) throws -> [Bench.Row] {
    let binary = try riffleBinary()
    let files = albums * tracksPerAlbum
    var riffleCold: [Double] = []
    var riffleRSS: [Double] = []
    var loudness: [Double] = []
    var rescans: [Double] = []
    var mpdCold: [Double] = []
    var mpdRescans: [Double] = []
    var mpdRSS: [Double] = []
    var mpdSongs = 0
    var summary = ""
    for _ in 0..<runs {
      // Riffle: a fresh index, tags only; then loudness for the songs without ReplayGain; then
      // a rescan with nothing changed.
      let home = try TemporaryDirectory("riffle-bench-library")
      let environment = home.xdgEnvironment
      let add = try Timed.run(binary, ["library", "add", music.path], environment: environment)
      guard add.status == 0 else { throw BenchError("riffle library add failed") }
      let cold = try Timed.run(
        binary, ["library", "scan", "--no-loudness", "--quiet"], environment: environment)
      guard cold.status == 0, cold.output.contains("\(files) songs") else {
        throw BenchError("riffle library scan: \(cold.output)")
      }
      summary = cold.output.trimmingCharacters(in: .whitespacesAndNewlines)
      riffleCold.append(cold.seconds)
      riffleRSS.append(cold.maxResident)
      let measured = try Timed.run(
        binary, ["library", "scan", "--quiet"], environment: environment)
      loudness.append(measured.seconds)
      let rescan = try Timed.run(
        binary, ["library", "scan", "--quiet"], environment: environment)
      guard rescan.output.contains(" 0 new, 0 changed, 0 removed") else {
        throw BenchError("the rescan found changes: \(rescan.output)")
      }
      rescans.append(rescan.seconds)

      let mpd = try MPDRun(music: music)
      defer { mpd.stop() }
      mpdCold.append(try mpd.firstScan())
      mpdSongs = mpd.songs
      mpdRescans.append(try mpd.update())
      mpdRSS.append(mpd.resident())
    }
    let method =
      "\(files) files (1,000 albums: 60% MP3 192k, 15% FLAC, 15% AAC M4A, 5% Vorbis, 5% Opus; "
      + "8 s each; covers embedded in a third, beside in a third), page cache warm for both; "
      + "median of \(runs)"
    return [
      Bench.Row(
        figure: "library scan, 10,000 files, new index", value: Bench.median(riffleCold),
        peerName: "mpd", peerValue: Bench.median(mpdCold), format: seconds,
        target: "<= mpd's",
        method:
          "riffle library scan --no-loudness (wall, process start to exit) vs mpd started on an "
          + "empty db_file until mpc update --wait returns with every song counted; " + method
          + "; riffle: \(summary); mpd: \(mpdSongs) songs"),
      Bench.Row(
        figure: "library rescan, nothing changed", value: Bench.median(rescans),
        peerName: "mpd", peerValue: Bench.median(mpdRescans), format: seconds, target: "< 1 s",
        method: "riffle library scan (wall) vs mpc update --wait; " + method),
      Bench.Row(
        figure: "loudness of songs without ReplayGain (2,000 of 10,000)",
        value: String(format: "%.1f s", Bench.median(loudness)), target: "-",
        method:
          "riffle library scan after the tags-only scan: decodes each song once, EBU R128 "
          + "(libebur128), kept in the index"),
      Bench.Row(
        figure: "resident memory, scan of 10,000 files", value: Bench.median(riffleRSS),
        peerName: "mpd", peerValue: Bench.median(mpdRSS), format: SystemFigures.megabytes,
        target: "-",
        method: "riffle: peak (wait4 ru_maxrss); mpd: VmRSS after its scan (a daemon)"),
    ]
  }

  static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }

  // MARK: - Search at 100,000 songs

  static func searchFigures() throws -> [Bench.Row] {
    let dir = try TemporaryDirectory("riffle-bench-index")
    let index = try LibraryIndex(url: dir.file("library.sqlite"))
    let songs = 100_000
    try fill(index, songs: songs)

    // What someone types, a key at a time: each prefix of each word is one query.
    let words = [
      "björk", "velvet", "midnight", "sigur", "river", "blue", "electric", "garden", "sonic",
      "jazz", "yellow", "stone", "åsa", "night", "dream", "echo", "paper", "silver", "moon",
      "the ocean",
    ]
    // Wall time, and the thread's CPU time: on a loaded machine the wall time is mostly
    // waiting for a core.
    var times: [Double] = []
    var cpuTimes: [Double] = []
    var found = 0
    for word in words {
      for length in 1...word.count {
        let term = String(word.prefix(length))
        let cpuStart = threadCPU()
        let time = Bench.time {
          found += (try? index.songs(.search(term), limit: 25).count) ?? 0
        }
        cpuTimes.append(threadCPU() - cpuStart)
        times.append(time)
      }
    }
    func p95(_ values: [Double]) -> Double {
      values.sorted()[Int(Double(values.count) * 0.95)]
    }

    // Paging in album order, as the player pages: 25 at a random offset.
    var paging: [Double] = []
    var pagingCPU: [Double] = []
    var seed: UInt64 = 7
    for _ in 0..<200 {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let offset = Int(seed >> 33) % songs
      let cpuStart = threadCPU()
      paging.append(Bench.time { _ = try? index.songs(.all, offset: offset, limit: 25) })
      pagingCPU.append(threadCPU() - cpuStart)
    }

    // Memory: every song of the library held as the player holds pages ([Song]).
    let before = residentBytes()
    var held: [Song] = []
    held.reserveCapacity(songs)
    var offset = 0
    while offset < songs {
      let page = try index.playerSongs(.all, offset: offset, limit: 1_000)
      held += page
      offset += page.count
      if page.isEmpty { break }
    }
    let after = residentBytes()
    let perSong = Double(after - before) / Double(held.count)
    return [
      Bench.Row(
        figure: "library search as you type, 100,000 songs",
        value: String(
          format: "median %.2f ms (CPU %.2f ms), p95 %.2f ms (CPU %.2f ms)",
          Bench.median(times) * 1000, Bench.median(cpuTimes) * 1000, p95(times) * 1000,
          p95(cpuTimes) * 1000),
        target: "median < 5 ms",
        method:
          "LibraryIndex.songs(.search(prefix), limit: 25) for every prefix of 20 words "
          + "(\(times.count) queries, FTS5 prefix index), in process; wall and the thread's CPU "
          + "time (CLOCK_THREAD_CPUTIME_ID)"),
      Bench.Row(
        figure: "library page of 25 in album order, 100,000 songs",
        value: String(
          format: "median %.2f ms (CPU %.2f ms)", Bench.median(paging) * 1000,
          Bench.median(pagingCPU) * 1000), target: "-",
        method: "LibraryIndex.songs(.all, offset: random, limit: 25), 200 offsets"),
      Bench.Row(
        figure: "all 100,000 library songs held as pages",
        value: SystemFigures.megabytes(Double(after - before)),
        target: "< 100 MB resident",
        method: String(
          format: "resident growth while paging every song into [Song] (%.0f bytes a song)",
          perSong)),
    ]
  }

  /// Fills `index` with `songs` songs of realistic tags (10 to an album, 4,000 artists), as
  /// `LibraryIndex.insert` writes a scan's results, in batches of 5,000.
  static func fill(_ index: LibraryIndex, songs: Int) throws {
    var batch: [(path: String, info: TrackInfo)] = []
    for number in 0..<songs {
      let album = number / 10
      var info = TrackInfo(title: Names.title(number))
      info.artist = Names.artist(album % 4_000)
      info.album = Names.album(album)
      info.track = number % 10 + 1
      info.year = 1965 + album % 58
      info.genre = Names.genres[album % Names.genres.count]
      info.duration = 180
      let path = "/music/\(info.artist!)/\(info.album!)/\(number % 10 + 1) \(info.title).mp3"
      batch.append((path, info))
      if batch.count == 5_000 {
        try index.insert(batch)
        batch.removeAll()
      }
    }
    try index.insert(batch)
  }

  /// This thread's CPU time in seconds.
  static func threadCPU() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }

  static func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
      return 0
    }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
  }
}

/// Names that read like a music collection's, from syllables (some with accents).
enum Names {
  static let genres = [
    "Rock", "Electronic", "Jazz", "Folk", "Hip-Hop", "Classical", "Pop", "Ambient", "Metal",
    "Soul",
  ]
  private static let first = [
    "Björk", "Velvet", "Midnight", "Sigur", "River", "Blue", "Electric", "Garden", "Sonic",
    "Jazz", "Yellow", "Stone", "Åsa", "Night", "Dream", "Echo", "Paper", "Silver", "Moon", "The",
    "Crème", "Señor", "Łódź", "Ñandú", "Zoë",
  ]
  private static let second = [
    "Orchestra", "Hearts", "Machine", "Rós", "Collective", "Sisters", "Brothers", "Trio",
    "Ensemble", "Club", "Society", "Project", "Quartet", "Band", "Lights", "Ocean", "Mountains",
  ]
  private static let words = [
    "Light", "Dark", "Summer", "Winter", "Heart", "Road", "Fire", "Water", "Sky", "Home",
    "Dance", "Song", "Love", "City", "Rain", "Sun", "Time", "Wild", "Gold", "Glass", "Crystal",
    "Shadow", "Morning", "Evening", "Forever", "Télé", "Café", "Über", "Naïve", "Fjörd",
  ]

  static func artist(_ n: Int) -> String {
    "\(first[n % first.count]) \(second[(n / first.count) % second.count])"
      + (n >= first.count * second.count ? " \(n / (first.count * second.count))" : "")
  }

  static func album(_ n: Int) -> String {
    "\(words[n % words.count]) \(words[(n / words.count + 3) % words.count])"
      + (n >= words.count * words.count ? " \(n / (words.count * words.count) + 1)" : "")
  }

  static func title(_ n: Int) -> String {
    "\(words[(n * 7) % words.count]) of \(words[(n / 3 + 11) % words.count])"
      + " \(words[(n / 97) % words.count])"
  }
}

/// A child process timed from start to exit, with its peak resident memory and its output.
enum Timed {
  static func run(_ path: String, _ arguments: [String], environment: [String: String]) throws
    -> (status: Int32, seconds: Double, maxResident: Double, output: String)
  {
    let dir = try TemporaryDirectory("riffle-bench-out")
    let out = dir.file("stdout")
    let fd = open(out.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw BenchError("cannot write \(out.path)") }
    let start = monotonic()
    let child = try ChildProcess(path, arguments, environment: environment, stdout: fd)
    close(fd)
    let (status, usage) = child.waitWithUsage()
    let seconds = monotonic() - start
    let output = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
    return (status, seconds, Double(usage.ru_maxrss) * 1024, output)
  }
}

/// Debian's mpd with a configuration of its own: its own database, loopback only, a free port,
/// a null output (PITFALLS.md).
final class MPDRun {
  let folder: TemporaryDirectory
  let port: Int
  private var process: ChildProcess?
  private let music: URL
  /// Songs mpd counted after its first scan.
  private(set) var songs = 0

  init(music: URL) throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/mpd"),
      FileManager.default.isExecutableFile(atPath: "/usr/bin/mpc")
    else { throw BenchError("mpd and mpc are not installed (RIFFLE_EXTRA_PACKAGES)") }
    self.music = music
    folder = try TemporaryDirectory("riffle-bench-mpd")
    port = 20_000 + Int(getpid() % 10_000)
    let config = """
      music_directory "\(music.path)"
      db_file "\(folder.file("database").path)"
      log_file "\(folder.file("log").path)"
      pid_file "\(folder.file("pid").path)"
      state_file "\(folder.file("state").path)"
      bind_to_address "127.0.0.1"
      port "\(port)"
      auto_update "no"
      audio_output {
        type "null"
        name "null"
      }
      """
    try config.write(to: folder.file("mpd.conf"), atomically: true, encoding: .utf8)
  }

  /// Starts mpd on an empty database and waits until its scan is done; returns the seconds.
  func firstScan() throws -> Double {
    let start = monotonic()
    process = try ChildProcess("/usr/bin/mpd", ["--no-daemon", folder.file("mpd.conf").path])
    // mpd scans on its own when it has no database; `update --wait` then waits for that scan
    // (and a quick second pass), so the time covers the whole first scan.
    guard
      poll(
        timeout: 30,
        {
          (try? runProgram("/usr/bin/mpc", ["-p", "\(port)", "status"]))?.status == 0 ? true : nil
        })
        != nil
    else { throw BenchError("mpd did not start: \(log)") }
    _ = try update()
    let elapsed = monotonic() - start
    let stats = try runProgram("/usr/bin/mpc", ["-p", "\(port)", "stats"]).stdout
    songs =
      stats.split(separator: "\n").first { $0.hasPrefix("Songs:") }
      .flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    return elapsed
  }

  /// `mpc update --wait`: seconds until it returns.
  func update() throws -> Double {
    let start = monotonic()
    let result = try runProgram("/usr/bin/mpc", ["-q", "-p", "\(port)", "update", "--wait"])
    guard result.status == 0 else { throw BenchError("mpc update: \(result.stderr)") }
    return monotonic() - start
  }

  /// mpd's resident memory now.
  func resident() -> Double {
    guard let pid = process?.pid,
      let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 * 1024 } ?? 0
  }

  var log: String { (try? String(contentsOf: folder.file("log"), encoding: .utf8)) ?? "" }

  func stop() {
    process?.stop()
    process = nil
  }
}
