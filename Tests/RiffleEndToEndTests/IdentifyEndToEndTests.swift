import Foundation
import RiffleAudio
import RiffleTestSupport
import Testing

/// Recordings for `riffle identify` and `i`, made in the test from the catalog's own MP3s.
enum Recording {
  /// A catalog song as its feed entry says: title, display name, handle.
  static func catalogEntry(_ id: String) throws -> (title: String, name: String, handle: String) {
    let data = try Data(contentsOf: TestFiles.catalog.appendingPathComponent("songs.json"))
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let songs = try #require(root["songs"] as? [[String: Any]])
    let song = try #require(songs.first { $0["id"] as? String == id })
    return (
      try #require(song["title"] as? String), try #require(song["display_name"] as? String),
      try #require(song["handle"] as? String)
    )
  }

  /// `seconds` of catalog song `id` from `start` on, decoded by the mpg123 program, mixed to
  /// mono with white noise at `snr` dB (seeded), as a 44.1 kHz WAV.
  static func excerpt(
    _ id: String, from start: Double, seconds: Double, snr: Double, to file: URL
  ) throws {
    let song = try WAVFile.decodedByMPG123(
      TestFiles.catalog.appendingPathComponent("audio/\(id).mp3"))
    let first = Int(start * Double(song.sampleRate))
    let count = Int(seconds * Double(song.sampleRate))
    let mono = (first..<first + count).map { frame in
      (0..<song.channels).reduce(Float(0)) {
        $0 + Float(song.samples[frame * song.channels + $1]) / 32_768
      } / Float(song.channels)
    }
    var seed: UInt64 = 0x5EED
    let noise = mono.map { _ in
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Float(Int64(seed >> 33) - (1 << 30)) / Float(1 << 30)
    }
    func power(_ x: [Float]) -> Float { x.reduce(0) { $0 + $1 * $1 } / Float(x.count) }
    let scale = (power(mono) / (power(noise) * Float(pow(10, snr / 10)))).squareRoot()
    let mixed = zip(mono, noise).map { 0.7 * ($0 + scale * $1) }
    try WAVWriter.data(samples: WAVWriter.pcm16(mixed), channels: 1, sampleRate: 44_100)
      .write(to: file)
  }

  /// `file` (a mono 44.1 kHz WAV written by `excerpt`) played `factor` times as fast, pitch
  /// and tempo together (linear interpolation), written over itself.
  static func speed(_ file: URL, by factor: Double) throws {
    let wav = try WAVFile.read(file)
    let count = Int(Double(wav.samples.count) / factor) - 1
    let faster = (0..<count).map { i -> Float in
      let x = Double(i) * factor
      let j = Int(x)
      let f = Float(x - Double(j))
      let a = Float(wav.samples[j]) / 32_768
      let b = Float(wav.samples[min(wav.samples.count - 1, j + 1)]) / 32_768
      return a * (1 - f) + b * f
    }
    try WAVWriter.data(samples: WAVWriter.pcm16(faster), channels: 1, sampleRate: 44_100)
      .write(to: file)
  }

  /// `file` (a mono 44.1 kHz WAV written by `excerpt`) under a steady hum `snr` dB louder
  /// than it (negative: the hum is louder): tones about 150 Hz apart from 150 Hz to 4.5 kHz,
  /// of seeded levels and phases, as a fan or a fridge in the room; written over itself.
  static func hum(_ file: URL, snr: Double) throws {
    let wav = try WAVFile.read(file)
    let music = wav.samples.map { Float($0) / 32_768 }
    var seed: UInt64 = 0x4855_4D
    func next() -> Double {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Double(seed >> 11) / Double(1 << 53)
    }
    var tones: [(frequency: Double, level: Double, phase: Double)] = []
    var frequency = 150.0
    while frequency < 4_500 {
      tones.append((frequency, 0.3 + 0.7 * next(), 2 * .pi * next()))
      frequency += 150 * (0.9 + 0.2 * next())
    }
    let hum = music.indices.map { i in
      let t = Double(i) / 44_100
      return Float(tones.reduce(0) { $0 + $1.level * sin(2 * .pi * $1.frequency * t + $1.phase) })
    }
    func power(_ x: [Float]) -> Float { x.reduce(0) { $0 + $1 * $1 } / Float(x.count) }
    let scale = (power(music) / (power(hum) * Float(pow(10, snr / 10)))).squareRoot()
    let mixed = zip(music, hum).map { $0 + scale * $1 }
    let peak = mixed.map(abs).max() ?? 1
    try WAVWriter.data(
      samples: WAVWriter.pcm16(mixed.map { 0.6 * $0 / max(peak, 1e-6) }), channels: 1,
      sampleRate: 44_100
    ).write(to: file)
  }

  /// A melody no catalog song has: random notes from a seed, with a soft chord under them.
  static func stranger(seconds: Double, to file: URL) throws {
    var seed: UInt64 = 99
    var samples: [Float] = []
    while Double(samples.count) < seconds * 44_100 {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let note = 440 * pow(2, Double(Int(seed >> 59) - 8) / 12)
      samples += (0..<8_820).map { i in
        let t = Double(i) / 44_100
        return Float(0.3 * sin(2 * .pi * note * t) + 0.1 * sin(2 * .pi * 130.8 * t))
      }
    }
    try WAVWriter.data(samples: WAVWriter.pcm16(samples), channels: 1, sampleRate: 44_100)
      .write(to: file)
  }
}

@Suite("riffle identify (the real binary)", .serialized)
struct IdentifyCommandEndToEndTests {
  let home: TemporaryDirectory

  init() throws { home = try TemporaryDirectory("riffle-identify") }

  func identify(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
    try runProgram(
      TestFiles.riffleBinary, ["identify"] + arguments, environment: home.xdgEnvironment)
  }

  @Test("a noisy excerpt names its song and where it starts; the second run uses the stored index")
  func noisyExcerpt() throws {
    let clip = home.file("clip.wav")
    try Recording.excerpt("riffle-002", from: 14.2, seconds: 7, snr: 3, to: clip)
    let song = try Recording.catalogEntry("riffle-002")

    let first = try identify(clip.path)
    #expect(first.status == 0, "stderr: \(first.stderr)")
    #expect(first.stdout == "\(song.title) by \(song.name) (@\(song.handle)) at 0:14\n")
    #expect(first.stderr.contains("Fingerprinting 6 new songs"))

    let second = try identify(
      clip.path, TestFiles.catalog.appendingPathComponent("songs.json").path)
    #expect(second.status == 0)
    #expect(second.stdout == first.stdout)
    #expect(!second.stderr.contains("Fingerprinting"), "the index was built again")
  }

  @Test(
    "a clip under a hum louder than the music is placed where it was cut, not at a likeness")
  func placedUnderHum() throws {
    // The hum's tones take the peaks the hashes are made of: those left of the song agree
    // most where its first seconds resemble the passage. Its bits and peaks agree far more
    // where the clip was cut from.
    let clip = home.file("hum.wav")
    try Recording.excerpt("riffle-002", from: 14.2, seconds: 7, snr: 30, to: clip)
    try Recording.hum(clip, snr: -15)
    let song = try Recording.catalogEntry("riffle-002")
    let result = try identify("--json", clip.path)
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(object["title"] as? String == song.title)
    let offset = try #require(object["offset"] as? Double)
    #expect(abs(offset - 14.2) < 0.15, "offset \(offset)")
    #expect(object["speed"] as? Double == 1)
  }

  @Test("a clip of no catalog song prints No song matched and exits 1")
  func stranger() throws {
    let clip = home.file("stranger.wav")
    try Recording.stranger(seconds: 8, to: clip)
    let result = try identify(clip.path)
    #expect(result.status == 1)
    #expect(result.stdout == "No song matched\n")
  }

  @Test("--json answers for scripts, with the offset and the speed of a recording played fast")
  func json() throws {
    let clip = home.file("fast.wav")
    try Recording.excerpt("riffle-004", from: 9, seconds: 8, snr: 10, to: clip)
    try Recording.speed(clip, by: 1.03)
    let song = try Recording.catalogEntry("riffle-004")

    let text = try identify(clip.path)
    #expect(text.status == 0, "stderr: \(text.stderr)")
    #expect(
      text.stdout == "\(song.title) by \(song.name) (@\(song.handle)) at 0:09 (played 3% fast)\n")

    let result = try identify("--json", clip.path)
    #expect(result.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(object["matched"] as? Bool == true)
    #expect(object["title"] as? String == song.title)
    #expect(object["artist"] as? String == song.name)
    #expect(object["id"] as? String == "riffle-004")
    #expect((object["source"] as? String)?.hasSuffix("songs.json") == true)
    let offset = try #require(object["offset"] as? Double)
    let speed = try #require(object["speed"] as? Double)
    #expect(abs(offset - 9) < 0.15, "offset \(offset)")
    #expect(abs(speed - 1.03) < 0.004, "speed \(speed)")
    #expect(try #require(object["score"] as? Int) >= 10)
    // The song's bits and peaks, lined up at that offset and speed, agree far beyond chance.
    #expect(try #require(object["evidence"] as? Double) > 10)
  }

  /// The stranger melody (40 s) as "Night Walk" by The Testers, a tagged MP3 in library
  /// folder `name`, with whatever `more` writes beside it; the folder added and scanned.
  func nightWalkLibrary(
    _ name: String, more: (URL, WAVFile) throws -> Void = { _, _ in }
  ) throws -> (melody: WAVFile, music: URL) {
    let (wav, music) = try nightWalkFolder(name, more: more)
    for arguments in [["library", "add", music.path], ["library", "scan"]] {
      let result = try runProgram(
        TestFiles.riffleBinary, arguments, environment: home.xdgEnvironment)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
    }
    return (wav, music)
  }

  /// The same folder, written only: no library knows it.
  func nightWalkFolder(
    _ name: String, more: (URL, WAVFile) throws -> Void = { _, _ in }
  ) throws -> (melody: WAVFile, music: URL) {
    let melody = home.file("melody.wav")
    try Recording.stranger(seconds: 40, to: melody)
    let wav = try WAVFile.read(melody)
    let music = home.file(name)
    try AudioEncoder.encode(
      [
        .init(
          path: music.appendingPathComponent("Testers/Night Walk.mp3").path, format: .mp3,
          tags: ["title": "Night Walk", "artist": "The Testers", "album": "Walks"],
          extraOptions: ["-c:a", "libmp3lame", "-b:a", "128k"])
      ], source: melody)
    try more(music, wav)
    return (wav, music)
  }

  @Test(
    "a folder of music or a playlist as the source is searched, the folder scanned first, no library needed"
  )
  func folderAndPlaylist() throws {
    let (wav, music) = try nightWalkFolder("soundtracks")
    let clip = home.file("folder-clip.wav")
    try WAVWriter.data(
      samples: Array(wav.samples[12 * 44_100..<20 * 44_100]), channels: 1, sampleRate: 44_100
    ).write(to: clip)

    let first = try identify(clip.path, music.path)
    #expect(first.status == 0, "stderr: \(first.stderr)")
    #expect(first.stdout == "Night Walk by The Testers at 0:12\n")
    #expect(first.stderr.contains("Scanning soundtracks..."), "\(first.stderr)")
    #expect(first.stderr.contains("Fingerprinting 1 new songs"), "\(first.stderr)")

    // The same folder written with a trailing slash is the same source: nothing made again.
    let again = try identify("--json", clip.path, music.path + "/")
    #expect(again.status == 0, "stderr: \(again.stderr)")
    #expect(!again.stderr.contains("Scanning"), "\(again.stderr)")
    #expect(!again.stderr.contains("Fingerprinting"), "\(again.stderr)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
    #expect(object["source"] as? String == music.path)
    #expect(object["title"] as? String == "Night Walk")
    #expect(abs(try #require(object["offset"] as? Double) - 12) < 0.2)

    // The folder was not added to the library: the bundled catalog's clip is not named
    // from it, and a clip of the folder's song is not named against the catalog alone.
    let alone = try identify(clip.path)
    #expect(alone.status == 1, "\(alone.stdout)")

    // A playlist of the song, by a path relative to the playlist.
    let playlist = home.file("walks.m3u")
    try Data("#EXTM3U\nsoundtracks/Testers/Night Walk.mp3\nnowhere/gone.mp3\n".utf8)
      .write(to: playlist)
    let listed = try identify("--json", clip.path, playlist.path)
    #expect(listed.status == 0, "stderr: \(listed.stderr)")
    #expect(listed.stdout.contains("\"title\":\"Night Walk\""), "\(listed.stdout)")
    #expect(listed.stdout.contains("walks.m3u"), "\(listed.stdout)")

    // A folder with no music in it: said, and no song matched.
    let empty = home.file("empty")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    let none = try identify(clip.path, empty.path)
    #expect(none.status == 1)
    #expect(none.stdout == "No song matched\n")
    #expect(none.stderr.contains("no music found in empty"), "\(none.stderr)")
  }

  @Test("with a library added and scanned, a clip of a library song names it (source library)")
  func librarySong() throws {
    // A song no catalog has (the stranger melody), as a tagged MP3 in a library folder.
    let (wav, music) = try nightWalkLibrary("music")
    let environment = home.xdgEnvironment
    let clip = home.file("library-clip.wav")
    try WAVWriter.data(
      samples: Array(wav.samples[12 * 44_100..<20 * 44_100]), channels: 1, sampleRate: 44_100
    ).write(to: clip)

    let first = try identify(clip.path)
    #expect(first.status == 0, "stderr: \(first.stderr)")
    #expect(first.stdout == "Night Walk by The Testers at 0:12\n")
    #expect(first.stderr.contains("Fingerprinting 1 library songs"), "\(first.stderr)")

    let result = try identify("--json", clip.path)
    #expect(result.status == 0)
    #expect(!result.stderr.contains("Fingerprinting 1 library"), "made again: \(result.stderr)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(object["source"] as? String == "library")
    #expect(object["title"] as? String == "Night Walk")
    #expect(FileManager.default.fileExists(atPath: home.file("data/riffle/fingerprints").path))

    // A changed file is fingerprinted again by `scan --fingerprints`, and only it; identify
    // then finds the store up to date.
    let song = music.appendingPathComponent("Testers/Night Walk.mp3")
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSinceNow: -3_600)], ofItemAtPath: song.path)
    let scan = try runProgram(
      TestFiles.riffleBinary, ["library", "scan", "--fingerprints"], environment: environment)
    #expect(scan.status == 0, "\(scan.stderr)")
    #expect(scan.stdout.hasSuffix("Fingerprints: 1 made, 1 songs in all\n"), "\(scan.stdout)")
    let again = try identify(clip.path)
    #expect(again.stdout == first.stdout)
    #expect(!again.stderr.contains("Fingerprinting"), "\(again.stderr)")

    // A catalog song is still named from the feed, with the library searched beside it.
    let catalog = home.file("catalog-clip.wav")
    try Recording.excerpt("riffle-002", from: 14.2, seconds: 7, snr: 3, to: catalog)
    let feed = try identify("--json", catalog.path)
    #expect(feed.status == 0, "stderr: \(feed.stderr)")
    #expect(feed.stdout.contains("\"id\":\"riffle-002\""), "\(feed.stdout)")
    #expect(!feed.stdout.contains("\"source\":\"library\""))
  }

  @Test(
    "a song the library holds twice (an album's copy and a compilation's) is named, its twin beside it"
  )
  func songHeldTwice() throws {
    // The stranger melody as an album's MP3 and, a second in, as a compilation's Ogg Vorbis:
    // the same recording twice, which agrees with a clip of it as well as itself.
    let (wav, _) = try nightWalkLibrary("twice") { music, wav in
      let later = home.file("melody-later.wav")
      try WAVWriter.data(
        samples: [Int16](repeating: 0, count: 44_100) + wav.samples, channels: 1,
        sampleRate: 44_100
      ).write(to: later)
      try AudioEncoder.encode(
        [
          .init(
            path: music.appendingPathComponent("Various/Night Walk (Best Of).ogg").path,
            format: .ogg,
            tags: ["title": "Night Walk (Best Of)", "artist": "The Testers", "album": "Best Of"],
            extraOptions: ["-c:a", "libvorbis", "-q:a", "4"])
        ], source: later)
    }
    let clip = home.file("twice-clip.wav")
    try WAVWriter.data(
      samples: Array(wav.samples[12 * 44_100..<20 * 44_100]), channels: 1, sampleRate: 44_100
    ).write(to: clip)

    let result = try identify("--json", clip.path)
    #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    let same = try #require(object["same"] as? [[String: Any]])
    let titles = Set([object["title"] as? String] + same.map { $0["title"] as? String })
    #expect(titles == ["Night Walk", "Night Walk (Best Of)"], "\(result.stdout)")
    #expect(object["source"] as? String == "library")
    // Placed in the copy it names: 0:12 in the album's, 0:13 in the compilation's.
    let offset = try #require(object["offset"] as? Double)
    #expect(abs(offset - (object["title"] as? String == "Night Walk" ? 12 : 13)) < 0.2)

    let line = try identify(clip.path)
    #expect(line.status == 0)
    #expect(
      line.stdout == "Night Walk by The Testers at 0:12 "
        + "(the same recording as \"Night Walk (Best Of)\" by The Testers)\n"
        || line.stdout == "Night Walk (Best Of) by The Testers at 0:13 "
          + "(the same recording as \"Night Walk\" by The Testers)\n",
      "\(line.stdout)")
  }

  @Test(
    "silence, and a stranger as JSON, are clear no-matches; a long recording is cut to a minute")
  func clearAnswers() throws {
    let silent = home.file("silence.wav")
    try WAVWriter.data(
      samples: [Int16](repeating: 0, count: 220_500), channels: 1, sampleRate: 44_100
    )
    .write(to: silent)
    let quiet = try identify(silent.path)
    #expect(quiet.status == 1)
    #expect(quiet.stdout == "No song matched (the recording is silent)\n")

    let stranger = home.file("stranger.wav")
    try Recording.stranger(seconds: 70, to: stranger)
    let result = try identify("--json", stranger.path)
    #expect(result.status == 1)
    #expect(result.stdout == "{\"matched\":false,\"message\":\"No song matched\"}\n")
    #expect(result.stderr.contains("longer than 60 s: listening to its start"))
  }

  @Test("a file that is not audio, or is missing, is a clear error and exit 2")
  func badFiles() throws {
    let text = home.file("notes.wav")
    try Data("these are not samples".utf8).write(to: text)
    let bad = try identify(text.path)
    #expect(bad.status == 2)
    #expect(bad.stdout.isEmpty)
    #expect(
      bad.stderr == "riffle: cannot decode '\(text.path)': not an audio format Riffle can play\n")

    let missing = try identify(home.file("nowhere.wav").path)
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("no such file"))
  }
}

@Suite("i in the player (tmux)", .serialized)
struct IdentifyKeyEndToEndTests {
  @Test("i listens to a recording, pages to its song and plays it from where the recording is")
  func listenAndPlay() throws {
    let home = try TemporaryDirectory("riffle-listen")
    let clip = home.file("room.wav")
    try Recording.excerpt("riffle-004", from: 9, seconds: 10, snr: 6, to: clip)
    let song = try Recording.catalogEntry("riffle-004")
    let out = home.file("out.wav")
    let tmux = try TmuxSession(
      command: [
        TestFiles.riffleBinary, TestFiles.catalog.appendingPathComponent("songs.json").path,
        "--audio", "wav:\(out.path)", "--capture", "file:\(clip.path)",
      ],
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 },
      width: 80, height: 24)
    defer { tmux.kill() }
    try tmux.waitFor("1 / 6", timeout: 20)
    tmux.sendKeys("i")
    try tmux.waitFor("Listening…", timeout: 20)
    // The first listen fingerprints the catalog too; a loaded machine needs time.
    let found = try tmux.waitForAll("\(song.title)", "4 / 6", "Heard", timeout: 90)
    #expect(found.contains("at 0:09"), "\(found)")
    #expect(!found.contains("Listening…"))
    // It plays on from past the point the recording started (9 s + the time listened).
    let playing = try tmux.waitUntil(timeout: 30) { screen in
      guard let time = Self.elapsed(in: screen) else { return false }
      return time >= 12 && !screen.contains("Loading")
    }
    #expect(Self.elapsed(in: playing)! < 40)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit(timeout: 20) == 0)
    // Sound was written for the song after the match.
    let wav = try WAVFile.read(out)
    #expect(wav.seconds > 0.5 && wav.rms > 0.005, "\(wav.seconds) s, rms \(wav.rms)")
  }

  @Test("with no capture device, i says so and the player goes on")
  func noDevice() throws {
    let home = try TemporaryDirectory("riffle-nodevice")
    var environment = home.xdgEnvironment
    environment["LANG"] = "C.UTF-8"
    environment["PULSE_SERVER"] = "unix:\(home.file("no-such-socket").path)"
    let tmux = try TmuxSession(
      command: [
        TestFiles.riffleBinary, TestFiles.catalog.appendingPathComponent("songs.json").path,
        "--audio", "null",
      ],
      environment: environment, width: 80, height: 24)
    defer { tmux.kill() }
    try tmux.waitFor("1 / 6", timeout: 20)
    tmux.sendKeys("i")
    try tmux.waitFor("No capture device", timeout: 20)
    tmux.sendKeys("Right")
    try tmux.waitFor("2 / 6")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit(timeout: 20) == 0)
  }

  /// The elapsed time left of the progress bar ("0:14 ━━━…"), in seconds.
  static func elapsed(in screen: String) -> Int? {
    for line in screen.split(separator: "\n") where line.contains("━") || line.contains("─") {
      let fields = line.split(separator: " ")
      guard let first = fields.first, first.contains(":") else { continue }
      let parts = first.split(separator: ":").compactMap { Int($0) }
      if parts.count == 2 { return parts[0] * 60 + parts[1] }
    }
    return nil
  }
}
