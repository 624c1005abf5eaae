import Foundation
import RiffleAPI
import Testing

/// An ICY stream as a station sends it: `interval` bytes of audio, a length byte, the block
/// (padded with NULs to a multiple of 16), and again.
private func icyStream(interval: Int, blocks: [String?], audioByte: (Int) -> UInt8) -> (
  stream: [UInt8], audio: [UInt8]
) {
  var stream: [UInt8] = []
  var audio: [UInt8] = []
  for (n, block) in blocks.enumerated() {
    let piece = (0..<interval).map { audioByte(n * interval + $0) }
    stream += piece
    audio += piece
    guard let block else {
      stream.append(0)
      continue
    }
    var bytes = Array(block.utf8)
    bytes += [UInt8](repeating: 0, count: (16 - bytes.count % 16) % 16)
    stream.append(UInt8(bytes.count / 16))
    stream += bytes
  }
  return (stream, audio)
}

@Suite("ICY metadata")
struct ICYMetadataTests {
  let blocks: [String?] = [
    "StreamTitle='Artist One - First Song';StreamUrl='https://radio.example/';",
    nil,
    "StreamTitle='Guns N' Roses - Patience';",
    "StreamTitle='';",
  ]

  @Test("cut anywhere, the same audio and the same titles come out")
  func cutAnywhere() {
    let (stream, audio) = icyStream(interval: 37, blocks: blocks) { UInt8($0 % 251) }
    var whole = ICYStreamSplitter(interval: 37)
    let expected = whole.feed(stream)
    #expect(expected.audio == audio)
    #expect(
      expected.metadata.map(\.title) == ["Artist One - First Song", "Guns N' Roses - Patience", ""])
    #expect(expected.metadata[0].url == "https://radio.example/")
    #expect(expected.metadata[0].artistAndTitle?.artist == "Artist One")
    #expect(expected.metadata[1].artistAndTitle?.title == "Patience")
    for size in [1, 2, 3, 7, 16, 38, 100] {
      var splitter = ICYStreamSplitter(interval: 37)
      var gotAudio: [UInt8] = []
      var gotTitles: [String?] = []
      var start = 0
      while start < stream.count {
        let piece = stream[start..<min(stream.count, start + size)]
        let (a, m) = splitter.feed(piece)
        gotAudio += a
        gotTitles += m.map(\.title)
        start += size
      }
      #expect(gotAudio == audio, "pieces of \(size)")
      #expect(gotTitles == expected.metadata.map(\.title), "pieces of \(size)")
    }
  }

  @Test("hostile text: escapes and controls dropped, Latin-1 read, no key, the largest block")
  func hostile() {
    let escaped = ICYMetadata.parse(Array("StreamTitle='\u{1B}[2JEvil\u{9B}31m - \u{7}Song';".utf8))
    #expect(escaped.title == "Evil - Song")
    let latin1: [UInt8] = Array("StreamTitle='Beyonc".utf8) + [0xE9] + Array(" - Halo';".utf8)
    #expect(ICYMetadata.parse(latin1).title == "Beyonc\u{E9} - Halo")
    #expect(ICYMetadata.parse(Array("nonsense without keys".utf8)).title == nil)
    #expect(ICYMetadata.parse(Array("StreamTitle='unterminated".utf8)).title == "unterminated")
    #expect(ICYMetadata.parse([UInt8](repeating: 0, count: 32)).title == nil)
    let huge = "StreamTitle='" + String(repeating: "x", count: 4000) + "';"
    var splitter = ICYStreamSplitter(interval: 4)
    let (stream, _) = icyStream(interval: 4, blocks: [huge]) { _ in 0xFF }
    #expect(stream[4] == 251)
    #expect(splitter.feed(stream).metadata.first?.title?.count == 4000)
    #expect(ICYMetadata(title: "No dash here").artistAndTitle == nil)
  }
}
