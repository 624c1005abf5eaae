import CChafa
import Foundation

/// How many colours cover art may use, from what the terminal says it can show.
public enum ColorMode: String, Hashable, Sendable, CaseIterable {
  /// 24-bit colour: cells carry `.rgb`.
  case trueColor
  /// xterm's 256 colours: cells carry `.palette(16...255)` (the cube and the grey ramp, never
  /// the 16 theme colours, whose values differ between terminals).
  case palette256
  /// The 16 ANSI colours: `.palette(0...15)`.
  case basic16
  /// The 8 basic colours: `.palette(0...7)`.
  case basic8

  /// The best mode a terminal offers: COLORTERM=truecolor or 24bit, or a terminfo colour count
  /// of 2^24 (xterm-direct), means true colour; then 256, 16, else 8 colours.
  public static func detect(environment: [String: String], terminalColors: Int) -> ColorMode {
    let colorterm = (environment["COLORTERM"] ?? "").lowercased()
    if colorterm == "truecolor" || colorterm == "24bit" || terminalColors >= 1 << 24 {
      return .trueColor
    }
    if terminalColors >= 256 { return .palette256 }
    if terminalColors >= 16 { return .basic16 }
    return .basic8
  }
}

/// A cover turned into terminal cells, row by row: `cells.count == width * height`.
/// Every cell holds one single-column character.
public struct CoverCells: Equatable, Sendable {
  public var width: Int
  public var height: Int
  public var cells: [Cell]
  /// The cover as a real picture, for terminals that can show one under the cells.
  public var picture: CoverPicture?

  public init(width: Int, height: Int, cells: [Cell]) {
    precondition(cells.count == max(0, width) * max(0, height))
    self.width = max(0, width)
    self.height = max(0, height)
    self.cells = cells
  }

  public subscript(x: Int, y: Int) -> Cell { cells[y * width + x] }
}

/// Turns cover images into cells with chafa: scaled to fill the area, cropped around the
/// centre, each cell a block symbol with a foreground and a background colour.
///
/// Rendering is pure and safe from any thread (each call owns its chafa canvas, and chafa
/// spreads one canvas over all cores). It is not cheap: at 200x60 about 60 ms in true colour and
/// 240 ms in 256 colours on two cores (a fifth of that at 80x24), so render off the main queue
/// and keep the result in a `CoverCache`.
public enum CoverArt {
  /// Width of a terminal cell divided by its height: cells are about twice as tall as wide.
  public static let cellAspect = 0.5

  public static func render(_ image: RGBAImage, width: Int, height: Int, mode: ColorMode)
    -> CoverCells
  {
    guard width > 0, height > 0 else {
      return CoverCells(width: max(0, width), height: max(0, height), cells: [])
    }
    guard image.width > 0, image.height > 0 else {
      return solid(width: width, height: height, mode: mode)
    }
    let crop = fillCrop(
      imageWidth: image.width, imageHeight: image.height, width: width, height: height)
    let source = image.isOpaque ? image : image.flattened()
    return drawWithChafa(source, crop: crop, width: width, height: height, mode: mode)
  }

  /// The part of an image that fills `width` x `height` cells without distortion: the whole
  /// width or the whole height, the overflow cut equally on both sides.
  static func fillCrop(imageWidth: Int, imageHeight: Int, width: Int, height: Int)
    -> (x: Int, y: Int, width: Int, height: Int)
  {
    let target = Double(width) * cellAspect / Double(height)
    let aspect = Double(imageWidth) / Double(imageHeight)
    if aspect > target {
      let w = min(imageWidth, max(1, Int((Double(imageHeight) * target).rounded())))
      return ((imageWidth - w) / 2, 0, w, imageHeight)
    }
    let h = min(imageHeight, max(1, Int((Double(imageWidth) / target).rounded())))
    return (0, (imageHeight - h) / 2, imageWidth, h)
  }

  /// A generated cover for songs whose art cannot be fetched or decoded: a gradient between
  /// two hues with a soft glow and faint rings, all chosen by a stable hash of `seed` (use the
  /// song id), so a song keeps its look across runs.
  public static func placeholder(seed: String, width: Int, height: Int, mode: ColorMode)
    -> CoverCells
  {
    guard width > 0, height > 0 else {
      return CoverCells(width: max(0, width), height: max(0, height), cells: [])
    }
    return render(
      placeholderImage(seed: seed, width: width, height: height), width: width,
      height: height, mode: mode)
  }

  /// The placeholder's pixels, drawn at the area's own proportions so nothing is cropped.
  static func placeholderImage(seed: String, width: Int, height: Int) -> RGBAImage {
    let hash = stableHash(seed)
    func unit(_ shift: UInt64) -> Double { Double((hash >> shift) & 0xFF) / 255 }
    let aspect = Double(width) * cellAspect / Double(height)
    let pw = min(320, max(16, width * 2))
    let ph = min(ImageDecoder.maximumSide, max(8, Int((Double(pw) / aspect).rounded())))
    let hue1 = Double(hash % 360)
    let hue2 = hue1 + 35 + 90 * unit(8)
    let angle = 2 * Double.pi * unit(16)
    let (dx, dy) = (cos(angle), sin(angle))
    let glow = (x: aspect * (0.25 + 0.5 * unit(24)), y: 0.25 + 0.5 * unit(32))
    let saturation = 0.45 + 0.3 * unit(40)
    let ringFrequency = 4 + 4 * unit(48)
    var pixels = [UInt8](repeating: 255, count: pw * ph * 4)
    for y in 0..<ph {
      let v = (Double(y) + 0.5) / Double(ph)
      for x in 0..<pw {
        let u = (Double(x) + 0.5) / Double(pw) * aspect
        let t = min(1, max(0, 0.5 + (u / aspect - 0.5) * dx + (v - 0.5) * dy))
        let r = ((u - glow.x) * (u - glow.x) + (v - glow.y) * (v - glow.y)).squareRoot()
        let light = 0.22 + 0.3 * (1 - t) + 0.35 * exp(-r * r / 0.06)
        let rings = 0.03 * sin(r * ringFrequency * 2 * Double.pi)
        let rgb = hsv(
          hue: hue1 + (hue2 - hue1) * t, saturation: saturation, value: min(1, light + rings))
        let i = (y * pw + x) * 4
        pixels[i] = rgb.0
        pixels[i + 1] = rgb.1
        pixels[i + 2] = rgb.2
      }
    }
    return RGBAImage(width: pw, height: ph, pixels: pixels)
  }

  /// FNV-1a: unlike `Hasher`, the same on every run.
  static func stableHash(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    // Mix the high bits down so short seeds still spread over every byte used above.
    hash ^= hash >> 29
    hash = hash &* 0xbf58_476d_1ce4_e5b9
    return hash ^ (hash >> 32)
  }

  private static func hsv(hue: Double, saturation s: Double, value v: Double)
    -> (UInt8, UInt8, UInt8)
  {
    let h = (hue.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
    let c = v * s
    let x = c * (1 - abs((h / 60).truncatingRemainder(dividingBy: 2) - 1))
    let m = v - c
    let (r, g, b): (Double, Double, Double)
    switch h {
    case ..<60: (r, g, b) = (c, x, 0)
    case ..<120: (r, g, b) = (x, c, 0)
    case ..<180: (r, g, b) = (0, c, x)
    case ..<240: (r, g, b) = (0, x, c)
    case ..<300: (r, g, b) = (x, 0, c)
    default: (r, g, b) = (c, 0, x)
    }
    func byte(_ value: Double) -> UInt8 { UInt8(max(0, min(255, ((value + m) * 255).rounded()))) }
    return (byte(r), byte(g), byte(b))
  }

  // MARK: - Effects

  /// The cells with both colours of the given rows darkened: `factor` 0 leaves them, 1 makes
  /// them black. Behind the title band this keeps text readable on any cover. Palette colours
  /// become the nearest darker entry of the same kind (cube and grey ramp, 16 or 8 colours).
  public static func darkened(_ cells: CoverCells, by factor: Double, rows: Range<Int>)
    -> CoverCells
  {
    let keep = 1 - min(1, max(0, factor))
    let rows = rows.clamped(to: 0..<cells.height)
    guard keep < 1, !rows.isEmpty else { return cells }
    var out = cells
    var memo: [Color: Color] = [:]
    func dark(_ color: Color) -> Color {
      if let known = memo[color] { return known }
      let result: Color
      switch color {
      case .default: result = color
      case .rgb(let r, let g, let b):
        result = .rgb(scale(r, keep), scale(g, keep), scale(b, keep))
      case .palette(let index):
        let (r, g, b) = Palette.rgb(of: index)
        let target = (scale(r, keep), scale(g, keep), scale(b, keep))
        if index >= 16 {
          result = .palette(UInt8(Palette.nearest256(target.0, target.1, target.2)))
        } else {
          result = .palette(nearestBasic(target, among: index < 8 ? 8 : 16))
        }
      }
      memo[color] = result
      return result
    }
    for i in rows.lowerBound * cells.width..<rows.upperBound * cells.width {
      out.cells[i].style.foreground = dark(out.cells[i].style.foreground)
      out.cells[i].style.background = dark(out.cells[i].style.background)
    }
    return out
  }

  /// The cells moved `amount` of the way toward a colour: 0 leaves them, 1 makes every cell
  /// that colour. For the cover's fade-in. Only `.rgb` cell colours blend (toward an `.rgb`
  /// colour or a palette entry's usual value); palette colours, and any blend toward
  /// `.default`, pass through unchanged.
  public static func blended(_ cells: CoverCells, toward target: Color, amount: Double)
    -> CoverCells
  {
    let t = min(1, max(0, amount))
    let goal: (UInt8, UInt8, UInt8)
    switch target {
    case .rgb(let r, let g, let b): goal = (r, g, b)
    case .palette(let index): goal = Palette.rgb(of: index)
    case .default: return cells
    }
    guard t > 0 else { return cells }
    func mix(_ a: UInt8, _ b: UInt8) -> UInt8 {
      UInt8((Double(a) + (Double(b) - Double(a)) * t).rounded())
    }
    func blend(_ color: Color) -> Color {
      guard case .rgb(let r, let g, let b) = color else { return color }
      return .rgb(mix(r, goal.0), mix(g, goal.1), mix(b, goal.2))
    }
    var out = cells
    for i in out.cells.indices {
      out.cells[i].style.foreground = blend(out.cells[i].style.foreground)
      out.cells[i].style.background = blend(out.cells[i].style.background)
    }
    return out
  }

  private static func scale(_ value: UInt8, _ keep: Double) -> UInt8 {
    UInt8((Double(value) * keep).rounded())
  }

  /// The nearest of the first `count` (8 or 16) palette entries, by their usual xterm values.
  static func nearestBasic(_ rgb: (UInt8, UInt8, UInt8), among count: Int) -> UInt8 {
    var best = 0
    var bestDistance = Int.max
    for index in 0..<count {
      let (r, g, b) = Palette.rgb(of: UInt8(index))
      let dr = Int(r) - Int(rgb.0)
      let dg = Int(g) - Int(rgb.1)
      let db = Int(b) - Int(rgb.2)
      let distance = dr * dr + dg * dg + db * db
      if distance < bestDistance {
        best = index
        bestDistance = distance
      }
    }
    return UInt8(best)
  }

  // MARK: - chafa

  private static func drawWithChafa(
    _ image: RGBAImage, crop: (x: Int, y: Int, width: Int, height: Int), width: Int,
    height: Int, mode: ColorMode
  ) -> CoverCells {
    guard let config = chafa_canvas_config_new() else {
      return solid(width: width, height: height, mode: mode)
    }
    defer { chafa_canvas_config_unref(config) }
    chafa_canvas_config_set_geometry(config, Int32(width), Int32(height))
    chafa_canvas_config_set_canvas_mode(config, canvasMode(mode))
    // DIN99d matches colours as eyes see them: in 256 colours it keeps hues that plain RGB
    // turns grey, at about four times the cost (240 ms instead of 60 at 200x60). With 16 or 8
    // colours, preprocessing and dithering decide the look and RGB is as good; with 16 million
    // colours there is nothing to match.
    chafa_canvas_config_set_color_space(
      config, mode == .palette256 ? CHAFA_COLOR_SPACE_DIN99D : CHAFA_COLOR_SPACE_RGB)
    if mode == .basic16 || mode == .basic8 {
      // Ordered dithering turns 8 or 16 colours into visible shading instead of flat bands.
      chafa_canvas_config_set_dither_mode(config, CHAFA_DITHER_MODE_ORDERED)
    }
    let symbols = chafa_symbol_map_new()
    chafa_symbol_map_add_by_tags(symbols, riffle_chafa_cover_tags())
    chafa_symbol_map_remove_by_tags(symbols, riffle_chafa_unsafe_tags())
    chafa_canvas_config_set_symbol_map(config, symbols)  // the config keeps a copy
    chafa_symbol_map_unref(symbols)

    guard let canvas = chafa_canvas_new(config) else {
      return solid(width: width, height: height, mode: mode)
    }
    defer { chafa_canvas_unref(canvas) }
    image.pixels.withUnsafeBufferPointer { pixels in
      let start = (crop.y * image.width + crop.x) * 4
      chafa_canvas_draw_all_pixels(
        canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels.baseAddress! + start,
        Int32(crop.width), Int32(crop.height), Int32(image.width * 4))
    }

    var cells: [Cell] = []
    cells.reserveCapacity(width * height)
    var texts: [UInt32: String] = [:]
    for y in 0..<height {
      for x in 0..<width {
        let code = chafa_canvas_get_char_at(canvas, Int32(x), Int32(y))
        var fg: Int32 = -1
        var bg: Int32 = -1
        chafa_canvas_get_raw_colors_at(canvas, Int32(x), Int32(y), &fg, &bg)
        let text: String
        if let known = texts[code] {
          text = known
        } else {
          text = Unicode.Scalar(code).map { String(Character($0)) } ?? " "
          texts[code] = text
        }
        var style = CellStyle(foreground: color(fg, mode: mode), background: color(bg, mode: mode))
        // A space shows only its background and a full block only its foreground; chafa leaves
        // the unseen colour arbitrary (pen 0 even in 240-colour mode). Make it match, so equal
        // looking cells are equal and the terminal needs fewer colour pairs.
        if code == 0x20 { style.foreground = style.background }
        if code == 0x2588 { style.background = style.foreground }
        cells.append(Cell(text, style: style))
      }
    }
    return CoverCells(width: width, height: height, cells: cells)
  }

  private static func canvasMode(_ mode: ColorMode) -> ChafaCanvasMode {
    switch mode {
    case .trueColor: return CHAFA_CANVAS_MODE_TRUECOLOR
    case .palette256: return CHAFA_CANVAS_MODE_INDEXED_240
    case .basic16: return CHAFA_CANVAS_MODE_INDEXED_16
    case .basic8: return CHAFA_CANVAS_MODE_INDEXED_8
    }
  }

  /// A raw chafa colour (packed 0xRRGGBB in true colour, a pen number otherwise; -1 for
  /// transparent, which flattened images do not produce) as one of ours.
  private static func color(_ raw: Int32, mode: ColorMode) -> Color {
    guard raw >= 0 else { return mode == .trueColor ? .rgb(0, 0, 0) : .palette(0) }
    switch mode {
    case .trueColor:
      return .rgb(UInt8(raw >> 16 & 0xFF), UInt8(raw >> 8 & 0xFF), UInt8(raw & 0xFF))
    case .palette256:
      guard raw >= 16 else {
        let (r, g, b) = Palette.rgb(of: UInt8(raw))
        return .palette(UInt8(Palette.nearest256(r, g, b)))
      }
      return .palette(UInt8(min(255, raw)))
    case .basic16: return .palette(UInt8(min(15, raw)))
    case .basic8: return .palette(UInt8(min(7, raw)))
    }
  }

  static func solid(width: Int, height: Int, mode: ColorMode) -> CoverCells {
    let black: Color = mode == .trueColor ? .rgb(0, 0, 0) : .palette(mode == .palette256 ? 16 : 0)
    let cell = Cell(" ", style: CellStyle(foreground: black, background: black))
    return CoverCells(
      width: width, height: height, cells: Array(repeating: cell, count: width * height))
  }
}
