import CChafa
import CPNG
import Foundation

/// How a picture's bytes are encoded, by the protocol that shows them.
public enum PictureFormat: Sendable {
  /// PNG: the kitty graphics protocol and iTerm2's inline images take it and scale it.
  case png
  /// Sixel (through chafa's pixel mode), at exactly the cells' pixel size: a sixel is drawn
  /// pixel for pixel.
  case sixel
}

/// A cover as a real picture for terminals that show images: encoded at the pixel size of the
/// cell area it covers, cropped to fill it, the band's darkening baked in where the band lies
/// over it. Made once per song and size, off the main queue. kitty keeps a picture it was sent
/// and shows it again by id; sixel and iTerm2 pictures are sent each time they are shown.
public final class CoverPicture: Equatable, @unchecked Sendable {
  /// The terminal's name for the image: the same song at the same size keeps its id.
  public let id: UInt32
  /// The first row the picture covers (it spans every column).
  public let row: Int
  /// Cells the picture covers.
  public let columns: Int
  public let rows: Int
  public let format: PictureFormat
  /// The encoded image.
  public let bytes: [UInt8]
  public let pixelWidth: Int
  public let pixelHeight: Int
  /// The PNG, for the formats that take one.
  public var png: [UInt8] { bytes }
  /// Whether the terminal shows it under the cells (kitty), so the cells it covers must be
  /// blank; a picture drawn over them (sixel, iTerm2) leaves the cover's cells beneath, which
  /// show at its edges where the picture's pixels do not reach.
  public let underCells: Bool

  init(
    id: UInt32, row: Int = 0, columns: Int, rows: Int, format: PictureFormat = .png,
    bytes: [UInt8], pixelWidth: Int, pixelHeight: Int
  ) {
    self.underCells = row == 0 && format == .png
    self.id = id
    self.row = row
    self.columns = columns
    self.rows = rows
    self.format = format
    self.bytes = bytes
    self.pixelWidth = pixelWidth
    self.pixelHeight = pixelHeight
  }

  public static func == (a: CoverPicture, b: CoverPicture) -> Bool {
    a.id == b.id && a.row == b.row && a.columns == b.columns && a.rows == b.rows
  }

  /// A sixel picture of `image` for the page's upper part: rows 1 up to the band, the header
  /// row and the band left to cells (no text can be drawn over a sixel). Exact pixel size, so
  /// the terminal draws it cell for cell. Nil when the area is empty or chafa fails.
  public static func makeSixel(
    _ image: RGBAImage, key: String, columns: Int, pageRows: Int, bandRows: Int,
    cellPixels: (width: Int, height: Int)
  ) -> CoverPicture? {
    let rows = pageRows - bandRows - 1
    guard columns > 0, rows > 0, image.width > 0, image.height > 0 else { return nil }
    let cell = (width: max(1, cellPixels.width), height: max(1, cellPixels.height))
    // A sixel is never scaled by the terminal: beyond 4096 pixels a side, a smaller cell is
    // assumed (the picture then draws smaller than its area, never larger).
    let width = min(4096, columns * cell.width)
    let height = min(4096, rows * cell.height)
    let crop = fillCrop(
      imageWidth: image.width, imageHeight: image.height, aspect: Double(width) / Double(height))
    let rgb = resample(image, crop: crop, width: width, height: height)
    guard
      let sixel = encodeSixel(
        rgb: rgb, width: width, height: height, columns: columns, rows: rows,
        cellPixels: (width / columns, height / rows))
    else { return nil }
    return CoverPicture(
      id: pictureID(key + " sixel"), row: 1, columns: columns, rows: rows, format: .sixel,
      bytes: sixel, pixelWidth: width, pixelHeight: height)
  }

  /// Sixel data (DCS ... ST) for RGB pixels, through chafa's pixel mode.
  static func encodeSixel(
    rgb: [UInt8], width: Int, height: Int, columns: Int, rows: Int,
    cellPixels: (width: Int, height: Int)
  ) -> [UInt8]? {
    guard let config = chafa_canvas_config_new() else { return nil }
    defer { chafa_canvas_config_unref(config) }
    chafa_canvas_config_set_geometry(config, Int32(columns), Int32(rows))
    chafa_canvas_config_set_cell_geometry(
      config, Int32(max(1, cellPixels.width)), Int32(max(1, cellPixels.height)))
    chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SIXELS)
    chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR)
    // A sixel has a palette of 256 colours at most: without dithering a smooth cover turns
    // into patches.
    chafa_canvas_config_set_dither_mode(config, CHAFA_DITHER_MODE_DIFFUSION)
    guard let canvas = chafa_canvas_new(config) else { return nil }
    defer { chafa_canvas_unref(canvas) }
    rgb.withUnsafeBufferPointer {
      chafa_canvas_draw_all_pixels(
        canvas, CHAFA_PIXEL_RGB8, $0.baseAddress, Int32(width), Int32(height), Int32(width * 3))
    }
    guard let info = riffle_chafa_sixel_term_info() else { return nil }
    defer { chafa_term_info_unref(info) }
    var length = 0
    guard let text = riffle_chafa_print(canvas, info, &length) else { return nil }
    defer { riffle_chafa_free(text) }
    return text.withMemoryRebound(to: UInt8.self, capacity: length) {
      Array(UnsafeBufferPointer(start: $0, count: length))
    }
  }

  /// The widest or tallest picture sent, in pixels: the terminal scales it to the cells, and a
  /// 200x60 page on a 4K screen would otherwise cost megabytes a page.
  public static let maximumSide = 1280

  /// The picture of `image` for `columns` x `rows` cells of `cellPixels` each, its bottom
  /// `darkRows` rows darkened by `darkening` (0 none, 1 black). Transparent parts are laid over
  /// black. Nil when there is nothing to show or the PNG cannot be made.
  /// `row` is the first row it covers (1 for iTerm2's, which sits between header and band).
  public static func make(
    _ image: RGBAImage, key: String, row: Int = 0, columns: Int, rows: Int,
    cellPixels: (width: Int, height: Int), darkRows: Int, darkening: Double
  ) -> CoverPicture? {
    guard columns > 0, rows > 0, image.width > 0, image.height > 0 else { return nil }
    let cell = (width: max(1, cellPixels.width), height: max(1, cellPixels.height))
    var width = columns * cell.width
    var height = rows * cell.height
    let scale = min(1, Double(maximumSide) / Double(max(width, height)))
    width = max(1, Int((Double(width) * scale).rounded()))
    height = max(1, Int((Double(height) * scale).rounded()))
    let crop = fillCrop(
      imageWidth: image.width, imageHeight: image.height, aspect: Double(width) / Double(height))
    var pixels = resample(image, crop: crop, width: width, height: height)
    let darkTop = Int(
      (Double(max(0, rows - darkRows)) * Double(height) / Double(rows)).rounded())
    let keep = 1 - min(1, max(0, darkening))
    if darkTop < height, keep < 1 {
      for i in stride(from: darkTop * width * 3, to: pixels.count, by: 1) {
        pixels[i] = UInt8((Double(pixels[i]) * keep).rounded())
      }
    }
    guard let png = encodePNG(rgb: pixels, width: width, height: height) else { return nil }
    return CoverPicture(
      id: pictureID(key), row: row, columns: columns, rows: rows, bytes: png, pixelWidth: width,
      pixelHeight: height)
  }

  /// A non-zero id from a stable hash of the song and size.
  static func pictureID(_ key: String) -> UInt32 {
    let hash = CoverArt.stableHash(key)
    let id = UInt32(truncatingIfNeeded: hash ^ (hash >> 32)) & 0x7FFF_FFFF
    return id == 0 ? 1 : id
  }

  /// The part of the image with the area's proportions, the overflow cut equally both sides.
  static func fillCrop(imageWidth: Int, imageHeight: Int, aspect: Double)
    -> (x: Int, y: Int, width: Int, height: Int)
  {
    let imageAspect = Double(imageWidth) / Double(imageHeight)
    if imageAspect > aspect {
      let w = min(imageWidth, max(1, Int((Double(imageHeight) * aspect).rounded())))
      return ((imageWidth - w) / 2, 0, w, imageHeight)
    }
    let h = min(imageHeight, max(1, Int((Double(imageWidth) / aspect).rounded())))
    return (0, (imageHeight - h) / 2, imageWidth, h)
  }

  /// RGB pixels of the crop scaled to `width` x `height`: each output pixel averages the source
  /// pixels it covers (a box filter, so a large cover shrinks without shimmer), at most 4x4
  /// samples per pixel; transparent parts over black.
  static func resample(
    _ image: RGBAImage, crop: (x: Int, y: Int, width: Int, height: Int), width: Int, height: Int
  ) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: width * height * 3)
    let stepX = Double(crop.width) / Double(width)
    let stepY = Double(crop.height) / Double(height)
    let samplesX = max(1, min(4, Int(stepX.rounded(.up))))
    let samplesY = max(1, min(4, Int(stepY.rounded(.up))))
    image.pixels.withUnsafeBufferPointer { source in
      for y in 0..<height {
        for x in 0..<width {
          var r = 0
          var g = 0
          var b = 0
          for sy in 0..<samplesY {
            let fy = (Double(y) + (Double(sy) + 0.5) / Double(samplesY)) * stepY
            let py = crop.y + min(crop.height - 1, Int(fy))
            for sx in 0..<samplesX {
              let fx = (Double(x) + (Double(sx) + 0.5) / Double(samplesX)) * stepX
              let px = crop.x + min(crop.width - 1, Int(fx))
              let i = (py * image.width + px) * 4
              let a = Int(source[i + 3])
              r += Int(source[i]) * a / 255
              g += Int(source[i + 1]) * a / 255
              b += Int(source[i + 2]) * a / 255
            }
          }
          let n = samplesX * samplesY
          let o = (y * width + x) * 3
          out[o] = UInt8(r / n)
          out[o + 1] = UInt8(g / n)
          out[o + 2] = UInt8(b / n)
        }
      }
    }
    return out
  }

  /// PNG through libpng's simplified writer.
  static func encodePNG(rgb: [UInt8], width: Int, height: Int) -> [UInt8]? {
    var image = riffle_png_image_new()
    image.width = png_uint_32(width)
    image.height = png_uint_32(height)
    image.format = riffle_png_format_rgb()
    var size: png_alloc_size_t = 0
    // First the size, then the bytes.
    guard
      rgb.withUnsafeBytes({
        png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, 0, nil)
      }) != 0, size > 0
    else {
      png_image_free(&image)
      return nil
    }
    var out = [UInt8](repeating: 0, count: Int(size))
    let written = out.withUnsafeMutableBytes { buffer in
      rgb.withUnsafeBytes {
        png_image_write_to_memory(&image, buffer.baseAddress, &size, 0, $0.baseAddress, 0, nil)
      }
    }
    png_image_free(&image)
    guard written != 0 else { return nil }
    return Array(out.prefix(Int(size)))
  }
}
