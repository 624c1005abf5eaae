/// Makes text from a server safe to draw: nothing in it can reach the terminal as a command.
///
/// Escape sequences (CSI, OSC, DCS and other control strings, two-byte escapes) are removed
/// whole, so "\u{1B}]0;pwned\u{07}Song" becomes "Song". As in a terminal's own parser, an ESC
/// inside a sequence ends it and starts the next one, so no part of either shows. Other C0 and
/// C1 controls and DEL are dropped; tabs and line breaks become spaces; bidi overrides and
/// isolates, which can reorder what follows them on screen, are dropped.
public enum TextSanitizer {
  public static func sanitize(_ text: String) -> String {
    // Fast path: most titles have nothing to remove.
    if !text.unicodeScalars.contains(where: needsWork) { return text }
    let scalars = Array(text.unicodeScalars)
    var out = String.UnicodeScalarView()
    var i = 0
    while i < scalars.count {
      let value = scalars[i].value
      switch value {
      case 0x1B:  // ESC
        i = skipEscape(scalars, from: i + 1)
      case 0x9B:  // C1 CSI
        i = skipCSI(scalars, from: i + 1)
      case 0x90, 0x98, 0x9D, 0x9E, 0x9F:  // C1 DCS, SOS, OSC, PM, APC
        i = skipControlString(scalars, from: i + 1)
      case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029:
        out.append(" ")
        i += 1
      default:
        if !isDropped(value) { out.append(scalars[i]) }
        i += 1
      }
    }
    return String(out)
  }

  private static func needsWork(_ scalar: Unicode.Scalar) -> Bool {
    let v = scalar.value
    return v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029 || isDropped(v)
  }

  private static func isDropped(_ v: UInt32) -> Bool {
    switch v {
    case 0x00...0x1F, 0x7F...0x9F: return true
    case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return true
    default: return false
    }
  }

  /// After an ESC at `from - 1`: skips the sequence it starts; returns where text resumes.
  private static func skipEscape(_ s: [Unicode.Scalar], from start: Int) -> Int {
    guard start < s.count else { return start }
    switch s[start].value {
    case 0x5B: return skipCSI(s, from: start + 1)  // [
    case 0x5D, 0x50, 0x58, 0x5E, 0x5F: return skipControlString(s, from: start + 1)  // ] P X ^ _
    case 0x1B: return start  // ESC ESC: the second one starts anew
    case 0x20...0x2F:
      // Intermediates, then one final byte (ESC ( B and the like).
      var i = start
      while i < s.count, (0x20...0x2F).contains(s[i].value) { i += 1 }
      return i < s.count && s[i].value != 0x1B ? i + 1 : i
    case 0x30...0x7E: return start + 1  // ESC c, ESC 7, ESC =, ...
    default: return start  // not an escape: drop the ESC alone
    }
  }

  /// Skips CSI parameters and intermediates up to the final byte.
  private static func skipCSI(_ s: [Unicode.Scalar], from start: Int) -> Int {
    var i = start
    while i < s.count {
      let v = s[i].value
      if (0x40...0x7E).contains(v) { return i + 1 }
      if v == 0x1B { return i }  // a new escape begins: the broken CSI ends here
      if v < 0x20 || v == 0x7F { return i + 1 }  // a control breaks the CSI and goes with it
      if v > 0x7E { return i }  // text: the broken CSI ends before it
      i += 1
    }
    return i
  }

  /// Skips an OSC/DCS/SOS/PM/APC body up to BEL or ST (ESC \ or 0x9C).
  private static func skipControlString(_ s: [Unicode.Scalar], from start: Int) -> Int {
    var i = start
    while i < s.count {
      let v = s[i].value
      if v == 0x07 || v == 0x9C { return i + 1 }
      if v == 0x1B {
        if i + 1 < s.count, s[i + 1].value == 0x5C { return i + 2 }
        return i  // an ESC that is not ST aborts the string and starts a new escape
      }
      i += 1
    }
    return i
  }
}
