import RiffleCore

/// A colour as views ask for it; terminals map it to what they can show.
public enum Color: Hashable, Sendable {
  /// The terminal's own foreground or background.
  case `default`
  /// One of the 256 palette entries (0-15 are the terminal's theme colours).
  case palette(UInt8)
  case rgb(UInt8, UInt8, UInt8)
}

/// How a cell is drawn: colours and attributes.
public struct CellStyle: Hashable, Sendable {
  public var foreground: Color
  public var background: Color
  public var bold: Bool
  public var dim: Bool
  public var reverse: Bool
  public var underline: Bool

  public init(
    foreground: Color = .default, background: Color = .default, bold: Bool = false,
    dim: Bool = false, reverse: Bool = false, underline: Bool = false
  ) {
    self.foreground = foreground
    self.background = background
    self.bold = bold
    self.dim = dim
    self.reverse = reverse
    self.underline = underline
  }

  public static let plain = CellStyle()
}

/// One terminal cell: a character (as text, with any combining marks) and its style.
/// The cell right of a wide character holds `Cell.continuation`.
public struct Cell: Equatable, Sendable {
  public var text: String
  public var style: CellStyle

  public init(_ text: String = " ", style: CellStyle = .plain) {
    self.text = text
    self.style = style
  }

  /// Marks the second column of a wide character.
  public static let continuationText = ""
  public var isContinuation: Bool { text.isEmpty }
}

/// A grid of cells that views draw into and terminals show.
///
/// All text passes through `TextSanitizer` and is measured with `DisplayWidth`, so nothing a
/// server sends can reach the terminal as a control and wide characters keep the grid aligned.
public struct Screen: Equatable, Sendable {
  public let width: Int
  public let height: Int
  public private(set) var cells: [Cell]
  /// A picture under the cells, at the top left, where the terminal can show one: it shows
  /// through cells with the default background and is hidden by any other background.
  public var picture: CoverPicture?

  public init(width: Int, height: Int, fill: CellStyle = .plain) {
    self.width = max(0, width)
    self.height = max(0, height)
    cells = Array(repeating: Cell(" ", style: fill), count: self.width * self.height)
  }

  public subscript(x: Int, y: Int) -> Cell {
    get { cells[y * width + x] }
    set {
      guard x >= 0, y >= 0, x < width, y < height else { return }
      cells[y * width + x] = newValue
    }
  }

  /// Every cell at once, row by row (`cells.count` must be `width * height`).
  public mutating func replaceCells(with cells: [Cell]) {
    precondition(cells.count == self.cells.count)
    self.cells = cells
  }

  /// Fills a rectangle with blanks in a style (clipped to the screen).
  public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, style: CellStyle) {
    let x0 = max(0, x)
    let y0 = max(0, y)
    let x1 = min(width, x + w)
    let y1 = min(height, y + h)
    guard x0 < x1, y0 < y1 else { return }
    for row in y0..<y1 {
      // A wide character cut by either edge loses its other half too.
      clearWideNeighbours(col: x0, row: row, width: x1 - x0)
      for col in x0..<x1 { cells[row * width + col] = Cell(" ", style: style) }
    }
  }

  /// Sets the style of existing cells without changing their text (for highlights).
  public mutating func restyle(
    x: Int, y: Int, width w: Int, _ change: (inout CellStyle) -> Void
  ) {
    guard y >= 0, y < height else { return }
    for col in max(0, x)..<min(width, x + w) { change(&cells[y * width + col].style) }
  }

  /// Writes sanitized text at (x, y), at most `maxWidth` columns (cut with "…").
  /// Returns the columns used.
  @discardableResult
  public mutating func put(
    _ text: String, x: Int, y: Int, style: CellStyle, maxWidth: Int? = nil
  ) -> Int {
    guard y >= 0, y < height, x < width else { return 0 }
    let limit = min(maxWidth ?? Int.max, width - x)
    guard limit > 0 else { return 0 }
    let safe = DisplayWidth.truncate(TextSanitizer.sanitize(text), to: limit)
    var col = x
    for ch in safe {
      let w = DisplayWidth.of(ch)
      if w == 0 {
        // A lone combining mark or format character rides on the character before it (the
        // first half of a wide one, never its continuation cell).
        var base = col - 1
        if base >= 0, base < width, cells[y * width + base].isContinuation { base -= 1 }
        if col > x, base >= 0, base < width { cells[y * width + base].text.append(ch) }
        continue
      }
      if col + w > x + limit { break }
      if col >= 0 {
        // Overwriting half of a wide character leaves the other half blank.
        clearWideNeighbours(col: col, row: y, width: w)
        cells[y * width + col] = Cell(String(ch), style: style)
        if w == 2, col + 1 < width { cells[y * width + col + 1] = Cell("", style: style) }
      }
      col += w
    }
    return col - x
  }

  /// Writes text centred in a span of columns starting at `x`.
  @discardableResult
  public mutating func putCentered(
    _ text: String, x: Int = 0, y: Int, width span: Int? = nil, style: CellStyle
  ) -> Int {
    let span = span ?? width
    let textWidth = min(DisplayWidth.of(TextSanitizer.sanitize(text)), span)
    return put(text, x: x + max(0, (span - textWidth) / 2), y: y, style: style, maxWidth: span)
  }

  private mutating func clearWideNeighbours(col: Int, row: Int, width w: Int) {
    let base = row * width
    if cells[base + col].isContinuation, col > 0 {
      cells[base + col - 1].text = " "
    }
    let after = col + w
    if after < width, cells[base + after].isContinuation {
      cells[base + after].text = " "
    }
  }

  /// A frame of a horizontal slide from `old` to `new` (same size). `progress` 0 shows `old`,
  /// 1 shows `new`; direction +1 brings `new` in from the right, -1 from the left.
  public static func sliding(from old: Screen, to new: Screen, progress: Double, direction: Int)
    -> Screen
  {
    guard old.width == new.width, old.height == new.height else { return new }
    let width = new.width
    let offset = Int((1 - min(1, max(0, progress))) * Double(width))
    var out = new
    for y in 0..<new.height {
      for x in 0..<width {
        let cell: Cell
        if direction >= 0 {
          cell = x >= offset ? new[x - offset, y] : old[x + width - offset, y]
        } else {
          cell = x < width - offset ? new[x + offset, y] : old[x - (width - offset), y]
        }
        out.cells[y * width + x] = cell
      }
      // Wide characters cut by the seam or the edges lose their other half.
      for x in 0..<width {
        let cell = out.cells[y * width + x]
        if cell.isContinuation
          && (x == 0 || DisplayWidth.of(out.cells[y * width + x - 1].text) != 2)
        {
          out.cells[y * width + x].text = " "
        } else if DisplayWidth.of(cell.text) == 2
          && (x + 1 >= width || !out.cells[y * width + x + 1].isContinuation)
        {
          out.cells[y * width + x].text = " "
        }
      }
    }
    return out
  }

  /// The screen as plain text, one line per row, trailing spaces kept (for snapshots).
  public var lines: [String] {
    (0..<height).map { row in
      var line = ""
      for col in 0..<width {
        let cell = cells[row * width + col]
        if !cell.isContinuation { line += cell.text }
      }
      return line
    }
  }

  /// The screen as text with trailing spaces trimmed, rows joined by newlines.
  public var text: String {
    lines.map { line in
      var l = Substring(line)
      while l.last == " " { l = l.dropLast() }
      return String(l)
    }.joined(separator: "\n")
  }
}
