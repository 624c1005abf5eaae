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
