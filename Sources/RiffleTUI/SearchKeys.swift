import RiffleCore

/// What keys do while the search prompt is open: they edit the line, as in a shell.
public enum SearchKeys {
  public static func action(for key: Key) -> PlayerAction? {
    switch key {
    case .enter: return .submitSearch
    case .escape: return .cancelSearch
    case .tab: return .switchSearchTarget
    case .backspace: return .editSearch(.backspace)
    case .left: return .editSearch(.left)
    case .right: return .editSearch(.right)
    case .home: return .editSearch(.home)
    case .end: return .editSearch(.end)
    case .up: return .editSearch(.older)
    case .down: return .editSearch(.newer)
    case .char(let c): return character(c)
    default: return nil
    }
  }

  private static func character(_ c: Character) -> PlayerAction? {
    switch c {
    case "\u{01}": return .editSearch(.home)  // Ctrl+A
    case "\u{02}": return .editSearch(.left)  // Ctrl+B
    case "\u{04}": return .editSearch(.deleteForward)  // Ctrl+D
    case "\u{05}": return .editSearch(.end)  // Ctrl+E
    case "\u{06}": return .editSearch(.right)  // Ctrl+F
    case "\u{15}": return .editSearch(.clear)  // Ctrl+U
    case "\u{17}": return .editSearch(.deleteWordBackward)  // Ctrl+W
    case "\u{03}", "\u{07}": return .cancelSearch  // Ctrl+C, Ctrl+G
    default:
      // Other control characters type nothing.
      guard let scalar = c.unicodeScalars.first, scalar.value >= 0x20, scalar.value != 0x7F else {
        return nil
      }
      return .editSearch(.insert(String(c)))
    }
  }
}
