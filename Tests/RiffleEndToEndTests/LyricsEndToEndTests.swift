import Foundation
import RiffleTestSupport
import Testing

// Lyrics through the real binary in tmux, against a loopback server that answers as LRCLIB
// does. The highlighted line is found by its attributes (`capture-pane -e`): the line being
// sung is the only bold one in the lyrics panel.

/// The words the served song is sung with, in order, and its LRC.
private enum Words {
  static let lines = ["First words", "Second words", "Third words", "Fourth words", "Fifth words"]
  static let times = [0.5, 2, 4, 6, 8]
  /// Lines at 0.5, 2, 4, 6 and 8 s; metadata and an offset of 0 as real files carry.
  static let lrc =
    "[ar:Riffle]\n[ti:Paper Satellites]\n[offset:+0]\n[00:00.50]First words\n[00:02.00]Second words\n"
    + "[00:04.00]Third words\n[00:06.00]Fourth words\n[00:08.00]Fifth words\n"

  static func record(synced: String?, plain: String?) -> String {
    func json(_ text: String?) -> String {
      guard let text else { return "null" }
      let data = try! JSONSerialization.data(withJSONObject: [text], options: [])
      return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }
    return """
      {"id":901,"trackName":"Paper Satellites","artistName":"Artist p","albumName":"Catalog",\
      "duration":16,"instrumental":false,"plainLyrics":\(json(plain)),"syncedLyrics":\(json(synced))}
      """
  }

  static let notFound =
    #"{"code":404,"name":"TrackNotFound","message":"Failed to find specified track"}"#
}

/// A feed of one catalog song of 15.8 s, with an album, served beside LRCLIB's `/api/get`.
private func lyricsHarness(lyrics: LoopbackHTTPServer.Reply?) throws -> PlayerHarness {
  let audio = try Data(
    contentsOf: TestFiles.catalog.appendingPathComponent("audio/riffle-003.mp3"))
  let feed = """
    {"songs":[{"id":"p","title":"Paper Satellites","handle":"hp","display_name":"Artist p",\
    "album":"Catalog","duration":15.8,"audio_url":"/audio/riffle-003.mp3"}]}
    """
  var routes: [String: LoopbackHTTPServer.Reply] = [
    "/audio/riffle-003.mp3": .file(audio, contentType: "audio/mpeg")
  ]
  if let lyrics { routes["/lrclib/api/get"] = lyrics }
  return try PlayerHarness(feed: feed, extraRoutes: routes)
}

/// The one of `candidates` drawn bold on a screen captured with escapes, if any.
func boldText(in escaped: String, among candidates: [String]) -> String? {
  for line in escaped.split(separator: "\n") {
    for candidate in candidates {
      guard let start = line.range(of: candidate)?.lowerBound else { continue }
      if isBold(at: start, in: line) { return candidate }
    }
  }
  return nil
}

/// A captured screen without its escape sequences.
func stripEscapes(_ escaped: String) -> String {
  var out = ""
  var rest = Substring(escaped)
  while let escape = rest.range(of: "\u{1B}[") {
    out += rest[..<escape.lowerBound]
    let body = rest[escape.upperBound...]
    guard let end = body.firstIndex(where: { $0.isLetter }) else { return out }
    rest = body[body.index(after: end)...]
  }
  return out + rest
}

/// The whole seconds of the elapsed clock ("0:07") at the start of the progress row.
func elapsedSeconds(onScreen screen: String) -> Int? {
  guard let row = screen.split(separator: "\n").first(where: { $0.contains("●") }),
    let label = row.split(separator: " ").first
  else { return nil }
  let parts = label.split(separator: ":").compactMap { Int($0) }
  return parts.count == 2 ? parts[0] * 60 + parts[1] : nil
}

/// Whether the SGR sequences before `index` in a captured line leave bold on.
private func isBold(at index: Substring.Index, in line: Substring) -> Bool {
  var bold = false
  var rest = line[..<index]
  while let escape = rest.range(of: "\u{1B}[") {
    let body = rest[escape.upperBound...]
    guard let end = body.firstIndex(where: { $0.isLetter }) else { break }
    if body[end] == "m" {
      let params = body[..<end].split(separator: ";", omittingEmptySubsequences: false)
        .map { Int($0) ?? 0 }
      var i = 0
      while i < params.count {
        switch params[i] {
        case 0: bold = false
        case 1: bold = true
        case 22: bold = false
        // Colours carry sub-parameters that are not attributes: 5;N or 2;R;G;B.
        case 38, 48, 58: i += params.indices.contains(i + 1) && params[i + 1] == 2 ? 4 : 2
        default: break
        }
        i += 1
      }
    }
    rest = body[body.index(after: end)...]
  }
  return bold
}

@Suite("Lyrics end to end (tmux, loopback LRCLIB)", .serialized)
struct LyricsEndToEndTests {
  @Test("y shows synced lyrics; the bold line moves on in time with the clock, seeks and pauses")
  func syncedLyricsFollowPlayback() throws {
    let harness = try lyricsHarness(
      lyrics: .respond(
        status: 200, headers: ["Content-Type": "application/json"],
        body: Data(Words.record(synced: Words.lrc, plain: Words.lines.joined(separator: "\n")).utf8)
      ))
    let tmux = try harness.start(
      arguments: ["--lyrics-url", harness.server.url("/lrclib").absoluteString])
    try tmux.waitFor("Paper Satellites", timeout: 15)
    tmux.sendKeys("y")
    try tmux.waitFor("Fifth words", timeout: 15)

    // The bold line, polled: it only moves forwards, each time in step with the clock drawn
    // on the same screen (a line is lit from its time until the next line's).
    // Each line lit is noted with when it changed: after the start of the capture before the
    // one that first showed it, and before the end of that one.
    var seen: [(line: Int, after: Date, before: Date)] = []
    var previousStart = Date()
    let deadline = Date().addingTimeInterval(30)
    while seen.last?.line != Words.lines.count - 1, Date() < deadline {
      let started = Date()
      let escaped = tmux.captureWithEscapes()
      let ended = Date()
      if let lit = boldText(in: escaped, among: Words.lines),
        let index = Words.lines.firstIndex(of: lit)
      {
        if index != seen.last?.line { seen.append((index, previousStart, ended)) }
        if let clock = elapsedSeconds(onScreen: stripEscapes(escaped)) {
          let start = Words.times[index]
          let end = index + 1 < Words.times.count ? Words.times[index + 1] : 16
          // The lyrics rows are sent before the clock's row: a capture taken between the two
          // may show the new line beside the clock's previous second.
          #expect(
            Double(clock) >= start.rounded(.down) - 1 && Double(clock) < end,
            "\(lit) lit at 0:\(clock)")
        }
      }
      previousStart = started
      usleep(20_000)
    }
    let names = seen.map { Words.lines[$0.line] }
    #expect(seen.last?.line == Words.lines.count - 1, "highlights seen: \(names)")
    #expect(seen.map(\.line) == seen.map(\.line).sorted(), "the highlight went back: \(names)")
    #expect(Set(names).count >= 3, "too few lines seen lit: \(names)")
    // Between two lines lit one after the other passes what passes between their times, within
    // 0.25 s beyond what the captures' timing leaves open (however loaded the machine).
    for (a, b) in zip(seen, seen.dropFirst()) where b.line == a.line + 1 {
      let shortest = b.after.timeIntervalSince(a.before)
      let longest = b.before.timeIntervalSince(a.after)
      let expected = Words.times[b.line] - Words.times[a.line]
      print(
        "lyrics: \(Words.lines[a.line]) -> \(Words.lines[b.line]): \(shortest)...\(longest) s"
          + " (LRC \(expected) s)")
      #expect(
        expected >= shortest - 0.25 && expected <= longest + 0.25,
        "\(Words.lines[b.line]): between \(shortest) and \(longest) s for \(expected) s")
    }

    // Home goes back to the start: the first line lights again.
    tmux.sendKeys("Home")
    _ = try tmux.waitUntil(timeout: 10) { _ in
      boldText(in: tmux.captureWithEscapes(), among: Words.lines) == "First words"
    }
    // Paused, the highlight stands still.
    tmux.sendKeys("Space")
    try tmux.waitFor("Paused")
    let held = boldText(in: tmux.captureWithEscapes(), among: Words.lines)
    Thread.sleep(forTimeInterval: 2.5)
    #expect(boldText(in: tmux.captureWithEscapes(), among: Words.lines) == held)
    tmux.sendKeys("y")
    _ = try tmux.waitUntil(timeout: 5) { !$0.contains("Third words") }
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)

    let asked = harness.server.requests.filter { $0.path == "/lrclib/api/get" }
    #expect(asked.count == 1)
    #expect(
      asked.first?.formQuery == [
        "artist_name": "Artist p", "track_name": "Paper Satellites", "album_name": "Catalog",
        "duration": "16",
      ])
  }

  @Test("A song LRCLIB does not know says so (server named in config.toml)")
  func notFound() throws {
    let harness = try lyricsHarness(
      lyrics: .respond(
        status: 404, headers: ["Content-Type": "application/json"],
        body: Data(Words.notFound.utf8)))
    let config = harness.home.url.appendingPathComponent("config/riffle")
    try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
    try Data("lyrics_url = \"\(harness.server.url("/lrclib").absoluteString)\"\n".utf8)
      .write(to: config.appendingPathComponent("config.toml"))
    let tmux = try harness.start()
    try tmux.waitFor("Paper Satellites", timeout: 15)
    tmux.sendKeys("y")
    try tmux.waitFor("No lyrics found for this song", timeout: 15)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    #expect(harness.server.requests.contains { $0.path == "/lrclib/api/get" })
  }

  @Test("No connection says so and retries by itself until LRCLIB answers (RIFFLE_LYRICS_URL)")
  func offlineThenBack() throws {
    let harness = try lyricsHarness(lyrics: nil)
    // A port with nothing listening: a server started and stopped.
    let gone = try LoopbackHTTPServer { _ in .respond(status: 500, body: Data()) }
    let port = gone.port
    gone.stop()
    let tmux = try harness.start(environment: [
      "RIFFLE_LYRICS_URL": "http://127.0.0.1:\(port)/lrclib"
    ])
    try tmux.waitFor("Paper Satellites", timeout: 15)
    tmux.sendKeys("y")
    try tmux.waitFor("No connection to 127.0.0.1: retrying in 1 s", timeout: 15)
    try tmux.waitFor("No connection to 127.0.0.1: retrying in 2 s", timeout: 15)
    #expect(!tmux.hasExited)
    // LRCLIB comes back on that port: the next automatic retry gets the words.
    let back = try LoopbackHTTPServer(
      port: port,
      handler: LoopbackHTTPServer.routes([
        "/lrclib/api/get": .respond(
          status: 200, headers: ["Content-Type": "text/plain"],
          body: Data(Words.record(synced: nil, plain: "Plain first\n\nPlain second").utf8))
      ]))
    defer { back.stop() }
    let screen = try tmux.waitFor("Plain second", timeout: 20)
    #expect(screen.contains("Plain first"))
    #expect(!screen.contains("No connection"))
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test("A .lrc beside a local song is shown without asking LRCLIB")
  func lrcBesideLocalFile() throws {
    let folder = try TemporaryDirectory("riffle-lrc")
    try FileManager.default.copyItem(
      at: TestFiles.catalog.appendingPathComponent("audio/riffle-003.mp3"),
      to: folder.file("satellites.mp3"))
    try Data(Words.lrc.utf8).write(to: folder.file("satellites.lrc"))
    let feed = """
      {"songs":[{"id":"local","title":"Paper Satellites","display_name":"Artist p",\
      "audio_url":"satellites.mp3"}]}
      """
    try Data(feed.utf8).write(to: folder.file("songs.json"))
    let lrclib = try LoopbackHTTPServer { _ in
      .respond(
        status: 200, body: Data(Words.record(synced: "[00:00.10]From LRCLIB", plain: nil).utf8))
    }
    defer { lrclib.stop() }
    let home = try TemporaryDirectory("riffle-e2e")
    let tmux = try TmuxSession(
      command: [
        TestFiles.riffleBinary, folder.file("songs.json").path, "--audio", "null", "--lyrics-url",
        lrclib.baseURL.absoluteString,
      ],
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 })
    defer { tmux.kill() }
    try tmux.waitFor("Paper Satellites", timeout: 15)
    tmux.sendKeys("y")
    let screen = try tmux.waitFor("Third words", timeout: 15)
    #expect(!screen.contains("From LRCLIB"))
    _ = try tmux.waitUntil(timeout: 15) { _ in
      boldText(in: tmux.captureWithEscapes(), among: Words.lines) == "Second words"
    }
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    #expect(lrclib.requests.isEmpty)
  }

  @Test("Lyrics seen once show again from the cache with LRCLIB gone")
  func cachedForTheNextRun() throws {
    let harness = try lyricsHarness(lyrics: nil)
    let lrclib = try LoopbackHTTPServer(
      handler: LoopbackHTTPServer.routes([
        "/api/get": .respond(
          status: 200, headers: ["Content-Type": "application/json"],
          body: Data(Words.record(synced: Words.lrc, plain: nil).utf8))
      ]))
    let arguments = ["--lyrics-url", lrclib.baseURL.absoluteString]
    let first = try harness.start(arguments: arguments)
    try first.waitFor("Paper Satellites", timeout: 15)
    first.sendKeys("y")
    try first.waitFor("Fifth words", timeout: 15)
    first.sendKeys("q")
    #expect(try first.waitForExit() == 0)
    first.kill()
    lrclib.stop()
    #expect(lrclib.requests.count == 1)

    let again = try harness.start(arguments: arguments)
    try again.waitFor("Paper Satellites", timeout: 15)
    again.sendKeys("y")
    let screen = try again.waitFor("Fifth words", timeout: 15)
    #expect(!screen.contains("No connection"))
    again.sendKeys("q")
    #expect(try again.waitForExit() == 0)
  }

  @Test("Plain lyrics scroll with Down, PgDn, PgUp and Up")
  func plainLyricsScroll() throws {
    let verses = (1...60).map { "Plain verse \($0)" }
    let harness = try lyricsHarness(
      lyrics: .respond(
        status: 200, headers: ["Content-Type": "application/json"],
        body: Data(Words.record(synced: nil, plain: verses.joined(separator: "\n")).utf8)))
    let tmux = try harness.start(
      arguments: ["--lyrics-url", harness.server.url("/lrclib").absoluteString])
    try tmux.waitFor("Paper Satellites", timeout: 15)
    tmux.sendKeys("y")
    /// The first verse on screen.
    func top(_ screen: String) -> String? {
      screen.split(separator: "\n").lazy.compactMap { line -> String? in
        let text = line.trimmingCharacters(in: .whitespaces)
        return text.hasPrefix("Plain verse")
          ? text.replacingOccurrences(of: " ▲", with: "")
            .replacingOccurrences(of: " ▼", with: "").trimmingCharacters(in: .whitespaces) : nil
      }.first
    }
    _ = try tmux.waitUntil(timeout: 15) { top($0) == "Plain verse 1" }
    tmux.sendKeys("Down")
    _ = try tmux.waitUntil { top($0) == "Plain verse 2" }
    tmux.sendKeys("PageDown")
    let paged = try tmux.waitUntil { top($0) != "Plain verse 2" }
    let step = try #require(top(paged).flatMap { Int($0.split(separator: " ").last ?? "") })
    #expect(step > 10, "a page is the panel's height: \(top(paged) ?? "")")
    tmux.sendKeys("PageUp")
    _ = try tmux.waitUntil { top($0) == "Plain verse 2" }
    tmux.sendKeys("Up")
    _ = try tmux.waitUntil { top($0) == "Plain verse 1" }
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }
}
