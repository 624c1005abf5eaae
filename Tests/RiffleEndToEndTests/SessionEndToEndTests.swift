import Foundation
import RiffleTestSupport
import Testing

// The listening session and the library through the real binary in tmux: a folder of real
// encoded songs (ffmpeg, sine tones of known pitch and loudness, tagged), up next heard in
// order in a captured WAV, the volume in the captured amplitude, a session resumed after quit,
// a link copied into tmux's buffer through OSC 52, a playlist saved and opened again.

/// A folder of tagged songs: each a sine tone whose pitch says which song it is.
private final class MusicFolder {
  let home: TemporaryDirectory
  let music: URL

  /// (artist, album, track, title, frequency, seconds)
  typealias Track = (
    artist: String, album: String, track: Int, title: String, hz: Int, seconds: Int
  )

  static let tracks: [Track] = [
    ("Björk", "Vespertine", 1, "Hidden Place", 660, 4),
    ("Björk", "Vespertine", 2, "Cocoon", 880, 4),
    ("Abba", "Arrival", 1, "When I Kissed", 220, 4),
    ("Abba", "Arrival", 2, "Dancing Queen", 440, 4),
  ]

  init(seconds: Int? = nil, amplitude: Double = 0.5) throws {
    home = try TemporaryDirectory("riffle-session")
    music = home.url.appendingPathComponent("Music")
    for track in Self.tracks {
      let folder = music.appendingPathComponent("\(track.artist)/\(track.album)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let file = folder.appendingPathComponent("\(track.track) \(track.title).mp3")
      let length = seconds ?? track.seconds
      let result = try runProgram(
        "/usr/bin/ffmpeg",
        [
          "-loglevel", "error", "-y", "-f", "lavfi", "-i",
          "sine=frequency=\(track.hz):duration=\(length)", "-af", "volume=\(amplitude)",
          "-ac", "2", "-ar", "44100", "-metadata", "title=\(track.title)", "-metadata",
          "artist=\(track.artist)", "-metadata", "album=\(track.album)", "-metadata",
          "track=\(track.track)", "-b:a", "192k", file.path,
        ])
      guard result.status == 0 else { throw TmuxError("ffmpeg: \(result.stderr)") }
    }
  }

  var environment: [String: String] { home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 } }

  func start(_ arguments: [String], width: Int = 100, height: Int = 30) throws -> TmuxSession {
    try TmuxSession(
      command: [TestFiles.riffleBinary] + arguments, environment: environment, width: width,
      height: height)
  }
}

/// The pitch of a stretch of stereo PCM, from its zero crossings (the songs are pure tones).
private func pitch(_ wav: WAVFile, from start: Double, seconds: Double) -> Double {
  let first = Int(start * Double(wav.sampleRate))
  let count = Int(seconds * Double(wav.sampleRate))
  guard first >= 0, first + count <= wav.frames, count > 1 else { return 0 }
  var crossings = 0
  var last = wav.samples[first * wav.channels]
  for frame in first + 1..<first + count {
    let sample = wav.samples[frame * wav.channels]
    if (sample >= 0) != (last >= 0) { crossings += 1 }
    last = sample
  }
  return Double(crossings) / 2 / seconds
}

/// The tones heard, in order: each quarter second's pitch where it is one of the songs' (a
/// stretch across two songs, or silence, matches none), repeats folded.
private func tonesHeard(_ wav: WAVFile) -> [Int] {
  let known = MusicFolder.tracks.map(\.hz)
  var tones: [Int] = []
  var at = 0.0
  while at + 0.25 <= wav.seconds {
    let hz = pitch(wav, from: at, seconds: 0.25)
    if let tone = known.first(where: { abs(Double($0) - hz) < Double($0) * 0.03 }),
      tone != tones.last
    {
      tones.append(tone)
    }
    at += 0.25
  }
  return tones
}

@Suite("Session and library end to end (tmux, a folder of real songs)", .serialized)
struct SessionEndToEndTests {
  @Test("riffle FOLDER: album order, b shows the album, / searches the library (bjo finds Björk)")
  func libraryFolder() throws {
    let folder = try MusicFolder()
    let tmux = try folder.start([folder.music.path, "--audio", "null"])
    defer { tmux.kill() }
    try tmux.waitForAll("When I Kissed", "Abba · Arrival", "1 / 4")
    tmux.sendKeys("Right", "Right")
    try tmux.waitForAll("Hidden Place", "3 / 4")
    tmux.sendKeys("b")
    try tmux.waitForAll("Riffle · Vespertine", "Hidden Place", "1 / 2")
    tmux.sendKeys("/")
    try tmux.waitFor("Search your library")
    tmux.sendLiteral("abb")
    tmux.sendKeys("Enter")
    try tmux.waitForAll("When I Kissed", "1 / 2", "Library: “abb”")
    tmux.sendKeys("/")
    tmux.sendLiteral("bjo")
    tmux.sendKeys("Enter")
    try tmux.waitForAll("Björk", "Library: “bjo”", "1 / 2")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("Three songs queued from two sources are heard in order, before the pages go on")
  func queueHeardInOrder() throws {
    let folder = try MusicFolder()
    let wav = folder.home.file("out.wav")
    let tmux = try folder.start([folder.music.path, "--audio", "wav:\(wav.path)"])
    defer { tmux.kill() }
    // Source one, the folder: Dancing Queen (440 Hz) and Cocoon (880 Hz) up next.
    try tmux.waitForAll("When I Kissed", "1 / 4")
    tmux.sendKeys("Right")
    try tmux.waitFor("Dancing Queen")
    tmux.sendKeys("e")
    try tmux.waitFor("plays up next (1)")
    tmux.sendKeys("Right", "Right")
    try tmux.waitFor("Cocoon")
    tmux.sendKeys("e")
    try tmux.waitFor("plays up next (2)")
    // Source two, a search of the library: Hidden Place (660 Hz) up next too.
    tmux.sendKeys("/")
    tmux.sendLiteral("hidden")
    tmux.sendKeys("Enter")
    try tmux.waitForAll("Hidden Place", "Library: “hidden”", "Up next: Dancing Queen")
    tmux.sendKeys("e")
    try tmux.waitFor("plays up next (3)")
    // Hidden Place plays on to its end, then up next in order, each once.
    try tmux.waitFor("Dancing Queen", timeout: 15)
    try tmux.waitFor("Cocoon", timeout: 15)
    try tmux.waitForAll("Hidden Place", "4 / 4", timeout: 15)
    try tmux.waitFor("End of the library", timeout: 15)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    let tones = tonesHeard(try WAVFile.read(wav))
    // The last four tones: the search's song, then what was queued, in order.
    #expect(Array(tones.suffix(4)) == [660, 440, 880, 660], "tones heard: \(tones)")
  }

  @Test("Volume at 50% halves the amplitude heard; m mutes")
  func volumeHalves() throws {
    let folder = try MusicFolder(seconds: 12)
    let wav = folder.home.file("out.wav")
    let tmux = try folder.start([folder.music.path, "--audio", "wav:\(wav.path)"])
    defer { tmux.kill() }
    try tmux.waitForAll("When I Kissed", "0:02")
    for _ in 0..<10 { tmux.sendKeys("-") }
    try tmux.waitFor("Volume 50%")
    try tmux.waitFor("0:06")
    tmux.sendKeys("m")
    try tmux.waitFor("Muted")
    try tmux.waitFor("0:09")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    let audio = try WAVFile.read(wav)
    func rms(_ from: Double, _ seconds: Double) -> Double {
      let start = Int(from * Double(audio.sampleRate)) * audio.channels
      let count = Int(seconds * Double(audio.sampleRate)) * audio.channels
      let slice = audio.samples[start..<min(audio.samples.count, start + count)]
      let sum = slice.reduce(0.0) { $0 + Double($1) * Double($1) }
      return (sum / Double(max(1, slice.count))).squareRoot()
    }
    let full = rms(0.2, 1.0)
    let half = rms(4.5, 1.0)
    let muted = rms(audio.seconds - 1.2, 0.8)
    #expect(full > 300, "the tone is heard at first: \(full)")
    #expect(abs(half / full - 0.5) < 0.03, "50% is half the amplitude: \(half) / \(full)")
    #expect(muted < 1, "muted: \(muted)")
  }

  @Test("Quit and start again without arguments: the same page and second, paused, the volume kept")
  func resumeAfterQuit() throws {
    let folder = try MusicFolder(seconds: 30)
    let first = try folder.start([folder.music.path, "--audio", "null"])
    try first.waitForAll("When I Kissed", "1 / 4")
    first.sendKeys("Right", "Right")
    try first.waitForAll("Hidden Place", "3 / 4")
    first.sendKeys("]", "-", "S")
    try first.waitFor("0:1")
    first.sendKeys("Space")
    let paused = try first.waitFor("Paused")
    let clock = try #require(paused.firstMatch(of: /0:1(\d)/).map { Int($0.1)! + 10 })
    first.sendKeys("q")
    #expect(try first.waitForExit() == 0)

    let second = try folder.start(["--audio", "null"])
    defer { second.kill() }
    let resumed = try second.waitForAll("Hidden Place", "3 / 4", "Paused", "shuffle")
    #expect(resumed.contains("0:\(clock)"), "resumed at 0:\(clock):\n\(resumed)")
    second.sendKeys("q")
    #expect(try second.waitForExit() == 0)

    // --fresh starts clean: the bundled catalog, not the session.
    let fresh = try folder.start(["--fresh", "--audio", "null"])
    defer { fresh.kill() }
    let clean = try fresh.waitFor("1 / ")
    #expect(!clean.contains("Hidden Place"))
    fresh.sendKeys("q")
    #expect(try fresh.waitForExit() == 0)
  }

  @Test("A damaged session file is said on screen, and the bundled catalog plays instead")
  func damagedSession() throws {
    let folder = try MusicFolder()
    let data = folder.home.url.appendingPathComponent("data/riffle")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    try Data("{\"version\": 1, \"source\": [".utf8).write(
      to: data.appendingPathComponent("session.json"))
    let tmux = try folder.start(["--audio", "null"])
    defer { tmux.kill() }
    try tmux.waitForAll("The saved session could not be read", "1 / ")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("s copies the song's link into tmux's buffer through OSC 52 and says so")
  func shareThroughOSC52() throws {
    let folder = try MusicFolder()
    let tmux = try folder.start([folder.music.path, "--audio", "null"])
    defer { tmux.kill() }
    tmux.tmux("set-option", "-g", "set-clipboard", "on")
    try tmux.waitForAll("When I Kissed", "1 / 4")
    tmux.sendKeys("s")
    try tmux.waitFor("Link copied")
    let deadline = Date().addingTimeInterval(5)
    var buffer = ""
    while Date() < deadline {
      buffer = tmux.tmux("show-buffer") ?? ""
      if !buffer.isEmpty { break }
      Thread.sleep(forTimeInterval: 0.1)
    }
    #expect(buffer.hasPrefix("file:///"), "buffer: \(buffer)")
    #expect(buffer.hasSuffix("1%20When%20I%20Kissed.mp3"), "buffer: \(buffer)")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("w saves up next as an M3U8 playlist; riffle FILE.m3u8 opens it as pages")
  func savePlaylistAndOpen() throws {
    let folder = try MusicFolder()
    let tmux = try folder.start([folder.music.path, "--audio", "null"])
    try tmux.waitForAll("When I Kissed", "1 / 4")
    tmux.sendKeys("Right")
    try tmux.waitFor("Dancing Queen")
    tmux.sendKeys("e", "Right", "Right", "e", "w")
    try tmux.waitFor("Saved “Up next.m3u8”")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    let list = folder.home.url.appendingPathComponent("data/riffle/playlists/Up next.m3u8")
    let text = try String(contentsOf: list, encoding: .utf8)
    #expect(text.hasPrefix("#EXTM3U\n#EXTINF:4,Abba - Dancing Queen\n"), "\(text)")
    #expect(text.contains("#EXTINF:4,Björk - Cocoon\n"), "\(text)")

    let listed = try runProgram(
      TestFiles.riffleBinary, ["playlists"], environment: folder.home.xdgEnvironment)
    #expect(listed.stdout == list.path + "\n", "riffle playlists: \(listed.stdout)")

    let again = try folder.start([list.path, "--audio", "null"])
    defer { again.kill() }
    try again.waitForAll("Dancing Queen", "1 / 2", "Riffle · Up next")
    again.sendKeys("Right")
    try again.waitForAll("Cocoon", "2 / 2")
    again.sendKeys("q")
    #expect(try again.waitForExit() == 0)
  }

  @Test("With ListenBrainz up: now playing at the start, a listen at half the song, not before")
  func listenAtHalf() throws {
    let folder = try MusicFolder(seconds: 8)
    let server = try ListenBrainzServer(settingUp: folder)
    defer { server.stop() }
    let tmux = try folder.start([folder.music.path, "--audio", "null"])
    defer { tmux.kill() }
    try tmux.waitForAll("When I Kissed", "0:02")
    #expect(server.playingNow == ["When I Kissed"], "now playing: \(server.playingNow)")
    #expect(server.taken.isEmpty, "no listen before half the song: \(server.taken)")
    try tmux.waitFor("0:05")
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline, server.taken.isEmpty { Thread.sleep(forTimeInterval: 0.1) }
    #expect(server.taken == ["When I Kissed"], "one listen past half the song: \(server.taken)")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test(
    "Listens made while ListenBrainz is down are kept on disk and arrive once it is back, each once"
  )
  func scrobbleToListenBrainz() throws {
    let folder = try MusicFolder()
    let server = try ListenBrainzServer(settingUp: folder)
    defer { server.stop() }
    server.down = true
    func listened() -> [String] { server.taken }

    // Down: the first song's listen (2 s in) is kept, not lost.
    let tmux = try folder.start([folder.music.path, "--audio", "null"])
    defer { tmux.kill() }
    try tmux.waitForAll("When I Kissed", "1 / 4")
    try tmux.waitFor("Dancing Queen", timeout: 15)
    let pending = folder.home.url.appendingPathComponent("data/riffle/scrobbles.json")
    let kept = try String(contentsOf: pending, encoding: .utf8)
    #expect(kept.contains("When I Kissed"), "kept on disk while the server is down: \(kept)")
    #expect(!kept.contains("riffle-test-token"), "no token in the queue file")
    // Back: what was kept arrives when the player starts again (the session resumes, paused).
    server.down = false
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    let again = try folder.start(["--audio", "null"])
    defer { again.kill() }
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline, !listened().contains("When I Kissed") {
      Thread.sleep(forTimeInterval: 0.2)
    }
    // A moment for a second copy, were one to come.
    Thread.sleep(forTimeInterval: 1)
    let titles = listened()
    #expect(titles.contains("When I Kissed"), "listens taken: \(titles)")
    #expect(Set(titles).count == titles.count, "each listen once: \(titles)")
    let log = try String(
      contentsOf: folder.home.url.appendingPathComponent("cache/riffle/riffle.log"),
      encoding: .utf8)
    #expect(!log.contains("riffle-test-token"), "no token in the log")
    again.sendKeys("q")
    #expect(try again.waitForExit() == 0)
  }
}

/// A ListenBrainz-compatible server on loopback, written into the folder's config.toml: it
/// checks the path and the token as ListenBrainz does, and keeps the titles it took, "now
/// playing" apart from listens. While `down` it answers 503.
private final class ListenBrainzServer: @unchecked Sendable {
  private let server: LoopbackHTTPServer
  private let state = Locked<(down: Bool, playingNow: [String], taken: [String])>((false, [], []))

  init(settingUp folder: MusicFolder) throws {
    let state = self.state
    server = try LoopbackHTTPServer { request in
      guard request.path == "/1/submit-listens",
        request.headers["authorization"] == "Token riffle-test-token"
      else { return .respond(status: 401, body: Data(#"{"code":401}"#.utf8)) }
      if state.value.down { return .respond(status: 503, body: Data()) }
      guard let json = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
        let type = json["listen_type"] as? String,
        let payload = json["payload"] as? [[String: Any]]
      else { return .respond(status: 400, body: Data(#"{"code":400}"#.utf8)) }
      let titles = payload.compactMap {
        ($0["track_metadata"] as? [String: Any])?["track_name"] as? String
      }
      state.update {
        if type == "playing_now" { $0.playingNow += titles } else { $0.taken += titles }
      }
      return .respond(status: 200, body: Data(#"{"status":"ok"}"#.utf8))
    }
    let config = folder.home.url.appendingPathComponent("config/riffle")
    try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
    try Data(
      """
      [scrobble.listenbrainz]
      token = "riffle-test-token"
      url = "\(server.baseURL.absoluteString)"
      """.utf8
    ).write(to: config.appendingPathComponent("config.toml"))
  }

  var down: Bool {
    get { state.value.down }
    set { state.update { $0.down = newValue } }
  }
  var playingNow: [String] { state.value.playingNow }
  /// Titles of the listens answered 200, in order.
  var taken: [String] { state.value.taken }
  func stop() { server.stop() }
}

/// A value shared with a server's handler thread.
private final class Locked<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var _value: Value
  init(_ value: Value) { _value = value }
  var value: Value { lock.withLock { _value } }
  /// Changes the value under the lock, so two threads' changes never overwrite each other.
  func update(_ change: (inout Value) -> Void) { lock.withLock { change(&_value) } }
}
