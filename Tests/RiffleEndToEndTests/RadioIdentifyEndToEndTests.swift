import Foundation
import RiffleAudio
import RiffleTestSupport
import Testing

@Suite("i on a radio page names the song from what the player played", .serialized)
struct RadioIdentifyEndToEndTests {
  /// A library of one tagged MP3 (the stranger melody, in no catalog), scanned with its
  /// fingerprints; the MP3's path.
  private func library(in home: TemporaryDirectory) throws -> URL {
    let melody = home.file("melody.wav")
    try Recording.stranger(seconds: 40, to: melody)
    let song = home.file("music/Testers/Night Walk.mp3")
    try AudioEncoder.encode(
      [
        .init(
          path: song.path, format: .mp3,
          tags: ["title": "Night Walk", "artist": "The Testers", "album": "Walks"],
          extraOptions: ["-c:a", "libmp3lame", "-b:a", "128k"])
      ], source: melody)
    for arguments in [
      ["library", "add", home.file("music").path], ["library", "scan", "--fingerprints"],
    ] {
      let result = try runProgram(
        TestFiles.riffleBinary, arguments, environment: home.xdgEnvironment)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
    }
    return song
  }

  /// Riffle on the station until its page shows (the mount is up once ffmpeg has connected).
  private func tuneIn(_ station: IcecastStation, home: TemporaryDirectory) throws -> TmuxSession {
    #expect(station.waitForMount())
    for _ in 0..<10 {
      let tmux = try TmuxSession(
        command: [TestFiles.riffleBinary, station.streamURL, "--audio", "null"],
        environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 })
      if (try? tmux.waitForAll(station.name, "0:02", timeout: 8)) != nil { return tmux }
      tmux.kill()
      Thread.sleep(forTimeInterval: 0.5)
    }
    throw TmuxError("the station never played")
  }

  /// `i` on the station's page once `heard` is on the clock; the screen once it holds
  /// `until`. The player is then quit.
  private func nameOnStation(
    _ station: IcecastStation, home: TemporaryDirectory, after heard: String, timeout: Double = 20,
    until: (String) -> Bool
  ) throws -> String {
    let tmux = try tuneIn(station, home: home)
    defer { tmux.kill() }
    _ = try tmux.waitFor(heard, timeout: 15)
    tmux.sendKeys("i")
    let screen = try tmux.waitUntil(timeout: timeout, until)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    return screen
  }

  @Test(
    "a library song the station plays is named after 10 s, a catalog song from the catalog; a song in neither falls back"
  )
  func namesLibrarySong() throws {
    let home = try TemporaryDirectory("riffle-radio-identify")
    let song = try library(in: home)

    let station = try IcecastStation(name: "Loopback FM", genre: "Synthwave", song: song.path)
    defer { station.stop() }
    // The output keeps the last 10 s while the station plays.
    let named = try nameOnStation(station, home: home, after: "0:10", timeout: 15) {
      $0.contains("(your library)")
    }
    #expect(named.contains("Night Walk"), "\(named)")
    #expect(named.contains("The Testers"), "\(named)")

    // A station playing a song of the bundled catalog: named from it.
    let catalogStation = try IcecastStation(name: "Catalog FM", genre: "Pop")
    defer { catalogStation.stop() }
    let fromCatalog = try nameOnStation(catalogStation, home: home, after: "0:06") {
      $0.contains("(the bundled catalog)")
    }
    #expect(fromCatalog.contains("Neon Orchard"), "\(fromCatalog)")

    // A station playing what no catalog holds (pink noise): no song is named, the station's
    // title is said as before.
    let other = home.file("other.wav")
    let made = try runProgram(
      "/usr/bin/ffmpeg",
      [
        "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "anoisesrc=d=30:c=pink:a=0.3",
        other.path,
      ])
    #expect(made.status == 0, "\(made.stderr)")
    let otherStation = try IcecastStation(name: "Other FM", genre: "Jazz", song: other.path)
    defer { otherStation.stop() }
    let fallback = try nameOnStation(otherStation, home: home, after: "0:06") {
      $0.contains("No song matched") || $0.contains("(your library)")
        || $0.contains("(the bundled catalog)")
    }
    #expect(fallback.contains("No song matched, and the station names none"), "\(fallback)")
    #expect(!fallback.contains("(your library)"))
    #expect(!fallback.contains("(the bundled catalog)"))
  }

  @Test(
    "a song of a feed searched before (by riffle identify) is named from its store on a station's page and on another feed's; its address kept out"
  )
  func namesFeedSong() throws {
    let home = try TemporaryDirectory("riffle-radio-feed")
    let melody = home.file("melody.wav")
    try Recording.stranger(seconds: 40, to: melody)
    let mp3 = home.file("harbour.mp3")
    try AudioEncoder.encode(
      [.init(path: mp3.path, format: .mp3, extraOptions: ["-c:a", "libmp3lame", "-b:a", "128k"])],
      source: melody)
    let audio = try Data(contentsOf: mp3)
    let server = try LoopbackHTTPServer { request in
      switch request.path {
      case "/feed.json":
        return .respond(
          status: 200, headers: ["Content-Type": "application/json"],
          body: Data(
            """
            {"songs":[{"id":"h1","title":"Harbour Lights","handle":"quay",\
            "display_name":"Quay Singers","audio_url":"/harbour.mp3","duration":40}]}
            """.utf8))
      case "/harbour.mp3": return .file(audio, contentType: "audio/mpeg")
      default: return .respond(status: 404, body: Data())
      }
    }
    defer { server.stop() }
    // A private feed: its address carries a token, which no file may keep.
    let feed = server.url("/feed.json").absoluteString + "?token=s3cret-token"

    // Searched once with riffle identify: the feed's store is made, its songs named beside it.
    let wav = try WAVFile.read(melody)
    let clip = home.file("clip.wav")
    try WAVWriter.data(
      samples: Array(wav.samples[12 * 44_100..<20 * 44_100]), channels: 1, sampleRate: 44_100
    ).write(to: clip)
    let identified = try runProgram(
      TestFiles.riffleBinary, ["identify", clip.path, feed], environment: home.xdgEnvironment)
    #expect(identified.status == 0, "\(identified.stderr)")
    #expect(identified.stdout.contains("Harbour Lights"), "\(identified.stdout)")

    let station = try IcecastStation(name: "Harbour FM", genre: "Folk", song: mp3.path)
    defer { station.stop() }
    let named = try nameOnStation(station, home: home, after: "0:10") {
      $0.contains("(the feed at 127.0.0.1)")
    }
    #expect(named.contains("Harbour Lights"), "\(named)")
    #expect(named.contains("Quay Singers"), "\(named)")

    // `i` on the bundled catalog's page, the recording that feed's song: named from its store,
    // not paged to (it is on no page here).
    let page = try TmuxSession(
      command: [
        TestFiles.riffleBinary, TestFiles.catalog.appendingPathComponent("songs.json").path,
        "--audio", "null", "--capture", "file:\(clip.path)",
      ],
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 }, width: 100,
      height: 24)
    defer { page.kill() }
    try page.waitFor("1 / 6", timeout: 20)
    page.sendKeys("i")
    let heard = try page.waitFor("(the feed at 127.0.0.1)", timeout: 60)
    #expect(heard.contains("Harbour Lights"), "\(heard)")
    #expect(heard.contains("1 / 6"), "\(heard)")
    page.sendKeys("q")
    #expect(try page.waitForExit() == 0)

    let cache = home.url.appendingPathComponent("cache/riffle/fingerprints")
    for name in try FileManager.default.contentsOfDirectory(atPath: cache.path) {
      let bytes = try Data(contentsOf: cache.appendingPathComponent(name))
      #expect(bytes.range(of: Data("s3cret-token".utf8)) == nil, "\(name) keeps the token")
    }
  }
}

@Suite("i on a library page searches the whole library", .serialized)
struct LibraryIdentifyKeyEndToEndTests {
  @Test("a library song not on the loaded pages (another folder's) is named")
  func namesSongNotLoaded() throws {
    let home = try TemporaryDirectory("riffle-library-listen")
    let melody = home.file("melody.wav")
    try Recording.stranger(seconds: 40, to: melody)
    let music = home.file("music")
    let mp3 = ["-c:a", "libmp3lame", "-b:a", "128k"]
    try AudioEncoder.encode(
      [
        .init(
          path: music.appendingPathComponent("Testers/Night Walk.mp3").path, format: .mp3,
          tags: ["title": "Night Walk", "artist": "The Testers", "album": "Walks"],
          extraOptions: mp3)
      ], source: melody)
    try AudioEncoder.encode(
      [
        .init(
          path: music.appendingPathComponent("Other/Slow Orbit.mp3").path, format: .mp3,
          tags: ["title": "Slow Orbit", "artist": "Juno Reyes", "album": "Orbits"],
          extraOptions: mp3)
      ], source: TestFiles.catalog.appendingPathComponent("audio/riffle-002.mp3"))
    for arguments in [["library", "add", music.path], ["library", "scan", "--fingerprints"]] {
      let result = try runProgram(
        TestFiles.riffleBinary, arguments, environment: home.xdgEnvironment)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
    }
    let wav = try WAVFile.read(melody)
    let clip = home.file("room.wav")
    try WAVWriter.data(
      samples: Array(wav.samples[12 * 44_100..<20 * 44_100]), channels: 1, sampleRate: 44_100
    ).write(to: clip)

    // Only the other folder's song is on the pages.
    let tmux = try TmuxSession(
      command: [
        TestFiles.riffleBinary, music.appendingPathComponent("Other").path, "--audio", "null",
        "--capture", "file:\(clip.path)",
      ],
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 }, width: 80, height: 24)
    defer { tmux.kill() }
    let page = try tmux.waitFor("Slow Orbit", timeout: 20)
    #expect(!page.contains("Night Walk"))
    tmux.sendKeys("i")
    let named = try tmux.waitFor("(your library)", timeout: 30)
    #expect(named.contains("Night Walk"), "\(named)")
    #expect(named.contains("The Testers"), "\(named)")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit(timeout: 20) == 0)
  }
}
