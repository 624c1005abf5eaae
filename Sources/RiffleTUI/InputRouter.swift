import RiffleCore

/// Turns what the terminal reads into what the player should do, from the key and the state
/// alone: the search prompt takes every key while it is open, the mouse acts on the page's
/// layout, and other keys go through the key map. Testable without a terminal.
public struct InputRouter: Sendable {
  public var keyMap: KeyMap
  /// A drag in progress (the mouse's only memory between events).
  private var pointer = PointerInput()

  public init(keyMap: KeyMap = .standard) {
    self.keyMap = keyMap
  }

  /// The action a key asks for on a screen of this size, if any. Resizes are not routed: the
  /// terminal handles them.
  public mutating func action(for key: Key, state: PlayerState, width: Int, height: Int)
    -> PlayerAction?
  {
    switch key {
    case .resize:
      return nil
    case .mouse(let event):
      let layout = PageLayout.make(width: width, height: height, state: state)
      return pointer.handle(event, layout: layout, state: state)
    default:
      if state.overlay == .search { return SearchKeys.action(for: key) }
      if state.overlay == .artistChoice, let action = Self.artistChoiceAction(for: key) {
        return action
      }
      // Enter on a server's album page opens the album (as b and Space do), unless rebound.
      if key == .enter, keyMap.action(for: key) == nil, state.currentSong?.isAlbumPage == true {
        return .showAlbum
      }
      guard let bound = keyMap.action(for: key) else { return nil }
      // Lyrics keys become exact scrolls for the screen's size, or nothing when not shown.
      return LyricsView.resolve(bound, state: state, width: width, height: height)
    }
  }

  /// The keys of the artist choice list; the rest (paging, quitting) act as always.
  static func artistChoiceAction(for key: Key) -> PlayerAction? {
    switch key {
    case .up, .char("k"): return .moveArtistChoice(-1)
    case .down, .char("j"): return .moveArtistChoice(1)
    case .pageUp: return .moveArtistChoice(-5)
    case .pageDown: return .moveArtistChoice(5)
    case .home: return .moveArtistChoice(-1000)
    case .end: return .moveArtistChoice(1000)
    case .enter: return .confirmArtistChoice
    case .escape: return .cancelSearch
    default: return nil
    }
  }
}
