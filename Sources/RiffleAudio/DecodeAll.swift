import Foundation

extension DecoderFactory {
  /// Decodes a whole file in memory to PCM in `PCMFormat` (for tools, tests and fingerprints).
  public static func decodeAll(_ bytes: Data) throws -> Data {
    let decoder = try make(for: AudioSniffer.kind(of: bytes))
    decoder.setInputLength(Int64(bytes.count))
    try decoder.feed(bytes)
    decoder.finishInput()
    var pcm = Data()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
    defer { buffer.deallocate() }
    loop: while true {
      switch try decoder.decode(into: buffer) {
      case .pcm(let count):
        pcm.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
      case .needMore, .done: break loop
      }
    }
    guard decoder.hasFormat else { throw DecodeError.noAudio }
    return pcm
  }
}

extension DecoderFactory {
  /// Decodes a file to PCM in `PCMFormat`, handing each piece to `body` as it comes (for
  /// loudness measurement: nothing of the song is kept). The file is fed a megabyte at a time
  /// as the decoder asks. `body` returns false to stop early. Returns the frames decoded.
  @discardableResult
  public static func decodeFile(
    _ url: URL, _ body: (UnsafeRawBufferPointer) -> Bool
  ) throws -> Int {
    let bytes = try Data(contentsOf: url, options: .alwaysMapped)
    let decoder = try make(for: AudioSniffer.kind(of: bytes))
    decoder.setInputLength(Int64(bytes.count))
    let chunk = 1 << 20
    var fed = 0
    func feedMore() throws -> Bool {
      guard fed < bytes.count else { return false }
      let end = min(bytes.count, fed + chunk)
      try decoder.feed(bytes.subdata(in: fed..<end))
      fed = end
      if fed == bytes.count { decoder.finishInput() }
      return true
    }
    _ = try feedMore()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
    defer { buffer.deallocate() }
    var frames = 0
    loop: while true {
      switch try decoder.decode(into: buffer) {
      case .pcm(let count):
        frames += count / PCMFormat.bytesPerFrame
        if !body(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { break loop }
      case .needMore:
        if try !feedMore() { break loop }
      case .done: break loop
      }
    }
    guard decoder.hasFormat else { throw DecodeError.noAudio }
    return frames
  }
}
