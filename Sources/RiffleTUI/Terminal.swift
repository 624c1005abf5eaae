/// A key or event the terminal delivers.
public enum Key: Hashable, Sendable {
  case char(Character)
  case left, right, up, down
  case shiftLeft, shiftRight
  case home, end, pageUp, pageDown
  case enter, escape, backspace, tab
  case resize
  case mouse(MouseEvent)
  /// The start of a mouse report ("ESC [ <" or "ESC [ M") that ncurses matched as KEY_MOUSE
  /// itself; `EscapeDecoder` reads the rest of the report from the keys after it.
  case mousePrefix
  case function(Int)
  case unknown(Int)
}

/// Where screens are shown and keys come from: ncurses for real, a buffer for tests.
public protocol Terminal: AnyObject {
  /// Columns and rows as the terminal reports them now.
  var size: (width: Int, height: Int) { get }
  /// Shows a screen, sending only what changed since the last one.
  func flush(_ screen: Screen)
  /// Every key waiting now; never blocks.
  func readKeys() -> [Key]
  /// Takes a new size into account (after SIGWINCH) and forgets what is on screen.
  func resized()
  /// Gives the terminal back as it was.
  func restore()
  /// Colours the terminal can show (8, 16, 256, or 2^24 for direct colour).
  var colorCount: Int { get }
}

/// An in-memory terminal: keeps the last screen shown and a queue of keys to deliver.
public final class BufferTerminal: Terminal {
  public var size: (width: Int, height: Int)
  public private(set) var screen: Screen
  public private(set) var flushCount = 0
  /// Cells sent to the "terminal" by the last flush (changed cells only).
  public private(set) var lastChangedCells = 0
  public var pendingKeys: [Key] = []
  public private(set) var restored = false
  public var colorCount = 256

  public init(width: Int = 80, height: Int = 24) {
    size = (width, height)
    screen = Screen(width: width, height: height)
  }

  public func flush(_ screen: Screen) {
    if screen.width == self.screen.width && screen.height == self.screen.height {
      lastChangedCells = zip(screen.cells, self.screen.cells).filter { $0 != $1 }.count
    } else {
      lastChangedCells = screen.cells.count
    }
    self.screen = screen
    flushCount += 1
  }

  public func readKeys() -> [Key] {
    defer { pendingKeys.removeAll() }
    return pendingKeys
  }

  public func resized() {
    screen = Screen(width: size.width, height: size.height)
  }

  public func restore() { restored = true }
}
