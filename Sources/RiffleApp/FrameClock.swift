import Foundation
import RiffleCore
import RiffleTUI

/// When the screen must next be drawn for what moves on it, from the state alone: animations
/// at their frame rate, spinners at theirs, and a playing song only when its clock, its
/// progress bar or its synced lyrics line is about to change. Nil: nothing moves.
public enum FramePacing {
  public static func pace(
    for state: PlayerState, animating: Bool, width: Int, height: Int
  ) -> TickerPace? {
    guard !state.isQuitting, state.needsTimer || animating else { return nil }
    if state.isAnimating || animating { return .animation }
    if state.needsSpinner { return .spinner }
    let cells = PageLayout.make(width: width, height: height, state: state)?.progressBar.count
    var wait =
      ProgressPacing.secondsUntilChange(
        position: state.position, duration: state.duration, barCells: cells ?? 0)
      + ProgressPacing.margin
    if let line = nextLyricsLine(state) {
      // A little after the line's time, so the position read then has passed it.
      wait = min(wait, line - state.position + 0.01)
    }
    return .once(after: max(ProgressPacing.shortestWait, wait))
  }

  /// When the next synced lyrics line starts, while they are shown and the song plays.
  static func nextLyricsLine(_ state: PlayerState) -> Double? {
    guard state.overlay == .lyrics, state.playback == .playing, let panel = state.lyrics,
      panel.songID == state.currentSong?.id, case .loaded(.synced(let lyrics)) = panel.phase
    else { return nil }
    return lyrics.nextChange(after: state.position)
  }
}

/// Keeps the ticker at the pace `FramePacing` asks for; the one wake-up mechanism of the
/// player. A one-off wake-up is worked out again only when what it depends on changed, so
/// actions between ticks (a key, a download's progress) leave it where it is.
@MainActor
final class FrameClock {
  private let ticker: Ticker
  /// What the pending one-off wake-up was worked out from; cleared by each tick.
  private var planned: Planned?

  init(ticker: Ticker) {
    self.ticker = ticker
  }

  func update(
    _ state: PlayerState, animating: Bool, width: Int, height: Int,
    onTick: @escaping @MainActor () -> Void
  ) {
    guard
      let pace = FramePacing.pace(for: state, animating: animating, width: width, height: height)
    else {
      stop()
      return
    }
    if case .once = pace {
      let plan = Planned(
        playID: state.playID, position: state.position, duration: state.duration,
        lyricsLine: FramePacing.nextLyricsLine(state), width: width, height: height)
      if plan == planned, case .once = ticker.pace { return }
      planned = plan
    } else {
      planned = nil
    }
    ticker.start(pace, onTick)
  }

  /// A tick came: whatever it finds, the next wake-up is worked out again.
  func ticked() {
    planned = nil
  }

  func stop() {
    planned = nil
    ticker.stop()
  }

  private struct Planned: Equatable {
    var playID: Int
    var position: Double
    var duration: Double?
    var lyricsLine: Double?
    var width: Int
    var height: Int
  }
}
