import CMPG123
import Foundation

/// MP3 decoding with libmpg123's feed API: bytes go in as they arrive from the network.
public final class MP3Decoder: AudioDecoder {
  private let handle: OpaquePointer
  public private(set) var hasFormat = false
  private var sourceRate = PCMFormat.sampleRate
  private var inputLength: Int64?
  /// The last bytes fed, kept so a tag split between pieces is still read; nil once mpg123 has
  /// been told to ignore Info tags.
  private var tagCarry: [UInt8]? = []

  private static let libraryReady: Bool = {
    // Needed before 1.27 and harmless after.
    mpg123_init() == MPG123_OK.rawValue
  }()

  public init() throws {
    _ = MP3Decoder.libraryReady
    var error: Int32 = 0
    guard let handle = mpg123_new(nil, &error) else {
      throw DecodeError.corrupt(
        "cannot start mpg123: \(String(cString: mpg123_plain_strerror(error)))")
    }
    self.handle = handle
    // Quiet: mpg123 must not print over the screen. Force stereo and 44.1 kHz so every song
    // fits the one open output; gapless trims the encoder's padding, as mpg123 itself does.
    // Fuzzy seeking lets feedseek jump to bytes not yet fed, estimated from the Xing/Info table
    // of contents, so a seek beyond the download becomes an HTTP Range request. ID3v2 tags are
    // skipped, not parsed: the feed gives the song's details, and mpg123 allocates what a tag
    // claims to hold (up to 256 MB) before reading it, again on every read until it has it all.
    let flags = Int(
      MPG123_QUIET.rawValue | MPG123_FORCE_STEREO.rawValue | MPG123_GAPLESS.rawValue
        | MPG123_FUZZY.rawValue | MPG123_SKIP_ID3V2.rawValue)
    riffle_mpg123_param(handle, MPG123_ADD_FLAGS, flags, 0)
    riffle_mpg123_param(handle, MPG123_FORCE_RATE, PCMFormat.sampleRate, 0)
    mpg123_format_none(handle)
    mpg123_format(
      handle, PCMFormat.sampleRate, Int32(MPG123_STEREO.rawValue),
      Int32(MPG123_ENC_SIGNED_16.rawValue))
    guard mpg123_open_feed(handle) == MPG123_OK.rawValue else {
      mpg123_delete(handle)
      throw DecodeError.corrupt("cannot open the mpg123 feed")
    }
  }

  deinit {
    mpg123_delete(handle)
  }

  /// The text frames mpg123 has read from ID3v2 tags: none, as it skips them.
  var id3v2TextFrames: Int {
    var v1: UnsafeMutablePointer<mpg123_id3v1>?
    var v2: UnsafeMutablePointer<mpg123_id3v2>?
    guard mpg123_id3(handle, &v1, &v2) == MPG123_OK.rawValue, let v2 else { return 0 }
    return v2.pointee.texts
  }

  public func setInputLength(_ bytes: Int64) {
    inputLength = bytes
    riffle_mpg123_set_filesize(handle, off_t(bytes))
  }

  public func feed(_ bytes: Data) throws {
    // mpg123 parses what it is fed only when asked to decode: tags are checked before that.
    checkInfoTags(bytes)
    let result = bytes.withUnsafeBytes { raw in
      riffle_mpg123_feed(handle, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
    }
    if result != MPG123_OK.rawValue { throw DecodeError.corrupt(lastError) }
  }

  public func decode(into buffer: UnsafeMutableRawBufferPointer) throws -> DecodeStep {
    var done = 0
    let result = riffle_mpg123_read(handle, buffer.baseAddress, buffer.count, &done)
    switch result {
    case MPG123_OK.rawValue:
      return .pcm(done)
    case MPG123_NEW_FORMAT.rawValue:
      var rate = 0
      var channels: Int32 = 0
      var encoding: Int32 = 0
      riffle_mpg123_getformat(handle, &rate, &channels, &encoding)
      guard rate == PCMFormat.sampleRate, channels == 2,
        encoding == Int32(MPG123_ENC_SIGNED_16.rawValue)
      else { throw DecodeError.corrupt("unexpected output format \(rate) Hz") }
      hasFormat = true
      return .pcm(done)
    case MPG123_NEED_MORE.rawValue:
      return done > 0 ? .pcm(done) : .needMore
    case MPG123_DONE.rawValue:
      return .done
    default:
      throw DecodeError.corrupt(lastError)
    }
  }

  public func seek(toFrame frame: Int64) throws -> (frame: Int64, inputOffset: Int64) {
    // Bytes fed from now on come from elsewhere in the stream.
    if tagCarry != nil { tagCarry = [] }
    var inputOffset: off_t = 0
    let reached = riffle_mpg123_feedseek(handle, off_t(frame), &inputOffset)
    guard reached >= 0 else { throw DecodeError.corrupt("cannot seek: \(lastError)") }
    return (Int64(reached), Int64(inputOffset))
  }

  /// Most frames a stream of the known input length can hold (each takes more than a byte).
  private var plausibleFrames: Int64 {
    min(MP3InfoTag.mostFrames, inputLength ?? MP3InfoTag.mostFrames)
  }

  /// Looks at the bytes about to be fed for Info tags; a claim beyond what the stream can hold
  /// makes mpg123 ignore Info tags from then on (and play the frames that carry them).
  private func checkInfoTags(_ bytes: Data) {
    guard let carry = tagCarry else { return }
    let window = carry + bytes
    if MP3InfoTag.claims(in: window).contains(where: { $0 > plausibleFrames }) {
      riffle_mpg123_param(handle, MPG123_ADD_FLAGS, Int(MPG123_IGNORE_INFOFRAME.rawValue), 0)
      tagCarry = nil
      return
    }
    tagCarry = Array(window.suffix(MP3InfoTag.reach - 1))
  }

  public var duration: Double? {
    // mpg123_length walks every frame when it resamples: a length no stream can have (from a
    // lying tag or input length) is no length.
    guard riffle_mpg123_framelength(handle) <= plausibleFrames else { return nil }
    let samples = riffle_mpg123_length(handle)
    guard samples > 0 else { return nil }
    return Double(samples) / Double(PCMFormat.sampleRate)
  }

  private var lastError: String {
    String(cString: mpg123_strerror(handle))
  }
}
