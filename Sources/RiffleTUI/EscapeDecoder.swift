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
      if keys[i] == .mousePrefix {
        // ncurses took "ESC [ <" itself: the parameters and final byte follow as characters.
        let (event, length) = mouseReport(keys, at: i + 1)
        if let event { out.append(.mouse(event)) }
        i += 1 + length
      } else if keys[i] == .escape, let (key, length) = sequence(keys, at: i + 1) {
        if let key { out.append(key) }
        i += 1 + length
      } else {
        out.append(keys[i])
        i += 1
      }
    }
    return out
  }

  /// Whether `keys` end inside an escape sequence: an ESC, or an ESC, "[" or "O" and parameter
  /// bytes, with no final byte yet (or a mouse prefix whose report has not ended). The reader
  /// then waits a moment for the rest: a sequence can arrive in pieces (SSH, a busy
  /// multiplexer), and decoded as it stands its ESC would be taken for the Esc key.
  public static func endsInsideSequence(_ keys: [Key]) -> Bool {
    guard let start = keys.lastIndex(where: { $0 == .escape || $0 == .mousePrefix }) else {
      return false
    }
    let rest = keys[(start + 1)...]
    let mouse = keys[start] == .mousePrefix
    var first = true
    for key in rest {
      guard case .char(let c) = key, let value = c.asciiValue else { return false }
      if first && !mouse {
        guard c == "[" || c == "O" else { return false }
        first = false
        continue
      }
      first = false
      // A parameter byte keeps the sequence open; anything else ends it.
      guard (0x30...0x3F).contains(value) else { return false }
    }
    return true
  }

  /// The parameters and final byte of an SGR mouse report after its prefix.
  private static func mouseReport(_ keys: [Key], at start: Int) -> (MouseEvent?, Int) {
    var body = "<"
    var i = start
    while i < keys.count, i - start < 24, case .char(let c) = keys[i] {
      if c == "M" || c == "m" { return (MouseEvent.parseSGR(body, final: c), i - start + 1) }
      guard c.isNumber || c == ";" else { break }
      body.append(c)
      i += 1
    }
    // Not a report after all: drop what was read of it, keep what follows.
    return (nil, i - start)
  }

  /// A CSI or SS3 sequence starting after an ESC: the key it names (nil for one that names
  /// nothing Riffle knows, which is dropped whole rather than typed out as "[", digits and
  /// letters) and how many keys it used. Nil when what follows the ESC is not a sequence.
  ///
  /// Only parameter bytes (digits, ";", "<", "?", ":") belong to a sequence before its final
  /// byte (an upper-case letter, "~", or "M"/"m" ending a mouse report). Anything else ends a
  /// broken sequence, which is dropped, and is kept as a key of its own. A sequence cut off by
  /// the end of a read leaves a plain `.escape`.
  private static func sequence(_ keys: [Key], at start: Int) -> (Key?, Int)? {
    guard start < keys.count, case .char(let introducer) = keys[start] else { return nil }
    if introducer == "_" { return (nil, applicationCommand(keys, at: start + 1)) }
    guard introducer == "[" || introducer == "O" else { return nil }
    var body = ""
    var i = start + 1
    while i < keys.count, i - start < 32 {
      guard case .char(let c) = keys[i], let value = c.asciiValue else { return (nil, i - start) }
      let used = i - start + 1
      if introducer == "[", body.hasPrefix("<") {
        if c == "M" || c == "m" {
          return (MouseEvent.parseSGR(body, final: c).map { .mouse($0) }, used)
        }
      } else if (0x41...0x5A).contains(value) || c == "~" {
        return (named(body: body, final: c), used)
      } else if c == "c", body.hasPrefix("?") || body.hasPrefix(">") {
        // A device attributes answer that came after the start-up wait: not a key.
        return (nil, used)
      }
      guard (0x30...0x3F).contains(value) else { return (nil, i - start) }
      body.append(c)
      i += 1
    }
    if i >= keys.count {
      // Cut off by the end of the read: the rest is lost; an ESC is all that is left of it.
      return (.escape, i - start)
    }
    return (nil, i - start)
  }

  /// Keys used by an application command (`ESC _ ... ESC \\`) whose body starts at `start`:
  /// a kitty graphics answer that came after the start-up wait. Dropped whole, never typed;
  /// one cut off by the end of the read is dropped to there.
  private static func applicationCommand(_ keys: [Key], at start: Int) -> Int {
    var i = start
    while i < keys.count, i - start < 4096 {
      if keys[i] == .escape {
        if i + 1 < keys.count, keys[i + 1] == .char("\\") { return i + 2 - (start - 1) }
        return i - (start - 1)
      }
      i += 1
    }
    return i - (start - 1)
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
