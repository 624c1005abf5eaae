/// Makes text from a server safe to draw: nothing in it can reach the terminal as a command.
///
/// Escape sequences (CSI, OSC, DCS and other string controls, two-byte escapes) are removed
/// whole, so "\u{1B}]0;pwned\u{07}Song" becomes "Song". Other C0 and C1 controls and DEL are
/// dropped; tabs and line breaks become spaces; bidi overrides and isolates, which can reorder
/// what follows them on screen, are dropped.
public enum TextSanitizer {
  public static func sanitize(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    var scalars = text.unicodeScalars.makeIterator()
    var pending: Unicode.Scalar? = nil
    func nextScalar() -> Unicode.Scalar? {
      if let p = pending {
        pending = nil
        return p
      }
      return scalars.next()
    }
    while let scalar = nextScalar() {
      switch scalar.value {
      case 0x1B:  // ESC
        guard let kind = nextScalar() else { break }
        switch kind.value {
        case 0x5B:  // CSI: parameters and intermediates, then a final byte 0x40...0x7E
          skipCSI(next: nextScalar)
        case 0x5D, 0x50, 0x58, 0x5E, 0x5F:  // OSC, DCS, SOS, PM, APC: up to BEL or ST
          pending = skipString(next: nextScalar)
        default:
          // Two-byte escape (ESC c, ESC 7, ...): drop both. A following printable that is not
          // part of it would be 0x20...0x2F intermediates plus a final; drop those too.
          if (0x20...0x2F).contains(kind.value) {
            while let s = nextScalar() {
              if !(0x20...0x2F).contains(s.value) { break }
            }
          }
        }
      case 0x9B:  // C1 CSI
        skipCSI(next: nextScalar)
      case 0x9D, 0x90, 0x98, 0x9E, 0x9F:  // C1 OSC, DCS, SOS, PM, APC
        pending = skipString(next: nextScalar)
      case 0x09, 0x0A, 0x0D, 0x0B, 0x0C, 0x85, 0x2028, 0x2029:
        out.append(" ")
      case 0x00...0x1F, 0x7F...0x9F:
        continue
      case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
        continue
      default:
        out.append(scalar)
      }
    }
    return String(out)
  }

  private static func skipCSI(next: () -> Unicode.Scalar?) {
    while let s = next() {
      if (0x40...0x7E).contains(s.value) { return }
      // A CSI broken by another control ends there; the control itself is dropped too.
      if s.value < 0x20 || s.value == 0x7F { return }
    }
  }

  /// Skips a control string; returns a scalar read past its end that must not be lost.
  private static func skipString(next: () -> Unicode.Scalar?) -> Unicode.Scalar? {
    while let s = next() {
      if s.value == 0x07 || s.value == 0x9C { return nil }
      if s.value == 0x1B {
        guard let t = next() else { return nil }
        return t.value == 0x5C ? nil : t  // ESC \ is the string terminator
      }
    }
    return nil
  }
}
