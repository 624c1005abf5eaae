import Foundation
import RiffleApp
import RiffleCore
import RiffleTUI
import RiffleTestSupport
import Testing

/// PNG files made here, byte by byte (stored deflate blocks: no compressor needed), so a test can
/// have any size and colour type.
enum PNGFile {
  static func make(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, rows: [UInt8])
    -> Data
  {
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    png += chunk("IHDR", be32(width) + be32(height) + [bitDepth, colorType, 0, 0, 0])
    // zlib: a header, stored blocks of at most 65535 bytes, the Adler-32 of the data.
    var zlib: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
      let end = min(rows.count, offset + 65535)
      let length = end - offset
      zlib.append(end == rows.count ? 1 : 0)
      zlib += [UInt8(length & 0xFF), UInt8(length >> 8)]
      zlib += [UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
      zlib += rows[offset..<end]
      offset = end
    } while offset < rows.count
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in rows {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    zlib += be32(Int(b << 16 | a))
    png += chunk("IDAT", zlib)
    png += chunk("IEND", [])
    return Data(png)
  }

  private static func be32(_ value: Int) -> [UInt8] {
    [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
  }

  private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in body {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return be32(data.count) + body + be32(Int(~crc))
  }
}

/// Covers that are hard on the picture path, through the real decoder, chafa and the picture
/// encoder: the page gets cells (and a picture where one can be made) or a generated cover,
/// never a crash or a hang.
@Suite("Artwork: odd covers as pictures")
@MainActor
struct ArtworkPictureInputTests {
  /// The cover of one song whose image is `data`, at 80x24 with kitty pictures (9x18 cells).
  private func cover(_ data: Data, name: String) async -> CoverCells? {
    let artwork = Artwork(
      mode: .trueColor, pictures: .kitty, cellPixels: { (9, 18) }, load: { _, done in done(data) })
    var ready = false
    artwork.onReady = { _ in ready = true }
    let song = Song(
      id: name, title: name, displayName: "Artist", handle: "artist",
      imageURL: URL(string: "https://covers.invalid/\(name).png"),
      audioURL: URL(fileURLWithPath: "/dev/null"))
    _ = artwork.cells(for: song, width: 80, height: 24)
    let deadline = ContinuousClock.now + .seconds(60)
    while !ready, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(10))
    }
    #expect(ready, "\(name): no cover in 60 s")
    return artwork.cells(for: song, width: 80, height: 24)
  }

  @Test("8000x8000: decoded, the picture capped at the page's pixels")
  func huge() async throws {
    // 1-bit grey, stripes of 8 pixels: 8 MB of PNG, 256 MB once decoded as RGBA.
    var rows: [UInt8] = []
    rows.reserveCapacity(8000 * 1001)
    for _ in 0..<8000 { rows += [0] + [UInt8](repeating: 0xF0, count: 1000) }
    let png = PNGFile.make(width: 8000, height: 8000, bitDepth: 1, colorType: 0, rows: rows)
    let cells = try #require(await cover(png, name: "huge"))
    let picture = try #require(cells.picture)
    #expect(picture.pixelWidth == 720 && picture.pixelHeight == 432)
  }

  @Test("1x1 and a transparent PNG: a picture each")
  func tinyAndTransparent() async throws {
    let dot = PNGFile.make(width: 1, height: 1, bitDepth: 8, colorType: 2, rows: [0, 200, 30, 90])
    #expect(try #require(await cover(dot, name: "dot")).picture != nil)
    // RGBA, every pixel's alpha 0.
    let clear = PNGFile.make(
      width: 4, height: 4, bitDepth: 8, colorType: 6,
      rows: (0..<4).flatMap { _ in [0] + [UInt8](repeating: 0, count: 16) })
    #expect(try #require(await cover(clear, name: "clear")).picture != nil)
  }

  @Test("undecodable bytes, a cut PNG, nothing at all: a generated cover, no picture")
  func undecodable() async throws {
    let dot = PNGFile.make(width: 1, height: 1, bitDepth: 8, colorType: 2, rows: [0, 1, 2, 3])
    for (name, data) in [
      ("html", Data("<html>not found</html>".utf8)), ("cut", dot.prefix(40)), ("empty", Data()),
    ] {
      let cells = try #require(await cover(data, name: name))
      #expect(cells.picture == nil, "\(name)")
      #expect(cells.width == 80 && cells.height == 24)
    }
  }
}
