import Foundation
import RiffleAPI
import RiffleCore
import RiffleTUI

/// The store: holds `PlayerState`, applies actions through `reduce`, runs the effects against
/// the clients, keeps the timer running only while something moves, and draws each new state.
///
/// Everything happens on the main queue; results from other threads come back through `post`.
@MainActor
public final class PlayerViewModel {
  public private(set) var state: PlayerState
  private let clients: PlayerClients
  private let terminal: Terminal
  private let ticker: Ticker
  private let scheduler: Scheduler
  private let artwork: Artwork?
  private let visualizer: Visualizer?
  private let keyMap: KeyMap
  private let view: PageView
  private var pointer = PointerInput()
  /// Animations of the page (slides); view state, not player state.
  public private(set) var motion = PageMotion()
  /// Called once the player has stopped everything and given the terminal back.
  private let onQuit: @MainActor () -> Void
  /// Every action, in order (for tests and the log).
  public var onAction: (@MainActor (PlayerAction) -> Void)?
  /// The start of the next synced lyrics line, with a wake-up asked for then (see
  /// `scheduleLyricsWake`); `generation` tells the latest wake-up from older ones.
  private var lyricsWake: (at: Double, generation: Int)?
  private var lyricsWakeGeneration = 0
  /// What the playing song's next wake-up was worked out from (see `updateTicker`).
  private var progressWake: ProgressWake?
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
    self.clients = clients
    self.terminal = terminal
    self.ticker = ticker
    self.scheduler = scheduler
    self.keyMap = keyMap
    self.view = view
    self.state = state
    self.onQuit = onQuit
    artwork?.onReady = { [weak self] songID in self?.coverReady(songID) }
  }

  /// A cover became ready: the current page's fades in.
  private func coverReady(_ songID: String) {
    guard !state.isQuitting else { return }
    if songID == state.currentSong?.id {
      motion.coverArrived(for: songID)
      updateTicker()
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
    for action in actions {
      // After quit nothing runs again: late engine reports must not restart anything.
      guard !state.isQuitting else { break }
      onAction?(action)
      if action.isUserIntent { motion.finish() }
      let before = state.index
      let effects = reduce(&state, action)
      if !state.songs.isEmpty { motion.pageChanged(from: before, to: state.index) }
      for effect in effects { run(effect) }
      changes.append((effects, state))
    }
    guard !changes.isEmpty else { return }
    updateTicker()
    render()
    scheduleLyricsWake()
    for (effects, state) in changes { onStateChange?(effects, state) }
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
      } else if case .mouse(let event) = key {
        let (width, height) = terminal.size
        let layout = PageLayout.make(width: width, height: height, state: state)
        if let action = pointer.handle(event, layout: layout, state: state) {
          send(action)
        }
      } else if state.overlay == .search {
        // The prompt takes the keys: they edit the line.
        if let action = SearchKeys.action(for: key) { send(action) }
      } else if let bound = keyMap.action(for: key) {
        let (width, height) = terminal.size
        guard let action = LyricsView.resolve(bound, state: state, width: width, height: height)
        else { continue }
        send(action)
        if state.isQuitting { break }
      }
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
    // The neighbours' covers get ready while this one is looked at.
    for index in [state.index + 1, state.index - 1] where state.songs.indices.contains(index) {
      artwork?.prepare(state.songs[index], width: width, height: height)
    }
  }

  /// The spectrum moves: asked for, a visualizer here, and a song playing (paused, it is off).
  private var visualizerShown: Bool {
    visualizer != nil && state.visualizer && state.playback == .playing
  }

  /// Keeps the timer at the slowest pace that shows everything that moves: animations at their
  /// frame rate, spinners at theirs, and a playing song only when its clock or progress bar is
  /// about to change (about once a second), so playback costs few wake-ups and redraws.
  private func updateTicker() {
    guard !state.isQuitting, state.needsTimer || motion.isAnimating || visualizerShown else {
      progressWake = nil
      ticker.stop()
      return
    }
    let pace: TickerPace
    if state.isAnimating || motion.isAnimating || visualizerShown {
      pace = .animation
      progressWake = nil
    } else if state.needsSpinner {
      pace = .spinner
      progressWake = nil
    } else {
      // Set again only when what it was worked out from changed (each tick clears it), so
      // actions between ticks leave the wake-up where it is.
      let (width, height) = terminal.size
      let wake = ProgressWake(
        playID: state.playID, position: state.position, duration: state.duration, width: width,
        height: height)
      if wake == progressWake, case .once = ticker.pace { return }
      progressWake = wake
      let cells = PageLayout.make(width: width, height: height, state: state)?.progressBar.count
      let wait = ProgressPacing.secondsUntilChange(
        position: state.position, duration: state.duration, barCells: cells ?? 0)
      pace = .once(after: max(ProgressPacing.shortestWait, wait + ProgressPacing.margin))
    }
    ticker.start(pace) { [weak self] in self?.tick() }
  }

  private func tick() {
    // Whatever this tick finds, the next wake-up is worked out again.
    progressWake = nil
    var actions: [PlayerAction] = []
    if let position = clients.audio.position(state.playID), state.playback == .playing {
      actions.append(.playbackProgress(playID: state.playID, position: position, duration: nil))
    }
    motion.advance()
    send(actions + [.tick])
  }

  /// Reads how far the playing song is from the engine.
  private func refreshPosition() {
    if let position = clients.audio.position(state.playID), state.playback == .playing {
      send(.playbackProgress(playID: state.playID, position: position, duration: nil))
    }
  }

  /// While synced lyrics are shown and the song plays, asks to be woken when the next line
  /// starts, so the highlight moves on time whatever the ticker's rate, without a fast timer.
  /// A seek or a pause changes what is due; an older wake-up then does nothing.
  private func scheduleLyricsWake() {
    guard !state.isQuitting, state.overlay == .lyrics, state.playback == .playing,
      let panel = state.lyrics, panel.songID == state.currentSong?.id,
      case .loaded(.synced(let lyrics)) = panel.phase,
      let next = lyrics.nextChange(after: state.position)
    else {
      lyricsWake = nil
      return
    }
    guard lyricsWake?.at != next else { return }
    lyricsWakeGeneration += 1
    let generation = lyricsWakeGeneration
    lyricsWake = (next, generation)
    // A little after the line's time, so the position read then has passed it.
    scheduler.after(max(0, next - state.position) + 0.01) { [weak self] in
      guard let self, self.lyricsWake?.generation == generation else { return }
      self.lyricsWake = nil
      self.refreshPosition()
      self.scheduleLyricsWake()
    }
  }

  private func run(_ effect: PlayerEffect) {
    switch effect {
    case .loadFeed(let url):
      let likes = clients.likes
      clients.loadFeed(url) { [weak self] result in
        switch result {
        case .success(let page):
          for note in page.skipped { FileHandle.standardError.write(Data("feed: \(note)\n".utf8)) }
          let songs = page.songs.applyingLocalLikes(likes.all())
          self?.post(.feedLoaded(songs, skipped: page.skipped.count, paging: page.paging))
        case .failure(let error):
          self?.post(
            .feedFailed(
              error.userMessage, retry: error.isTransient, retryAfter: error.retryAfter))
        }
      }
    case .loadFeedPage(let url, let page, let pageSize):
      let likes = clients.likes
      clients.loadFeed(FeedSource.pageURL(url, page: page, pageSize: pageSize)) {
        [weak self] result in
        switch result {
        case .success(let loaded):
          let songs = loaded.songs.applyingLocalLikes(likes.all())
          let paging = loaded.paging ?? FeedPaging(page: page, pageSize: pageSize)
          self?.post(.feedPageLoaded(songs, paging: paging))
        case .failure(let error):
          self?.post(.feedPageFailed(error.userMessage))
        }
      }
    case .runQuery(let query, let offset, let limit):
      let likes = clients.likes
      clients.queries.run(query, offset, limit) { [weak self] result in
        switch (result, offset) {
        case (.success(let answer), 0):
          self?.post(
            .queryLoaded(
              query, answer.songs.applyingLocalLikes(likes.all()), hidden: answer.hidden,
              skipped: answer.skipped, received: answer.received))
        case (.success(let answer), _):
          self?.post(
            .queryPageLoaded(
              query, offset: offset, answer.songs.applyingLocalLikes(likes.all()),
              received: answer.received))
        case (.failure(let error), 0):
          self?.post(
            .queryFailed(
              query, error.userMessage, retry: error.isTransient, retryAfter: error.retryAfter))
        case (.failure(let error), _):
          self?.post(
            .queryPageFailed(
              query, error.userMessage, retry: error.isTransient, retryAfter: error.retryAfter))
        }
      }
    case .scheduleQueryRetry(let delay, let attempt):
      scheduler.after(delay) { [weak self] in self?.send(.retryQuery(attempt: attempt)) }
    case .scheduleQueryPageRetry(let delay, let attempt):
      scheduler.after(delay) { [weak self] in self?.send(.retryQueryPage(attempt: attempt)) }
    case .saveSearchHistory(let terms):
      clients.saveSearchHistory(terms)
    case .scheduleFeedRetry(let delay, let attempt):
      scheduler.after(delay) { [weak self] in self?.send(.retryFeed(attempt: attempt)) }
    case .loadLyrics(let song):
      var song = song
      // The decoder's length is better than none for matching a recording.
      if song.duration == nil, song.id == state.currentSong?.id { song.duration = state.duration }
      let id = song.id
      clients.lyrics.load(song) { [weak self] result in
        switch result {
        case .success(let lyrics):
          self?.post(.lyricsLoaded(songID: id, lyrics))
        case .failure(let error):
          self?.post(
            .lyricsFailed(
              songID: id, error.userMessage, retry: error.isTransient,
              retryAfter: error.retryAfter))
        }
      }
    case .scheduleLyricsRetry(let delay, let songID, let attempt):
      scheduler.after(delay) { [weak self] in
        self?.send(.retryLyrics(songID: songID, attempt: attempt))
      }
    case .seek(let position, let playID):
      clients.audio.seek(position, playID)
    case .play(let song, let playID):
      clients.audio.play(song, playID)
    case .pause:
      clients.audio.pause()
    case .resume:
      clients.audio.resume()
    case .persistLike(let id, let liked):
      clients.likes.set(id, liked) { [weak self] error in
        if let error { self?.post(.likeSaveFailed(songID: id, liked: liked, error)) }
      }
      // The likes server knows the feed's songs; search results are liked on this machine only.
      if state.query == nil {
        clients.likes.sync(id, liked) { [weak self] refused, reason in
          self?.post(.likeRejected(songID: id, liked: refused, reason))
        }
      }
    case .storeLikeLocally(let id, let liked):
      clients.likes.set(id, liked) { error in
        if let error { FileHandle.standardError.write(Data("likes: \(error)\n".utf8)) }
      }
    case .listen(let seconds, let feedURL, let songs):
      clients.identify.start(seconds, feedURL, songs) { [weak self] event in
        self?.post(event.action)
      }
    case .stopListening:
      clients.identify.stop()
    case .quit:
      visualizer?.run(false)
      clients.identify.stop()
      ticker.stop()
      clients.audio.shutdown()
      clients.likes.flush()
      terminal.restore()
      onQuit()
    }
  }
}

/// What decides when a playing song's progress row next changes.
private struct ProgressWake: Equatable {
  var playID: Int
  var position: Double
  var duration: Double?
  var width: Int
  var height: Int
}
