/// Rebuilds keys that ncurses passes through as loose characters: SGR mouse reports and the
/// cursor keys a terminfo entry does not describe (Home, End, Shift+arrows as xterm sends them).
///
/// ncurses decodes what the terminfo names; anything else arrives as ESC followed by its bytes.
/// This joins those back into one key. A lone ESC stays `.escape`.
public enum EscapeDecoder {
  public static func decode(_ keys: [Key]) -> [Key] {
    var out: [Key] = []
    var i = 0
    while i < keys.count {
      if keys[i] == .escape, let (key, length) = sequence(keys, at: i + 1) {
        out.append(key)
        i += 1 + length
      } else {
        out.append(keys[i])
        i += 1
      }
    }
    return out
  }

  /// A CSI or SS3 sequence starting after an ESC: the key and how many keys it used.
  private static func sequence(_ keys: [Key], at start: Int) -> (Key, Int)? {
    guard start < keys.count, case .char(let introducer) = keys[start],
      introducer == "[" || introducer == "O"
    else { return nil }
    var body = ""
    var i = start + 1
    while i < keys.count, i - start < 32 {
      guard case .char(let c) = keys[i] else { return nil }
      if c.isLetter || c == "~" {
        let used = i - start + 1
        if introducer == "[", body.hasPrefix("<"), c == "M" || c == "m" {
          return MouseEvent.parseSGR(body, final: c).map { (.mouse($0), used) }
        }
        return named(body: body, final: c).map { ($0, used) }
      }
      body.append(c)
      i += 1
    }
    return nil
  }

  private static func named(body: String, final: Character) -> Key? {
    let shifted = body.hasSuffix(";2")
    switch (final, body) {
    case ("H", _), ("~", "1"), ("~", "7"): return .home
    case ("F", _), ("~", "4"), ("~", "8"): return .end
    case ("~", "5"): return .pageUp
    case ("~", "6"): return .pageDown
    case ("D", _): return shifted ? .shiftLeft : .left
    case ("C", _): return shifted ? .shiftRight : .right
    case ("A", _): return .up
    case ("B", _): return .down
    default: return nil
    }
  }
}
