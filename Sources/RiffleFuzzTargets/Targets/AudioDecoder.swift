import Foundation
import RiffleAudio

extension FuzzTarget {
  /// The decoder front end as the engine drives it: sniff the first bytes, build the decoder
  /// for them, feed the bytes in network-sized pieces and decode everything, then seek.
  static let audioDecoder = FuzzTarget(
    name: "decoder", summary: "AudioSniffer + DecoderFactory + decode + seek"
  ) { data in
    let kind = AudioSniffer.kind(of: data)
    guard let decoder = try? DecoderFactory.make(for: kind) else { return }
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 32_768, alignment: 16)
    defer { scratch.deallocate() }
    decoder.setInputLength(Int64(data.count))
    // Piece sizes come from the input, so the fuzzer explores how bytes are split.
    let piece = 1 + Int(data.last ?? 0) * 64
    var offset = 0
    var produced = 0
    do {
      while offset < data.count {
        let end = min(data.count, offset + piece)
        try decoder.feed(data.subdata(in: offset..<end))
        offset = end
        decoding: while true {
          switch try decoder.decode(into: scratch) {
          case .pcm(let count):
            require(count >= 0 && count <= scratch.count, "decoded \(count) bytes")
            produced += count
          case .needMore, .done: break decoding
          }
        }
      }
      _ = decoder.duration
      _ = try decoder.seek(toFrame: Int64(produced / 8))
    } catch {
      // Damaged input is reported as an error: that is the promise.
    }
  }
}
