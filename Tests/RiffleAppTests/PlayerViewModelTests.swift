import Dispatch
import Foundation
import RiffleAPI
import RiffleApp
import RiffleCore
import RiffleTUI
import Testing

// The view model is the unit under test: it is driven with an in-memory terminal, a ticker that
// fires only when told, and fake clients that record every call. The clients are its boundary,
// so a recording fake is the right double; the real clients have their own tests.

/// Songs as a feed sends them: the first liked by the server, the others not.
private enum Feed {
  static let url = URL(string: "https://studio-api.example.com/api/feed/v2?page=0")!

  static let songs = [
    Song(
      id: "8f1c2a9e-5b7d-4c3e-9a61-0d2f4e6b8c10", title: "Neon Tide", displayName: "Mira Sol",
      handle: "mirasol", audioURL: URL(string: "https://cdn1.example.com/8f1c2a9e.mp3")!,
      likeCount: 12, isLiked: true, duration: 35, likeDestination: .likesEndpoint),
    Song(
      id: "b3d90e14-77a2-4f0b-8c5e-2e9a1f7d6c43", title: "Paper Lanterns",
      displayName: "Oskar Vale", handle: "oskarvale",
      audioURL: URL(string: "https://cdn1.example.com/b3d90e14.mp3")!, likeCount: 3, duration: 35,
      likeDestination: .likesEndpoint),
    Song(
      id: "f02e6c71-1a9d-4b88-b5f3-7c4d0e9a2b65", title: "Slow Orbit", displayName: "Juno Reyes",
      handle: "junoreyes", audioURL: URL(string: "https://cdn1.example.com/f02e6c71.mp3")!,
      likeCount: 0, duration: 35, likeDestination: .likesEndpoint),
  ]
}

/// What the fake clients were asked, in order, and the answers they give. Calls may come from
/// any thread (the clients' closures are `@Sendable`), hence the lock.
private final class ClientLog: @unchecked Sendable {
  enum Call: Equatable {
    case loadPage(SourceKind, PageCursor?)
    case saveHistory([String])
    case play(songID: String, playID: Int)
    case pause
    case resume
    case seek(to: Double, playID: Int)
    case position(playID: Int)
    case shutdown
    case likesAll
    case setLike(songID: String, liked: Bool)
    case syncLike(songID: String, liked: Bool)
    case flush
    case resized
    case restore
    case onQuit
  }

  private let lock = NSLock()
  private var _calls: [Call] = []
  private var _playedSongs: [Song] = []
  private var _pageCompletions: [@Sendable (Result<SourcePage, Failure>) -> Void] = []
  private var _likeCompletions: [@Sendable (String?) -> Void] = []
  private var _syncRejections: [@Sendable (Bool, String) -> Void] = []
  private var _position: Double?
  private let storedLikes: [String: Bool]

  init(storedLikes: [String: Bool] = [:]) {
    self.storedLikes = storedLikes
  }

  var calls: [Call] { lock.withLock { _calls } }
  var playedSongs: [Song] { lock.withLock { _playedSongs } }
  /// What `audio.position` answers.
  var position: Double? {
    get { lock.withLock { _position } }
    set { lock.withLock { _position = newValue } }
  }

  func record(_ call: Call) { lock.withLock { _calls.append(call) } }
  func clearCalls() { lock.withLock { _calls.removeAll() } }

  /// Answers the last page request, as a source's client would.
  func completePage(_ result: Result<SourcePage, Failure>) {
    let completion = lock.withLock { _pageCompletions.last }
    completion?(result)
  }

  /// Answers the last page request with a feed's songs, or with how loading a feed fails.
  func completeFeed(_ result: Result<FeedPage, FeedLoadError>) {
    completePage(
      result.map { SourcePage(songs: $0.songs, skipped: $0.skipped.count) }.mapError(\.failure))
  }

  /// Answers the last page request with a batch of 25 search results, or how a catalog fails.
  func completeQuery(_ result: Result<[Song], CatalogError>) {
    completePage(
      result.map { SourcePage(songs: $0, next: .offset(25, limit: 25)) }.mapError(\.failure))
  }

  /// Completes the last like save: nil for saved, a message for an error.
  func completeLikeSave(_ error: String?) {
    let completion = lock.withLock { _likeCompletions.last }
    completion?(error)
  }

  /// The likes server refuses the last like it was sent: `liked` is the refused state.
  func rejectLikeSync(liked: Bool, _ reason: String) {
    let rejected = lock.withLock { _syncRejections.last }
    rejected?(liked, reason)
  }

  var clients: PlayerClients {
    PlayerClients(
      pages: PageClient { kind, cursor, done in
        self.lock.withLock {
          self._calls.append(.loadPage(kind, cursor))
          self._pageCompletions.append(done)
        }
      },
      audio: AudioClient(
        play: { song, playID in
          self.lock.withLock {
            self._calls.append(.play(songID: song.id, playID: playID))
            self._playedSongs.append(song)
          }
        },
        pause: { self.record(.pause) },
        resume: { self.record(.resume) },
        seek: { seconds, playID in self.record(.seek(to: seconds, playID: playID)) },
        position: { playID in
          self.record(.position(playID: playID))
          return self.position
        },
        shutdown: { self.record(.shutdown) }),
      likes: LikesClient(
        all: {
          self.record(.likesAll)
          return self.storedLikes
        },
        set: { id, liked, done in
          self.lock.withLock {
            self._calls.append(.setLike(songID: id, liked: liked))
            self._likeCompletions.append(done)
          }
        },
        flush: { self.record(.flush) },
        sync: { id, liked, rejected in
          self.lock.withLock {
            self._calls.append(.syncLike(songID: id, liked: liked))
            self._syncRejections.append(rejected)
          }
        }),
      saveSearchHistory: { self.record(.saveHistory($0)) })
  }
}

/// A terminal that shows screens in a `BufferTerminal` and notes `resized` and `restore` in the
/// call log, so their order can be checked against the clients' calls.
private final class LoggingTerminal: Terminal {
  let buffer = BufferTerminal(width: 80, height: 24)
  let log: ClientLog
  var colorCount: Int { buffer.colorCount }

  init(log: ClientLog) { self.log = log }

  var size: (width: Int, height: Int) { buffer.size }
  func flush(_ screen: Screen) { buffer.flush(screen) }
  func readKeys() -> [Key] { buffer.readKeys() }
  func resized() {
    log.record(.resized)
    buffer.resized()
  }
  func restore() {
    log.record(.restore)
    buffer.restore()
  }
}

/// Lets the main queue run everything already on it.
///
/// Results come back through `post`, which hands the action to `DispatchQueue.main.async`.
/// These tests run on the main actor, whose executor (on Linux as on Darwin) is that same
/// serial, first-in-first-out main queue. So a marker block enqueued now runs after every block
/// enqueued before it; the loop yields the main actor until the marker has run, and by then
/// each action posted earlier has been sent. A deadline turns a queue that never runs into a
/// test failure instead of a hang.
@MainActor
private func drainMainQueue(sourceLocation: SourceLocation = #_sourceLocation) async {
  let marker = Marker()
  DispatchQueue.main.async { MainActor.assumeIsolated { marker.done = true } }
  let deadline = ContinuousClock.now + .seconds(5)
  while !marker.done, ContinuousClock.now < deadline { await Task.yield() }
  #expect(
    marker.done, "the main queue did not run the marker in 5 s", sourceLocation: sourceLocation)
}

@MainActor
private final class Marker {
  var done = false
}

/// For a result posted from another thread, where there is no "before" to drain up to: polls,
/// yielding the main actor, until the condition holds or 5 s have passed.
@MainActor
private func waitUntil(
  _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: @MainActor () -> Bool
) async {
  let deadline = ContinuousClock.now + .seconds(5)
  while !condition(), ContinuousClock.now < deadline {
    try? await Task.sleep(for: .milliseconds(1))
  }
  #expect(condition(), "timed out waiting until \(what)", sourceLocation: sourceLocation)
}

/// A view model with a buffer terminal, a manual ticker and recording clients.
@MainActor
private final class Harness {
  let log: ClientLog
  let terminal = BufferTerminal(width: 80, height: 24)
  let ticker = ManualTicker()
  let scheduler = ManualScheduler()
  let model: PlayerViewModel

  init(storedLikes: [String: Bool] = [:]) {
    let log = ClientLog(storedLikes: storedLikes)
    self.log = log
    model = PlayerViewModel(
      clients: log.clients, terminal: terminal, ticker: ticker, scheduler: scheduler,
      onQuit: { log.record(.onQuit) })
  }

  var screenText: String { terminal.screen.text }

  func press(_ keys: Key...) {
    terminal.pendingKeys = keys
    model.handleInput()
  }

  /// Starts, delivers the feed and lets the first song start playing: page 1 of 3, playing.
  func startPlaying(_ songs: [Song] = Feed.songs) async {
    model.send(.open(.feed(Feed.url)))
    log.completeFeed(.success(FeedPage(songs: songs)))
    await drainMainQueue()
    model.send(.playbackStarted(playID: model.state.playID, duration: 35))
    log.clearCalls()
  }
}

@Suite("PlayerViewModel: loading the feed")
@MainActor
struct ViewModelFeedTests {
  @Test("start asks the client for the feed at the URL and shows the spinner")
  func startLoadsFeed() {
    let harness = Harness()
    harness.model.send(.open(.feed(Feed.url)))
    #expect(harness.log.calls == [.loadPage(.feed(Feed.url), nil)])
    #expect(harness.screenText.contains("Loading songs…"))
    #expect(harness.ticker.isRunning)
  }

  @Test("A loaded feed gets the local likes over the feed's values and plays song 1 as play 1")
  func loadedFeedAppliesLikesAndPlays() async {
    let first = Feed.songs[0].id
    let second = Feed.songs[1].id
    let harness = Harness(storedLikes: [first: false, second: true])
    harness.model.send(.open(.feed(Feed.url)))
    harness.log.completeFeed(.success(FeedPage(songs: Feed.songs)))
    // The completion only posts; nothing is applied until the main queue runs.
    #expect(harness.model.state.songs.isEmpty)
    await drainMainQueue()

    #expect(
      harness.log.calls == [
        .loadPage(.feed(Feed.url), nil), .likesAll, .play(songID: first, playID: 1),
      ])
    let songs = harness.model.state.songs
    #expect(songs.map(\.isLiked) == [false, true, false])
    #expect(songs.map(\.likeCount) == [11, 4, 0])
    #expect(harness.log.playedSongs.first?.isLiked == false)
    #expect(harness.model.state.playID == 1)
    #expect(harness.screenText.contains("Neon Tide"))
    #expect(harness.screenText.contains("♡ 11"))
    #expect(harness.screenText.contains("1 / 3"))
  }

  @Test("A feed that arrives on another thread is applied on the main queue")
  func feedFromAnotherThread() async {
    let harness = Harness()
    harness.model.send(.open(.feed(Feed.url)))
    let log = harness.log
    DispatchQueue.global().async { log.completeFeed(.success(FeedPage(songs: Feed.songs))) }
    await waitUntil("the feed is applied") { harness.model.state.songs.count == 3 }
    #expect(harness.log.calls.last == .play(songID: Feed.songs[0].id, playID: 1))
  }

  @Test("A feed that cannot be read shows the reason and stops the timer")
  func feedFailed() async {
    let harness = Harness()
    harness.model.send(.open(.feed(Feed.url)))
    harness.log.completeFeed(.failure(.feed(.invalidJSON("line 1"))))
    await drainMainQueue()
    #expect(harness.screenText.contains("The feed is not valid JSON"))
    #expect(!harness.ticker.isRunning)
    #expect(harness.log.calls == [.loadPage(.feed(Feed.url), nil)])
  }

  @Test("A feed that fails for want of a connection says when it retries, then asks again")
  func transientFailureRetries() async {
    let harness = Harness()
    harness.model.send(.open(.feed(Feed.url)))
    harness.log.completeFeed(.failure(.http(.noConnection(host: "studio-api.example.com"))))
    await drainMainQueue()
    #expect(harness.screenText.contains("No connection to studio-api.example.com: retrying in 1 s"))
    #expect(!harness.ticker.isRunning)
    #expect(harness.scheduler.delays == [1])
    #expect(harness.log.calls == [.loadPage(.feed(Feed.url), nil)])

    harness.scheduler.runPending()
    #expect(
      harness.log.calls == [.loadPage(.feed(Feed.url), nil), .loadPage(.feed(Feed.url), nil)])
    #expect(harness.screenText.contains("Loading songs…"))

    harness.log.completeFeed(.failure(.http(.noConnection(host: "studio-api.example.com"))))
    await drainMainQueue()
    #expect(harness.screenText.contains("retrying in 2 s"))
    #expect(harness.scheduler.delays == [2])
  }
}

@Suite("PlayerViewModel: keys")
@MainActor
struct ViewModelKeyTests {
  @Test("Right plays song 2 as play 2 and shows its page")
  func rightPlaysNext() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.press(.right)
    #expect(harness.log.calls == [.play(songID: Feed.songs[1].id, playID: 2)])
    // The new page slides in over a few fast frames, then stands alone.
    #expect(harness.model.motion.slide?.direction == 1)
    #expect(harness.ticker.isFast)
    harness.ticker.fire(PageMotion.slideFrames)
    #expect(harness.model.motion.slide == nil)
    #expect(!harness.ticker.isFast)
    #expect(harness.screenText.contains("Paper Lanterns"))
    #expect(harness.screenText.contains("2 / 3"))
  }

  @Test("A key press during a slide finishes it at once")
  func keyFinishesSlide() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.press(.right)
    harness.ticker.fire(2)
    #expect(harness.model.motion.slide != nil)
    harness.press(.char("?"))
    #expect(harness.model.motion.slide == nil)
    #expect(harness.screenText.contains("2 / 3"))
  }

  @Test("Left on the first page does nothing: no play, same page, same screen")
  func leftAtFirstPage() async {
    let harness = Harness()
    await harness.startPlaying()
    let before = harness.terminal.screen
    let state = harness.model.state
    harness.press(.left)
    #expect(harness.log.calls == [])
    #expect(harness.model.state == state)
    #expect(harness.terminal.screen == before)
  }

  @Test("Space pauses, and space again resumes")
  func spacePausesAndResumes() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.press(.char(" "))
    #expect(harness.log.calls == [.pause])
    #expect(harness.screenText.contains("Paused"))
    #expect(harness.screenText.contains("▶ Play"))
    harness.press(.char(" "))
    #expect(harness.log.calls == [.pause, .resume])
    #expect(!harness.screenText.contains("Paused"))
    #expect(harness.screenText.contains("❚❚ Pause"))
  }

  @Test("l saves the like for the current song and the screen shows a filled heart")
  func likeSaves() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.press(.right)
    harness.log.clearCalls()
    harness.press(.char("l"))
    let id = Feed.songs[1].id
    #expect(
      harness.log.calls == [.setLike(songID: id, liked: true), .syncLike(songID: id, liked: true)])
    #expect(harness.screenText.contains("♥"))
    #expect(harness.screenText.contains("4 liked"))
    // A successful save posts nothing: the like stays.
    harness.log.completeLikeSave(nil)
    await drainMainQueue()
    #expect(harness.model.state.songs[1].isLiked)
  }

  @Test("A like that cannot be saved is rolled back and the error shows")
  func likeSaveErrorRollsBack() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.press(.right)
    harness.press(.char("l"))
    #expect(harness.model.state.songs[1].likeCount == 4)
    harness.log.completeLikeSave("disk is full")
    await drainMainQueue()
    #expect(!harness.model.state.songs[1].isLiked)
    #expect(harness.model.state.songs[1].likeCount == 3)
    #expect(harness.screenText.contains("♡ 3"))
    #expect(!harness.screenText.contains("♥"))
    #expect(harness.screenText.contains("Could not save the like: disk is full"))
  }

  @Test("A like the server refuses is rolled back, stored so here, and the reason shows")
  func likeRejectedRollsBack() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.press(.right)
    harness.press(.char("l"))
    harness.log.clearCalls()
    harness.log.rejectLikeSync(liked: true, "HTTP 403")
    await drainMainQueue()
    let id = Feed.songs[1].id
    #expect(harness.log.calls == [.setLike(songID: id, liked: false)])
    #expect(!harness.model.state.songs[1].isLiked)
    #expect(harness.screenText.contains("♡ 3"))
    #expect(harness.screenText.contains("Could not like \u{201C}Paper Lanterns\u{201D}: HTTP 403"))
  }

  @Test("] and [ seek 10 s forward and back in the current play")
  func seekKeys() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.press(.char("]"))
    harness.press(.char("]"))
    harness.press(.char("["))
    #expect(
      harness.log.calls == [
        .seek(to: 10, playID: 1), .seek(to: 20, playID: 1), .seek(to: 10, playID: 1),
      ])
    #expect(harness.terminal.screen.lines[24 - 4].hasPrefix("    0:10 "))
  }

  @Test("q shuts audio down, flushes likes, restores the terminal, then quits, once each")
  func quitInOrder() async {
    let log = ClientLog()
    let terminal = LoggingTerminal(log: log)
    let ticker = ManualTicker()
    let model = PlayerViewModel(
      clients: log.clients, terminal: terminal, ticker: ticker,
      onQuit: { log.record(.onQuit) })
    model.send(.open(.feed(Feed.url)))
    log.completeFeed(.success(FeedPage(songs: Feed.songs)))
    await drainMainQueue()
    log.clearCalls()
    let flushes = terminal.buffer.flushCount

    // Keys after q in the same read are not acted on.
    terminal.buffer.pendingKeys = [.char("q"), .char("q"), .right, .char(" ")]
    model.handleInput()
    #expect(log.calls == [.shutdown, .flush, .restore, .onQuit])
    #expect(!ticker.isRunning)
    #expect(terminal.buffer.restored)
    // Nothing is drawn over the terminal once it is given back.
    #expect(terminal.buffer.flushCount == flushes)
  }

  @Test("A resize key draws the page again at the terminal's new size")
  func resizeRedraws() async {
    let harness = Harness()
    await harness.startPlaying()
    let flushes = harness.terminal.flushCount
    harness.terminal.size = (100, 30)
    harness.press(.resize)
    #expect(harness.terminal.flushCount == flushes + 1)
    #expect(harness.terminal.screen.width == 100 && harness.terminal.screen.height == 30)
    #expect(harness.terminal.screen.lines[30 - 7].hasPrefix("    Neon Tide"))
    #expect(harness.terminal.screen.lines[0].hasSuffix("1 / 3    "))
    #expect(harness.log.calls == [])
  }

  @Test("A resize makes the terminal forget what it shows before the page is drawn again")
  func resizeForgetsShownScreen() async {
    let log = ClientLog()
    let terminal = LoggingTerminal(log: log)
    let model = PlayerViewModel(
      clients: log.clients, terminal: terminal, ticker: ManualTicker(), onQuit: {})
    model.render()
    let flushes = terminal.buffer.flushCount
    terminal.buffer.size = (40, 12)
    terminal.buffer.pendingKeys = [.resize]
    model.handleInput()
    #expect(log.calls == [.resized])
    #expect(terminal.buffer.flushCount == flushes + 1)
    #expect(terminal.buffer.screen.width == 40)
  }

  @Test("Keys with no binding change nothing")
  func unboundKeys() async {
    let harness = Harness()
    await harness.startPlaying()
    let flushes = harness.terminal.flushCount
    harness.press(.char("x"), .up, .function(5))
    #expect(harness.log.calls == [])
    #expect(harness.terminal.flushCount == flushes)
  }
}

@Suite("PlayerViewModel: the timer")
@MainActor
struct ViewModelTickerTests {
  @Test("The timer runs while playing, stops while paused and starts again on resume")
  func runsOnlyWhilePlaying() async {
    let harness = Harness()
    await harness.startPlaying()
    #expect(harness.model.state.playback == .playing)
    #expect(harness.ticker.isRunning)
    let starts = harness.ticker.startCount

    harness.press(.char(" "))
    #expect(!harness.ticker.isRunning)
    // Stopped means no wake-ups: firing does nothing, nothing is drawn or asked.
    let flushes = harness.terminal.flushCount
    harness.log.clearCalls()
    harness.ticker.fire(3)
    #expect(harness.terminal.flushCount == flushes)
    #expect(harness.log.calls == [])

    harness.press(.char(" "))
    #expect(harness.ticker.isRunning)
    #expect(harness.ticker.startCount == starts + 1)
  }

  @Test("An empty feed leaves the player idle with the timer stopped")
  func idleAfterEmptyFeed() async {
    let harness = Harness()
    harness.model.send(.open(.feed(Feed.url)))
    #expect(harness.ticker.isRunning)
    harness.log.completeFeed(.success(FeedPage(songs: [])))
    await drainMainQueue()
    #expect(harness.model.state.playback == .idle)
    #expect(!harness.ticker.isRunning)
    #expect(harness.screenText.contains("The feed has no songs"))
  }

  @Test("After the last song finishes the timer stops")
  func stopsAfterLastSong() async {
    let harness = Harness()
    await harness.startPlaying([Feed.songs[2]])
    #expect(harness.ticker.isRunning)
    harness.model.post(.trackFinished(playID: 1))
    await drainMainQueue()
    #expect(harness.model.state.playback == .finished)
    #expect(!harness.ticker.isRunning)
    #expect(harness.screenText.contains("End of the feed"))
    #expect(harness.log.calls == [])
  }

  @Test("A like while paused runs the timer for the animation, then stops it")
  func likeAnimationWhilePaused() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.press(.char(" "))
    harness.press(.char("l"))
    #expect(harness.ticker.isRunning)
    harness.ticker.fire(PlayerState.likePulseFrames - 1)
    #expect(harness.ticker.isRunning)
    harness.ticker.fire()
    #expect(harness.model.state.likePulse == 0)
    #expect(!harness.ticker.isRunning)
  }

  @Test("A playing song wakes the timer only when its clock or bar next changes")
  func pacedByTheProgressRow() async {
    let harness = Harness()
    await harness.startPlaying()
    func expectedWait(at position: Double) -> TickerPace {
      let layout = PageLayout.make(width: 80, height: 24, state: harness.model.state)!
      let wait = ProgressPacing.secondsUntilChange(
        position: position, duration: 35, barCells: layout.progressBar.count)
      return .once(after: wait + ProgressPacing.margin)
    }
    // 35 s over the 80-column bar: the knob's first move comes before the clock's first second.
    #expect(harness.ticker.pace == expectedWait(at: 0))
    if case .once(let wait) = harness.ticker.pace { #expect(wait < 1) }

    harness.log.position = 13.6
    harness.ticker.fire()
    #expect(harness.ticker.pace == expectedWait(at: 13.6))

    // Something that neither moves nor spins, between two ticks, leaves the wake-up alone.
    let asked = harness.ticker.requests.count
    harness.press(.char("?"))
    harness.press(.char("?"))
    #expect(harness.ticker.requests.count == asked)

    // A seek moves it; a pause stops it.
    harness.model.send(.seekTo(20.5))
    #expect(harness.ticker.pace == expectedWait(at: 20.5))
    harness.press(.char(" "))
    #expect(harness.ticker.pace == nil)
    #expect(!harness.ticker.isRunning)
  }

  @Test("A tick reads the engine's position for the current play and updates the clock")
  func tickUpdatesElapsedTime() async {
    let harness = Harness()
    await harness.startPlaying()
    let before = harness.terminal.screen
    #expect(before.lines[24 - 4].hasPrefix("    0:00 "))
    harness.log.position = 13.6
    harness.ticker.fire()
    #expect(harness.log.calls == [.position(playID: 1)])
    #expect(harness.model.state.position == 13.6)
    let after = harness.terminal.screen
    #expect(after.lines[24 - 4].hasPrefix("    0:13 "))
    // Only the clock and the bar moved: "0:00" -> "0:13" and the knob 23 cells along.
    let changed = zip(before.cells, after.cells).filter { $0 != $1 }.count
    #expect(changed == 2 + 23 + 1)
  }

  @Test("Track finished for the current play moves to the next song and plays it")
  func trackFinishedAdvances() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.model.post(.trackFinished(playID: 1))
    await drainMainQueue()
    #expect(harness.log.calls == [.play(songID: Feed.songs[1].id, playID: 2)])
    harness.ticker.fire(PageMotion.slideFrames)
    #expect(harness.screenText.contains("Paper Lanterns"))
    #expect(harness.ticker.isRunning)
  }

  @Test("Track finished for an older play is ignored")
  func staleTrackFinished() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.press(.right)
    harness.log.clearCalls()
    harness.model.post(.trackFinished(playID: 1))
    await drainMainQueue()
    #expect(harness.log.calls == [])
    #expect(harness.model.state.index == 1)
  }
}

@Suite("PlayerViewModel: search and artist queries")
@MainActor
struct ViewModelQueryTests {
  static let results = (1...25).map { n in
    Song(
      id: "itunes:\(n)", title: "Result \(n)", displayName: "Band \(n)", handle: "",
      audioURL: URL(string: "https://audio.example.com/\(n).m4a")!, album: "Album \(n)")
  }

  @Test("/ opens the prompt; typed keys edit it (q types, it does not quit); Enter searches")
  func typingAndSubmitting() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.press(.char("/"))
    #expect(harness.screenText.contains("Search iTunes"))
    harness.press(.char("q"), .char("u"), .char("x"), .backspace, .char("e"), .char("e"))
    #expect(harness.model.state.search?.text == "quee")
    #expect(!harness.model.state.isQuitting)
    #expect(harness.screenText.contains("/ quee"))
    harness.press(.enter)
    #expect(harness.model.state.overlay == nil)
    #expect(
      harness.log.calls == [
        .saveHistory(["quee"]), .loadPage(.search("quee"), nil),
      ])
    #expect(harness.screenText.contains("Searching for “quee”…"))
    #expect(harness.ticker.isRunning, "the activity spinner turns")
  }

  @Test("results replace the pages, play the first, and show the album where there is no handle")
  func resultsBecomePages() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.model.send(.open(.search("band")))
    harness.log.completeQuery(.success(Self.results))
    await drainMainQueue()
    #expect(harness.model.state.songs.count == 25)
    #expect(harness.log.calls.contains(.play(songID: "itunes:1", playID: 2)))
    #expect(harness.screenText.contains("Result 1"))
    #expect(harness.screenText.contains("Band 1 · Album 1"))
    #expect(harness.screenText.contains("1 / 25"))
  }

  @Test("cancel with the prompt closed drops a search still on its way; its results are ignored")
  func cancelDropsRequest() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.model.send(.open(.search("slow")))
    harness.model.send(.cancelSearch)
    #expect(harness.model.state.opening == nil)
    harness.log.completeQuery(.success(Self.results))
    await drainMainQueue()
    #expect(harness.model.state.songs == Feed.songs)
    #expect(harness.screenText.contains("Stopped: “slow”"))
  }

  @Test("a rate-limited search says so and asks again after the wait")
  func rateLimitedRetries() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.model.send(.open(.search("x")))
    harness.log.completeQuery(.failure(.rateLimited(host: "itunes.apple.com", retryAfter: nil)))
    await drainMainQueue()
    // No Retry-After: one call's share of iTunes' 20 a minute, not the general 1 s.
    #expect(harness.screenText.contains("itunes.apple.com is limiting requests: retrying in 3 s"))
    #expect(harness.scheduler.delays == [3])
    harness.scheduler.runPending()
    #expect(
      harness.log.calls.filter { if case .loadPage = $0 { return true } else { return false } }
        .count == 2)
  }
}

@Suite("PlayerViewModel: likes on search results")
@MainActor
struct ViewModelQueryLikeTests {
  @Test("a like on a search result is saved here but not sent to the feed's likes server")
  func resultLikesStayLocal() async {
    let harness = Harness()
    await harness.startPlaying()
    harness.model.send(.open(.search("band")))
    harness.log.completeQuery(
      .success(ViewModelQueryTests.results))
    await drainMainQueue()
    harness.log.clearCalls()
    harness.press(.char("l"))
    #expect(harness.log.calls == [.setLike(songID: "itunes:1", liked: true)])
  }
}

@Suite("PlayerViewModel: onStateChange (how MPRIS and notifications follow the player)")
@MainActor
struct ViewModelStateChangeTests {
  @Test("each action is reported once, with the effects it asked for and the state after it")
  func reportsEffectsAndState() async {
    let harness = Harness()
    await harness.startPlaying()
    var heard: [(effects: [PlayerEffect], index: Int, playback: PlayerState.Playback)] = []
    harness.model.onStateChange = { effects, state in
      heard.append((effects, state.index, state.playback))
    }
    harness.model.send(.seekTo(12))
    harness.model.send(.next)
    harness.model.send(.tick)
    #expect(heard.count == 3)
    #expect(heard[0].effects == [.seek(to: 12, playID: 1)])
    #expect(heard[0].playback == .playing)
    #expect(heard[1].effects == [.play(Feed.songs[1], playID: 2)])
    #expect(heard[1].index == 1 && heard[1].playback == .loading)
    #expect(heard[2].effects.isEmpty)
  }
}
