import Dispatch
import Foundation
import RiffleAPI
import RiffleApp
import RiffleCore
import RiffleTUI
import Testing

// The view model running the lyrics effects: an in-memory terminal, a ticker and a scheduler
// that fire only when told, an audio client whose position the test sets, and a lyrics client
// that records what it is asked and answers when the test says.

private enum Songs {
  static let feed = URL(string: "https://studio-api.example.com/api/feed")!
  static let all = [
    Song(
      id: "a", title: "Paper Lanterns", displayName: "Oskar Vale", handle: "oskarvale",
      audioURL: URL(string: "https://cdn1.example.com/a.mp3")!, album: "Lights"),
    Song(
      id: "b", title: "Slow Orbit", displayName: "Juno Reyes", handle: "junoreyes",
      audioURL: URL(string: "https://cdn1.example.com/b.mp3")!, duration: 35),
  ]
  static let synced = Lyrics.synced(
    SyncedLyrics((0..<8).map { LyricLine(time: Double(4 + 3 * $0), text: "Sung line \($0 + 1)") }))
}

/// The clients' side: position to report, lyrics requests and their completions.
private final class FakeWorld: @unchecked Sendable {
  private let lock = NSLock()
  private var _position: Double?
  private var _positionReads = 0
  private var _lyricsAsked: [Song] = []
  private var _lyricsCompletions: [@Sendable (Result<Lyrics, LyricsLoadError>) -> Void] = []
  private var _feedCompletion: (@Sendable (Result<SourcePage, Failure>) -> Void)?

  var position: Double? {
    get { lock.withLock { _position } }
    set { lock.withLock { _position = newValue } }
  }
  var positionReads: Int { lock.withLock { _positionReads } }
  var lyricsAsked: [Song] { lock.withLock { _lyricsAsked } }

  /// Answers lyrics request number `index` (0-based, in the order asked).
  func answerLyrics(_ index: Int, _ result: Result<Lyrics, LyricsLoadError>) {
    let completion = lock.withLock { _lyricsCompletions[index] }
    completion(result)
  }

  func deliverFeed(_ songs: [Song]) {
    let completion = lock.withLock { _feedCompletion }
    completion?(.success(SourcePage(songs: songs)))
  }

  var clients: PlayerClients {
    PlayerClients(
      pages: PageClient { _, _, done in self.lock.withLock { self._feedCompletion = done } },
      audio: AudioClient(
        play: { _, _ in }, pause: {}, resume: {}, seek: { _, _ in },
        position: { _ in
          self.lock.withLock {
            self._positionReads += 1
            return self._position
          }
        },
        shutdown: {}),
      likes: LikesClient(all: { [:] }, set: { _, _, done in done(nil) }, flush: {}),
      lyrics: LyricsClient(load: { song, done in
        self.lock.withLock {
          self._lyricsAsked.append(song)
          self._lyricsCompletions.append(done)
        }
      }))
  }
}

/// Runs everything already queued on the main queue (results come back through `post`).
@MainActor
private func drainMainQueue() async {
  let marker = LyricsMarker()
  DispatchQueue.main.async { MainActor.assumeIsolated { marker.done = true } }
  let deadline = ContinuousClock.now + .seconds(5)
  while !marker.done, ContinuousClock.now < deadline { await Task.yield() }
  #expect(marker.done, "the main queue did not run the marker in 5 s")
}

@MainActor
private final class LyricsMarker {
  var done = false
}

@MainActor
private final class LyricsHarness {
  let world = FakeWorld()
  let terminal = BufferTerminal(width: 80, height: 24)
  let ticker = ManualTicker()
  let scheduler = ManualScheduler()
  let model: PlayerViewModel

  init() {
    model = PlayerViewModel(
      clients: world.clients, terminal: terminal, ticker: ticker, scheduler: scheduler,
      onQuit: {})
  }

  func press(_ keys: Key...) {
    terminal.pendingKeys = keys
    model.handleInput()
  }

  /// Page 1 playing, its decoder having said it lasts 40 s.
  func startPlaying() async {
    model.send(.open(.feed(Songs.feed)))
    world.deliverFeed(Songs.all)
    await drainMainQueue()
    model.send(.playbackStarted(playID: model.state.playID, duration: 40))
  }

  /// Presses y and answers the request with `lyrics`.
  func showLyrics(_ lyrics: Lyrics) async {
    press(.char("y"))
    world.answerLyrics(world.lyricsAsked.count - 1, .success(lyrics))
    await drainMainQueue()
  }

  /// The text of the highlighted (accent, bold) lyrics row, if any.
  var highlighted: String? {
    let screen = terminal.screen
    for y in 0..<screen.height {
      let lit = (0..<screen.width).contains {
        screen[$0, y].style.bold && screen[$0, y].style.foreground == Theme.standard.accent
          && screen[$0, y].text != " "
      }
      if lit { return screen.lines[y].trimmingCharacters(in: .whitespaces) }
    }
    return nil
  }

  var text: String { terminal.screen.text }

  /// Lets the ticker read `position` from the engine.
  func tick(at position: Double) {
    world.position = position
    ticker.fire()
  }
}

@Suite("PlayerViewModel: lyrics")
@MainActor
struct LyricsViewModelTests {
  @Test("y asks the lyrics client for the song, with the decoder's length; lines then show")
  func toggleLoadsAndShows() async throws {
    let harness = LyricsHarness()
    await harness.startPlaying()
    harness.press(.char("y"))
    #expect(harness.text.contains("Loading lyrics…"))
    var expected = Songs.all[0]
    expected.duration = 40
    #expect(harness.world.lyricsAsked == [expected])
    harness.world.answerLyrics(0, .success(Songs.synced))
    await drainMainQueue()
    #expect(harness.text.contains("Sung line 1"))
    #expect(harness.highlighted == nil, "nothing is sung before 4 s")
    harness.press(.char("y"))
    #expect(!harness.text.contains("Sung line 1"))
    harness.press(.char("y"))
    #expect(harness.text.contains("Sung line 1"))
    #expect(harness.world.lyricsAsked.count == 1, "shown again, they are not asked for again")
  }

  @Test("The highlighted line follows the engine's position tick by tick, and seeks")
  func highlightFollowsTicks() async {
    let harness = LyricsHarness()
    await harness.startPlaying()
    await harness.showLyrics(Songs.synced)
    harness.tick(at: 4.05)
    #expect(harness.highlighted == "Sung line 1")
    harness.tick(at: 6.9)
    #expect(harness.highlighted == "Sung line 1")
    harness.tick(at: 7.02)
    #expect(harness.highlighted == "Sung line 2")
    // A seek forward (the engine reports from there on).
    harness.press(.char("]"))
    #expect(harness.model.state.position == 17.02)
    #expect(harness.highlighted == "Sung line 5")
    harness.press(.home)
    #expect(harness.highlighted == nil)
  }

  @Test("The ticker wakes when the next line starts, when that is before the clock changes")
  func wakeAtNextLine() async throws {
    let harness = LyricsHarness()
    await harness.startPlaying()
    // Lines between the clock's seconds, so the line, not the clock, sets the wake-up.
    let offBeat = Lyrics.synced(
      SyncedLyrics([
        LyricLine(time: 4, text: "Sung line 1"), LyricLine(time: 4.5, text: "Sung line 2"),
        LyricLine(time: 9.25, text: "Sung line 3"),
      ]))
    await harness.showLyrics(offBeat)
    harness.tick(at: 4.2)
    #expect(harness.highlighted == "Sung line 1")
    guard case .once(let wait)? = harness.ticker.pace else {
      Issue.record(
        "playing with synced lyrics wakes once: \(String(describing: harness.ticker.pace))")
      return
    }
    #expect(
      abs(wait - (4.5 - 4.2 + 0.01)) < 1e-9, "the line at 4.5 s comes before 5 s on the clock")
    harness.tick(at: 4.51)
    #expect(harness.highlighted == "Sung line 2")
    // Now the clock's next second (5 s) comes before the next line (9.25 s).
    guard case .once(let clock)? = harness.ticker.pace else {
      Issue.record("still playing: \(String(describing: harness.ticker.pace))")
      return
    }
    #expect(clock <= 0.5, "\(clock)")
    #expect(harness.scheduler.delays.isEmpty, "one wake-up mechanism: the ticker")
  }

  @Test("Paused, nothing wakes the player, and the highlight stands still")
  func pausedNoWake() async {
    let harness = LyricsHarness()
    await harness.startPlaying()
    await harness.showLyrics(Songs.synced)
    harness.tick(at: 5)
    #expect(harness.ticker.isRunning)
    harness.press(.char(" "))
    #expect(harness.model.state.playback == .paused)
    #expect(!harness.ticker.isRunning)
    harness.world.position = 8
    #expect(harness.highlighted == "Sung line 1", "paused, the highlight stands still")
    #expect(harness.scheduler.delays.isEmpty)
  }

  @Test("Paging with the lyrics open asks for the next song's; the old answer is ignored")
  func pagingFollows() async {
    let harness = LyricsHarness()
    await harness.startPlaying()
    harness.press(.char("y"))
    harness.press(.right)
    #expect(harness.world.lyricsAsked.map(\.id) == ["a", "b"])
    harness.world.answerLyrics(0, .success(Songs.synced))
    await drainMainQueue()
    #expect(harness.text.contains("Loading lyrics…"))
    #expect(!harness.text.contains("Sung line"))
    harness.world.answerLyrics(1, .success(.notFound))
    await drainMainQueue()
    #expect(harness.text.contains("No lyrics found for this song"))
  }

  @Test("No connection: the feed's message, a retry after 1 s, then the lyrics")
  func offlineRetries() async {
    let harness = LyricsHarness()
    await harness.startPlaying()
    harness.press(.char("y"))
    harness.world.answerLyrics(0, .failure(.http(.noConnection(host: "lrclib.net"))))
    await drainMainQueue()
    #expect(harness.text.contains("No connection to lrclib.net: retrying in 1 s"))
    #expect(harness.scheduler.delays == [1])
    harness.scheduler.runPending()
    #expect(harness.world.lyricsAsked.count == 2)
    #expect(harness.text.contains("Loading lyrics…"))
    harness.world.answerLyrics(1, .success(.instrumental))
    await drainMainQueue()
    #expect(harness.text.contains("♪ Instrumental ♪"))
  }

  @Test("Plain lyrics scroll with Down and PgDn, and stop at the last full page")
  func plainScrollKeys() async throws {
    let harness = LyricsHarness()
    await harness.startPlaying()
    await harness.showLyrics(.plain((1...60).map { "Verse line \($0)" }))
    let area = try #require(LyricsView.area(width: 80, height: 24))
    func top() -> String { harness.terminal.screen.lines[area.lowerBound] }
    #expect(top().contains("Verse line 1 "))
    harness.press(.down)
    #expect(top().contains("Verse line 2 "))
    harness.press(.pageDown)
    #expect(top().contains("Verse line \(2 + area.count - 1) "))
    harness.press(.pageDown, .pageDown, .down)
    let last = 60 - area.count + 1
    #expect(top().contains("Verse line \(last) "))
    #expect(harness.model.state.lyrics?.scroll == last - 1)
    // The first Up after the end moves at once: no presses are lost beyond it.
    harness.press(.up)
    #expect(top().contains("Verse line \(last - 1) "))
    harness.press(.pageUp, .pageUp, .pageUp)
    #expect(top().contains("Verse line 1 "))
  }
}
