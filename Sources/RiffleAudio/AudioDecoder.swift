import Foundation

/// The PCM format everything is decoded to and played in: 44.1 kHz, stereo, signed 16-bit,
/// little-endian, interleaved. One format means one output device for a whole session.
public enum PCMFormat {
  public static let sampleRate = 44_100
  public static let channels = 2
  public static let bytesPerFrame = 4
}

/// What a decoder gives back from one call.
public enum DecodeStep: Equatable {
  /// `bytes` of PCM were written to the buffer (possibly 0 while the format is found).
  case pcm(Int)
  /// All fed bytes are used up; feed more (or finish).
  case needMore
  /// The stream ended.
  case done
}

/// Turns compressed audio bytes, fed in pieces as they arrive, into PCM in `PCMFormat`.
public protocol AudioDecoder: AnyObject {
  /// Gives the decoder more input.
  func feed(_ bytes: Data) throws
  /// Decodes into `buffer`; call until `.needMore` or `.done`.
  func decode(into buffer: UnsafeMutableRawBufferPointer) throws -> DecodeStep
  /// Total length in seconds, once the decoder can tell.
  var duration: Double? { get }
  /// True once the decoder recognised the stream and produced a format.
  var hasFormat: Bool { get }
  /// Tells the decoder the whole input size, which sharpens duration estimates.
  func setInputLength(_ bytes: Int64)
  /// Tells the decoder that no input follows what was fed, so what it holds back for lack of
  /// bytes (the last packets, an index at the end) is decoded now or reported damaged.
  func finishInput()
  /// Prepares to decode from a frame (sample per channel) on; returns the frame it will really
  /// start at and the byte offset of the input to feed from next.
  func seek(toFrame frame: Int64) throws -> (frame: Int64, inputOffset: Int64)
}

extension AudioDecoder {
  public func finishInput() {}
}

/// Why audio could not be decoded.
public enum DecodeError: Error, Equatable, Sendable, CustomStringConvertible {
  case unsupported(AudioKind)
  case corrupt(String)
  case noAudio
  /// The format needs a library that could not be loaded (FFmpeg is loaded on first use).
  case missingLibrary(AudioKind, reason: String)

  public var description: String {
    switch self {
    case .unsupported(.unknown): return "not an audio format Riffle can play"
    case .unsupported(let kind): return "\(kind.name) audio is not supported"
    case .corrupt(let detail): return "the audio is damaged (\(detail))"
    case .noAudio: return "the file holds no playable audio"
    case .missingLibrary(let kind, let reason):
      return "\(kind.name) audio needs FFmpeg, which could not be loaded (\(reason))"
    }
  }
}

/// Picks and builds the decoder for some sniffed bytes: mpg123 for MP3, FFmpeg for the rest.
public enum DecoderFactory {
  public static func make(for kind: AudioKind) throws -> AudioDecoder {
    switch kind {
    case .mp3: return try MP3Decoder()
    case .mp4, .aac, .flac, .ogg, .wav: return try FFmpegDecoder(kind: kind)
    case .unknown: throw DecodeError.unsupported(kind)
    }
  }
}
