import Dispatch
import Foundation
import RiffleAPI
import RiffleApp
import RiffleCore
import RiffleTUI
import Testing

// Mouse events and resizes through the view model, as the terminal delivers them: queued in a
// BufferTerminal and read by handleInput().

private let feedURL = URL(string: "https://studio-api.example.com/api/feed/v2?page=0")!

private let songs = [
  Song(
    id: "s1", title: "Neon Tide", displayName: "Mira Sol", handle: "mirasol",
    audioURL: URL(string: "https://cdn1.example.com/s1.mp3")!, likeCount: 12, duration: 35),
  Song(
    id: "s2", title: "Paper Lanterns", displayName: "Oskar Vale", handle: "oskarvale",
    audioURL: URL(string: "https://cdn1.example.com/s2.mp3")!, likeCount: 3, duration: 35),
  Song(
    id: "s3", title: "Slow Orbit", displayName: "Juno Reyes", handle: "junoreyes",
    audioURL: URL(string: "https://cdn1.example.com/s3.mp3")!, likeCount: 0, duration: 35),
]

/// What the player asked of the outside world.
private final class InputCalls: @unchecked Sendable {
  enum Call: Equatable {
    case play(songID: String, playID: Int)
    case pause
    case resume
    case seek(to: Double, playID: Int)
    case setLike(songID: String, liked: Bool)
  }

  private let lock = NSLock()
  private var _calls: [Call] = []
  private var feed: (@Sendable (Result<SourcePage, Failure>) -> Void)?

  var calls: [Call] { lock.withLock { _calls } }
  func clear() { lock.withLock { _calls.removeAll() } }
  private func record(_ call: Call) { lock.withLock { _calls.append(call) } }

  func completeFeed(_ songs: [Song]) {
    let done = lock.withLock { feed }
    done?(.success(SourcePage(songs: songs)))
  }

  var clients: PlayerClients {
    PlayerClients(
      pages: PageClient { _, _, done in self.lock.withLock { self.feed = done } },
      audio: AudioClient(
        play: { song, id in self.record(.play(songID: song.id, playID: id)) },
        pause: { self.record(.pause) },
        resume: { self.record(.resume) },
        seek: { seconds, id in self.record(.seek(to: seconds, playID: id)) },
        position: { _ in nil },
        shutdown: {}),
      likes: LikesClient(
        all: { [:] },
        set: { id, liked, _ in self.record(.setLike(songID: id, liked: liked)) },
        flush: {}))
  }
}

@MainActor
private final class Marker {
  var done = false
}

/// Lets the main queue run what was posted to it before now (see PlayerViewModelTests).
@MainActor
private func drainMainQueue() async {
  let marker = Marker()
  DispatchQueue.main.async { MainActor.assumeIsolated { marker.done = true } }
  let deadline = ContinuousClock.now + .seconds(5)
  while !marker.done, ContinuousClock.now < deadline { await Task.yield() }
  #expect(marker.done, "the main queue did not run the marker in 5 s")
}

/// A view model playing song 1 of 3 in an 80x24 buffer terminal.
@MainActor
private final class InputHarness {
  let calls = InputCalls()
  let terminal: BufferTerminal
  let ticker = ManualTicker()
  let model: PlayerViewModel

  init(width: Int = 80, height: Int = 24) {
    terminal = BufferTerminal(width: width, height: height)
    model = PlayerViewModel(
      clients: calls.clients, terminal: terminal, ticker: ticker, scheduler: ManualScheduler(),
      onQuit: {})
  }

  func startPlaying() async {
    model.send(.open(.feed(feedURL)))
    calls.completeFeed(songs)
    await drainMainQueue()
    model.send(.playbackStarted(playID: model.state.playID, duration: 35))
    calls.clear()
  }

  /// The layout for the terminal's size and the current state.
  var layout: PageLayout? {
    PageLayout.make(width: terminal.size.width, height: terminal.size.height, state: model.state)
  }

  func deliver(_ keys: [Key]) {
    terminal.pendingKeys = keys
    model.handleInput()
  }

  func click(_ x: Int, _ y: Int) {
    deliver([mouse(.press(button: 0), x, y), mouse(.release, x, y)])
  }

  var lines: [String] { terminal.screen.lines }
}

private func mouse(_ kind: MouseEvent.Kind, _ x: Int, _ y: Int) -> Key {
  .mouse(MouseEvent(kind, x: x, y: y))
}

@Suite("PlayerViewModel: mouse and resize")
@MainActor
struct ViewModelInputTests {
  @Test("A click on Next plays song 2 and shows its page; a click on Prev goes back")
  func clickNextAndPrevious() async throws {
    let harness = InputHarness()
    await harness.startPlaying()
    let layout = try #require(harness.layout)
    harness.click(layout.next.lowerBound + 1, layout.controlsRow)
    #expect(harness.calls.calls == [.play(songID: "s2", playID: 2)])
    #expect(harness.model.state.index == 1)
    harness.ticker.fire(PageMotion.slideFrames)
    #expect(harness.terminal.screen.text.contains("Paper Lanterns"))
    #expect(harness.lines[0].hasSuffix("2 / 3    "))

    harness.calls.clear()
    let back = try #require(harness.layout)
    harness.click(back.previous.upperBound - 1, back.controlsRow)
    #expect(harness.calls.calls == [.play(songID: "s1", playID: 3)])
    #expect(harness.model.state.index == 0)
  }

  @Test("A click on Play/Pause pauses, another resumes; the label follows")
  func clickPlayPause() async throws {
    let harness = InputHarness()
    await harness.startPlaying()
    let layout = try #require(harness.layout)
    harness.click(layout.playPause.lowerBound, layout.controlsRow)
    #expect(harness.calls.calls == [.pause])
    #expect(harness.lines[layout.controlsRow].contains("▶ Play"))
    harness.click(layout.playPause.upperBound - 1, layout.controlsRow)
    #expect(harness.calls.calls == [.pause, .resume])
    #expect(harness.lines[layout.controlsRow].contains("❚❚ Pause"))
  }

  @Test("A click on the heart likes the song and the heart fills")
  func clickHeart() async throws {
    let harness = InputHarness()
    await harness.startPlaying()
    let layout = try #require(harness.layout)
    harness.click(layout.like.lowerBound, layout.likeRow)
    #expect(harness.calls.calls == [.setLike(songID: "s1", liked: true)])
    harness.ticker.fire(PlayerState.likePulseFrames)
    #expect(harness.lines[layout.likeRow].hasPrefix("    ♥ 13 liked"))
  }

  @Test("Pressing on the bar and dragging seeks through the audio client at every step")
  func dragOnBarSeeks() async throws {
    let harness = InputHarness()
    await harness.startPlaying()
    let layout = try #require(harness.layout)
    let bar = layout.progressBar
    let y = layout.progressRow
    let middle = bar.lowerBound + (bar.count - 1) / 2
    let middleSeconds = Double(middle - bar.lowerBound) / Double(bar.count - 1) * 35
    harness.deliver([
      mouse(.press(button: 0), bar.lowerBound, y), mouse(.drag, middle, y),
      mouse(.drag, bar.upperBound + 3, y), mouse(.release, bar.upperBound + 3, y),
    ])
    #expect(
      harness.calls.calls == [
        .seek(to: 0, playID: 1), .seek(to: middleSeconds, playID: 1),
        .seek(to: 34.75, playID: 1),
      ])
    #expect(harness.model.state.position == 34.75)
    #expect(harness.model.state.index == 0, "a drag from the bar is no swipe")
    #expect(harness.lines[y].hasPrefix("    0:34 "))
  }

  @Test("A click on the middle of the bar moves the clock there")
  func clickOnBar() async throws {
    let harness = InputHarness()
    await harness.startPlaying()
    let layout = try #require(harness.layout)
    // 35 s over 62 columns (0 to 61): column 31 of the bar is 31/61 of the song, 17.8 s.
    #expect(layout.progressBar.count == 62)
    harness.click(layout.progressBar.lowerBound + 31, layout.progressRow)
    let expected = 31 / 61.0 * 35
    #expect(harness.calls.calls == [.seek(to: expected, playID: 1)])
    #expect(harness.lines[layout.progressRow].hasPrefix("    0:17 "))
  }

  @Test("Swiping the page left plays the next song; the wheel pages both ways")
  func swipeAndWheel() async {
    let harness = InputHarness()
    await harness.startPlaying()
    harness.deliver([
      mouse(.press(button: 0), 60, 5), mouse(.drag, 55, 5), mouse(.drag, 50, 5),
      mouse(.release, 50, 5),
    ])
    #expect(harness.calls.calls == [.play(songID: "s2", playID: 2)])
    harness.deliver([mouse(.wheelDown, 10, 10)])
    #expect(harness.model.state.index == 2)
    harness.deliver([mouse(.wheelUp, 10, 10), mouse(.wheelUp, 10, 10)])
    #expect(harness.model.state.index == 0)
    #expect(
      harness.calls.calls == [
        .play(songID: "s2", playID: 2), .play(songID: "s3", playID: 3),
        .play(songID: "s2", playID: 4), .play(songID: "s1", playID: 5),
      ])
  }

  @Test("Keys and mouse events in one read are applied in order")
  func mixedRead() async throws {
    let harness = InputHarness()
    await harness.startPlaying()
    let layout = try #require(harness.layout)
    harness.deliver([
      .right, mouse(.press(button: 0), layout.like.lowerBound, layout.likeRow),
      mouse(.release, layout.like.lowerBound, layout.likeRow), .char(" "),
    ])
    #expect(
      harness.calls.calls == [
        .play(songID: "s2", playID: 2), .setLike(songID: "s2", liked: true), .pause,
      ])
  }

  @Test("A resize draws the page again at once at the new size, and clicks use the new layout")
  func resizeRedrawsAndRelayouts() async throws {
    let harness = InputHarness()
    await harness.startPlaying()
    harness.terminal.size = (120, 40)
    harness.deliver([.resize])
    #expect(harness.terminal.screen.width == 120 && harness.terminal.screen.height == 40)
    #expect(harness.lines[40 - 7].hasPrefix("    Neon Tide"))
    #expect(harness.lines[0].hasSuffix("1 / 3    "))

    harness.terminal.size = (40, 12)
    harness.deliver([.resize])
    #expect(harness.terminal.screen.width == 40 && harness.terminal.screen.height == 12)
    #expect(harness.lines[12 - 7].hasPrefix("  Neon Tide"))
    let small = try #require(harness.layout)
    #expect(harness.lines[small.controlsRow].contains("▶|"))
    harness.click(small.next.lowerBound, small.controlsRow)
    #expect(harness.calls.calls == [.play(songID: "s2", playID: 2)])
  }

  @Test("Too small: the notice shows, clicks do nothing, the wheel still pages; back, the page")
  func tooSmall() async throws {
    let harness = InputHarness()
    await harness.startPlaying()
    let big = try #require(harness.layout)
    harness.terminal.size = (20, 6)
    harness.deliver([.resize])
    #expect(harness.terminal.screen.text.contains("Terminal too small"))
    // Where Next was on the big page: now nothing.
    harness.click(big.next.lowerBound, 3)
    harness.click(5, 5)
    #expect(harness.calls.calls == [])
    harness.deliver([mouse(.wheelDown, 0, 0)])
    #expect(harness.calls.calls == [.play(songID: "s2", playID: 2)])
    #expect(harness.terminal.screen.text.contains("Terminal too small"))

    harness.terminal.size = (80, 24)
    harness.deliver([.resize])
    harness.ticker.fire(PageMotion.slideFrames)
    #expect(harness.lines[24 - 7].hasPrefix("    Paper Lanterns"))
    #expect(!harness.terminal.screen.text.contains("too small"))
  }
}
