import RiffleCore

/// Which action each key asks for.
public struct KeyMap: Sendable {
  public var bindings: [Key: PlayerAction]

  public init(bindings: [Key: PlayerAction]) {
    self.bindings = bindings
  }

  /// Left/Right page, space plays and pauses, `l` likes, `/` searches, `a` shows the artist's
  /// top songs, `y` shows lyrics, `i` names a song heard nearby, `v` the visualizer, `?` help,
  /// `q` quits.
  public static let standard = KeyMap(bindings: [
    .left: .previous, .right: .next,
    .char(" "): .togglePlay, .char("l"): .toggleLike, .char("L"): .toggleLike,
    .char("?"): .toggleHelp, .char("q"): .quit, .char("Q"): .quit,
    .char("["): .seek(by: -10), .char("]"): .seek(by: 10),
    .shiftLeft: .seek(by: -10), .shiftRight: .seek(by: 10), .char("r"): .retry,
    .home: .seekTo(0), .char("/"): .openSearch, .char("a"): .showArtist,
    .char("y"): .toggleLyrics, .char("i"): .identify, .char("v"): .toggleVisualizer,
    // These scroll plain lyrics while they are shown, and do nothing otherwise.
    .up: .scrollLyrics(-1), .down: .scrollLyrics(1), .pageUp: .pageLyrics(-1),
    .pageDown: .pageLyrics(1),
  ])

  public func action(for key: Key) -> PlayerAction? {
    bindings[key]
  }
}

extension KeyMap {
  /// The names of the keys bound to an action, the plainest first ("l", then "Shift+Left").
  public func names(for action: PlayerAction) -> [String] {
    bindings.filter { $0.value == action }.map(\.key).sorted { a, b in
      (a.sortRank, a.displayName) < (b.sortRank, b.displayName)
    }.map(\.displayName)
  }
}

extension Key {
  /// How the key is written in help and in config.toml.
  public var displayName: String {
    switch self {
    case .char(" "): return "space"
    case .char(let c): return String(c)
    case .left: return "←"
    case .right: return "→"
    case .up: return "↑"
    case .down: return "↓"
    case .shiftLeft: return "Shift+←"
    case .shiftRight: return "Shift+→"
    case .home: return "Home"
    case .end: return "End"
    case .pageUp: return "PgUp"
    case .pageDown: return "PgDn"
    case .enter: return "Enter"
    case .escape: return "Esc"
    case .backspace: return "Backspace"
    case .tab: return "Tab"
    case .resize: return "resize"
    case .mouse, .mousePrefix: return "mouse"
    case .function(let n): return "F\(n)"
    case .unknown(let code): return "key \(code)"
    }
  }

  /// Arrows and plain characters come before modified and named keys in listings.
  fileprivate var sortRank: Int {
    switch self {
    case .left, .right, .up, .down: return 0
    case .char(let c) where c.isLowercase || c.isPunctuation || c == " ": return 1
    case .char: return 2
    default: return 3
    }
  }
}
