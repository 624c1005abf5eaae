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
    // Piece sizes come from the input, so the fuzzer explores how bytes are split, in at most
    // 256 pieces: inputs up to 256 bytes can still go a byte at a time. A 6 KB input fed a byte
    // at a time (6,000 rounds of feed and decode) took up to 0.7 s and mostly repeated mpg123's
    // search for a frame over the bytes it holds, which it redoes on every read.
    let piece = max(1 + Int(data.last ?? 0) * 64, (data.count + 255) / 256)
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
