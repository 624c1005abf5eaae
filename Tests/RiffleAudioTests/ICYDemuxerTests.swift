import Foundation
import Testing

@testable import RiffleAudio

/// `metaint` bytes of audio (`fill`), then a metadata block holding `text` (padded to 16),
/// or an empty block when `text` is nil.
private func icyStream(metaint: Int, blocks: [String?], fill: UInt8 = 0xAA) -> Data {
  var out = Data()
  for text in blocks {
    out.append(Data(repeating: fill, count: metaint))
    guard let text else {
      out.append(0)
      continue
    }
    var block = Data(text.utf8)
    let length = (block.count + 15) / 16
    block.append(Data(repeating: 0, count: length * 16 - block.count))
    out.append(UInt8(length))
    out.append(block)
  }
  return out
}

@Suite("ICY metadata taken out of a station's bytes")
struct ICYDemuxerTests {
  @Test("cut anywhere, odd intervals: the audio comes out whole, each new title once")
  func split() {
    for metaint in [1, 7, 255, 8192] {
      let stream = icyStream(
        metaint: metaint,
        blocks: [
          "StreamTitle='Mira Sol - Night Drive';", nil, "StreamTitle='Mira Sol - Night Drive';",
          "StreamTitle='Juno Reyes - Dawn';StreamUrl='http://x';", "StreamTitle='';",
        ])
      for piece in [1, 3, 16, 17, 4096] {
        let demuxer = ICYDemuxer()
        demuxer.start(metaint: " \(metaint) ")
        var audio = Data()
        var titles: [String] = []
        var at = 0
        while at < stream.count {
          let chunk = stream.subdata(in: at..<min(stream.count, at + piece))
          let (bytes, title) = demuxer.split(chunk)
          audio.append(bytes)
          if let title { titles.append(title) }
          at += piece
        }
        #expect(
          audio == Data(repeating: 0xAA, count: metaint * 5), "metaint \(metaint) by \(piece)")
        // Titles within one chunk collapse to the newest; cut fine, every change shows.
        if piece <= 17 {
          #expect(titles == ["Mira Sol - Night Drive", "Juno Reyes - Dawn", ""])
        }
      }
    }
  }

  @Test("no icy-metaint, or nonsense, passes the bytes through untouched")
  func passThrough() {
    for header in [nil, "", "0", "-5", "lots", "99999999999"] {
      let demuxer = ICYDemuxer()
      demuxer.start(metaint: header)
      let bytes = Data("StreamTitle='x';\u{0}\u{1}".utf8)
      let (audio, title) = demuxer.split(bytes)
      #expect(audio == bytes)
      #expect(title == nil)
    }
  }

  @Test("hostile text: escapes removed, a 4 KB title cut to 200 characters")
  func hostile() {
    let long = String(repeating: "A", count: 4000)
    let stream = icyStream(
      metaint: 4,
      blocks: ["StreamTitle='\u{1B}[2J\u{1B}]0;owned\u{7}Evil\r\n';", "StreamTitle='\(long)';"])
    let demuxer = ICYDemuxer()
    demuxer.start(metaint: "4")
    var titles: [String] = []
    for byte in stream {
      if let title = demuxer.split(Data([byte])).title { titles.append(title) }
    }
    #expect(titles.count == 2)
    #expect(
      !titles[0].contains("\u{1B}") && !titles[0].contains("\u{7}") && titles[0].contains("Evil"))
    #expect(titles[1].count == ICYDemuxer.longestTitle)
  }
}
