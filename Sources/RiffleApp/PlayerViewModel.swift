import Foundation
import RiffleAPI
import RiffleCore
import RiffleTUI

/// The store: holds `PlayerState`, applies actions through `reduce`, hands the effects to the
/// `EffectRunner`, keeps the `FrameClock` in step and draws each new state. Keys become
/// actions in `InputRouter`; the rules are all the reducer's.
///
/// Everything happens on the main queue; results from other threads come back through `post`.
@MainActor
public final class PlayerViewModel {
  public private(set) var state: PlayerState
  private let clients: PlayerClients
  private let scheduler: Scheduler
  /// Built on first use, so its closures can reach this model.
  private lazy var effects = EffectRunner(
    clients: clients, scheduler: scheduler, post: { [weak self] in self?.post($0) },
    send: { [weak self] in self?.send($0) }, answer: { [weak self] in self?.answers.append($0) })
  /// Actions effects answered at once (the library's search as you type), applied within the
  /// same `send`, so the frame drawn after a key already shows its answer.
  private var answers: [PlayerAction] = []
  private let terminal: Terminal
  private let clock: FrameClock
  private let artwork: Artwork?
  private let visualizer: Visualizer?
  private var input: InputRouter
  private let view: PageView
  /// Animations of the page (slides); view state, not player state.
  public private(set) var motion = PageMotion()
  /// Called once the player has stopped everything and given the terminal back.
  private let onQuit: @MainActor () -> Void
  /// Every action, in order (for tests and the log).
  public var onAction: (@MainActor (PlayerAction) -> Void)?
  /// Told after each action is applied: the effects it asked for and the new state (the desktop
  /// integration, MPRIS and notifications, follows the player through this).
  public var onStateChange: (@MainActor ([PlayerEffect], PlayerState) -> Void)?

  public init(
    clients: PlayerClients, terminal: Terminal, ticker: Ticker,
    scheduler: Scheduler = DispatchScheduler(), keyMap: KeyMap = .standard,
    view: PageView = PageView(), state: PlayerState = PlayerState(), artwork: Artwork? = nil,
    visualizer: Visualizer? = nil, onQuit: @escaping @MainActor () -> Void
  ) {
    self.artwork = artwork
    self.visualizer = visualizer
    self.terminal = terminal
    self.clock = FrameClock(ticker: ticker)
    self.input = InputRouter(keyMap: keyMap)
    self.view = view
    self.state = state
    self.onQuit = onQuit
    self.clients = clients
    self.scheduler = scheduler
    artwork?.onReady = { [weak self] songID in self?.coverReady(songID) }
  }

  /// A cover became ready: the current page's fades in.
  private func coverReady(_ songID: String) {
    guard !state.isQuitting else { return }
    if songID == state.currentSong?.id {
      motion.coverArrived(for: songID)
      updateClock()
    }
    render()
  }

  /// Applies an action: new state, effects run, timer adjusted, screen redrawn.
  public func send(_ action: PlayerAction) {
    send([action])
  }

  /// Applies actions in order, then adjusts the timer and draws once (a tick's position and
  /// frame are one redraw, not two).
  private func send(_ actions: [PlayerAction]) {
    var changes: [([PlayerEffect], PlayerState)] = []
    var actions = actions[...]
    while let action = actions.popFirst() {
      // After quit nothing runs again: late engine reports must not restart anything.
      guard !state.isQuitting else { break }
      onAction?(action)
      if action.isUserIntent { motion.finish() }
      let before = state.index
      let asked = reduce(&state, action)
      if !state.songs.isEmpty { motion.pageChanged(from: before, to: state.index) }
      for effect in asked { effects.run(effect) }
      effects.prepareNext(state.followingSong)
      changes.append((asked, state))
      actions.append(contentsOf: answers)
      answers = []
    }
    guard !changes.isEmpty else { return }
    if state.isQuitting {
      visualizer?.run(false)
      clock.stop()
      terminal.restore()
      onQuit()
    } else {
      updateClock()
      keepHeardWhileStationPlays()
      render()
    }
    for (asked, state) in changes { onStateChange?(asked, state) }
  }

  /// Sends an action from any thread: it is applied on the main queue, in order.
  public nonisolated func post(_ action: PlayerAction) {
    DispatchQueue.main.async {
      MainActor.assumeIsolated { self.send(action) }
    }
  }

  /// Reads every waiting key and sends what it asks for. Returns how many keys there were.
  @discardableResult
  public func handleInput() -> Int {
    let keys = terminal.readKeys()
    for key in keys {
      if key == .resize {
        handleResize()
        continue
      }
      let (width, height) = terminal.size
      guard let action = input.action(for: key, state: state, width: width, height: height)
      else { continue }
      send(action)
      if state.isQuitting { break }
    }
    return keys.count
  }

  /// The terminal changed size: forget what is shown and draw everything again.
  public func handleResize() {
    terminal.resized()
    render()
  }

  public func render() {
    guard !state.isQuitting else { return }
    let (width, height) = terminal.size
    let artwork = self.artwork
    visualizer?.run(visualizerShown)
    let spectrum = visualizerShown ? visualizer?.frame(count: PageView.spectrumBands(width)) : nil
    terminal.flush(
      view.render(state, motion: motion, width: width, height: height, spectrum: spectrum) {
        song in artwork?.cells(for: song, width: width, height: height)
      })
    // For the benchmark: a key's frame is the first after its `input` mark.
    Trace.mark("frame")
    // The neighbours' covers get ready while this one is looked at.
    for index in [state.index + 1, state.index - 1] where state.songs.indices.contains(index) {
      artwork?.prepare(state.songs[index], width: width, height: height)
    }
  }

  /// Whether the output keeps its last seconds for a station's `i`.
  private var keepingHeard = false

  /// The output keeps what it plays only while a station plays (`i` names it from there), so
  /// nothing is kept, and nothing costs, otherwise.
  private func keepHeardWhileStationPlays() {
    let wanted = state.playback == .playing && state.currentSong?.isLiveStream == true
    guard wanted != keepingHeard else { return }
    keepingHeard = wanted
    clients.keepHeard(wanted)
  }

  /// The spectrum moves: asked for, a visualizer here, and a song playing (paused, it is off).
  private var visualizerShown: Bool {
    visualizer != nil && state.visualizer && state.playback == .playing
  }

  private func updateClock() {
    let (width, height) = terminal.size
    // The spectrum moves at the animations' rate while it is shown.
    let animating = motion.isAnimating || visualizerShown
    clock.update(state, animating: animating, width: width, height: height) {
      [weak self] in self?.tick()
    }
  }

  private func tick() {
    clock.ticked()
    var actions: [PlayerAction] = []
    if state.playback == .playing, let position = effects.position(of: state.playID) {
      actions.append(.playbackProgress(playID: state.playID, position: position, duration: nil))
    }
    motion.advance()
    send(actions + [.tick])
  }
}
