import Foundation
import RiffleAPI
import RiffleApp
import RiffleCore
import RiffleTUI
import Testing

/// What the fake audio and identify clients were asked, from any thread.
private final class IdentifyLog: @unchecked Sendable {
  enum Call: Equatable {
    case play(String, Int)
    case seek(Double, Int)
    case start(Double, URL?, [String])
    case stop
  }
  private let lock = NSLock()
  private var _calls: [Call] = []
  private var _events: (@Sendable (ListenEvent) -> Void)?

  var calls: [Call] { lock.withLock { _calls } }
  func record(_ call: Call) { lock.withLock { _calls.append(call) } }
  func keep(_ events: @escaping @Sendable (ListenEvent) -> Void) {
    lock.withLock { _events = events }
  }
  /// Reports as the listener would, from its own thread.
  func report(_ event: ListenEvent) {
    let events = lock.withLock { _events }
    Thread { events?(event) }.start()
  }

  var clients: PlayerClients {
    PlayerClients(
      // These tests never load a page; a request would stay unanswered.
      pages: PageClient { _, _, _ in },
      audio: AudioClient(
        play: { song, id in self.record(.play(song.id, id)) }, pause: {}, resume: {},
        seek: { seconds, id in self.record(.seek(seconds, id)) }, position: { _ in nil },
        shutdown: {}),
      likes: LikesClient(all: { [:] }, set: { _, _, done in done(nil) }, flush: {}),
      identify: IdentifyClient(
        start: { seconds, feed, songs, _, events in
          self.record(.start(seconds, feed, songs.map(\.id)))
          self.keep(events)
        },
        stop: { self.record(.stop) }))
  }
}

@MainActor
private func waitUntil(_ what: String, _ condition: @MainActor () -> Bool) async {
  let deadline = ContinuousClock.now + .seconds(5)
  while !condition(), ContinuousClock.now < deadline {
    try? await Task.sleep(for: .milliseconds(1))
  }
  #expect(condition(), "timed out waiting until \(what)")
}

@Suite("i through the view model")
@MainActor
struct IdentifyViewModelTests {
  static let feed = URL(string: "https://example.com/feed.json")!
  static let songs = ["a", "b", "c"].map {
    Song(
      id: $0, title: "Song \($0)", displayName: "Artist", handle: "artist",
      audioURL: URL(string: "https://example.com/\($0).mp3")!, duration: 60)
  }

  fileprivate func playing() -> (IdentifyLog, PlayerViewModel, BufferTerminal) {
    let log = IdentifyLog()
    var state = PlayerState()
    state.source = PageSource(kind: .feed(Self.feed))
    state.songs = Self.songs
    state.playID = 1
    state.playback = .playing
    let terminal = BufferTerminal(width: 80, height: 24)
    let model = PlayerViewModel(
      clients: log.clients, terminal: terminal, ticker: ManualTicker(), state: state,
      onQuit: {})
    return (log, model, terminal)
  }

  @Test("i starts the listener; its level and its match come back as actions and play the song")
  func listenAndMatch() async {
    let (log, model, terminal) = playing()
    terminal.pendingKeys = [.char("i")]
    model.handleInput()
    #expect(log.calls == [.start(10, Self.feed, ["a", "b", "c"])])
    #expect(terminal.screen.text.contains("Listening"))

    log.report(.level(0.5, seconds: 2))
    await waitUntil("the level arrives") {
      model.state.identify == .listening(level: 0.5, seconds: 2)
    }
    log.report(.identified(songID: "c", offset: 20, listened: 4))
    await waitUntil("the match arrives") { model.state.identify == nil }
    #expect(model.state.index == 2)
    #expect(log.calls.suffix(2) == [.play("c", 2), .seek(24, 2)])
    #expect(model.state.message?.text == "Heard \u{201C}Song c\u{201D} by Artist at 0:20")
    #expect(!terminal.screen.text.contains("Listening"))
  }

  @Test("i again stops the listener, and quitting stops it too")
  func stopAndQuit() {
    let (log, model, terminal) = playing()
    terminal.pendingKeys = [.char("i"), .char("i")]
    model.handleInput()
    #expect(log.calls == [.start(10, Self.feed, ["a", "b", "c"]), .stop])
    #expect(model.state.message?.text == "Stopped listening")
    terminal.pendingKeys = [.char("i"), .char("q")]
    model.handleInput()
    #expect(log.calls.suffix(2) == [.start(10, Self.feed, ["a", "b", "c"]), .stop])
  }
}
