import CPNG
import CTurboJPEG
import CWebP
import Foundation

/// Decoded pixels: 8-bit RGBA, not premultiplied, rows top to bottom, no padding.
public struct RGBAImage: Equatable, Sendable {
  public var width: Int
  public var height: Int
  /// `width * height * 4` bytes.
  public var pixels: [UInt8]

  public init(width: Int, height: Int, pixels: [UInt8]) {
    precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4)
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// An image of one colour.
  public init(width: Int, height: Int, red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
    let count = max(0, width) * max(0, height)
    var pixels = [UInt8](repeating: 0, count: count * 4)
    for i in 0..<count {
      pixels[4 * i] = red
      pixels[4 * i + 1] = green
      pixels[4 * i + 2] = blue
      pixels[4 * i + 3] = alpha
    }
    self.init(width: max(0, width), height: max(0, height), pixels: pixels)
  }
}

extension RGBAImage {
  /// Whether every pixel is fully opaque.
  var isOpaque: Bool {
    var i = 3
    while i < pixels.count {
      if pixels[i] != 255 { return false }
      i += 4
    }
    return true
  }

  /// The image laid over black, fully opaque: transparent parts of a cover would otherwise
  /// become chafa's "transparent" colour, which cells cannot carry.
  func flattened() -> RGBAImage {
    var out = pixels
    var i = 0
    while i < out.count {
      let a = UInt16(out[i + 3])
      if a != 255 {
        out[i] = UInt8(UInt16(out[i]) * a / 255)
        out[i + 1] = UInt8(UInt16(out[i + 1]) * a / 255)
        out[i + 2] = UInt8(UInt16(out[i + 2]) * a / 255)
        out[i + 3] = 255
      }
      i += 4
    }
    return RGBAImage(width: width, height: height, pixels: out)
  }
}

/// Why a cover could not be decoded.
public enum ImageDecodeError: Error, Equatable, CustomStringConvertible {
  /// The bytes start like no format we decode (the first bytes, in hex, for the log).
  case unknownFormat(String)
  /// The header names a size we refuse before allocating anything.
  case tooLarge(width: Int, height: Int)
  /// The decoder rejected the data (truncated, corrupt, unsupported variant).
  case corrupt(format: ImageFormat, reason: String)

  public var description: String {
    switch self {
    case .unknownFormat(let head):
      return head.isEmpty ? "not an image: no data" : "not a JPEG, PNG or WebP image (\(head))"
    case .tooLarge(let width, let height):
      return "image too large: \(width)x\(height) (limit \(ImageDecoder.maximumSide) per side)"
    case .corrupt(let format, let reason):
      return "corrupt \(format.rawValue) image: \(reason)"
    }
  }
}

/// An image format recognised by its first bytes.
public enum ImageFormat: String, Sendable {
  case jpeg = "JPEG"
  case png = "PNG"
  case webp = "WebP"

  /// The format the bytes start with, or nil. The URL and Content-Type are not trusted.
  public static func sniff(_ data: Data) -> ImageFormat? {
    let head = [UInt8](data.prefix(12))
    if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
    if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    if head.count == 12, head.starts(with: Array("RIFF".utf8)),
      Array(head[8..<12]) == Array("WEBP".utf8)
    {
      return .webp
    }
    return nil
  }
}

/// Turns JPEG, PNG and WebP bytes into RGBA pixels with libturbojpeg, libpng and libwebp.
///
/// Safe to call from any thread: every call uses its own decoder state.
public enum ImageDecoder {
  /// Widest or tallest image accepted; checked against the header before allocating.
  public static let maximumSide = 8192

  public static func decode(_ data: Data) throws -> RGBAImage {
    guard let format = ImageFormat.sniff(data) else {
      let head = data.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
      throw ImageDecodeError.unknownFormat(head)
    }
    return try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> RGBAImage in
      let bytes = raw.bindMemory(to: UInt8.self)
      switch format {
      case .jpeg: return try decodeJPEG(bytes)
      case .png: return try decodePNG(bytes)
      case .webp: return try decodeWebP(bytes)
      }
    }
  }

  private static func checkSize(_ width: Int, _ height: Int, _ format: ImageFormat) throws {
    guard width > 0, height > 0 else {
      throw ImageDecodeError.corrupt(format: format, reason: "empty size \(width)x\(height)")
    }
    guard width <= maximumSide, height <= maximumSide else {
      throw ImageDecodeError.tooLarge(width: width, height: height)
    }
  }

  // MARK: - JPEG

  private static func decodeJPEG(_ bytes: UnsafeBufferPointer<UInt8>) throws -> RGBAImage {
    guard let handle = tjInitDecompress() else {
      throw ImageDecodeError.corrupt(format: .jpeg, reason: "cannot start libturbojpeg")
    }
    defer { tjDestroy(handle) }
    func failure() -> ImageDecodeError {
      .corrupt(format: .jpeg, reason: String(cString: tjGetErrorStr2(handle)))
    }
    let size = UInt(bytes.count)
    var width: Int32 = 0
    var height: Int32 = 0
    var subsampling: Int32 = 0
    var colorspace: Int32 = 0
    guard
      tjDecompressHeader3(
        handle, bytes.baseAddress, size, &width, &height, &subsampling, &colorspace) == 0
    else { throw failure() }
    try checkSize(Int(width), Int(height), .jpeg)
    var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 4)
    let result = pixels.withUnsafeMutableBufferPointer { out in
      tjDecompress2(
        handle, bytes.baseAddress, size, out.baseAddress, width, width * 4, height,
        riffle_tj_pixel_format_rgba(), 0)
    }
    // A warning (extraneous bytes, a file cut short) still leaves a whole image: the missing
    // part is grey. Browsers show such covers too.
    if result != 0 && riffle_tj_last_error_is_warning(handle) == 0 { throw failure() }
    return RGBAImage(width: Int(width), height: Int(height), pixels: pixels)
  }

  // MARK: - PNG

  private static func decodePNG(_ bytes: UnsafeBufferPointer<UInt8>) throws -> RGBAImage {
    var image = riffle_png_image_new()
    defer { png_image_free(&image) }
    func failure() -> ImageDecodeError {
      let message = withUnsafeBytes(of: image.message) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      return .corrupt(format: .png, reason: message.isEmpty ? "unreadable" : message)
    }
    guard png_image_begin_read_from_memory(&image, bytes.baseAddress, bytes.count) != 0 else {
      throw failure()
    }
    try checkSize(Int(image.width), Int(image.height), .png)
    image.format = riffle_png_format_rgba()
    let width = Int(image.width)
    let height = Int(image.height)
    var pixels = [UInt8](repeating: 0, count: riffle_png_image_size(&image))
    guard pixels.count == width * height * 4 else { throw failure() }
    let ok = pixels.withUnsafeMutableBytes { out in
      png_image_finish_read(&image, nil, out.baseAddress, 0, nil)
    }
    guard ok != 0 else { throw failure() }
    return RGBAImage(width: width, height: height, pixels: pixels)
  }

  // MARK: - WebP

  private static func decodeWebP(_ bytes: UnsafeBufferPointer<UInt8>) throws -> RGBAImage {
    var width: Int32 = 0
    var height: Int32 = 0
    guard WebPGetInfo(bytes.baseAddress, bytes.count, &width, &height) != 0 else {
      throw ImageDecodeError.corrupt(format: .webp, reason: "unreadable header")
    }
    try checkSize(Int(width), Int(height), .webp)
    var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 4)
    let written = pixels.withUnsafeMutableBufferPointer { out in
      WebPDecodeRGBAInto(bytes.baseAddress, bytes.count, out.baseAddress, out.count, width * 4)
    }
    guard written != nil else {
      throw ImageDecodeError.corrupt(
        format: .webp, reason: "cannot decode (truncated, animated or damaged)")
    }
    return RGBAImage(width: Int(width), height: Int(height), pixels: pixels)
  }
}
