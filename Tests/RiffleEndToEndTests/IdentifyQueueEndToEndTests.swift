import Foundation
import RiffleAudio
import RiffleTestSupport
import Testing

@Suite("i searches up next from any page (tmux)", .serialized)
struct IdentifyQueueEndToEndTests {
  @Test(
    "a song queued from the folder, i on a search page without it: named and played from up next")
  func queuedSongFromAnotherPage() throws {
    let home = try TemporaryDirectory("riffle-listen-queue")
    // Three catalog songs as a folder, the first on an album and artist of its own.
    let music = home.url.appendingPathComponent("Music")
    let songs = [
      ("riffle-004", "Ines Calder", "Harbour", "1 Glass Harbour"),
      ("riffle-001", "Oskar Vale", "Lanterns", "1 Paper Sky"),
      ("riffle-002", "Oskar Vale", "Lanterns", "2 Slow Orbit"),
    ]
    for (id, artist, album, name) in songs {
      let folder = music.appendingPathComponent("\(artist)/\(album)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let title = String(name.dropFirst(2))
      // The catalog's MP3 as it is, retagged (no new encoding).
      let result = try runProgram(
        "/usr/bin/ffmpeg",
        [
          "-loglevel", "error", "-y", "-i",
          TestFiles.catalog.appendingPathComponent("audio/\(id).mp3").path, "-c", "copy",
          "-map_metadata", "-1", "-metadata", "title=\(title)", "-metadata", "artist=\(artist)",
          "-metadata", "album=\(album)", "-metadata", "track=\(name.prefix(1))",
          folder.appendingPathComponent("\(name).mp3").path,
        ])
      #expect(result.status == 0, "ffmpeg: \(result.stderr)")
    }
    let clip = home.file("room.wav")
    try Recording.excerpt("riffle-004", from: 9, seconds: 10, snr: 6, to: clip)
    let out = home.file("out.wav")
    let tmux = try TmuxSession(
      command: [
        TestFiles.riffleBinary, music.path, "--audio", "wav:\(out.path)", "--capture",
        "file:\(clip.path)",
      ],
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 },
      width: 100, height: 30)
    defer { tmux.kill() }
    // Album order: Ines Calder's Harbour first. Queue it, then search for the other artist.
    try tmux.waitForAll("Glass Harbour", "1 / 3")
    tmux.sendKeys("e")
    try tmux.waitFor("plays up next (1)")
    tmux.sendKeys("/")
    tmux.sendLiteral("oskar")
    tmux.sendKeys("Enter")
    try tmux.waitForAll("Paper Sky", "Library: “oskar”", "1 / 2")
    tmux.sendKeys("i")
    try tmux.waitFor("Listening…", timeout: 20)
    // The first listen fingerprints the page's songs and up next's; a loaded machine needs time.
    let found = try tmux.waitForAll(
      "Heard “Glass Harbour” by Ines Calder at 0:09", "2 / 3", timeout: 90)
    #expect(!found.contains("Up next: Glass Harbour"), "it left up next: \(found)")
    // It plays on from past the point the recording started (9 s + the time listened).
    let playing = try tmux.waitUntil(timeout: 30) { screen in
      guard let time = IdentifyKeyEndToEndTests.elapsed(in: screen) else { return false }
      return time >= 12 && !screen.contains("Loading")
    }
    #expect(IdentifyKeyEndToEndTests.elapsed(in: playing)! < 31)
    #expect(playing.contains("Glass Harbour"))
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit(timeout: 20) == 0)
    let wav = try WAVFile.read(out)
    #expect(wav.seconds > 0.5 && wav.rms > 0.005, "\(wav.seconds) s, rms \(wav.rms)")
  }
}
