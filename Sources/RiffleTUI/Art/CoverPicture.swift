import CPNG
import Foundation

/// A cover as a real picture for terminals that show images (the kitty graphics protocol):
/// PNG bytes at the pixel size of the cell area it covers, cropped to fill it, the band's
/// darkening baked in. Made once per song and size, off the main queue; the terminal sends the
/// bytes once and then only places or removes the picture.
public final class CoverPicture: Equatable, @unchecked Sendable {
  /// The terminal's name for the image: the same song at the same size keeps its id.
  public let id: UInt32
  /// Cells the picture covers.
  public let columns: Int
  public let rows: Int
  /// The encoded image (PNG).
  public let png: [UInt8]
  public let pixelWidth: Int
  public let pixelHeight: Int

  init(id: UInt32, columns: Int, rows: Int, png: [UInt8], pixelWidth: Int, pixelHeight: Int) {
    self.id = id
    self.columns = columns
    self.rows = rows
    self.png = png
    self.pixelWidth = pixelWidth
    self.pixelHeight = pixelHeight
  }

  public static func == (a: CoverPicture, b: CoverPicture) -> Bool {
    a.id == b.id && a.columns == b.columns && a.rows == b.rows
  }

  /// The widest or tallest picture sent, in pixels: the terminal scales it to the cells, and a
  /// 200x60 page on a 4K screen would otherwise cost megabytes a page.
  public static let maximumSide = 1280

  /// The picture of `image` for `columns` x `rows` cells of `cellPixels` each, its bottom
  /// `darkRows` rows darkened by `darkening` (0 none, 1 black). Transparent parts are laid over
  /// black. Nil when there is nothing to show or the PNG cannot be made.
  public static func make(
    _ image: RGBAImage, key: String, columns: Int, rows: Int,
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
      id: pictureID(key), columns: columns, rows: rows, png: png, pixelWidth: width,
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
