import RiffleCore

/// The lyrics of the current song, drawn over the page between the header and the band.
///
/// Synced lyrics keep the line being sung (from `PlayerState.position`) on the middle row, bold
/// in the accent colour, with the lines sung before it muted; so they follow seeks and stand
/// still while paused. Plain lyrics scroll with the keys. Loading, failure, an instrumental and
/// no lyrics at all are each said in words.
public struct LyricsView {
  public var theme: Theme
  /// The key names shown in "press r to try again".
  public var retryKey: String?

  public init(theme: Theme = .standard, retryKey: String? = "r") {
    self.theme = theme
    self.retryKey = retryKey
  }

  /// The rows the lyrics use at a size: from under the header to the band, or the whole
  /// screen when that leaves too little. Nil when no page is drawn at this size.
  public static func area(width: Int, height: Int) -> Range<Int>? {
    guard width >= PageView.minimumSize.width, height >= PageView.minimumSize.height else {
      return nil
    }
    let underHeader = 1..<(height - PageView.bandHeight)
    return underHeader.count >= 3 ? underHeader : 0..<height
  }

  /// The first line of plain lyrics shown: the scroll position, held back so the last page
  /// stays full.
  public static func firstLine(scroll: Int, lineCount: Int, rows: Int) -> Int {
    max(0, min(scroll, lineCount - rows))
  }

  /// Turns a scrolling key into the exact scroll it makes at this size: a page is the lyrics'
  /// height less one line, and nothing scrolls past the last full page (so no key press is
  /// spent going back from beyond the end). While no plain lyrics are shown a scrolling key
  /// means nothing and gives nil, like a key without a binding. Other actions pass through.
  public static func resolve(
    _ action: PlayerAction, state: PlayerState, width: Int, height: Int
  ) -> PlayerAction? {
    let delta: Int
    switch action {
    case .scrollLyrics(let lines): delta = lines
    case .pageLyrics(let pages):
      delta = pages * max(1, (area(width: width, height: height)?.count ?? 2) - 1)
    default: return action
    }
    guard state.overlay == .lyrics, let panel = state.lyrics,
      case .loaded(.plain(let lines)) = panel.phase,
      let rows = area(width: width, height: height)?.count
    else { return nil }
    let first = firstLine(scroll: panel.scroll, lineCount: lines.count, rows: rows)
    let target = min(max(0, first + delta), max(0, lines.count - rows))
    return .scrollLyrics(target - panel.scroll)
  }

  /// Draws the lyrics panel for the current song onto a drawn page.
  public func draw(_ screen: inout Screen, state: PlayerState) {
    guard let area = Self.area(width: screen.width, height: screen.height),
      let song = state.currentSong
    else { return }
    // The page shows through, darkened, where it has colour of its own.
    for y in area {
      for x in 0..<screen.width {
        var style = CellStyle(foreground: theme.text, background: theme.band)
        if case .rgb(let r, let g, let b) = screen[x, y].style.background {
          style.background = .rgb(r / 4, g / 4, b / 4)
        }
        screen[x, y] = Cell(" ", style: style)
      }
    }
    let margin = screen.width >= 60 ? 4 : 2
    let inner = screen.width - 2 * margin
    let middle = area.lowerBound + area.count / 2
    guard let panel = state.lyrics, panel.songID == song.id else {
      notice(&screen, "Loading lyrics…", y: middle, inner: inner, margin: margin)
      return
    }
    switch panel.phase {
    case .loading:
      let spinner = PageView.spinnerFrames[state.frame % PageView.spinnerFrames.count]
      notice(&screen, "\(spinner) Loading lyrics…", y: middle, inner: inner, margin: margin)
    case .failed(let reason):
      // A long reason wraps onto the rows below rather than losing its end.
      let lines = Self.wrap(TextSanitizer.sanitize(reason), width: inner)
      for (offset, line) in lines.enumerated() where area.contains(middle + offset) {
        notice(&screen, line, y: middle + offset, inner: inner, margin: margin, color: theme.error)
      }
      if let retryKey, middle + lines.count + 1 < area.upperBound {
        notice(
          &screen, "\(retryKey) tries again", y: middle + lines.count + 1, inner: inner,
          margin: margin)
      }
    case .loaded(.notFound):
      notice(&screen, "No lyrics found for this song", y: middle, inner: inner, margin: margin)
    case .loaded(.instrumental):
      notice(&screen, "♪ Instrumental ♪", y: middle, inner: inner, margin: margin)
    case .loaded(.synced(let lyrics)):
      drawSynced(&screen, lyrics, at: state.position, area: area, margin: margin)
    case .loaded(.plain(let lines)):
      drawPlain(&screen, lines, scroll: panel.scroll, area: area, margin: margin)
    }
  }

  private func drawSynced(
    _ screen: inout Screen, _ lyrics: SyncedLyrics, at time: Double, area: Range<Int>,
    margin: Int
  ) {
    let current = lyrics.currentIndex(at: time)
    // Before the first line, the first line waits on the middle row, not highlighted.
    let anchor = current ?? 0
    let middle = area.lowerBound + area.count / 2
    for (index, line) in lyrics.lines.enumerated() {
      let y = middle + index - anchor
      guard area.contains(y) else { continue }
      var style = CellStyle(foreground: theme.text)
      if index == current {
        style.foreground = theme.accent
        style.bold = true
      } else if index < anchor {
        style.foreground = theme.muted
      }
      write(&screen, line.text.isEmpty ? "♪" : line.text, y: y, margin: margin, style: style)
    }
  }

  private func drawPlain(
    _ screen: inout Screen, _ lines: [String], scroll: Int, area: Range<Int>, margin: Int
  ) {
    let rows = area.count
    let first = Self.firstLine(scroll: scroll, lineCount: lines.count, rows: rows)
    // Lyrics shorter than the panel sit in its middle.
    let top = area.lowerBound + max(0, (rows - lines.count) / 2)
    for (offset, line) in lines[first...].prefix(rows).enumerated() {
      let y = top + offset
      write(&screen, line, y: y, margin: margin, style: CellStyle(foreground: theme.text))
    }
    // Arrows in the right margin say there is more above or below.
    let x = screen.width - max(1, margin / 2) - 1
    let arrow = CellStyle(foreground: theme.muted)
    if first > 0 { write(&screen, "▲", x: x, y: area.lowerBound, margin: margin, style: arrow) }
    if first + rows < lines.count {
      write(&screen, "▼", x: x, y: area.upperBound - 1, margin: margin, style: arrow)
    }
  }

  /// Splits text into lines of at most `width` columns at spaces; a word longer than a line
  /// is left for `Screen.put` to cut.
  static func wrap(_ text: String, width: Int) -> [String] {
    guard width > 0 else { return [text] }
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      let candidate = line.isEmpty ? String(word) : line + " " + word
      if DisplayWidth.of(candidate) <= width || line.isEmpty {
        line = candidate
      } else {
        lines.append(line)
        line = String(word)
      }
    }
    return lines + [line]
  }

  private func notice(
    _ screen: inout Screen, _ text: String, y: Int, inner: Int, margin: Int, color: Color? = nil
  ) {
    write(&screen, text, y: y, margin: margin, style: CellStyle(foreground: color ?? theme.muted))
  }

  /// Writes text centred between the margins (or at `x`), leaving each cell's darkened
  /// background as it was, so the page keeps showing through behind the words.
  private func write(
    _ screen: inout Screen, _ text: String, x: Int? = nil, y: Int, margin: Int, style: CellStyle
  ) {
    let backgrounds = (0..<screen.width).map { screen[$0, y].style.background }
    if let x {
      screen.put(text, x: x, y: y, style: style)
    } else {
      screen.putCentered(text, x: margin, y: y, width: screen.width - 2 * margin, style: style)
    }
    for (column, background) in backgrounds.enumerated() {
      screen.restyle(x: column, y: y, width: 1) { $0.background = background }
    }
  }
}
