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

  /// Decodes a file a piece at a time, feeding the decoder a megabyte at a time and handing
  /// each block of PCM (in `PCMFormat`) to `body` as it comes, so nothing decoded is kept
  /// beyond the block; `body` returns false to stop early.
  public static func decodeEach(
    _ bytes: Data, _ body: (UnsafeRawBufferPointer) throws -> Bool
  ) throws {
    let decoder = try make(for: AudioSniffer.kind(of: bytes))
    decoder.setInputLength(Int64(bytes.count))
    var fed = 0
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
    defer { buffer.deallocate() }
    loop: while true {
      switch try decoder.decode(into: buffer) {
      case .pcm(let count):
        guard try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else { break loop }
      case .needMore where fed < bytes.count:
        let end = min(bytes.count, fed + 1 << 20)
        try decoder.feed(bytes.subdata(in: fed..<end))
        fed = end
        if fed == bytes.count { decoder.finishInput() }
      case .needMore, .done: break loop
      }
    }
    guard decoder.hasFormat else { throw DecodeError.noAudio }
  }

  /// Decodes at most the first `maxFrames` frames of a file, so a long recording costs only
  /// what is kept. Also says whether the file went on beyond.
  public static func decodePrefix(_ bytes: Data, maxFrames: Int) throws -> (
    pcm: Data, cut: Bool
  ) {
    let maxBytes = maxFrames * PCMFormat.bytesPerFrame
    var pcm = Data()
    var cut = false
    try decodeEach(bytes) { block in
      pcm.append(contentsOf: block.prefix(maxBytes - pcm.count))
      cut = pcm.count >= maxBytes
      return !cut
    }
    return (pcm, cut)
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
