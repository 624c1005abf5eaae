import Foundation

/// When a playing song's progress row next changes: the elapsed clock turns every whole second,
/// and the bar's knob moves a cell every `duration / (cells - 1)` seconds (as `PageView` draws
/// it). The player's timer wakes then, not on a fixed beat.
public enum ProgressPacing {
  /// Added to each wait so the position read on waking is past the change.
  public static let margin = 0.005
  /// No wake-up comes sooner than this, whatever the arithmetic says.
  public static let shortestWait = 0.02
  /// Changes this close together are shown in one redraw.
  public static let together = 0.15

  /// Seconds from `position` to the next change of the clock or of the bar (`barCells` wide;
  /// 0 or too narrow for a bar: the clock alone).
  public static func secondsUntilChange(position: Double, duration: Double?, barCells: Int)
    -> Double
  {
    let position = position.isFinite ? max(0, position) : 0
    var wait = position.rounded(.down) + 1 - position
    if let duration, duration > 0, barCells > 2, position < duration {
      let steps = Double(barCells - 1)
      let filled = (steps * position / duration).rounded(.down)
      let next = (filled + 1) * duration / steps
      if next > position {
        let knob = next - position
        // A knob move just after the clock's turn (or the other way round) is drawn with it:
        // one wake-up, the earlier change shown at most `together` late.
        wait = abs(knob - wait) <= together ? max(wait, knob) : min(wait, knob)
      }
    }
    return wait
  }
}
