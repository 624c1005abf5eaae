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

  @Test("a library song the station plays is named after 10 s; a song not there falls back")
  func namesLibrarySong() throws {
    let home = try TemporaryDirectory("riffle-radio-identify")
    let song = try library(in: home)

    let station = try IcecastStation(name: "Loopback FM", genre: "Synthwave", song: song.path)
    defer { station.stop() }
    let tmux = try tuneIn(station, home: home)
    defer { tmux.kill() }
    // The output keeps the last 10 s while the station plays.
    _ = try tmux.waitFor("0:10", timeout: 15)
    tmux.sendKeys("i")
    let named = try tmux.waitFor("(your library)", timeout: 15)
    #expect(named.contains("Night Walk"), "\(named)")
    #expect(named.contains("The Testers"), "\(named)")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)

    // A station playing a song the library does not hold: no song is named, the station's
    // title is said as before.
    let other = try IcecastStation(name: "Other FM", genre: "Jazz")
    defer { other.stop() }
    let second = try tuneIn(other, home: home)
    defer { second.kill() }
    _ = try second.waitFor("0:06", timeout: 15)
    second.sendKeys("i")
    let fallback = try second.waitFor("No song matched, and the station names none", timeout: 15)
    #expect(!fallback.contains("(your library)"))
    second.sendKeys("q")
    #expect(try second.waitForExit() == 0)
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
