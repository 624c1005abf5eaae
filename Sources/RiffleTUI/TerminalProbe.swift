import CNCurses
import Foundation

/// What the terminfo database says about a terminal type, without taking the screen
/// (`riffle doctor`).
public enum TerminalProbe {
  public struct Description: Equatable, Sendable {
    /// Colours the entry offers (`colors`); -1 or 0 when it offers none.
    public var colors: Int
    /// Whether the entry can move the cursor (`cup`): without it no full-screen program works.
    public var canAddress: Bool
  }

  /// The terminfo entry for `term`, nil when there is none.
  public static func describe(term: String) -> Description? {
    var status: Int32 = 0
    // A quiet lookup: with a status pointer, setupterm reports instead of printing and exiting.
    guard setupterm(term, -1, &status) == OK, status == 1 else { return nil }
    let description = Description(
      colors: Int(tigetnum("colors")),
      canAddress: tigetstr("cup").map { Int(bitPattern: $0) > 0 }
        ?? false)
    del_curterm(set_curterm(nil))
    return description
  }
}
