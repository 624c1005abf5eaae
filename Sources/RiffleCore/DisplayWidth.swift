/// How many terminal columns text takes, and cutting it to fit.
///
/// Wide: East Asian wide and fullwidth ranges and emoji shown as emoji. Zero: combining
/// marks, joiners and variation selectors, which ride on the character before them. Everything
/// is measured per grapheme cluster (Swift `Character`), so "👩‍👩‍👧" or "é" composed count once.
public enum DisplayWidth {
  /// Columns one character takes: 0, 1 or 2.
  public static func of(_ character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    // An emoji presentation selector or a ZWJ sequence makes it a two-column emoji.
    if scalars.count > 1,
      scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x200D })
        && first.properties.isEmoji
    {
      return 2
    }
    return of(scalar: first)
  }

  /// Columns one scalar takes when it starts a character.
  public static func of(scalar: Unicode.Scalar) -> Int {
    let v = scalar.value
    if v == 0 { return 0 }
    if v < 0x20 || (0x7F...0x9F).contains(v) { return 0 }
    if v < 0x300 { return 1 }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format:
      return 0
    default:
      break
    }
    if v == 0x200B || (0xFE00...0xFE0F).contains(v) { return 0 }
    if scalar.properties.isEmojiPresentation { return 2 }
    return isWide(v) ? 2 : 1
  }

  /// Columns a string takes.
  public static func of(_ text: String) -> Int {
    text.reduce(0) { $0 + of($1) }
  }

  /// The text cut to at most `width` columns; when cut, it ends in "…" at a character boundary.
  public static func truncate(_ text: String, to width: Int) -> String {
    guard width > 0 else { return "" }
    if of(text) <= width { return text }
    var out = ""
    var used = 0
    for ch in text {
      let w = of(ch)
      if used + w > width - 1 { break }
      out.append(ch)
      used += w
    }
    // "Song …" reads worse than "Song…".
    while out.last?.isWhitespace == true { out.removeLast() }
    return out + "…"
  }

  private static func isWide(_ v: UInt32) -> Bool {
    switch v {
    case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
      0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
      0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
      0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD,
      0x30000...0x3FFFD:
      return true
    default:
      return false
    }
  }
}
