import CPNG
import Foundation
import Testing

@testable import RiffleTUI

@Suite("Pictures: the terminal's answers, the choice, kitty's commands, the cover picture")
struct TerminalPicturesTests {
  @Test("answers: kitty's OK and DA1 with or without 4 (sixel), in any order and in pieces")
  func parse() {
    let kitty = Array("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;22;52c".utf8)
    #expect(
      TerminalPictures.parse(kitty)
        == TerminalAnswers(kittyGraphics: true, sixel: false, answered: true))
    let xterm = Array("\u{1B}[?63;1;2;4;6;9;15;22c".utf8)
    #expect(TerminalPictures.parse(xterm) == TerminalAnswers(sixel: true, answered: true))
    let refused = Array("\u{1B}_Gi=31;ENOTSUPPORTED:no\u{1B}\\\u{1B}[?1;2c".utf8)
    #expect(TerminalPictures.parse(refused) == TerminalAnswers(answered: true))
    // Half an answer is no answer yet.
    #expect(TerminalPictures.parse(Array("\u{1B}_Gi=31;O".utf8)) == TerminalAnswers())
    #expect(TerminalPictures.parse(Array("\u{1B}[?62;4".utf8)) == TerminalAnswers())
    #expect(TerminalPictures.parse([]) == TerminalAnswers())
  }

  @Test("the choice: a forced setting, tmux, plain consoles, then what the terminal answered")
  func choose() {
    func pick(
      _ setting: PictureSetting, _ environment: [String: String],
      _ answers: TerminalAnswers? = nil
    ) -> PictureProtocol {
      TerminalPictures.choose(setting: setting, environment: environment) { _ in
        guard let answers else {
          Issue.record("the terminal was asked")
          return TerminalAnswers()
        }
        return answers
      }.protocol
    }
    let xterm = ["TERM": "xterm-256color"]
    #expect(pick(.symbols, xterm) == .symbols)
    #expect(pick(.kitty, xterm) == .kitty)
    #expect(pick(.auto, ["TERM": "tmux-256color", "TMUX": "/tmp/x,1,0"]) == .symbols)
    #expect(pick(.auto, ["TERM": "linux"]) == .symbols)
    #expect(pick(.auto, [:]) == .symbols)
    #expect(pick(.auto, xterm, TerminalAnswers(kittyGraphics: true, answered: true)) == .kitty)
    #expect(pick(.auto, xterm, TerminalAnswers(answered: true)) == .symbols)
    #expect(pick(.auto, xterm, TerminalAnswers(sixel: true, answered: true)) == .sixel)
    // kitty's own protocol wins over sixel where a terminal has both (WezTerm).
    #expect(
      pick(.auto, xterm, TerminalAnswers(kittyGraphics: true, sixel: true, answered: true))
        == .kitty)
    // iTerm2 names itself; it has no query for its images.
    #expect(
      pick(.auto, ["TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"], TerminalAnswers())
        == .iterm)
    #expect(
      pick(.auto, ["TERM": "xterm-256color", "LC_TERMINAL": "iTerm2"], TerminalAnswers())
        == .iterm)
    #expect(pick(.sixel, xterm) == .sixel)
    #expect(pick(.iterm, xterm) == .iterm)
    // Claims nothing, answers nothing: symbols, and the reason says so.
    let silent = TerminalPictures.choose(setting: .auto, environment: xterm) { _ in
      TerminalAnswers()
    }
    #expect(silent.protocol == .symbols)
    #expect(silent.reason == "symbols: the terminal did not answer the queries within 100 ms")
  }

  @Test("kitty commands: chunks of 4096 base64 bytes, quiet, placed below the backgrounds")
  func commands() {
    let png = [UInt8](repeating: 7, count: 7000)  // 9336 base64 bytes: three chunks
    let text = String(decoding: KittyGraphics.transmit(id: 42, png: png), as: UTF8.self)
    let chunks = text.components(separatedBy: "\u{1B}\\").filter { !$0.isEmpty }
    #expect(chunks.count == 3)
    #expect(chunks[0].hasPrefix("\u{1B}_Ga=t,f=100,t=d,i=42,q=2,m=1;"))
    #expect(chunks[1].hasPrefix("\u{1B}_Gm=1;"))
    #expect(chunks[2].hasPrefix("\u{1B}_Gm=0;"))
    let payload = chunks.map { String($0.split(separator: ";", maxSplits: 1)[1]) }.joined()
    #expect(Data(base64Encoded: payload) == Data(png))
    #expect(
      String(
        decoding: KittyGraphics.place(id: 42, x: 0, y: 0, columns: 80, rows: 24), as: UTF8.self)
        == "\u{1B}7\u{1B}[1;1H\u{1B}_Ga=p,i=42,p=1,c=80,r=24,z=-1073741825,C=1,q=2\u{1B}\\\u{1B}8")
    // An empty image still makes one well-formed command.
    #expect(
      String(decoding: KittyGraphics.transmit(id: 1, png: []), as: UTF8.self)
        == "\u{1B}_Ga=t,f=100,t=d,i=1,q=2,m=0;\u{1B}\\")
  }

  @Test("sixel and iTerm2 pictures: drawn at their row with the cursor saved and put back")
  func overCells() throws {
    let image = RGBAImage(width: 16, height: 16, red: 90, green: 30, blue: 200)
    let sixel = try #require(
      CoverPicture.makeSixel(
        image, key: "s", columns: 20, pageRows: 12, bandRows: 7, cellPixels: (8, 16)))
    #expect(sixel.row == 1 && sixel.rows == 4 && !sixel.underCells)
    #expect(sixel.pixelWidth == 160 && sixel.pixelHeight == 64)
    let drawn = String(decoding: CellPictures.draw(sixel, protocol: .sixel), as: UTF8.self)
    #expect(drawn.hasPrefix("\u{1B}7\u{1B}[2;1H\u{1B}P"))
    #expect(drawn.hasSuffix("\u{1B}\\\u{1B}8"))
    #expect(drawn.contains("#"), "sixel colour registers")
    // No room between the header and the band: no picture.
    #expect(
      CoverPicture.makeSixel(
        image, key: "s", columns: 20, pageRows: 8, bandRows: 7, cellPixels: (8, 16)) == nil)
    let png = try #require(
      CoverPicture.make(
        image, key: "i", row: 1, columns: 20, rows: 4, cellPixels: (8, 16), darkRows: 0,
        darkening: 0))
    let inline = String(decoding: CellPictures.draw(png, protocol: .iterm), as: UTF8.self)
    #expect(
      inline.hasPrefix(
        "\u{1B}7\u{1B}[2;1H\u{1B}]1337;File=inline=1;size=\(png.bytes.count);width=20;height=4;"
          + "preserveAspectRatio=0:"))
    #expect(inline.hasSuffix("\u{07}\u{1B}8"))
  }

  /// Decodes a PNG the picture made, with libpng, as RGBA.
  static func decode(_ png: [UInt8]) -> RGBAImage? {
    try? ImageDecoder.decode(Data(png))
  }

  @Test("the picture: cell area's pixel size, cropped to fill, the band darkened, a valid PNG")
  func picture() throws {
    // Left half red, right half blue, 400x100: into 20x10 cells of 10x20 pixels (200x200), the
    // middle square is kept: red on the left, blue on the right.
    var pixels: [UInt8] = []
    for _ in 0..<100 {
      for x in 0..<400 { pixels += x < 200 ? [255, 0, 0, 255] : [0, 0, 255, 255] }
    }
    let image = RGBAImage(width: 400, height: 100, pixels: pixels)
    let picture = try #require(
      CoverPicture.make(
        image, key: "s 20x10", columns: 20, rows: 10, cellPixels: (10, 20), darkRows: 2,
        darkening: 0.5))
    #expect(picture.pixelWidth == 200 && picture.pixelHeight == 200)
    let decoded = try #require(Self.decode(picture.png))
    #expect(decoded.width == 200 && decoded.height == 200)
    func pixel(_ x: Int, _ y: Int) -> [UInt8] {
      Array(decoded.pixels[(y * 200 + x) * 4..<(y * 200 + x) * 4 + 3])
    }
    #expect(pixel(10, 10) == [255, 0, 0])
    #expect(pixel(190, 10) == [0, 0, 255])
    // The bottom 2 of 10 rows (the band): half as bright.
    #expect(pixel(10, 170) == [128, 0, 0])
    #expect(pixel(190, 199) == [0, 0, 128])
    #expect(pixel(10, 150) == [255, 0, 0])
    // Same song and size, same id; another size, another.
    #expect(CoverPicture.pictureID("s 20x10") == picture.id)
    #expect(CoverPicture.pictureID("s 21x10") != picture.id)
  }

  @Test("odd covers: 1x1, transparent, a huge page capped at 1280 pixels, a thin strip")
  func oddCovers() throws {
    let dot = RGBAImage(width: 1, height: 1, red: 10, green: 200, blue: 30)
    let one = try #require(
      CoverPicture.make(
        dot, key: "d", columns: 80, rows: 24, cellPixels: (9, 18), darkRows: 7, darkening: 0))
    let decoded = try #require(Self.decode(one.png))
    #expect(decoded.width == 720 && decoded.height == 432)
    #expect(Array(decoded.pixels[0..<3]) == [10, 200, 30])
    // Transparent: laid over black.
    let clear = RGBAImage(width: 4, height: 4, red: 255, green: 255, blue: 255, alpha: 0)
    let black = try #require(
      CoverPicture.make(
        clear, key: "c", columns: 4, rows: 2, cellPixels: (2, 4), darkRows: 0, darkening: 0))
    #expect(try #require(Self.decode(black.png)).pixels.prefix(3) == [0, 0, 0])
    // 200x60 cells of 20x40 pixels would be 4000x2400: capped to 1280 wide, same shape.
    let big = try #require(
      CoverPicture.make(
        dot, key: "b", columns: 200, rows: 60, cellPixels: (20, 40), darkRows: 7, darkening: 0.6))
    #expect(big.pixelWidth == 1280 && big.pixelHeight == 768)
    let strip = RGBAImage(width: 3000, height: 1, red: 1, green: 2, blue: 3)
    #expect(
      CoverPicture.make(
        strip, key: "s", columns: 80, rows: 24, cellPixels: (8, 16), darkRows: 7, darkening: 0)
        != nil)
    // Nothing to show: no picture.
    let empty = RGBAImage(width: 0, height: 0, pixels: [])
    #expect(
      CoverPicture.make(
        empty, key: "e", columns: 80, rows: 24, cellPixels: (8, 16), darkRows: 7, darkening: 0)
        == nil)
  }
}
