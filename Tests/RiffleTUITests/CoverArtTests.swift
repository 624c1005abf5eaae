import Foundation
import RiffleCore
import Testing

@testable import RiffleTUI

/// Reads the repository's images: the catalog covers and the test fixtures.
private enum ArtFiles {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  static func fixture(_ name: String) throws -> Data {
    try Data(contentsOf: root.appendingPathComponent("Tests/Fixtures/\(name)"))
  }

  static func catalogCovers() throws -> [URL] {
    let folder = root.appendingPathComponent("Resources/Catalog/covers")
    return try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { $0.hasSuffix(".png") }.sorted().map { folder.appendingPathComponent($0) }
  }
}

// MARK: - Decoding

@Suite("Cover art: decoding JPEG, PNG and WebP")
struct ImageDecoderTests {
  @Test("Every catalog cover decodes to opaque 320x320 RGBA")
  func catalogCovers() throws {
    let covers = try ArtFiles.catalogCovers()
    #expect(covers.count == 6)
    for url in covers {
      let image = try ImageDecoder.decode(Data(contentsOf: url))
      #expect(image.width == 320 && image.height == 320, "\(url.lastPathComponent)")
      #expect(image.pixels.count == 320 * 320 * 4)
      #expect(image.isOpaque)
      #expect(Set(image.pixels.prefix(4096)).count > 4, "not a flat image")
    }
  }

  @Test("The PNG, JPEG and WebP fixtures decode to the same 64x64 picture (lossy within a bit)")
  func fixturesAgree() throws {
    let png = try ImageDecoder.decode(ArtFiles.fixture("cover.png"))
    #expect(png.width == 64 && png.height == 64)
    for name in ["cover.jpg", "cover.webp"] {
      let image = try ImageDecoder.decode(ArtFiles.fixture(name))
      #expect(image.width == 64 && image.height == 64, "\(name)")
      #expect(image.isOpaque, "\(name)")
      var total = 0
      for i in stride(from: 0, to: png.pixels.count, by: 4) {
        for c in 0..<3 { total += abs(Int(png.pixels[i + c]) - Int(image.pixels[i + c])) }
      }
      let meanError = Double(total) / Double(64 * 64 * 3)
      #expect(meanError < 8, "\(name): mean error \(meanError)")
    }
  }

  @Test("The format comes from the first bytes, not the name")
  func sniffing() throws {
    #expect(ImageFormat.sniff(try ArtFiles.fixture("cover.png")) == .png)
    #expect(ImageFormat.sniff(try ArtFiles.fixture("cover.jpg")) == .jpeg)
    #expect(ImageFormat.sniff(try ArtFiles.fixture("cover.webp")) == .webp)
    #expect(ImageFormat.sniff(Data("GIF89a......".utf8)) == nil)
    #expect(ImageFormat.sniff(Data("RIFF....WAVE".utf8)) == nil)
    #expect(ImageFormat.sniff(Data([0x89, 0x50])) == nil)
  }

  @Test("Unknown bytes and no bytes are a clear error")
  func unknownFormat() throws {
    let gif = Data("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8)
    #expect(throws: ImageDecodeError.unknownFormat("47 49 46 38 39 61 01 00")) {
      try ImageDecoder.decode(gif)
    }
    #expect(throws: ImageDecodeError.unknownFormat("")) { try ImageDecoder.decode(Data()) }
    let mp3 = try ArtFiles.fixture("short-1.mp3")
    #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(mp3) }
    #expect(
      ImageDecodeError.unknownFormat("").description == "not an image: no data")
  }

  @Test("A truncated PNG is an error, at any cut", arguments: [8, 20, 33, 60, 500, 2000, 4500])
  func truncatedPNG(length: Int) throws {
    let data = try ArtFiles.fixture("cover.png").prefix(length)
    #expect {
      try ImageDecoder.decode(Data(data))
    } throws: { error in
      guard case .corrupt(.png, let reason) = error as? ImageDecodeError else { return false }
      return !reason.isEmpty
    }
  }

  @Test("A PNG with damaged image data is an error, not a crash")
  func damagedPNG() throws {
    var data = try ArtFiles.fixture("cover.png")
    for i in stride(from: 100, to: data.count - 20, by: 37) { data[i] ^= 0x5A }
    #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(data) }
  }

  @Test("JPEG: a damaged header is an error; a cut file decodes or fails, never crashes")
  func damagedJPEG() throws {
    let jpeg = try ArtFiles.fixture("cover.jpg")
    var garbage = Data([0xFF, 0xD8, 0xFF])
    garbage.append(contentsOf: (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 73) })
    #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(garbage) }
    #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(jpeg.prefix(100)) }
    // Cut in the scan data, libjpeg warns and fills the rest with grey, as browsers show it.
    for length in [700, 1000, jpeg.count - 2] {
      if let image = try? ImageDecoder.decode(jpeg.prefix(length)) {
        #expect(image.width == 64 && image.height == 64)
      }
    }
  }

  @Test("WebP: a cut or damaged file is an error")
  func damagedWebP() throws {
    let webp = try ArtFiles.fixture("cover.webp")
    #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(webp.prefix(20)) }
    #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(webp.prefix(400)) }
    var damaged = webp
    for i in stride(from: 30, to: damaged.count, by: 11) { damaged[i] ^= 0xFF }
    #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(damaged) }
  }

  @Test("Absurd sizes are refused from the header, before allocating")
  func absurdSizes() throws {
    // PNG: rewrite IHDR's width and height (and its CRC).
    var png = try ArtFiles.fixture("cover.png")
    func be32(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
    png.replaceSubrange(16..<24, with: be32(100_000) + be32(90_000))
    png.replaceSubrange(29..<33, with: be32(crc32(png[12..<29])))
    #expect(throws: ImageDecodeError.tooLarge(width: 100_000, height: 90_000)) {
      try ImageDecoder.decode(png)
    }

    // JPEG: the frame header (SOF0: FF C0, length, precision, height, width).
    var jpeg = try ArtFiles.fixture("cover.jpg")
    let sof = try #require(jpeg.indices.first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
    jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: [0x4E, 0x20, 0x4E, 0x20])  // 20000x20000
    #expect(throws: ImageDecodeError.tooLarge(width: 20_000, height: 20_000)) {
      try ImageDecoder.decode(jpeg)
    }

    // WebP (lossy): 14-bit width and height after the VP8 start code 9D 01 2A.
    var webp = try ArtFiles.fixture("cover.webp")
    let start = try #require(
      webp.indices.first { webp[$0] == 0x9D && webp[$0 + 1] == 0x01 && webp[$0 + 2] == 0x2A })
    webp.replaceSubrange((start + 3)..<(start + 7), with: [0x80, 0x3E, 0x80, 0x3E])  // 16000
    #expect(throws: ImageDecodeError.tooLarge(width: 16_000, height: 16_000)) {
      try ImageDecoder.decode(webp)
    }
  }

  private func crc32(_ bytes: Data) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }
}

// MARK: - Rendering

/// An image built from vertical or horizontal stripes of colour.
private func stripes(
  width: Int, height: Int, vertical: Bool, _ colors: [(UInt8, UInt8, UInt8)]
) -> RGBAImage {
  var pixels = [UInt8](repeating: 255, count: width * height * 4)
  for y in 0..<height {
    for x in 0..<width {
      let band = vertical ? x * colors.count / width : y * colors.count / height
      let i = (y * width + x) * 4
      (pixels[i], pixels[i + 1], pixels[i + 2]) = colors[band]
    }
  }
  return RGBAImage(width: width, height: height, pixels: pixels)
}

private let red: (UInt8, UInt8, UInt8) = (230, 20, 20)
private let green: (UInt8, UInt8, UInt8) = (20, 200, 20)
private let blue: (UInt8, UInt8, UInt8) = (20, 20, 230)

/// The colours a cell shows: a space shows only its background, a full block only its
/// foreground, any other symbol both.
private func visibleColors(_ cell: Cell) -> [(Int, Int, Int)] {
  func rgb(_ color: Color) -> (Int, Int, Int) {
    switch color {
    case .rgb(let r, let g, let b): return (Int(r), Int(g), Int(b))
    case .palette(let index):
      let (r, g, b) = Palette.rgb(of: index)
      return (Int(r), Int(g), Int(b))
    case .default: return (-1, -1, -1)
    }
  }
  switch cell.text {
  case " ": return [rgb(cell.style.background)]
  case "█": return [rgb(cell.style.foreground)]
  default: return [rgb(cell.style.foreground), rgb(cell.style.background)]
  }
}

private func near(_ c: (Int, Int, Int), _ target: (UInt8, UInt8, UInt8), within: Int = 60)
  -> Bool
{
  abs(c.0 - Int(target.0)) <= within && abs(c.1 - Int(target.1)) <= within
    && abs(c.2 - Int(target.2)) <= within
}

/// Whether a colour is one the mode may use.
private func valid(_ color: Color, for mode: ColorMode) -> Bool {
  switch (mode, color) {
  case (.trueColor, .rgb): return true
  case (.palette256, .palette(let index)): return index >= 16
  case (.basic16, .palette(let index)): return index < 16
  case (.basic8, .palette(let index)): return index < 8
  default: return false
  }
}

/// The symbols cover art may use: space and the block elements U+2580...U+259F, all one
/// column wide.
private func isCoverSymbol(_ text: String) -> Bool {
  let scalars = Array(text.unicodeScalars)
  guard scalars.count == 1 else { return false }
  let value = scalars[0].value
  return (value == 0x20 || (0x2580...0x259F).contains(value)) && DisplayWidth.of(text) == 1
}

/// Results gathered from several threads.
private final class RenderResults: @unchecked Sendable {
  private let lock = NSLock()
  private var cells: [CoverCells] = []

  func append(_ result: CoverCells) {
    lock.lock()
    cells.append(result)
    lock.unlock()
  }

  var all: [CoverCells] {
    lock.lock()
    defer { lock.unlock() }
    return cells
  }
}

@Suite("Cover art: pixels to cells")
struct CoverArtRenderTests {
  @Test(
    "Colour mode follows COLORTERM, then the terminfo colour count",
    arguments: [
      (["COLORTERM": "truecolor"], 256, ColorMode.trueColor),
      (["COLORTERM": "24bit"], 8, .trueColor),
      (["COLORTERM": "TrueColor"], 256, .trueColor),
      ([:], 16_777_216, .trueColor),
      (["COLORTERM": "yes"], 256, .palette256),
      ([:], 256, .palette256),
      ([:], 88, .basic16),
      ([:], 16, .basic16),
      ([:], 8, .basic8),
      ([:], 0, .basic8),
      ([:], -1, .basic8),
    ])
  func detect(environment: [String: String], colors: Int, expected: ColorMode) {
    #expect(ColorMode.detect(environment: environment, terminalColors: colors) == expected)
  }

  @Test("The fill crop keeps the centre and the area's proportions (cells are 1:2)")
  func fillCrop() {
    // A square into 80x24 cells (80:48 in pixels): full width, top and bottom cut.
    let wide = CoverArt.fillCrop(imageWidth: 320, imageHeight: 320, width: 80, height: 24)
    #expect(wide.x == 0 && wide.width == 320)
    #expect(wide.height == 192 && wide.y == 64)
    // A square into 20x40 cells (20:80): full height, sides cut.
    let tall = CoverArt.fillCrop(imageWidth: 320, imageHeight: 320, width: 20, height: 40)
    #expect(tall.y == 0 && tall.height == 320)
    #expect(tall.width == 80 && tall.x == 120)
    // Proportions already right: nothing cut.
    let exact = CoverArt.fillCrop(imageWidth: 100, imageHeight: 100, width: 50, height: 25)
    #expect(exact == (0, 0, 100, 100))
    // Extreme: never less than one pixel, never outside the image.
    let thin = CoverArt.fillCrop(imageWidth: 1, imageHeight: 5000, width: 400, height: 1)
    #expect(thin.width == 1 && thin.height == 1 && thin.y == 2499)
  }

  @Test("A left-red, right-blue image in a very wide area shows red on the left, blue right")
  func wideAreaKeepsBothHalves() {
    let image = stripes(width: 100, height: 100, vertical: true, [red, blue])
    let cells = CoverArt.render(image, width: 120, height: 8, mode: .trueColor)
    for y in 0..<8 {
      for x in 0..<50 {
        #expect(visibleColors(cells[x, y]).allSatisfy { near($0, red) }, "(\(x), \(y))")
      }
      for x in 70..<120 {
        #expect(visibleColors(cells[x, y]).allSatisfy { near($0, blue) }, "(\(x), \(y))")
      }
    }
  }

  @Test("A tall image in a wide area loses its top and bottom, a wide one in a tall area its sides")
  func cropsTheOverflow() {
    let tall = stripes(width: 30, height: 300, vertical: false, [green, red, blue])
    let wideCells = CoverArt.render(tall, width: 40, height: 10, mode: .trueColor)
    #expect(wideCells.cells.allSatisfy { visibleColors($0).allSatisfy { near($0, red) } })

    let wide = stripes(width: 300, height: 30, vertical: true, [green, red, blue])
    let tallCells = CoverArt.render(wide, width: 10, height: 40, mode: .trueColor)
    #expect(tallCells.cells.allSatisfy { visibleColors($0).allSatisfy { near($0, red) } })
  }

  @Test(
    "Every mode gives cells with colours of that mode and one-column block symbols",
    arguments: ColorMode.allCases)
  func modesGiveValidCells(mode: ColorMode) throws {
    for url in try ArtFiles.catalogCovers().prefix(3) {
      let image = try ImageDecoder.decode(Data(contentsOf: url))
      let cells = CoverArt.render(image, width: 60, height: 18, mode: mode)
      #expect(cells.width == 60 && cells.height == 18 && cells.cells.count == 60 * 18)
      for cell in cells.cells {
        #expect(valid(cell.style.foreground, for: mode), "\(cell)")
        #expect(valid(cell.style.background, for: mode), "\(cell)")
        #expect(isCoverSymbol(cell.text), "\(cell.text.unicodeScalars.map(\.value))")
        #expect(!cell.style.bold && !cell.style.reverse && !cell.style.dim)
      }
      let colours = Set(cells.cells.flatMap { [$0.style.foreground, $0.style.background] })
      #expect(colours.count >= 3, "\(url.lastPathComponent) in \(mode): \(colours.count) colours")
    }
  }

  @Test("Odd sizes: nothing, one cell, very large; an empty image is black")
  func oddSizes() throws {
    let image = try ImageDecoder.decode(ArtFiles.fixture("cover.png"))
    #expect(CoverArt.render(image, width: 0, height: 10, mode: .trueColor).cells.isEmpty)
    #expect(CoverArt.render(image, width: 10, height: -3, mode: .trueColor).cells.isEmpty)
    let one = CoverArt.render(image, width: 1, height: 1, mode: .basic8)
    #expect(one.cells.count == 1)
    let big = CoverArt.render(image, width: 400, height: 120, mode: .palette256)
    #expect(big.cells.count == 48_000)
    let empty = RGBAImage(width: 0, height: 0, pixels: [])
    let black = CoverArt.render(empty, width: 4, height: 2, mode: .trueColor)
    #expect(black.cells.allSatisfy { $0.style.background == .rgb(0, 0, 0) })
  }

  @Test("Transparent parts are laid over black")
  func transparency() {
    let clear = RGBAImage(width: 16, height: 16, red: 255, green: 255, blue: 255, alpha: 0)
    let cells = CoverArt.render(clear, width: 8, height: 4, mode: .trueColor)
    #expect(
      cells.cells.allSatisfy { visibleColors($0).allSatisfy { near($0, (0, 0, 0), within: 8) } })
    let half = RGBAImage(width: 16, height: 16, red: 200, green: 100, blue: 0, alpha: 128)
    let halfCells = CoverArt.render(half, width: 8, height: 4, mode: .trueColor)
    #expect(
      halfCells.cells.allSatisfy {
        visibleColors($0).allSatisfy { near($0, (100, 50, 0), within: 10) }
      })
  }

  @Test("Rendering is deterministic")
  func deterministic() throws {
    let image = try ImageDecoder.decode(ArtFiles.fixture("cover.jpg"))
    for mode in ColorMode.allCases {
      #expect(
        CoverArt.render(image, width: 50, height: 14, mode: mode)
          == CoverArt.render(image, width: 50, height: 14, mode: mode))
    }
  }

  @Test("Renders on several threads at once agree with one on its own")
  func concurrentRenders() throws {
    let image = try ImageDecoder.decode(ArtFiles.fixture("cover.webp"))
    let expected = CoverArt.render(image, width: 40, height: 12, mode: .palette256)
    let results = RenderResults()
    DispatchQueue.concurrentPerform(iterations: 6) { _ in
      results.append(CoverArt.render(image, width: 40, height: 12, mode: .palette256))
    }
    #expect(results.all.count == 6)
    #expect(results.all.allSatisfy { $0 == expected })
  }

  @Test("Render time at 200x60 (printed, not asserted)")
  func renderTime() throws {
    let image = try ImageDecoder.decode(Data(contentsOf: try ArtFiles.catalogCovers()[2]))
    #if DEBUG
      let build = "debug"
    #else
      let build = "release"
    #endif
    for mode in ColorMode.allCases {
      _ = CoverArt.render(image, width: 200, height: 60, mode: mode)
      let runs = build == "release" ? 5 : 1
      let start = DispatchTime.now().uptimeNanoseconds
      for _ in 0..<runs { _ = CoverArt.render(image, width: 200, height: 60, mode: mode) }
      let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(runs) / 1e6
      print("cover render 200x60 \(mode) (\(build)): \(String(format: "%.1f", ms)) ms")
    }
    let data = try Data(contentsOf: try ArtFiles.catalogCovers()[2])
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<10 { _ = try ImageDecoder.decode(data) }
    let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 10 / 1e6
    print("cover decode 320x320 PNG (\(build)): \(String(format: "%.2f", ms)) ms")
  }
}

// MARK: - Placeholder and effects

@Suite("Cover art: placeholder, darkening, fading")
struct CoverArtEffectTests {
  @Test(
    "The placeholder is the same for the same seed, different for another, in every mode",
    arguments: ColorMode.allCases)
  func placeholder(mode: ColorMode) {
    let a = CoverArt.placeholder(seed: "8f1c2a9e", width: 40, height: 12, mode: mode)
    let again = CoverArt.placeholder(seed: "8f1c2a9e", width: 40, height: 12, mode: mode)
    let other = CoverArt.placeholder(seed: "b3d90e14", width: 40, height: 12, mode: mode)
    #expect(a == again)
    #expect(a != other)
    #expect(a.cells.count == 480)
    #expect(a.cells.allSatisfy { valid($0.style.foreground, for: mode) })
    #expect(a.cells.allSatisfy { valid($0.style.background, for: mode) && isCoverSymbol($0.text) })
    #expect(Set(a.cells.map(\.style.background)).count > 1, "a pattern, not a flat colour")
    #expect(CoverArt.placeholder(seed: "", width: 0, height: 5, mode: mode).cells.isEmpty)
    #expect(CoverArt.placeholder(seed: "", width: 1, height: 1, mode: mode).cells.count == 1)
  }

  @Test("The placeholder's hash is the same in every run (not Swift's seeded Hasher)")
  func stableHash() {
    #expect(CoverArt.stableHash("riffle-001") == 0x8dd9_2673_2f3e_77df)
    #expect(CoverArt.stableHash("") == 0x4f43_b61e_be0f_3fa7)
  }

  @Test("darkened scales both colours of the chosen rows only")
  func darkenedRGB() {
    let style = CellStyle(foreground: .rgb(200, 100, 50), background: .rgb(100, 60, 20))
    let cells = CoverCells(
      width: 3, height: 4, cells: Array(repeating: Cell("▀", style: style), count: 12))
    let dark = CoverArt.darkened(cells, by: 0.5, rows: 2..<10)
    for y in 0..<4 {
      for x in 0..<3 {
        let cell = dark[x, y]
        #expect(cell.text == "▀")
        if y < 2 {
          #expect(cell.style == style)
        } else {
          #expect(cell.style.foreground == .rgb(100, 50, 25))
          #expect(cell.style.background == .rgb(50, 30, 10))
        }
      }
    }
    #expect(CoverArt.darkened(cells, by: 0, rows: 0..<4) == cells)
    let black = CoverArt.darkened(cells, by: 1, rows: 0..<4)
    #expect(black.cells.allSatisfy { $0.style.background == .rgb(0, 0, 0) })
  }

  @Test("darkened keeps palette colours in their mode's palette", arguments: ColorMode.allCases)
  func darkenedPalette(mode: ColorMode) throws {
    let image = try ImageDecoder.decode(ArtFiles.fixture("cover.png"))
    let cells = CoverArt.render(image, width: 30, height: 10, mode: mode)
    let dark = CoverArt.darkened(cells, by: 0.6, rows: 5..<10)
    #expect(dark.cells.allSatisfy { valid($0.style.foreground, for: mode) })
    #expect(dark.cells.allSatisfy { valid($0.style.background, for: mode) })
    #expect(Array(dark.cells.prefix(150)) == Array(cells.cells.prefix(150)))
    func brightness(_ color: Color) -> Int {
      switch color {
      case .rgb(let r, let g, let b): return Int(r) + Int(g) + Int(b)
      case .palette(let i):
        let (r, g, b) = Palette.rgb(of: i)
        return Int(r) + Int(g) + Int(b)
      case .default: return 0
      }
    }
    let before = cells.cells.suffix(150).map { brightness($0.style.background) }.reduce(0, +)
    let after = dark.cells.suffix(150).map { brightness($0.style.background) }.reduce(0, +)
    #expect(after < before)
  }

  @Test("blended moves RGB colours toward the target and passes palette colours through")
  func blended() {
    let rgb = CellStyle(foreground: .rgb(200, 100, 0), background: .rgb(0, 0, 0))
    let palette = CellStyle(foreground: .palette(196), background: .palette(3))
    let cells = CoverCells(
      width: 2, height: 1, cells: [Cell("▀", style: rgb), Cell("▐", style: palette)])
    #expect(CoverArt.blended(cells, toward: .rgb(0, 0, 100), amount: 0) == cells)
    let half = CoverArt.blended(cells, toward: .rgb(0, 0, 100), amount: 0.5)
    #expect(half[0, 0].style.foreground == .rgb(100, 50, 50))
    #expect(half[0, 0].style.background == .rgb(0, 0, 50))
    #expect(half[1, 0] == cells[1, 0])
    #expect(half[0, 0].text == "▀")
    let full = CoverArt.blended(cells, toward: .rgb(10, 20, 30), amount: 1.5)
    #expect(full[0, 0].style.foreground == .rgb(10, 20, 30))
    #expect(full[0, 0].style.background == .rgb(10, 20, 30))
    let towardPalette = CoverArt.blended(cells, toward: .palette(15), amount: 1)
    #expect(towardPalette[0, 0].style.background == .rgb(255, 255, 255))
    #expect(CoverArt.blended(cells, toward: .default, amount: 0.7) == cells)
  }
}

// MARK: - Cache

@Suite("Cover art: the cache")
struct CoverCacheTests {
  private func key(_ id: String, _ width: Int = 80, _ height: Int = 24) -> CoverKey {
    CoverKey(songID: id, width: width, height: height, mode: .trueColor)
  }

  private func cells(_ seed: String) -> CoverCells {
    CoverArt.placeholder(seed: seed, width: 8, height: 3, mode: .trueColor)
  }

  @Test("A hit returns the very cells stored; size and mode are part of the key")
  func hits() {
    let cache = CoverCache()
    let a = cells("a")
    cache.insert(a, for: key("a"))
    #expect(cache.cells(for: key("a")) == a)
    #expect(cache.cells(for: key("a", 81)) == nil)
    #expect(cache.cells(for: key("a", 80, 25)) == nil)
    #expect(cache.cells(for: CoverKey(songID: "a", width: 80, height: 24, mode: .basic8)) == nil)
    #expect(cache.cells(for: key("b")) == nil)
  }

  @Test("Beyond capacity the least recently used entry goes")
  func evictsLeastRecent() {
    let cache = CoverCache(capacity: 3)
    for id in ["a", "b", "c"] { cache.insert(cells(id), for: key(id)) }
    _ = cache.cells(for: key("a"))  // a is now more recent than b
    cache.insert(cells("d"), for: key("d"))
    #expect(cache.count == 3)
    #expect(!cache.contains(key("b")))
    #expect(cache.contains(key("a")) && cache.contains(key("c")) && cache.contains(key("d")))
    cache.insert(cells("e"), for: key("e"))
    #expect(!cache.contains(key("c")))
    #expect(CoverCache().capacity == 24)
  }

  @Test("orRender renders once per key")
  func orRender() {
    let cache = CoverCache()
    var renders = 0
    for _ in 0..<3 {
      _ = cache.cells(for: key("a")) {
        renders += 1
        return cells("a")
      }
    }
    #expect(renders == 1)
    cache.removeAll(songID: "a")
    #expect(cache.count == 0)
  }

  @Test("Concurrent use from many threads stays consistent")
  func concurrent() {
    let cache = CoverCache(capacity: 24)
    let sample = cells("x")
    DispatchQueue.concurrentPerform(iterations: 400) { i in
      let k = key("song-\(i % 40)")
      if let hit = cache.cells(for: k) {
        precondition(hit == sample)
      } else {
        cache.insert(sample, for: k)
      }
    }
    #expect(cache.count == 24)
  }
}
