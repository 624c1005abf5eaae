import Foundation
import RiffleCore

/// Draws the player: one song as a full page, with the overlay, status line and help.
public struct PageView {
  public var theme: Theme
  /// Rows of the band at the bottom of the page (title to key hints).
  public static let bandHeight = 7
  /// How much a cover darkens under the band (0 none, 1 black); callers that cache cover
  /// cells apply it once (see `CoverArt.darkened`).
  public static let bandDarkening = 0.65

  /// Smallest size the page is drawn at; below it a notice says the terminal is too small.
  public static let minimumSize = (width: 30, height: 8)

  /// The bindings the help lists.
  public var keyMap: KeyMap {
    didSet { hintLines = HintLines() }
  }
  /// The hint line for the last width: made from the key map on every frame it cost a tenth
  /// of the visualizer's 30 frames a second.
  private var hintLines = HintLines()

  public init(theme: Theme = .standard, keyMap: KeyMap = .standard) {
    self.theme = theme
    self.keyMap = keyMap
  }

  /// The key hints fitting a width, kept for the last width asked.
  private final class HintLines: @unchecked Sendable {
    private let lock = NSLock()
    private var width = -1
    private var line = ""

    func line(fitting width: Int, _ make: (Int) -> String) -> String {
      lock.lock()
      defer { lock.unlock() }
      if width != self.width {
        line = make(width)
        self.width = width
      }
      return line
    }
  }

  /// Draws the page. `art` gives a song's cover as cells the size of the screen, when it is
  /// ready; until then a gradient in the song's colour stands in.
  /// `spectrum` (levels 0...1, low to high) is drawn as bars above the band.
  public func render(
    _ state: PlayerState, motion: PageMotion = PageMotion(), width: Int, height: Int,
    spectrum: [Double]? = nil, art: (Song) -> CoverCells? = { _ in nil }
  ) -> Screen {
    // While the prompt previews the library's results, they are the pages drawn, over the
    // cover of the song playing: a key changes the page's text, not every cell of the screen
    // (and asks for no cover), so its frame is small.
    let playing = state.currentSong
    let previewing = state.overlay == .search && state.preview?.songs.isEmpty == false
    let state = state.shown
    var screen = Screen(width: width, height: height)
    guard width >= Self.minimumSize.width, height >= Self.minimumSize.height else {
      drawTooSmall(&screen)
      return screen
    }
    if let song = state.currentSong {
      let behind = previewing ? playing ?? song : song
      let cover = art(behind)
      let fade = motion.fadeProgress(for: behind.id)
      // A picture shows only when the page stands still with nothing over it: slides and
      // fades move the cells (the picture would be a cut), and overlays darken what is behind
      // them, which cells can and a picture under them cannot.
      let still =
        motion.slide == nil && fade >= 1 && state.overlay == nil && state.identify == nil
      // Bars can be drawn over a picture under the cells, not under one drawn over them.
      if still, let picture = cover?.picture, picture.columns == width, picture.row >= 0,
        picture.rows > 0, picture.row + picture.rows <= height,
        spectrum == nil || picture.underCells
      {
        // A picture under the cells (kitty) shows through blanks with the terminal's own
        // background; one drawn over them (sixel) keeps the cover's cells beneath.
        if !picture.underCells || picture.rows < height {
          drawBackground(&screen, for: behind, art: cover, fade: fade)
        }
        if picture.underCells {
          screen.fill(x: 0, y: picture.row, width: width, height: picture.rows, style: .plain)
        }
        screen.picture = picture
      } else {
        drawBackground(&screen, for: behind, art: cover, fade: fade)
      }
      drawPage(&screen, song: song, state: state, overArt: cover != nil)
      if let spectrum { drawSpectrum(&screen, spectrum) }
      if let slide = motion.slide, state.songs.indices.contains(slide.from) {
        // The page slides in over the one it replaces, which is drawn as it was left.
        var before = state
        before.index = slide.from
        before.playback = .idle
        before.message = nil
        var old = Screen(width: width, height: height)
        let oldCover = art(state.songs[slide.from])
        drawBackground(&old, for: state.songs[slide.from], art: oldCover, fade: 1)
        drawPage(&old, song: state.songs[slide.from], state: before, overArt: oldCover != nil)
        screen = Screen.sliding(
          from: old, to: screen, progress: slide.progress, direction: slide.direction)
      }
    } else {
      drawEmpty(&screen, state: state)
    }
    if state.overlay == .lyrics {
      LyricsView(theme: theme, retryKey: keyMap.names(for: .retry).first)
        .draw(&screen, state: state)
    }
    if let identify = state.identify { drawListening(&screen, identify) }
    if state.overlay == .help { drawHelp(&screen) }
    if state.overlay == .search, let prompt = state.search {
      drawSearch(&screen, prompt: prompt, preview: state.preview, home: state.homeSearchTarget)
    }
    if state.overlay == .artistChoice, let choice = state.artistChoice {
      drawArtistChoice(&screen, choice)
    }
    return screen
  }

  /// Bars the spectrum has at a width: one every two columns within the margins.
  public static func spectrumBands(_ width: Int) -> Int {
    max(0, (width - 2 * (width >= 60 ? 4 : 2)) / 2)
  }

  /// The spectrum as bars in eighths of a cell, standing on the band, up to the header.
  ///
  /// Behind them each row of the cover becomes one colour, its average: the cover blurred to
  /// horizontal bands. Every cell of a row then has the same colours (the bars' accent on the
  /// row's colour), so a frame sends the terminal one colour change per row instead of one per
  /// changed cell (the cover's colours differ from cell to cell, and a true-colour change is
  /// some 40 bytes): that was most of the visualizer's cost. Rows with no colour of their own
  /// (a kitty picture shows through them) are left as they are.
  private func drawSpectrum(_ screen: inout Screen, _ levels: [Double]) {
    let w = screen.width
    let h = screen.height
    guard let layout = PageLayout.make(width: w, height: h, state: PlayerState()) else { return }
    let top = 2
    let rows = layout.bandTop - top
    guard rows > 0, !levels.isEmpty else { return }
    let margin = w >= 60 ? 4 : 2
    for y in top..<layout.bandTop {
      guard let colour = Self.averageBackground(screen, y: y, from: margin, to: w - margin) else {
        continue
      }
      for x in margin..<(w - margin) {
        screen[x, y] = Cell(" ", style: CellStyle(foreground: theme.accent, background: colour))
      }
    }
    let eighths = ["", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    for (band, level) in levels.enumerated() {
      let x = margin + 2 * band
      guard x < w - margin else { break }
      var height = Int((min(1, max(0, level)) * Double(rows * 8)).rounded())
      var y = layout.bandTop - 1
      while height > 0, y >= top {
        var cell = screen[x, y]
        cell.text = eighths[min(8, height)]
        cell.style.foreground = theme.accent
        screen[x, y] = cell
        height -= 8
        y -= 1
      }
    }
  }

  /// The average of the backgrounds in columns `from..<to` of row `y`; nil when one of them is
  /// the terminal's own (nothing to average: a picture or the default shows there).
  static func averageBackground(_ screen: Screen, y: Int, from: Int, to: Int) -> Color? {
    guard from < to else { return nil }
    var sum = (r: 0, g: 0, b: 0)
    for x in from..<to {
      let rgb: (UInt8, UInt8, UInt8)
      switch screen[x, y].style.background {
      case .default: return nil
      case .palette(let index): rgb = Palette.rgb(of: index)
      case .rgb(let r, let g, let b): rgb = (r, g, b)
      }
      sum.r += Int(rgb.0)
      sum.g += Int(rgb.1)
      sum.b += Int(rgb.2)
    }
    let n = to - from
    return .rgb(UInt8(sum.r / n), UInt8(sum.g / n), UInt8(sum.b / n))
  }

  /// The artists a name matched: one row each (name, genre), the one under the cursor marked.
  private func drawArtistChoice(_ screen: inout Screen, _ choice: ArtistChoice) {
    let boxWidth = min(screen.width - 2, 56)
    let boxHeight = min(screen.height, choice.matches.count + 5)
    let x = (screen.width - boxWidth) / 2
    let y = max(0, min(screen.height / 5, screen.height - boxHeight))
    let box = CellStyle(foreground: theme.text, background: .rgb(30, 30, 40))
    screen.fill(x: x, y: y, width: boxWidth, height: boxHeight, style: box)
    var label = box
    label.bold = true
    label.foreground = theme.accent
    screen.put(
      "Which \u{201C}\(choice.name)\u{201D}?", x: x + 2, y: y + 1, style: label,
      maxWidth: boxWidth - 4)
    let rows = max(0, boxHeight - 5)
    // Keep the cursor's row in view when the list is taller than the box.
    let first = min(max(0, choice.selected - rows + 1), max(0, choice.matches.count - rows))
    var muted = box
    muted.foreground = theme.muted
    for (row, index) in (first..<min(choice.matches.count, first + rows)).enumerated() {
      let match = choice.matches[index]
      let selected = index == choice.selected
      var style = box
      if selected {
        style.foreground = theme.accent
        style.bold = true
      }
      let rowY = y + 2 + row
      screen.put(selected ? "\u{25B8} " : "  ", x: x + 2, y: rowY, style: style)
      let nameWidth = max(1, boxWidth - 8 - 18)
      screen.put(match.name, x: x + 4, y: rowY, style: style, maxWidth: nameWidth)
      screen.put(
        match.genre, x: x + 4 + nameWidth + 2, y: rowY, style: selected ? style : muted,
        maxWidth: 16)
    }
    if boxHeight >= 5 {
      screen.put(
        "Enter choose  \u{2191}/\u{2193} move  Esc cancel", x: x + 2, y: y + boxHeight - 2,
        style: muted, maxWidth: boxWidth - 4)
    }
  }

  /// The listening indicator for `i`: what it is doing, the input level and the time heard.
  private func drawListening(_ screen: inout Screen, _ identify: PlayerState.Identify) {
    guard case .listening(let level, let seconds) = identify else { return }
    let boxWidth = min(screen.width - 2, 36)
    let x = (screen.width - boxWidth) / 2
    let y = max(0, (screen.height - 5) / 2)
    let box = CellStyle(foreground: theme.text, background: .rgb(30, 30, 40))
    screen.fill(x: x, y: y, width: boxWidth, height: 5, style: box)
    var title = box
    title.bold = true
    let heard = min(Int(seconds), Int(PlayerState.listenSeconds))
    screen.putCentered(
      "● Listening… \(heard) s / \(Int(PlayerState.listenSeconds)) s", x: x, y: y + 1,
      width: boxWidth, style: title)
    let meterWidth = max(4, boxWidth - 6)
    let filled = Int((level * Double(meterWidth)).rounded())
    var meter = box
    meter.foreground = theme.accent
    screen.put(
      String(repeating: "█", count: filled), x: x + 3, y: y + 2, style: meter,
      maxWidth: meterWidth)
    var empty = box
    empty.foreground = theme.muted
    screen.put(
      String(repeating: "░", count: meterWidth - filled), x: x + 3 + filled, y: y + 2,
      style: empty, maxWidth: meterWidth - filled)
    let stopKey = keyMap.names(for: .identify).first ?? "i"
    screen.putCentered("\(stopKey) stops", x: x, y: y + 3, width: boxWidth, style: empty)
  }

  // MARK: - Pieces

  private func drawTooSmall(_ screen: inout Screen) {
    guard screen.height > 0 else { return }
    let style = CellStyle(foreground: theme.error, bold: true)
    let y = screen.height / 2
    screen.putCentered("Terminal too small", y: y, style: style)
    if screen.height > 1 {
      let need = "need \(Self.minimumSize.width)x\(Self.minimumSize.height)"
      screen.putCentered(
        need, y: min(screen.height - 1, y + 1), style: CellStyle(foreground: theme.muted))
    }
  }

  /// The cover fills the page (darker at the bottom, where the band goes); until it is here,
  /// or when it cannot be had, a gradient in the song's own colour stands in.
  private func drawBackground(
    _ screen: inout Screen, for song: Song, art: CoverCells?, fade: Double
  ) {
    if let art, art.width == screen.width, art.height == screen.height {
      // The band rows come darkened already (see `bandDarkening`); only a fade costs here.
      let cells = fade < 1 ? CoverArt.darkened(art, by: 1 - fade, rows: 0..<screen.height) : art
      // One copy of the whole grid: this runs on every frame of an animation or the visualizer.
      screen.replaceCells(with: cells.cells)
      return
    }
    let (r, g, b) = Self.colour(for: song.id)
    for y in 0..<screen.height {
      let t = Double(y) / Double(max(1, screen.height - 1))
      let k = 0.55 * (1 - t) + 0.12
      let style = CellStyle(
        background: .rgb(UInt8(Double(r) * k), UInt8(Double(g) * k), UInt8(Double(b) * k)))
      screen.fill(x: 0, y: y, width: screen.width, height: 1, style: style)
    }
  }

  private func drawPage(
    _ screen: inout Screen, song: Song, state: PlayerState, overArt: Bool = false
  ) {
    let w = screen.width
    let h = screen.height
    let margin = w >= 60 ? 4 : 2
    let inner = w - 2 * margin
    let header = CellStyle(foreground: theme.text, background: headerBackground(screen), bold: true)
    let position = "\(state.index + 1) / \(state.songs.count)"
    let positionWidth = DisplayWidth.of(position)
    // The source's name beside the app's, where the source has one ("Results for “blue”").
    let heading = state.source?.title.map { "Riffle \u{00B7} \($0)" } ?? "Riffle"
    screen.put(heading, x: margin, y: 0, style: header, maxWidth: max(6, inner - positionWidth - 2))
    screen.put(position, x: w - margin - positionWidth, y: 0, style: header)

    guard let layout = PageLayout.make(width: w, height: h, state: state) else { return }
    // The darkened band keeps the text readable on any cover: over art, the art's own
    // darkened colours show through behind the text; without art, the theme's band colour.
    let bandTop = layout.bandTop
    let under =
      overArt ? (bandTop..<h).map { y in (0..<w).map { x in screen[x, y].style.background } } : []
    let band = CellStyle(background: theme.band)
    screen.fill(x: 0, y: bandTop, width: w, height: h - bandTop, style: band)
    defer {
      if overArt {
        for y in bandTop..<h {
          for x in 0..<w where screen[x, y].style.background == theme.band {
            var cell = screen[x, y]
            cell.style.background = under[y - bandTop][x]
            screen[x, y] = cell
          }
        }
      }
    }
    let text = CellStyle(foreground: theme.text, background: theme.band)
    let muted = CellStyle(foreground: theme.muted, background: theme.band)

    let title = song.title.isEmpty ? "Untitled" : song.title
    var titleStyle = text
    titleStyle.bold = true
    screen.put(title, x: margin, y: layout.titleRow, style: titleStyle, maxWidth: inner)

    let artist = song.displayName.isEmpty ? "Unknown artist" : song.displayName
    let used = screen.put(artist, x: margin, y: layout.artistRow, style: text, maxWidth: inner)
    // The @handle where the source has one (the feed), else the album (iTunes), else the day
    // it was published (a podcast episode).
    let aside =
      !song.handle.isEmpty
      ? " @" + song.handle
      : (song.album ?? song.released.map { formatDay(secondsSince1970: $0.timeIntervalSince1970) })
        .map { " \u{00B7} " + $0 } ?? ""
    if !aside.isEmpty && used + 3 < inner {
      screen.put(
        aside, x: margin + used, y: layout.artistRow, style: muted, maxWidth: inner - used)
    }

    let likeWidth = drawLike(
      &screen, song: song, pulse: state.likePulse, x: margin, y: layout.likeRow)
    drawSession(
      &screen, state: state, from: margin + likeWidth + 2, to: margin + inner, y: layout.likeRow)
    drawProgress(&screen, state: state, layout: layout)
    drawControls(&screen, state: state, layout: layout)
    drawStatus(&screen, state: state, x: margin, y: layout.statusRow, width: inner)
    screen.put(
      hintLines.line(fitting: inner) { keyMap.hints(fitting: $0) }, x: margin, y: layout.hintsRow,
      style: muted, maxWidth: inner)
  }

  private func headerBackground(_ screen: Screen) -> Color {
    screen.height > 0 && screen.width > 0 ? screen[0, 0].style.background : .default
  }

  /// Right of the heart: shuffle and repeat when on, and the song up next when one is queued.
  private func drawSession(
    _ screen: inout Screen, state: PlayerState, from left: Int, to right: Int, y: Int
  ) {
    var marks: [String] = []
    if state.shuffle { marks.append("\u{2928} shuffle") }
    switch state.repeatMode {
    case .off: break
    case .all: marks.append("\u{21BB} all")
    case .one: marks.append("\u{21BB} one")
    }
    // The next page is a swipe away; a song from up next is what would surprise.
    if state.source?.kind != .queue, let next = state.queue.first {
      let title = next.title.isEmpty ? "Untitled" : next.title
      marks.append("Up next: " + title)
    }
    guard !marks.isEmpty, right - left > 8 else { return }
    let text = marks.joined(separator: "  ")
    let style = CellStyle(foreground: theme.muted, background: theme.band)
    let width = min(DisplayWidth.of(text), right - left)
    screen.put(text, x: right - width, y: y, style: style, maxWidth: width)
  }

  /// Draws the heart and the count; returns the columns used.
  @discardableResult
  private func drawLike(_ screen: inout Screen, song: Song, pulse: Int, x: Int, y: Int) -> Int {
    let heart = song.isLiked ? "♥" : "♡"
    var style = CellStyle(
      foreground: song.isLiked ? theme.accent : theme.muted, background: theme.band)
    style.bold = song.isLiked || pulse > 0
    // The pop: the heart swells with a spark for the first frames, then settles.
    let shown = pulse > PlayerState.likePulseFrames / 2 ? "\(heart)\(heart)" : heart
    let used = screen.put(shown, x: x, y: y, style: style)
    let count = " " + Self.grouped(song.likeCount) + (song.isLiked ? " liked" : "")
    screen.put(
      count, x: x + used, y: y, style: CellStyle(foreground: theme.text, background: theme.band))
    if pulse > 0 {
      let spark = pulse % 2 == 0 ? " ✦" : " ✧"
      screen.put(
        spark, x: x + used + DisplayWidth.of(count), y: y,
        style: CellStyle(foreground: theme.accent, background: theme.band))
    }
    return used + DisplayWidth.of(count) + 2
  }

  private func drawProgress(_ screen: inout Screen, state: PlayerState, layout: PageLayout) {
    let y = layout.progressRow
    // A live station: the time listened (across pauses and reconnections) and LIVE.
    let live = state.live.flatMap { $0.songID == state.currentSong?.id ? $0 : nil }
    let elapsed = formatTime(state.position + (live?.heardBefore ?? 0))
    let total = live != nil ? "LIVE" : state.duration.map(formatTime) ?? "-:--"
    let labels = CellStyle(foreground: theme.muted, background: theme.band)
    screen.put(elapsed, x: layout.margin, y: y, style: labels)
    screen.put(total, x: layout.margin + layout.inner - DisplayWidth.of(total), y: y, style: labels)
    let bar = layout.progressBar
    guard bar.count > 2 else { return }
    if let live {
      // The live edge: a full bar while the stream plays, an empty track while it does not.
      let on = live.phase == .playing && state.playback == .playing
      let style = CellStyle(
        foreground: on ? theme.progress : theme.progressTrack, background: theme.band)
      screen.put(
        String(repeating: on ? "━" : "─", count: bar.count - 1), x: bar.lowerBound, y: y,
        style: style)
      screen.put(on ? "●" : "○", x: bar.upperBound - 1, y: y, style: style)
      return
    }
    let fraction: Double = {
      guard let d = state.duration, d > 0 else { return 0 }
      return min(1, max(0, state.position / d))
    }()
    let filled = Int((Double(bar.count - 1) * fraction).rounded(.down))
    let done = CellStyle(foreground: theme.progress, background: theme.band)
    let track = CellStyle(foreground: theme.progressTrack, background: theme.band)
    screen.put(String(repeating: "━", count: filled), x: bar.lowerBound, y: y, style: done)
    screen.put("●", x: bar.lowerBound + filled, y: y, style: done)
    screen.put(
      String(repeating: "─", count: bar.count - filled - 1), x: bar.lowerBound + filled + 1, y: y,
      style: track)
  }

  private func drawControls(_ screen: inout Screen, state: PlayerState, layout: PageLayout) {
    let on = CellStyle(foreground: theme.text, background: theme.band, bold: true)
    let off = CellStyle(foreground: theme.progressTrack, background: theme.band, dim: true)
    let y = layout.controlsRow
    let labels = layout.labels
    screen.put(
      labels.previous, x: layout.previous.lowerBound, y: y,
      style: state.canGoPrevious ? on : off)
    screen.put(labels.playPause, x: layout.playPause.lowerBound, y: y, style: on)
    screen.put(labels.next, x: layout.next.lowerBound, y: y, style: state.canGoNext ? on : off)
  }

  private func drawStatus(_ screen: inout Screen, state: PlayerState, x: Int, y: Int, width: Int) {
    let spinner = Self.spinnerFrames[state.frame % Self.spinnerFrames.count]
    var line: String
    var style = CellStyle(foreground: theme.muted, background: theme.band)
    switch state.playback {
    case .loading: line = "\(spinner) \(state.live?.note ?? "Loading…")"
    case .buffering: line = "\(spinner) \(state.live?.note ?? "Buffering…")"
    case .paused: line = "Paused"
    case .finished: line = state.source?.kind.endNote ?? "End of the feed"
    case .failed: line = "Cannot play this song"
    case .playing, .idle: line = ""
    }
    if let opening = state.opening, opening.phase == .loading {
      // A source on its way (a search, an artist's songs): its activity shows until its first
      // page replaces the pages.
      line = "\(spinner) \(opening.kind.activity)"
    }
    if let notice = state.notice {
      line = notice
      style.foreground = theme.error
    } else if let flash = state.flash {
      line = flash.text
      style.foreground = theme.text
    } else if let message = state.message {
      // An error says everything itself; information rides beside the playback state.
      if message.kind == .error {
        line = message.text
        style.foreground = theme.error
      } else {
        line = line.isEmpty ? message.text : "\(line) · \(message.text)"
      }
    }
    screen.put(line, x: x, y: y, style: style, maxWidth: width)
  }

  private func drawEmpty(_ screen: inout Screen, state: PlayerState) {
    let y = screen.height / 2 - 1
    let spinner = Self.spinnerFrames[state.frame % Self.spinnerFrames.count]
    let muted = CellStyle(foreground: theme.muted)
    screen.putCentered(
      "Riffle", y: max(0, y - 2), style: CellStyle(foreground: theme.text, bold: true))
    if let failure = state.opening?.failure {
      // The message says the reason and, while retrying, when the next try comes.
      screen.putCentered(
        state.message?.text ?? failure, y: y, style: CellStyle(foreground: theme.error))
    } else if state.opening != nil || state.source == nil {
      let activity = state.opening?.kind.activity ?? "Loading songs…"
      screen.putCentered("\(spinner) \(activity)", y: y, style: muted)
    } else {
      screen.putCentered(state.message?.text ?? "No songs", y: y, style: muted)
    }
    if let notice = state.notice {
      screen.putCentered(
        notice, y: min(screen.height - 2, y + 2), style: CellStyle(foreground: theme.error))
    }
    screen.putCentered("q quit", y: screen.height - 1, style: muted)
  }

  /// Width of a column of the help: the keys (10), a space, what they do (24).
  static let helpColumnWidth = 35

  private func drawHelp(_ screen: inout Screen) {
    // The help lists the keys as bound now, so a rebinding in config.toml shows here too. Two
    // columns where they fit, so the box leaves the page's band (the clock) in view.
    let allRows = keyMap.helpRows()
    let columnWidth = Self.helpColumnWidth
    let columns = screen.width >= 2 * columnWidth + 8 ? 2 : 1
    let boxWidth = min(screen.width - 2, columns * (columnWidth + 1) + 5)
    let perColumn = (allRows.count + columns - 1) / columns
    // A blank row under the keys where it still fits above the band.
    let spare = screen.height - PageView.bandHeight - (perColumn + 4) >= 1 ? 1 : 0
    let boxHeight = min(screen.height - 2, perColumn + 3 + spare)
    let x = (screen.width - boxWidth) / 2
    // Below the header where there is room, so the page's counter stays in view.
    let above = screen.height - PageView.bandHeight - boxHeight
    let y = above > 0 ? max(1, above / 2) : 0
    // When not every key fits, the last line that does says how to quit.
    var rows = allRows
    let room = max(0, boxHeight - 3 - spare) * columns
    if room < rows.count, room > 0 {
      rows = Array(rows.prefix(room - 1)) + [allRows.last!]
    }
    let box = CellStyle(foreground: theme.text, background: .rgb(30, 30, 40))
    screen.fill(x: x, y: y, width: boxWidth, height: boxHeight, style: box)
    var title = box
    title.bold = true
    screen.putCentered("Keys", x: x, y: y + 1, width: boxWidth, style: title)
    var keyStyle = box
    keyStyle.foreground = theme.accent
    let lines = max(1, boxHeight - 3 - spare)
    for (i, row) in rows.enumerated() {
      let column = i / lines
      let left = x + 3 + column * (columnWidth + 1)
      let textWidth = min(columnWidth - 11, x + boxWidth - 2 - (left + 11))
      screen.put(row.keys, x: left, y: y + 3 + i % lines, style: keyStyle, maxWidth: 10)
      screen.put(row.text, x: left + 11, y: y + 3 + i % lines, style: box, maxWidth: textWidth)
    }
  }

  /// The search prompt: a box across the upper part of the page with the line being typed.
  private func drawSearch(
    _ screen: inout Screen, prompt: SearchPrompt, preview: SearchPreview?, home: SearchTarget?
  ) {
    let boxWidth = min(screen.width - 2, 64)
    let boxHeight = min(5, screen.height)
    let x = (screen.width - boxWidth) / 2
    let y = max(0, min(screen.height / 4, screen.height - boxHeight))
    let box = CellStyle(foreground: theme.text, background: .rgb(30, 30, 40))
    screen.fill(x: x, y: y, width: boxWidth, height: boxHeight, style: box)
    var label = box
    label.bold = true
    label.foreground = theme.accent
    let lineY = y + (boxHeight >= 5 ? 2 : boxHeight / 2)
    let heading: String
    switch prompt.target {
    case .library: heading = "Search your library"
    case .server(let name): heading = "Search \(TextSanitizer.sanitize(name))"
    case .itunes: heading = "Search iTunes"
    }
    if boxHeight >= 5 {
      let end = screen.put(heading, x: x + 2, y: y + 1, style: label) + x + 2
      // How many songs the library answers for the line, as you type.
      var count = box
      count.foreground = preview?.failure == nil ? theme.muted : theme.error
      screen.put(
        Self.previewNote(preview), x: end + 2, y: y + 1, style: count,
        maxWidth: max(0, x + boxWidth - 2 - (end + 2)))
    }
    let field = SearchField.layout(prompt, width: max(1, boxWidth - 6))
    let fieldStart = screen.put("/ ", x: x + 2, y: lineY, style: label) + x + 2
    screen.put(field.text, x: fieldStart, y: lineY, style: box, maxWidth: boxWidth - 6)
    // The cursor is drawn as a block in the line's colours reversed.
    let cursorX = fieldStart + field.cursorColumn
    if cursorX < x + boxWidth - 1 {
      var cell = screen[cursorX, lineY]
      if field.cursorColumn >= DisplayWidth.of(field.text) { cell.text = " " }
      cell.style = CellStyle(foreground: box.background, background: theme.text)
      screen[cursorX, lineY] = cell
    }
    if boxHeight >= 5 {
      var hint = box
      hint.foreground = theme.muted
      screen.put(
        Self.searchHint(prompt.target, home: home),
        x: x + 2, y: y + 3, style: hint,
        maxWidth: boxWidth - 4)
    }
  }

  /// The keys under the search prompt's line, naming what Tab switches to.
  static func searchHint(_ target: SearchTarget, home: SearchTarget?) -> String {
    switch target {
    case .library: return "Enter play  Tab iTunes  Esc cancel  ↑/↓ earlier"
    case .server: return "Enter search  Tab iTunes  Esc cancel  ↑/↓ earlier"
    case .itunes:
      if case .server(let name) = home {
        return "Enter search  Tab \(TextSanitizer.sanitize(name))  Esc cancel  ↑/↓ earlier"
      }
      return "Enter search  Tab your library  Esc cancel  ↑/↓ earlier"
    }
  }

  /// The count beside the prompt's heading: what the library answered for the line.
  static func previewNote(_ preview: SearchPreview?) -> String {
    guard let preview else { return "" }
    if let failure = preview.failure { return failure }
    switch preview.songs.count {
    case 0: return "no song matches"
    case 1: return "1 song"
    default: return "\(preview.songs.count)\(preview.next == nil ? "" : "+") songs"
    }
  }

  static let spinnerFrames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

  /// A stable, pleasant colour for a song (FNV-1a of its id picks the hue).
  static func colour(for id: String) -> (UInt8, UInt8, UInt8) {
    var hash: UInt32 = 2_166_136_261
    for byte in id.utf8 {
      hash = (hash ^ UInt32(byte)) &* 16_777_619
    }
    let hue = Double(hash % 360) / 60
    let x = 1 - abs(hue.truncatingRemainder(dividingBy: 2) - 1)
    let (r, g, b): (Double, Double, Double)
    switch Int(hue) {
    case 0: (r, g, b) = (1, x, 0)
    case 1: (r, g, b) = (x, 1, 0)
    case 2: (r, g, b) = (0, 1, x)
    case 3: (r, g, b) = (0, x, 1)
    case 4: (r, g, b) = (x, 0, 1)
    default: (r, g, b) = (1, 0, x)
    }
    return (UInt8(60 + r * 195), UInt8(60 + g * 195), UInt8(60 + b * 195))
  }

  /// 1234567 -> "1,234,567".
  static func grouped(_ n: Int) -> String {
    let digits = String(abs(n))
    var out = ""
    for (i, ch) in digits.enumerated() {
      if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
      out.append(ch)
    }
    return n < 0 ? "-" + out : out
  }
}
