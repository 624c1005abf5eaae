import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// tmux between Riffle and the terminal, as tmux describes itself: whether it passes pictures
/// through (`allow-passthrough`) and where the pane sits in the terminal outside.
///
/// tmux drops the kitty graphics protocol's commands and sixel images a program writes; with
/// `allow-passthrough` on it hands the body of `ESC P tmux; ... ESC \` (every ESC inside
/// doubled) to the terminal outside as it is. tmux does not know what that body draws, so the
/// picture is positioned in the outer terminal's coordinates: the pane's offset added.
public struct TmuxPassthrough: Equatable, Sendable {
  /// `allow-passthrough` is on for the pane (`on` or `all`).
  public var allowed: Bool
  /// The pane's top-left cell in the outer terminal (the status line above it counted).
  public var left: Int
  public var top: Int
  /// The attached client's terminal (`client_termname`) and features, for the log and for
  /// sixel (tmux 3.4 lists `sixel` when the client has it).
  public var clientTerm: String
  public var clientFeatures: String
  /// The client's terminal device (`client_tty`): tmux passes nothing on from a pane it does
  /// not show, so a picture is taken off from there once the pane is hidden.
  public var clientTTY: String
  /// The pane is on screen: its window is the one shown and no other pane of it is zoomed.
  public var paneShown: Bool

  public init(
    allowed: Bool, left: Int = 0, top: Int = 0, clientTerm: String = "",
    clientFeatures: String = "", clientTTY: String = "", paneShown: Bool = true
  ) {
    self.clientTTY = clientTTY
    self.paneShown = paneShown
    self.allowed = allowed
    self.left = left
    self.top = top
    self.clientTerm = clientTerm
    self.clientFeatures = clientFeatures
  }

  /// What `ask` has tmux print: one line, fields split by `|`.
  static let format =
    "#{allow-passthrough}|#{pane_left}|#{pane_top}|#{status}|#{status-position}"
    + "|#{client_termname}|#{client_termfeatures}|#{client_tty}"
    + "|#{window_active}|#{window_zoomed_flag}|#{pane_active}"

  /// Asks the tmux this process runs in (the socket in `TMUX`, the pane in `TMUX_PANE`), at
  /// most `timeout` seconds (`timeout(1)` ends a tmux that does not answer). Nil outside tmux
  /// or when tmux said nothing readable.
  public static func ask(environment: [String: String], timeout: Double = 1) -> TmuxPassthrough? {
    let session = environment["TMUX"] ?? ""
    guard !session.isEmpty else { return nil }
    var command = "timeout \(timeout) tmux"
    if let socket = session.split(separator: ",").first, !socket.isEmpty {
      command += " -S " + quoted(String(socket))
    }
    command += " display -p"
    if let pane = environment["TMUX_PANE"], !pane.isEmpty { command += " -t " + quoted(pane) }
    command += " " + quoted(format) + " 2>/dev/null"
    return parse(CommandOutput.read(command))
  }

  /// Reads `format`'s answer. tmux prints an option it does not know (before 3.3, which has no
  /// `allow-passthrough`) as nothing: not allowed.
  static func parse(_ answer: String) -> TmuxPassthrough? {
    let fields = answer.split(separator: "|", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    guard fields.count >= 7, let left = Int(fields[1]), let top = Int(fields[2]) else {
      return nil
    }
    let allowed = fields[0] == "1" || fields[0] == "on" || fields[0] == "all"
    // A status line at the top pushes the panes down by its lines (`status` is on, off, or a
    // count of lines from 2 to 5).
    let statusLines = fields[3] == "on" ? 1 : fields[3] == "off" ? 0 : Int(fields[3]) ?? 0
    return TmuxPassthrough(
      allowed: allowed, left: left, top: top + (fields[4] == "top" ? statusLines : 0),
      clientTerm: fields[5], clientFeatures: fields[6],
      clientTTY: fields.count > 7 && fields[7].hasPrefix("/dev/") ? fields[7] : "",
      paneShown: fields.count > 10
        ? fields[8] == "1" && (fields[9] != "1" || fields[10] == "1") : true
    )
  }

  /// The client lists sixel among its features (tmux 3.4 and later).
  public var clientHasSixel: Bool {
    clientFeatures.split(separator: ",").contains {
      $0.trimmingCharacters(in: .whitespaces) == "sixel"
    }
  }

  /// Largest body of one passthrough sequence where commands can be grouped (kitty's chunks).
  public static let largestBody = 65536
  /// Largest command that can pass whole: tmux reads a sequence into a buffer it caps at 1 MB
  /// (tmux 3.3) and drops a longer one. A longer picture (a large sixel) is not sent through
  /// tmux: cutting it into several sequences does not work, for tmux writes its own cursor and
  /// attribute resets between two of them, and those end the picture's sequence in the
  /// terminal outside, which then shows the rest of it as text.
  public static let largestCommand = 1_000_000

  /// `bytes` wrapped for tmux to pass on, every ESC doubled: cut only after the string
  /// terminators (`ESC \`) of the commands inside, into sequences of at most `largest` bytes
  /// where the commands are that small (kitty's 4 KB chunks go a dozen to a sequence), a
  /// longer command in a sequence of its own.
  public static func wrap(_ bytes: [UInt8], largest: Int = largestBody) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count + bytes.count / 16 + 64)
    var start = 0
    while start < bytes.count {
      // The end of this piece: the last terminator within reach, else the first beyond it.
      let limit = min(bytes.count, start + largest)
      var end = limit
      if limit < bytes.count {
        var i = limit - 1
        while i > start + 1, !(bytes[i] == 0x5C && bytes[i - 1] == 0x1B) { i -= 1 }
        if i > start + 1 {
          end = i + 1
        } else {
          i = limit
          while i < bytes.count, !(bytes[i] == 0x5C && bytes[i - 1] == 0x1B) { i += 1 }
          end = min(bytes.count, i + 1)
        }
      }
      out += [0x1B, 0x50] + Array("tmux;".utf8)
      for byte in bytes[start..<end] {
        if byte == 0x1B { out.append(0x1B) }
        out.append(byte)
      }
      out += [0x1B, 0x5C]
      start = end
    }
    return out
  }

  /// Writes `bytes` (a short command, unwrapped) straight to the client's terminal, past tmux:
  /// for taking a picture off once tmux no longer shows the pane. One small write, which the
  /// terminal receives whole between tmux's own.
  public func writeToClient(_ bytes: [UInt8]) {
    guard !clientTTY.isEmpty, bytes.count <= 512 else { return }
    let fd = open(clientTTY, O_WRONLY | O_NOCTTY | O_NONBLOCK)
    guard fd >= 0 else { return }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
  }

  private static func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

}
