import RiffleCore

/// A mouse event as the terminal reports it (SGR 1006 encoding), in 0-based cells.
public struct MouseEvent: Hashable, Sendable {
  public enum Kind: Hashable, Sendable {
    case press(button: Int)
    case release
    /// Moved with a button held.
    case drag
    case wheelUp
    case wheelDown
  }

  public var kind: Kind
  public var x: Int
  public var y: Int

  public init(_ kind: Kind, x: Int, y: Int) {
    self.kind = kind
    self.x = x
    self.y = y
  }

  /// Parses the body of an SGR mouse report, "<b;x;y" followed by "M" (press) or "m" (release).
  public static func parseSGR(_ body: String, final: Character) -> MouseEvent? {
    guard body.hasPrefix("<") else { return nil }
    let parts = body.dropFirst().split(separator: ";").compactMap { Int($0) }
    guard parts.count == 3, parts[1] >= 1, parts[2] >= 1 else { return nil }
    let code = parts[0]
    let x = parts[1] - 1
    let y = parts[2] - 1
    if code & 64 != 0 {
      // 64 and 65 turn the wheel; 66 and 67 tilt it sideways, which pages nothing.
      switch code & 3 {
      case 0: return MouseEvent(.wheelUp, x: x, y: y)
      case 1: return MouseEvent(.wheelDown, x: x, y: y)
      default: return nil
      }
    }
    if final == "m" { return MouseEvent(.release, x: x, y: y) }
    if code & 32 != 0 { return MouseEvent(.drag, x: x, y: y) }
    // Bit 128: buttons 8 to 11 (a mouse's back and forward thumb buttons), never a left click.
    let button = (code & 128 != 0 ? 8 : 0) + (code & 3)
    return MouseEvent(.press(button: button), x: x, y: y)
  }
}

/// Turns mouse events into player actions: clicks on the buttons and the heart, clicks and
/// drags on the progress bar (seek), horizontal drags across the page (swipe), the wheel (page).
public struct PointerInput: Sendable {
  private var pressAt: (x: Int, y: Int)?
  private var draggingBar = false
  /// Columns a drag must cover to count as a swipe.
  public static let swipeDistance = 6

  public init() {}

  public mutating func handle(_ event: MouseEvent, layout: PageLayout?, state: PlayerState)
    -> PlayerAction?
  {
    if state.overlay != nil {
      // The help covers the page: a click closes it, nothing reaches the buttons beneath.
      pressAt = nil
      draggingBar = false
      if case .release = event.kind { return .toggleHelp }
      return nil
    }
    switch event.kind {
    case .wheelUp: return .previous
    case .wheelDown: return .next
    case .press(let button):
      guard button == 0, let layout else { return nil }
      pressAt = (event.x, event.y)
      if event.y == layout.progressRow, layout.progressBar.contains(event.x) {
        draggingBar = true
        return seek(layout: layout, x: event.x, state: state)
      }
      return nil
    case .drag:
      guard let layout, draggingBar else { return nil }
      return seek(layout: layout, x: event.x, state: state)
    case .release:
      defer {
        pressAt = nil
        draggingBar = false
      }
      guard let layout, let start = pressAt, !draggingBar else { return nil }
      let dx = event.x - start.x
      if abs(dx) >= Self.swipeDistance && abs(dx) > abs(event.y - start.y) {
        // Dragging the page left brings the next song in from the right.
        return dx < 0 ? .next : .previous
      }
      guard abs(dx) <= 1, event.y == start.y else { return nil }
      return click(x: event.x, y: event.y, layout: layout)
    }
  }

  private func click(x: Int, y: Int, layout: PageLayout) -> PlayerAction? {
    if y == layout.controlsRow {
      if layout.previous.contains(x) { return .previous }
      if layout.playPause.contains(x) { return .togglePlay }
      if layout.next.contains(x) { return .next }
    }
    if y == layout.likeRow, layout.like.contains(x) { return .toggleLike }
    return nil
  }

  private func seek(layout: PageLayout, x: Int, state: PlayerState) -> PlayerAction? {
    guard let duration = state.duration, let fraction = layout.progressFraction(atColumn: x) else {
      return nil
    }
    return .seekTo(fraction * duration)
  }
}
