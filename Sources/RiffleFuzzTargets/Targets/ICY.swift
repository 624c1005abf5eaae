import Foundation
import RiffleAPI
import RiffleCore

extension FuzzTarget {
  /// The ICY stream splitter and metadata reader on arbitrary bytes: the first byte sets the
  /// interval, the second the size of the pieces the stream is cut into; the rest is the stream.
  static let icy = FuzzTarget(name: "icy", summary: "ICYStreamSplitter, ICYMetadata.parse") {
    data in
    let bytes = [UInt8](data)
    guard bytes.count >= 2 else { return }
    let interval = Int(bytes[0]) + 1
    let piece = Int(bytes[1]) % 64 + 1
    let stream = bytes[2...]
    var whole = ICYStreamSplitter(interval: interval)
    let expected = whole.feed(stream)
    var cut = ICYStreamSplitter(interval: interval)
    var audio: [UInt8] = []
    var titles: [String?] = []
    var start = stream.startIndex
    while start < stream.endIndex {
      let end = min(stream.endIndex, start + piece)
      let (a, m) = cut.feed(stream[start..<end])
      audio += a
      titles += m.map(\.title)
      start = end
    }
    require(audio == expected.audio, "the audio depends on where the stream was cut")
    require(titles == expected.metadata.map(\.title), "the titles depend on the cuts")
    require(audio.count <= stream.count, "more audio than stream")
    for metadata in expected.metadata {
      for text in [metadata.title, metadata.url].compactMap({ $0 }) {
        require(text == TextSanitizer.sanitize(text), "unsanitized text \(text.debugDescription)")
        require(text.utf8.count <= 255 * 16 * 2, "a title longer than a block")
      }
    }
  }
}
