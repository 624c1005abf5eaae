import CNCurses
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The real terminal, through ncursesw. Only cells that changed since the last flush are sent.
public final class NCursesTerminal: Terminal {
  private var shown: Screen?
  private var pairs: [PairKey: Int32] = [:]
  public let colorCount: Int
  private let canChangeColor: Bool
  private var active = true
  /// How covers are shown: symbols, or pictures through the kitty graphics protocol.
  public let pictures: PictureProtocol
  /// Images the terminal holds (sent once, shown again by id), oldest first.
  private var sentPictures: [UInt32] = []
  /// The picture shown now.
  private var placedPicture: CoverPicture?
  /// Bytes of picture commands written since start, and pictures uploaded (the log's last
  /// line about pictures; the figures and tests read it).
  public private(set) var pictureBytes = 0
  public private(set) var picturesSent = 0
  /// Told after a picture was written out: its id and the bytes written for it (upload and
  /// placement), for the milestone trace.
  public var onPicture: ((UInt32, Int) -> Void)?
  /// The screen will be cleared by the next update (after a resize).
  private var cleared = false
  /// Pictures the terminal keeps at most; older ones are deleted from it.
  static let keptPictures = 8
  /// Inside tmux with `allow-passthrough` on: picture commands go out wrapped for tmux,
  /// positioned by the pane's offset (asked again after a resize).
  public private(set) var passthrough: TmuxPassthrough?
  private let askTmux: () -> TmuxPassthrough?
  /// tmux's pane is not on screen (another window shows, another pane is zoomed): the picture
  /// is taken off until it is back, for tmux draws over it without knowing it is there.
  private var hidden = false

  private struct PairKey: Hashable {
    var fg: Int32
    var bg: Int32
  }

  /// Takes over the terminal: alternate screen, no echo, keys one at a time, no cursor.
  /// `entry` names the terminfo entry to use instead of `TERM`'s (see `ColorChoice`).
  /// `pictures` says whether covers are sent as images (see `TerminalPictures`).
  /// `passthrough`: tmux passes pictures on (see `TmuxPassthrough`); `askTmux` asks it again
  /// where the pane is after a resize.
  public init(
    entry: String? = nil, pictures: PictureProtocol = .symbols,
    passthrough: TmuxPassthrough? = nil, askTmux: @escaping () -> TmuxPassthrough? = { nil }
  ) throws {
    self.pictures = pictures
    self.passthrough = pictures == .symbols ? nil : passthrough
    self.askTmux = askTmux
    NCursesTerminal.chooseLocale()
    if let entry, entry != ProcessInfo.processInfo.environment["TERM"] {
      guard riffle_nc_newterm(entry) == OK else {
        throw TerminalError("cannot start the terminal as \(entry)")
      }
    } else {
      guard initscr() != nil else {
        throw TerminalError("cannot start the terminal (is TERM set?)")
      }
    }
    cbreak()
    noecho()
    nonl()
    intrflush(riffle_nc_stdscr(), false)
    keypad(riffle_nc_stdscr(), true)
    nodelay(riffle_nc_stdscr(), true)
    // How long ncurses waits after an Esc for the rest of a sequence its terminfo names; what
    // it hands over cut off, `readKeys` waits for itself (`sequenceWait`).
    set_escdelay(25)
    curs_set(0)
    if has_colors() {
      start_color()
      use_default_colors()
    }
    colorCount = has_colors() ? Int(riffle_nc_colors()) : 0
    canChangeColor = false
    // Mouse reports in SGR form (clicks, drags with a button held, the wheel), decoded by
    // EscapeDecoder; ncurses' own mouse handling is off so the encoding is always the same.
    mousemask(0, nil)
    Self.writeOut("\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1006h")
    // Through tmux: tmux tells the pane when it loses and regains focus (`ESC [ O`, `ESC [ I`),
    // which is when another pane or window is drawn over where the picture is.
    if self.passthrough != nil { Self.writeOut("\u{1B}[?1004h") }
  }

  /// Picture commands out to the terminal (wrapped for tmux when it passes them on).
  private func emit(_ bytes: [UInt8]) {
    let out = passthrough == nil ? bytes : TmuxPassthrough.wrap(bytes)
    pictureBytes += out.count
    Self.writeAll(out)
  }

  /// The pane's top-left cell in the terminal outside (0, 0 when not in tmux).
  private var origin: (x: Int, y: Int) { (passthrough?.left ?? 0, passthrough?.top ?? 0) }

  private static func writeOut(_ text: String) {
    writeAll(Array(text.utf8))
  }

  /// Writes every byte (a picture is hundreds of kilobytes: one write may take part of it).
  /// ncurses writes through its own buffer, flushed by doupdate; this goes straight out.
  private static func writeAll(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let count = write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
        if count > 0 {
          offset += count
        } else if count < 0 && (errno == EINTR || errno == EAGAIN) {
          var output = pollfd(fd: STDOUT_FILENO, events: Int16(POLLOUT), revents: 0)
          _ = poll(&output, 1, 100)
        } else {
          return
        }
      }
    }
  }

  /// The size of a cell in pixels, as the terminal reports it (8x16 when it reports none).
  public var cellPixels: (width: Int, height: Int) {
    var ws = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0,
      ws.ws_xpixel > 0, ws.ws_ypixel > 0
    else { return (8, 16) }
    return (Int(ws.ws_xpixel) / Int(ws.ws_col), Int(ws.ws_ypixel) / Int(ws.ws_row))
  }

  /// Shows `picture` (or none) after the cells are out: sent once, then placed by id. `again`
  /// places it even if it is up already (the screen was cleared).
  private func showPicture(_ picture: CoverPicture?, again: Bool) {
    if pictures.replacesCells {
      showCellPicture(picture, again: again)
      return
    }
    guard pictures == .kitty else { return }
    var out: [UInt8] = []
    if let picture {
      if !sentPictures.contains(picture.id) {
        out += KittyGraphics.transmit(id: picture.id, png: picture.png)
        sentPictures.append(picture.id)
        picturesSent += 1
        while sentPictures.count > Self.keptPictures {
          out += KittyGraphics.delete(id: sentPictures.removeFirst())
        }
      }
      if let old = placedPicture, old.id != picture.id {
        out += KittyGraphics.removePlacement(id: old.id)
      }
      if again || placedPicture != picture {
        out += KittyGraphics.place(
          id: picture.id, x: origin.x, y: origin.y, columns: picture.columns, rows: picture.rows)
      }
    } else if let old = placedPicture {
      out += KittyGraphics.removePlacement(id: old.id)
    }
    placedPicture = picture
    guard !out.isEmpty else { return }
    let before = pictureBytes
    emit(out)
    if let picture { onPicture?(picture.id, pictureBytes - before) }
  }

  /// Before the cells go out: a sixel or iTerm2 picture that goes away (or is replaced) is
  /// painted over, for ncurses believes the blank cells under it are on screen.
  private func uncoverCells(for picture: CoverPicture?) {
    guard pictures.replacesCells, let old = placedPicture, old != picture else { return }
    wredrawln(riffle_nc_stdscr(), Int32(old.row), Int32(old.rows))
  }

  /// After the cells: draws a sixel or iTerm2 picture that is new here (or after a clear).
  private func showCellPicture(_ picture: CoverPicture?, again: Bool) {
    defer { placedPicture = picture }
    guard let picture, again || placedPicture != picture else { return }
    // Too long for tmux to pass on whole (see `TmuxPassthrough.largestCommand`): the cells
    // beneath show instead.
    if passthrough != nil, picture.bytes.count > TmuxPassthrough.largestCommand { return }
    let before = pictureBytes
    picturesSent += 1
    emit(CellPictures.draw(picture, protocol: pictures, origin: origin))
    onPicture?(picture.id, pictureBytes - before)
  }

  /// Takes every picture off the screen and out of the terminal's memory.
  private func forgetPictures() {
    if pictures.replacesCells {
      // Cleared with the screen: the next picture is drawn afresh.
      placedPicture = nil
      return
    }
    guard pictures == .kitty, !sentPictures.isEmpty || placedPicture != nil else { return }
    // A tmux pane not shown now (another window, a zoomed pane) gets nothing through: the
    // placement is taken off from the client's terminal directly too.
    if let old = placedPicture {
      passthrough?.writeToClient(KittyGraphics.removePlacement(id: old.id))
    }
    // Through tmux only its own images: other panes may show pictures of their own.
    var out = passthrough == nil ? KittyGraphics.deleteAll : []
    for id in sentPictures { out += KittyGraphics.delete(id: id) }
    sentPictures.removeAll()
    placedPicture = nil
    emit(out)
  }

  /// Wide text needs a UTF-8 locale; under LC_ALL=C fall back to C.UTF-8.
  private static func chooseLocale() {
    setlocale(LC_ALL, "")
    let codeset = String(cString: nl_langinfo(nl_item(CODESET)))
    if codeset.uppercased().replacingOccurrences(of: "-", with: "") != "UTF8" {
      if setlocale(LC_ALL, "C.UTF-8") == nil { setlocale(LC_CTYPE, "en_US.UTF-8") }
    }
  }

  public var size: (width: Int, height: Int) {
    (Int(riffle_nc_cols()), Int(riffle_nc_lines()))
  }

  public func resized() {
    var ws = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_row > 0, ws.ws_col > 0 {
      resizeterm(Int32(ws.ws_row), Int32(ws.ws_col))
    }
    shown = nil
    // A picture for the old size is no use at the new one: sizes change the pictures' ids.
    forgetPictures()
    // The pane may have moved in the terminal outside (a split, a layout change).
    if passthrough != nil, let moved = askTmux(), moved.allowed { passthrough = moved }
    cleared = true
    clearok(riffle_nc_stdscr(), true)
  }

  public func flush(_ screen: Screen) {
    guard active else { return }
    let (width, height) = size
    var previous = (shown?.width == screen.width && shown?.height == screen.height) ? shown : nil
    // Covers bring many colour pairs. Before ncurses would recycle pairs still on screen (it
    // cannot know this cache uses them), start the table afresh and redraw every cell.
    if pairs.count >= Int(riffle_nc_color_pairs()) - 1 {
      reset_color_pairs()
      pairs.removeAll()
      previous = nil
    }
    if previous == nil { werase(riffle_nc_stdscr()) }
    // Compared in place, without copying cells out: at 30 frames a second (the visualizer)
    // the copies of every cell cost more than the comparison.
    let rows = min(height, screen.height)
    let columns = min(width, screen.width)
    let old = previous?.cells ?? []
    screen.cells.withUnsafeBufferPointer { new in
      old.withUnsafeBufferPointer { old in
        for y in 0..<rows {
          let row = y * screen.width
          for x in 0..<columns {
            let i = row + x
            if !old.isEmpty, old[i] == new[i] { continue }
            if new[i].isContinuation { continue }
            draw(new[i], x: x, y: y)
          }
        }
      }
    }
    shown = screen
    uncoverCells(for: screen.picture)
    wnoutrefresh(riffle_nc_stdscr())
    doupdate()
    // kitty: placed again after any full redraw (cheap). Sixel: drawn again only after the
    // screen was cleared (a resize), for cells that did not change are not sent again.
    // Without focus in tmux: none.
    showPicture(
      hidden ? nil : screen.picture, again: pictures.replacesCells ? cleared : previous == nil)
    cleared = false
  }

  private func draw(_ cell: Cell, x: Int, y: Int) {
    var attrs = riffle_nc_a_normal()
    if cell.style.bold { attrs |= riffle_nc_a_bold() }
    if cell.style.dim { attrs |= riffle_nc_a_dim() }
    if cell.style.reverse { attrs |= riffle_nc_a_reverse() }
    if cell.style.underline { attrs |= riffle_nc_a_underline() }
    let pair = pairNumber(
      fg: colorNumber(cell.style.foreground), bg: colorNumber(cell.style.background))
    var chars: [wchar_t] = cell.text.unicodeScalars.prefix(5).map { wchar_t(bitPattern: $0.value) }
    if chars.isEmpty { chars = [wchar_t(32)] }
    chars.append(0)
    _ = riffle_nc_put_cell(Int32(y), Int32(x), chars, attrs, pair)
  }

  private func pairNumber(fg: Int32, bg: Int32) -> Int32 {
    if fg == -1 && bg == -1 { return 0 }
    let key = PairKey(fg: fg, bg: bg)
    if let pair = pairs[key] { return pair }
    // alloc_pair reuses the least recently used pair when the table is full.
    let pair = alloc_pair(fg, bg)
    let result = pair < 0 ? 0 : pair
    pairs[key] = result
    return result
  }

  /// Maps a colour to the terminal's: direct RGB, the 256-colour cube, or the 8 basic colours.
  private func colorNumber(_ color: Color) -> Int32 {
    switch color {
    case .default: return -1
    case .palette(let index):
      // In direct colour only 0...7 are palette entries; the rest are RGB values.
      if colorCount >= 0x1000000 && index >= 8 {
        let (r, g, b) = Palette.rgb(of: index)
        let value = Int32(r) << 16 | Int32(g) << 8 | Int32(b)
        return value < 8 ? 8 : value
      }
      if Int(index) < colorCount { return Int32(index) }
      return Int32(Palette.nearestBasic(Palette.rgb(of: index)))
    case .rgb(let r, let g, let b):
      if colorCount >= 0x1000000 {
        let value = Int32(r) << 16 | Int32(g) << 8 | Int32(b)
        return value < 8 ? 8 : value  // 0...7 are palette entries in direct mode
      }
      if colorCount >= 256 { return Int32(Palette.nearest256(r, g, b)) }
      return Int32(Palette.nearestBasic((r, g, b)) % max(colorCount, 1))
    }
  }

  /// How long a read that ends inside an escape sequence waits for its next piece, in ms.
  static let sequenceWait: Int32 = 100
  /// How long it waits for the rest of one sequence in all, however its pieces come, in ms.
  static let sequenceWaitInAll: TimeInterval = 0.5

  public func readKeys() -> [Key] {
    var keys: [Key] = []
    var code: wint_t = 0
    var giveUp: Date?
    while keys.count < 1024 {
      let result = riffle_nc_get_wch(&code)
      if result == ERR {
        // A sequence cut off by the end of what has arrived: wait a moment for the next piece,
        // which may come a byte at a time (ncurses' own escape delay covers only the sequences
        // its terminfo names). The wait is per piece: a loaded machine or a slow link spaces
        // the pieces out, and their gaps add up.
        guard EscapeDecoder.endsInsideSequence(keys) else { break }
        let end = giveUp ?? Date().addingTimeInterval(Self.sequenceWaitInAll)
        giveUp = end
        let left = min(Self.sequenceWait, Int32((end.timeIntervalSinceNow * 1000).rounded(.up)))
        var input = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard left > 0, poll(&input, 1, left) > 0 else { break }
        continue
      }
      if result == riffle_nc_key_code_yes() {
        keys.append(Self.key(forCode: Int32(code)))
      } else {
        keys.append(Self.key(forChar: UInt32(code)))
      }
    }
    if passthrough != nil, !keys.isEmpty {
      keys = takeFocusReports(keys)
      // Read, and used here: still not an empty read (which means the terminal is gone).
      if keys.isEmpty { return [.unknown(Self.usedReport)] }
    }
    return EscapeDecoder.decode(keys)
  }

  /// The key handed on for input the terminal used itself (a focus report): bound to nothing.
  static let usedReport = -1

  /// Takes tmux's focus reports out of the keys and acts on them: the picture off the screen
  /// when the pane loses focus (tmux draws another pane or window over it), back on when it
  /// regains it (after tmux has drawn the pane's cells again).
  private func takeFocusReports(_ keys: [Key]) -> [Key] {
    var kept: [Key] = []
    var i = 0
    while i < keys.count {
      if keys[i] == .escape, i + 2 < keys.count, keys[i + 1] == .char("["),
        keys[i + 2] == .char("I") || keys[i + 2] == .char("O")
      {
        focusChanged(to: keys[i + 2] == .char("I"))
        i += 3
        continue
      }
      kept.append(keys[i])
      i += 1
    }
    return kept
  }

  /// Focus moves with a pane split in the same window too, where the picture stays in view:
  /// tmux is asked whether the pane is still shown (its report, else the focus, decides).
  private func focusChanged(to focused: Bool) {
    guard active else { return }
    let now = askTmux()
    if let now, now.allowed { passthrough = now }
    let onScreen = now?.paneShown ?? focused
    guard onScreen == hidden else { return }
    hidden = !onScreen
    let picture = shown?.picture
    if onScreen {
      showPicture(picture, again: true)
    } else {
      // kitty: the placement removed (the image stays for later). Sixel: tmux paints over it;
      // it is drawn again on return. tmux drops what a pane it no longer shows writes, so the
      // removal goes to the client's terminal too.
      if pictures == .kitty, let old = placedPicture {
        passthrough?.writeToClient(KittyGraphics.removePlacement(id: old.id))
      }
      showPicture(nil, again: false)
    }
  }

  static func key(forCode code: Int32) -> Key {
    switch code {
    case KEY_LEFT: return .left
    case KEY_RIGHT: return .right
    case KEY_UP: return .up
    case KEY_DOWN: return .down
    case KEY_SLEFT: return .shiftLeft
    case KEY_SRIGHT: return .shiftRight
    case KEY_HOME: return .home
    case KEY_END: return .end
    case KEY_PPAGE: return .pageUp
    case KEY_NPAGE: return .pageDown
    case KEY_ENTER: return .enter
    case KEY_BACKSPACE: return .backspace
    case KEY_RESIZE: return .resize
    // xterm's terminfo names the SGR mouse prefix "ESC [ <" as kmous; ncurses then hands it
    // over as KEY_MOUSE and the rest of the report as characters.
    case KEY_MOUSE: return .mousePrefix
    case KEY_F0...(KEY_F0 + 63): return .function(Int(code - KEY_F0))
    default: return .unknown(Int(code))
    }
  }

  static func key(forChar value: UInt32) -> Key {
    switch value {
    case 13, 10: return .enter
    case 27: return .escape
    case 9: return .tab
    case 127, 8: return .backspace
    default:
      guard let scalar = Unicode.Scalar(value) else { return .unknown(Int(value)) }
      return .char(Character(scalar))
    }
  }

  public func restore() {
    guard active else { return }
    active = false
    forgetPictures()
    if pictures != .symbols {
      FileHandle.standardError.write(
        Data("pictures: \(picturesSent) sent, \(pictureBytes) bytes\n".utf8))
    }
    Self.writeOut("\u{1B}[?1006l\u{1B}[?1002l\u{1B}[?1000l")
    if passthrough != nil { Self.writeOut("\u{1B}[?1004l") }
    curs_set(1)
    endwin()
  }
}

/// A terminal failure at start-up.
public struct TerminalError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
