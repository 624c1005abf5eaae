import Foundation
import RiffleAPI
import RiffleApp
import RiffleCore
import RiffleTUI
import Testing

@Suite("v: the visualizer through the view model")
@MainActor
struct VisualizerViewModelTests {
  /// A 1 kHz sine at half scale: what the output's tap would give while a tone plays.
  static func tone(_ count: Int) -> [Float] {
    (0..<count).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / 44_100)) }
  }

  final class Tap {
    var enabled: [Bool] = []
    var reads = 0
  }

  static func model(tap: Tap) -> (PlayerViewModel, BufferTerminal, ManualTicker) {
    var state = PlayerState()
    state.songs = [
      Song(
        id: "a", title: "Tone", displayName: "Artist", handle: "artist",
        audioURL: URL(string: "https://example.com/a.mp3")!, duration: 60)
    ]
    state.playID = 1
    state.playback = .playing
    state.duration = 60
    let terminal = BufferTerminal(width: 100, height: 32)
    let ticker = ManualTicker()
    let clients = PlayerClients(
      pages: PageClient { _, _, _ in },
      audio: AudioClient(
        play: { _, _ in }, pause: {}, resume: {}, seek: { _, _ in }, position: { _ in 1 },
        shutdown: {}),
      likes: LikesClient(all: { [:] }, set: { _, _, done in done(nil) }, flush: {}))
    let visualizer = Visualizer(
      samples: { count in
        tap.reads += 1
        return tone(count)
      }, enable: { tap.enabled.append($0) })
    let model = PlayerViewModel(
      clients: clients, terminal: terminal, ticker: ticker, state: state,
      visualizer: visualizer, onQuit: {})
    return (model, terminal, ticker)
  }

  /// Cells above the band drawn as bars (the accent's eighth blocks).
  static func barCells(_ screen: Screen) -> Int {
    var count = 0
    for y in 0..<(screen.height - PageView.bandHeight) {
      for x in 0..<screen.width
      where screen[x, y].style.foreground == Theme.standard.accent
        && "▁▂▃▄▅▆▇█".contains(screen[x, y].text)
      {
        count += 1
      }
    }
    return count
  }

  @Test("hidden: no tap, no reads, no fast timer; v shows bars at 30 frames a second")
  func toggles() {
    let tap = Tap()
    let (model, terminal, ticker) = Self.model(tap: tap)
    model.render()
    #expect(tap.enabled == [] && tap.reads == 0)
    #expect(Self.barCells(terminal.screen) == 0)
    terminal.pendingKeys = [.char("v")]
    model.handleInput()
    #expect(model.state.visualizer)
    #expect(tap.enabled == [true])
    #expect(ticker.pace == .animation)
    #expect(Self.barCells(terminal.screen) > 0)
    ticker.fire()
    #expect(tap.reads >= 2, "a frame per tick")
    terminal.pendingKeys = [.char("v")]
    model.handleInput()
    #expect(tap.enabled == [true, false])
    #expect(Self.barCells(terminal.screen) == 0)
    #expect(ticker.pace != .animation)
  }

  @Test("paused, the visualizer is off and nothing ticks; playing again, it comes back")
  func paused() {
    let tap = Tap()
    let (model, terminal, ticker) = Self.model(tap: tap)
    model.send(.toggleVisualizer)
    #expect(tap.enabled == [true])
    model.send(.togglePlay)
    #expect(model.state.playback == .paused)
    #expect(tap.enabled == [true, false])
    #expect(!ticker.isRunning)
    #expect(Self.barCells(terminal.screen) == 0)
    let reads = tap.reads
    model.render()
    #expect(tap.reads == reads)
    model.send(.togglePlay)
    #expect(tap.enabled == [true, false, true])
    #expect(ticker.pace == .animation)
  }
}
