import Foundation
import RiffleTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Kill -9 at random moments while the player likes songs and fills its caches, again and
/// again: afterwards the likes file and every cached file must be whole, and no like whose
/// save had returned may be lost.
///
/// `RIFFLE_CRASH_ROUNDS` sets the number of kills (scripts/harden.sh runs 40; the normal suite
/// 4). `RIFFLE_CRASH_SEED` replays a failing sequence.
@Suite("Crash safety end to end (kill -9 while liking and caching)", .serialized)
struct CrashSafetyEndToEndTests {
  static let rounds = Int(ProcessInfo.processInfo.environment["RIFFLE_CRASH_ROUNDS"] ?? "") ?? 4

  /// A server for every round's feed: short songs (so they end and get cached) under URLs
  /// unique to each song, and a cover per song.
  final class Site: @unchecked Sendable {
    let audio: Data
    let cover: Data
    let server: LoopbackHTTPServer

    init() throws {
      let audio = try Data(contentsOf: TestFiles.fixture("short-1.mp3"))
      let cover = try Data(contentsOf: TestFiles.fixture("cover.png"))
      self.audio = audio
      self.cover = cover
      server = try LoopbackHTTPServer { request in
        let path = request.path
        if path.hasPrefix("/audio/") { return .file(audio, contentType: "audio/mpeg") }
        if path.hasPrefix("/img/") { return .file(cover, contentType: "image/png") }
        guard path.hasPrefix("/feed-"), path.hasSuffix(".json") else {
          return .respond(status: 404, body: Data())
        }
        let round = path.dropFirst(6).dropLast(5)
        let songs = (1...8).map { i in
          "{\"id\":\"r\(round)-\(i)\",\"title\":\"Round \(round) song \(i)\",\"handle\":\"h\","
            + "\"display_name\":\"A\",\"image_url\":\"/img/r\(round)-\(i).png\","
            + "\"audio_url\":\"/audio/r\(round)-\(i).mp3\"}"
        }
        return .respond(
          status: 200, headers: ["Content-Type": "application/json"],
          body: Data("{\"songs\":[\(songs.joined(separator: ","))]}".utf8))
      }
    }
  }

  @Test("likes file and caches survive kill -9 at random moments; confirmed likes are kept")
  func killNineWhileLikingAndCaching() throws {
    let seed =
      UInt64(ProcessInfo.processInfo.environment["RIFFLE_CRASH_SEED"] ?? "")
      ?? UInt64.random(in: 1...UInt64.max)
    var random = SeededRandom(seed: seed)
    let site = try Site()
    defer { site.server.stop() }
    let home = try TemporaryDirectory("riffle-crash")
    let trace = home.file("trace")
    let likesFile = home.file("data/riffle/likes.json")
    var confirmedTotal = 0
    for round in 0..<Self.rounds {
      let tmux = try TmuxSession(
        command: [
          TestFiles.riffleBinary, site.server.url("/feed-\(round).json").absoluteString,
          "--audio", "null",
        ],
        environment: home.xdgEnvironment.merging(["RIFFLE_TRACE": trace.path, "LANG": "C.UTF-8"]) {
          $1
        })
      defer { tmux.kill() }
      try tmux.waitFor("Round \(round) song 1", timeout: 20)
      let pid = try #require(Self.startedPID(number: round + 1, in: trace))
      // Like and page at random; kill at a random moment, often while a save is under way.
      let killAt = Date().addingTimeInterval(Double(random.next() % 3000) / 1000)
      while Date() < killAt {
        tmux.sendKeys(random.next() % 3 == 0 ? "Right" : "l")
        usleep(UInt32(random.next() % 150_000))
      }
      #expect(kill(pid, SIGKILL) == 0, "seed \(seed), round \(round)")
      _ = try tmux.waitForExit(timeout: 10)

      let problem = Self.check(
        likesFile: likesFile, trace: trace, caches: home.file("cache/riffle"), site: site)
      #expect(problem == nil, "seed \(seed), round \(round): \(problem ?? "")")
      if problem != nil { return }
      confirmedTotal = Self.confirmedLikes(in: trace).count
    }
    // The rounds did like things, and the player still starts on what the kills left.
    #expect(confirmedTotal > 0, "seed \(seed): no like was ever confirmed")
    let after = try TmuxSession(
      command: [
        TestFiles.riffleBinary, site.server.url("/feed-final.json").absoluteString, "--audio",
        "null",
      ],
      environment: home.xdgEnvironment.merging(["RIFFLE_TRACE": trace.path, "LANG": "C.UTF-8"]) {
        $1
      })
    defer { after.kill() }
    let screen = try after.waitFor("Round final song 1", timeout: 20)
    #expect(!screen.contains("unreadable"), "seed \(seed)")
    after.sendKeys("l")
    try after.waitFor("♥", timeout: 10)
    after.sendKeys("q")
    #expect(try after.waitForExit() == 0)
    // The save after the kills cleared what killed writers had left.
    #expect(
      Self.temporaries(in: home.file("data/riffle")).isEmpty,
      "seed \(seed): \(Self.temporaries(in: home.file("data/riffle")))")
  }

  /// Nil when everything on disk is whole and every confirmed like is there, else what is not.
  static func check(likesFile: URL, trace: URL, caches: URL, site: Site) -> String? {
    var stored: [String: Bool] = [:]
    if FileManager.default.fileExists(atPath: likesFile.path) {
      guard let data = try? Data(contentsOf: likesFile),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let likes = object["likes"] as? [String: Bool]
      else {
        return
          "likes.json is not whole: \(String(describing: try? String(contentsOf: likesFile, encoding: .utf8)))"
      }
      stored = likes
    }
    // A confirmed value may only have been replaced by a change asked for after it.
    let marks = traceMarks(trace)
    var lastConfirmed: [String: (index: Int, liked: Bool)] = [:]
    for (index, words) in marks.enumerated() where words.first == "like-saved" && words.count == 3 {
      lastConfirmed[words[1]] = (index, words[2] == "true")
    }
    for (id, confirmed) in lastConfirmed {
      let value = stored[id] ?? false
      if value == confirmed.liked { continue }
      let askedLater = marks[(confirmed.index + 1)...].contains {
        $0 == ["like-set", id, value ? "true" : "false"]
      }
      if !askedLater { return "like of \(id) confirmed as \(confirmed.liked) but stored \(value)" }
    }
    for folder in ["audio", "images"] {
      let dir = caches.appendingPathComponent(folder)
      let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
      for name in names where !name.hasPrefix(".") {
        let data = try? Data(contentsOf: dir.appendingPathComponent(name))
        if data != site.audio && data != site.cover {
          return "cached \(folder)/\(name) is not a whole copy (\(data?.count ?? -1) bytes)"
        }
      }
      // What one kill can leave: at most one half-written file per folder, cleared later.
      if temporaries(in: dir).count > 1 {
        return "temporary files pile up in \(folder): \(temporaries(in: dir))"
      }
    }
    return nil
  }

  static func temporaries(in folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
      $0.hasPrefix(".") && $0.hasSuffix(".tmp")
    }
  }

  static func traceMarks(_ trace: URL) -> [[String]] {
    TraceFile(url: trace).marks().map(\.words)
  }

  static func confirmedLikes(in trace: URL) -> [[String]] {
    traceMarks(trace).filter { $0.first == "like-saved" }
  }

  /// The pid in the `number`th start mark of the trace, once it is there.
  static func startedPID(number: Int, in trace: URL) -> pid_t? {
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
      let starts = traceMarks(trace).filter { $0.first == "start" && $0.count == 2 }
      if starts.count >= number { return pid_t(starts[number - 1][1]) }
      usleep(20_000)
    }
    return nil
  }
}
