import RiffleCore

/// Which action each key asks for.
public struct KeyMap: Sendable {
  public var bindings: [Key: PlayerAction]

  public init(bindings: [Key: PlayerAction]) {
    self.bindings = bindings
  }

  /// Left/Right page, space plays and pauses, `l` likes, `?` help, `q` quits.
  public static let standard = KeyMap(bindings: [
    .left: .previous, .right: .next,
    .char(" "): .togglePlay, .char("l"): .toggleLike, .char("L"): .toggleLike,
    .char("?"): .toggleHelp, .char("q"): .quit, .char("Q"): .quit,
    .char("["): .seek(by: -10), .char("]"): .seek(by: 10),
    .shiftLeft: .seek(by: -10), .shiftRight: .seek(by: 10), .char("r"): .retry,
  ])

  public func action(for key: Key) -> PlayerAction? {
    bindings[key]
  }
}
