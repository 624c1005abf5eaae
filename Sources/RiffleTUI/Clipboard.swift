import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The clipboard through OSC 52: the terminal (or tmux, with `set-clipboard on`, or an SSH
/// client's terminal) sets its clipboard from an escape sequence, so it works where no display
/// server is reachable.
public enum Clipboard {
  /// The longest text sent: terminals cap what they take (xterm 100 KB of base64, some less).
  public static let maxBytes = 74_994

  /// The sequence that sets the clipboard (`c`) to `text`; nil for text longer than `maxBytes`.
  public static func sequence(_ text: String) -> String? {
    let bytes = Data(text.utf8)
    guard bytes.count <= maxBytes else { return nil }
    return "\u{1B}]52;c;\(bytes.base64EncodedString())\u{07}"
  }

  /// Writes the sequence to the terminal (standard output) at once; ncurses' own output goes
  /// around it, and the sequence moves no cursor.
  public static func copy(_ text: String) {
    guard let sequence = sequence(text) else { return }
    var bytes = Array(sequence.utf8)
    var sent = 0
    while sent < bytes.count {
      let wrote = bytes.withUnsafeMutableBytes {
        write(STDOUT_FILENO, $0.baseAddress! + sent, $0.count - sent)
      }
      if wrote <= 0 {
        if wrote < 0 && errno == EINTR { continue }
        return
      }
      sent += wrote
    }
  }
}
