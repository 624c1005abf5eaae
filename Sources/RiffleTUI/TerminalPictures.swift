import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// How covers are shown (`[display] pictures` in config.toml): `auto` asks the terminal; the
/// others force a protocol (`symbols`: always cells).
public enum PictureSetting: String, Hashable, Sendable, CaseIterable {
  case auto
  case kitty
  case sixel
  case iterm
  case symbols
}

/// What the screen shows covers with.
public enum PictureProtocol: String, Hashable, Sendable {
  /// Block symbols in coloured cells (every terminal).
  case symbols
  /// A real image under the cells (kitty, WezTerm, Ghostty, Konsole).
  case kitty
  /// A sixel image in the page's upper part, the band in cells below (xterm, foot, mlterm,
  /// WezTerm, Windows Terminal).
  case sixel
  /// iTerm2's inline image (OSC 1337), placed like a sixel.
  case iterm

  /// Whether the picture is drawn over the cells it covers (sixel, iTerm2) rather than under
  /// them: then no text can sit on it, and it must be sent again whenever it is shown.
  public var replacesCells: Bool { self == .sixel || self == .iterm }
}

/// What a terminal answered to the start-up queries.
public struct TerminalAnswers: Equatable, Sendable {
  /// The kitty graphics query was answered OK.
  public var kittyGraphics = false
  /// The primary device attributes list 4 (sixel).
  public var sixel = false
  /// The device attributes arrived at all (so every answer before them has too).
  public var answered = false
  /// How long the wait took, in milliseconds (for the log).
  public var waited = 0

  public init(
    kittyGraphics: Bool = false, sixel: Bool = false, answered: Bool = false, waited: Int = 0
  ) {
    self.kittyGraphics = kittyGraphics
    self.sixel = sixel
    self.answered = answered
    self.waited = waited
  }
}

/// Asks the terminal what pictures it can show, before the screen starts, and decides.
///
/// The queries are the kitty graphics protocol's own (`a=q`: answered only by a terminal that
/// speaks it) followed by the primary device attributes (DA1), which every terminal answers,
/// in order: once DA1's answer is here, any kitty answer would have come before it. The wait
/// ends at DA1's answer or after `timeout` (100 ms), so a terminal that answers nothing delays
/// the start by that much and no more.
public enum TerminalPictures {
  /// The queries: kitty's (a 1x1 RGB pixel, direct, query only, id 31) then DA1.
  static let query = kittyQuery + Array("\u{1B}[c".utf8)
  /// Kitty's query alone (sent through tmux).
  static let kittyQuery = Array("\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\".utf8)

  /// Decides how covers are shown. `ask` sends the queries; it is not called when the answer
  /// cannot matter (a forced setting, tmux, a terminal that never shows pictures).
  ///
  /// Inside tmux (`TMUX` set), `tmux` says whether tmux passes pictures through; only then are
  /// pictures shown (wrapped for tmux, see `TmuxPassthrough`), the outer terminal asked through
  /// tmux (`ask` is given the passthrough).
  public static func choose(
    setting: PictureSetting, environment: [String: String],
    tmux: () -> TmuxPassthrough? = { nil },
    ask: (_ through: TmuxPassthrough?) -> TerminalAnswers
  ) -> (protocol: PictureProtocol, reason: String, passthrough: TmuxPassthrough?) {
    let inTmux = !(environment["TMUX"] ?? "").isEmpty
    switch setting {
    case .symbols: return (.symbols, "symbols (pictures = \"symbols\")", nil)
    case .kitty, .sixel, .iterm:
      // Forced: through tmux when it lets pictures pass (else tmux drops them: no picture, no
      // stray text).
      let through = inTmux ? tmux().flatMap { $0.allowed ? $0 : nil } : nil
      let via = through == nil ? "" : ", through tmux"
      switch setting {
      case .kitty: return (.kitty, "kitty graphics (pictures = \"kitty\"\(via))", through)
      case .sixel: return (.sixel, "sixel (pictures = \"sixel\"\(via))", through)
      default: return (.iterm, "iTerm2 inline images (pictures = \"iterm\"\(via))", through)
      }
    case .auto: break
    }
    let term = environment["TERM"] ?? ""
    if inTmux {
      return chooseInTmux(environment: environment, tmux: tmux(), ask: ask)
    }
    if term.hasPrefix("screen") || term.hasPrefix("tmux") {
      // GNU screen (or a multiplexer that did not say where it is): it would drop pictures or
      // leave them behind when it redraws. Symbols are always right there.
      return (.symbols, "symbols: inside a terminal multiplexer (TERM=\(term))", nil)
    }
    if term.isEmpty || term == "dumb" || term == "linux" || term.hasPrefix("vt") {
      return (.symbols, "symbols: \(term.isEmpty ? "no TERM" : term) shows no pictures", nil)
    }
    let answers = ask(nil)
    if answers.kittyGraphics {
      return (
        .kitty, "kitty graphics (the terminal answered its query in \(answers.waited) ms)", nil
      )
    }
    // iTerm2 has no query for its images; it names itself.
    if environment["TERM_PROGRAM"] == "iTerm.app" || environment["LC_TERMINAL"] == "iTerm2" {
      return (.iterm, "iTerm2 inline images (TERM_PROGRAM/LC_TERMINAL)", nil)
    }
    if !answers.answered {
      return (.symbols, "symbols: the terminal did not answer the queries within 100 ms", nil)
    }
    if answers.sixel {
      return (
        .sixel, "sixel (the terminal's attributes list it; answered in \(answers.waited) ms)", nil
      )
    }
    return (
      .symbols, "symbols: the terminal answered in \(answers.waited) ms, without kitty graphics",
      nil
    )
  }

  /// Inside tmux: pictures only when tmux passes them through, and only what the terminal
  /// outside shows. tmux answers DA1 itself (never with sixel), so the terminal outside is asked
  /// kitty's query through tmux, and sixel is taken from the client's features.
  static func chooseInTmux(
    environment: [String: String], tmux: TmuxPassthrough?,
    ask: (_ through: TmuxPassthrough?) -> TerminalAnswers
  ) -> (protocol: PictureProtocol, reason: String, passthrough: TmuxPassthrough?) {
    guard let tmux else {
      return (.symbols, "symbols: inside tmux, which did not say whether it passes pictures", nil)
    }
    guard tmux.allowed else {
      return (
        .symbols,
        "symbols: inside tmux without allow-passthrough"
          + " (set -g allow-passthrough on in tmux.conf shows pictures)", nil
      )
    }
    let client = tmux.clientTerm.isEmpty ? "the terminal" : tmux.clientTerm
    if tmux.clientTerm == "linux" || tmux.clientTerm.hasPrefix("vt") {
      // Consoles that show no pictures, and might show the question as text: not asked.
      return (.symbols, "symbols: inside tmux on \(client), which shows no pictures", nil)
    }
    let answers = ask(tmux)
    if answers.kittyGraphics {
      return (
        .kitty,
        "kitty graphics through tmux (\(client) answered its query in \(answers.waited) ms)", tmux
      )
    }
    if tmux.clientHasSixel {
      return (.sixel, "sixel through tmux (the client's features list it)", tmux)
    }
    if environment["LC_TERMINAL"] == "iTerm2" {
      return (.iterm, "iTerm2 inline images through tmux (LC_TERMINAL)", tmux)
    }
    return (
      .symbols,
      "symbols: inside tmux, \(client) did not answer kitty's query within 100 ms"
        + " and lists no sixel", nil
    )
  }

  /// Sends the queries on the controlling terminal and reads the answers for up to `timeout`
  /// seconds. Raw mode is set for the wait and the previous mode put back.
  ///
  /// `through` tmux: kitty's query goes to the terminal outside wrapped for tmux, and the wait
  /// ends at its answer (tmux answers DA1 itself, before the terminal outside can answer).
  /// `input` and `output` are the terminal's (tests give a pseudo-terminal's).
  public static func ask(
    through: TmuxPassthrough? = nil, timeout: Double = 0.1, input: Int32 = STDIN_FILENO,
    output: Int32 = STDOUT_FILENO
  ) -> TerminalAnswers {
    guard isatty(input) == 1, isatty(output) == 1 else { return TerminalAnswers() }
    var saved = termios()
    guard tcgetattr(input, &saved) == 0 else { return TerminalAnswers() }
    var raw = saved
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
    _ = tcsetattr(input, TCSANOW, &raw)
    defer { _ = tcsetattr(input, TCSANOW, &saved) }
    var bytes = through == nil ? query : TmuxPassthrough.wrap(kittyQuery)
    _ = bytes.withUnsafeMutableBytes { write(output, $0.baseAddress, $0.count) }
    var received: [UInt8] = []
    let started = Date()
    let deadline = started.addingTimeInterval(timeout)
    var answers = TerminalAnswers()
    while !(through == nil ? answers.answered : kittyAnswered(received)), received.count < 4096 {
      let left = Int32((deadline.timeIntervalSinceNow * 1000).rounded(.up))
      var ready = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
      guard left > 0, poll(&ready, 1, left) > 0 else { break }
      var buffer = [UInt8](repeating: 0, count: 512)
      let count = read(input, &buffer, buffer.count)
      guard count > 0 else { break }
      received += buffer[0..<count]
      answers = parse(received)
    }
    answers.waited = Int((Date().timeIntervalSince(started) * 1000).rounded())
    return answers
  }

  /// Whether kitty's query has been answered, OK or not.
  static func kittyAnswered(_ bytes: [UInt8]) -> Bool {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let start = text.range(of: "\u{1B}_Gi=31;") else { return false }
    return text[start.upperBound...].contains("\u{1B}\\")
  }

  /// Reads the answers out of what the terminal sent: `ESC _ G i=31;OK ESC \` for kitty
  /// graphics, `ESC [ ? Ps ; ... c` for DA1.
  static func parse(_ bytes: [UInt8]) -> TerminalAnswers {
    var answers = TerminalAnswers()
    let text = String(decoding: bytes, as: UTF8.self)
    if let start = text.range(of: "\u{1B}_Gi=31;") {
      let rest = text[start.upperBound...]
      if let end = rest.range(of: "\u{1B}\\") {
        answers.kittyGraphics = rest[..<end.lowerBound] == "OK"
      }
    }
    if let start = text.range(of: "\u{1B}[?") {
      let rest = text[start.upperBound...]
      if let end = rest.firstIndex(of: "c") {
        let parameters = rest[..<end]
        if parameters.allSatisfy({ $0.isNumber || $0 == ";" }) {
          answers.answered = true
          answers.sixel = parameters.split(separator: ";").contains("4")
        }
      }
    }
    return answers
  }
}

/// The kitty graphics protocol's commands, as bytes (see
/// https://sw.kovidgoyal.net/kitty/graphics-protocol/).
public enum KittyGraphics {
  /// Below cells with a non-default background: the page's cells cover the picture where they
  /// have a colour of their own (overlays, panels) and let it show where they have none.
  public static let belowBackground: Int32 = -1_073_741_825

  /// Transmits a PNG under `id` without showing it (`a=t`), in chunks of 4096 base64 bytes.
  /// Quiet (`q=2`): the terminal answers nothing, so no reply can reach the key input.
  public static func transmit(id: UInt32, png: [UInt8]) -> [UInt8] {
    let encoded = Array(Data(png).base64EncodedString().utf8)
    var out: [UInt8] = []
    out.reserveCapacity(encoded.count + encoded.count / 4096 * 16 + 64)
    var offset = 0
    repeat {
      let end = min(encoded.count, offset + 4096)
      let more = end < encoded.count ? 1 : 0
      let head =
        offset == 0 ? "\u{1B}_Ga=t,f=100,t=d,i=\(id),q=2,m=\(more);" : "\u{1B}_Gm=\(more);"
      out += Array(head.utf8)
      out += encoded[offset..<end]
      out += Array("\u{1B}\\".utf8)
      offset = end
    } while offset < encoded.count
    return out
  }

  /// Shows image `id` at cell (`x`, `y`) stretched over `columns` x `rows` cells, below the
  /// cells' backgrounds. The cursor is saved and put back around it (ncurses keeps track of
  /// where it left the cursor) and does not move for the picture (`C=1`).
  public static func place(id: UInt32, x: Int, y: Int, columns: Int, rows: Int) -> [UInt8] {
    Array(
      ("\u{1B}7\u{1B}[\(y + 1);\(x + 1)H"
        + "\u{1B}_Ga=p,i=\(id),p=1,c=\(columns),r=\(rows),z=\(belowBackground),C=1,q=2\u{1B}\\"
        + "\u{1B}8").utf8)
  }

  /// Removes image `id`'s placement from the screen; the terminal keeps the image to show
  /// again (paging back costs no upload).
  public static func removePlacement(id: UInt32) -> [UInt8] {
    Array("\u{1B}_Ga=d,d=i,i=\(id),q=2\u{1B}\\".utf8)
  }

  /// Forgets image `id` entirely (its placements and its data).
  public static func delete(id: UInt32) -> [UInt8] {
    Array("\u{1B}_Ga=d,d=I,i=\(id),q=2\u{1B}\\".utf8)
  }

  /// Removes every placement on screen and frees the images they show.
  public static let deleteAll = Array("\u{1B}_Ga=d,d=A,q=2\u{1B}\\".utf8)
}

/// Pictures drawn over cells (sixel, iTerm2's inline images): written at a cell with the cursor
/// saved and put back around them, so ncurses' idea of the cursor holds.
public enum CellPictures {
  /// `picture` at its row, column 0; `origin` is where the screen's top-left cell is in the
  /// terminal (a tmux pane's offset).
  public static func draw(
    _ picture: CoverPicture, protocol: PictureProtocol, origin: (x: Int, y: Int) = (0, 0)
  ) -> [UInt8] {
    var out = Array("\u{1B}7\u{1B}[\(picture.row + origin.y + 1);\(origin.x + 1)H".utf8)
    switch picture.format {
    case .sixel:
      out += picture.bytes
    case .png:
      // iTerm2: the cells it spans, stretched to them (the PNG already has their shape).
      out += Array(
        ("\u{1B}]1337;File=inline=1;size=\(picture.bytes.count);width=\(picture.columns);"
          + "height=\(picture.rows);preserveAspectRatio=0:").utf8)
      out += Array(Data(picture.bytes).base64EncodedString().utf8)
      out.append(0x07)
    }
    out += Array("\u{1B}8".utf8)
    return out
  }
}
