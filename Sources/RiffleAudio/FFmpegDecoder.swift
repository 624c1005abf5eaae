import CFFmpeg
import Foundation
import RiffleCore

/// AAC in MP4/M4A (iTunes previews), ADTS AAC, FLAC, Ogg and WAV through FFmpeg's libavformat,
/// libavcodec and libswresample.
///
/// FFmpeg pulls its input; the player pushes bytes as they download. The fed bytes are kept in a
/// `DemuxerInput` that libavformat reads through a custom AVIOContext, and libavformat is only asked
/// for a packet once that packet's bytes are here: for MP4 the sample table (the `moov` box) says
/// where each packet lies; for the other containers a lookahead margin (or the end of the input)
/// must be present. So a partial download means `.needMore`, never a false end. An MP4 whose
/// `moov` box comes after the audio cannot start before its end has arrived.
public final class FFmpegDecoder: AudioDecoder {
  private enum Phase {
    case opening, decoding, draining, finished
  }

  /// Bytes that must be present beyond libavformat's read position, for containers without an
  /// index, before a packet is read. Larger than any packet of the formats taken here.
  static let lookahead: Int64 = 64 * 1024
  /// Source samples decoded before a seek's target in containers without an index: codecs with
  /// overlapping frames (AAC, Vorbis) need the frame before to be exact.
  private static let seekPreroll: Int64 = 4096
  /// How many more bytes must arrive before opening is tried again (containers without an index).
  private static let openRetryStep: Int64 = 32 * 1024
  private static let ioBufferSize = 32 * 1024
  /// Source sample rates converted to 44.1 kHz. A header may claim any rate; libswresample's
  /// filter grows with the ratio (a WAV of 961 bytes claiming 134 MHz cost 13 s and 540 MB
  /// before a sample came out) and the output with its inverse, so rates no audio uses are
  /// refused as damaged.
  static let playableSampleRates: ClosedRange<Int32> = 1_000...768_000

  private let kind: AudioKind
  private let input = DemuxerInput()
  private var phase = Phase.opening
  private var format: UnsafeMutablePointer<AVFormatContext>?
  private var io: UnsafeMutablePointer<AVIOContext>?
  private var codec: UnsafeMutablePointer<AVCodecContext>?
  private var resampler: OpaquePointer?
  /// The input the resampler was set up for: rate, channels, sample format.
  private var resamplerInput: [Int32] = []
  private let packet: UnsafeMutablePointer<AVPacket>
  private let frame: UnsafeMutablePointer<AVFrame>
  private var streamIndex: Int32 = -1
  /// Contiguous bytes at the last try to open; the first try comes as soon as bytes do.
  private var openTriedAt: Int64 = -FFmpegDecoder.openRetryStep

  /// PCM converted but not yet handed out.
  private var pending = Data()
  private var pendingOffset = 0
  /// MP4: the index entry of the next packet libavformat will read.
  private var nextEntry = 0
  /// Input version at which a read last starved, so it is retried only after new bytes.
  private var starvedAt = -1
  /// A seek asked for before it could be done (before opening, or before a container without an
  /// index has all its bytes).
  private var deferredSeek: Int64?
  /// After a seek: output frames before this one are dropped, and the position of the next.
  private var dropBefore: Int64?
  private var outputPosition: Int64?
  private var rejectedPackets = 0

  public private(set) var hasFormat = false
  /// FFmpeg's functions (the libraries are loaded on the first decoder, not at start).
  private let library: UnsafePointer<RiffleFFmpeg>
  private let ff: RiffleFFmpeg

  public init(kind: AudioKind) throws {
    library = try FFmpegDecoder.load(for: kind)
    ff = library.pointee
    guard let packet = ff.av_packet_alloc(), let frame = ff.av_frame_alloc() else {
      throw DecodeError.corrupt("cannot start FFmpeg: out of memory")
    }
    self.kind = kind
    self.packet = packet
    self.frame = frame
  }

  /// FFmpeg's function table, loading the libraries once per process (which also quiets its
  /// logging: stderr is the screen's terminal).
  static func load(for kind: AudioKind) throws -> UnsafePointer<RiffleFFmpeg> {
    if let table = riffle_ffmpeg() { return table }
    let reason = LazyLibrary.failure(riffle_ffmpeg_error())
    throw DecodeError.missingLibrary(kind, reason: reason)
  }

  deinit {
    closeDemuxer()
    ff.avcodec_free_context(&codec)
    ff.swr_free(&resampler)
    var packet: UnsafeMutablePointer<AVPacket>? = self.packet
    ff.av_packet_free(&packet)
    var frame: UnsafeMutablePointer<AVFrame>? = self.frame
    ff.av_frame_free(&frame)
  }

  // MARK: - AudioDecoder

  public func setInputLength(_ bytes: Int64) {
    input.length = bytes
  }

  public func feed(_ bytes: Data) throws {
    input.append(bytes)
  }

  public func finishInput() {
    input.finish()
  }

  public func decode(into buffer: UnsafeMutableRawBufferPointer) throws -> DecodeStep {
    while true {
      if pendingOffset < pending.count {
        let count = min(
          buffer.count / PCMFormat.bytesPerFrame * PCMFormat.bytesPerFrame,
          pending.count - pendingOffset)
        pending.withUnsafeBytes { raw in
          buffer.baseAddress!.copyMemory(from: raw.baseAddress! + pendingOffset, byteCount: count)
        }
        pendingOffset += count
        if pendingOffset == pending.count {
          pending.removeAll(keepingCapacity: true)
          pendingOffset = 0
        }
        return .pcm(count)
      }
      switch phase {
      case .opening:
        guard try open() else { return .needMore }
      case .finished:
        return .done
      case .decoding, .draining:
        if let step = try step() { return step }
      }
    }
  }

  public var duration: Double? {
    guard let format, let stream = audioStream else { return nil }
    let length = stream.pointee.duration
    if length != riffle_av_nopts_value() && length > 0 {
      return Double(length) * av_q2d(stream.pointee.time_base)
    }
    let whole = format.pointee.duration
    guard whole != riffle_av_nopts_value(), whole > 0 else { return nil }
    return Double(whole) / Double(AV_TIME_BASE)
  }

  public func seek(toFrame frame: Int64) throws -> (frame: Int64, inputOffset: Int64) {
    pending.removeAll(keepingCapacity: true)
    pendingOffset = 0
    var target = max(0, frame)
    if let duration { target = min(target, Int64(duration * Double(PCMFormat.sampleRate))) }
    guard phase != .opening, usesIndex || input.isWhole else {
      // Not yet: keep the bytes coming from where they are and seek when possible.
      deferredSeek = target
      return (target, input.cursor)
    }
    return try performSeek(to: target, movingInput: true)
  }

  // MARK: - Opening

  private var usesIndex: Bool { kind == .mp4 }

  private var audioStream: UnsafeMutablePointer<AVStream>? {
    guard let format, streamIndex >= 0 else { return nil }
    return format.pointee.streams[Int(streamIndex)]
  }

  /// Opens the demuxer and the codec once enough bytes are here. False: not yet.
  private func open() throws -> Bool {
    let have = input.contiguous(from: 0)
    let finished = input.isFinished
    if usesIndex {
      // The sample table is all libavformat needs to start; without all of it, it would read
      // the part that came as the whole. An MP4 that ends without one is reported by FFmpeg.
      guard finished || input.hasMP4SampleTable else { return false }
    } else {
      guard finished || have - openTriedAt >= FFmpegDecoder.openRetryStep,
        finished || have >= FFmpegDecoder.lookahead
      else { return false }
    }
    openTriedAt = have
    closeDemuxer()
    input.readPosition = 0
    input.starved = false

    guard let buffer = ff.av_malloc(FFmpegDecoder.ioBufferSize),
      let io = ff.avio_alloc_context(
        buffer.assumingMemoryBound(to: UInt8.self), Int32(FFmpegDecoder.ioBufferSize), 0,
        Unmanaged.passUnretained(input).toOpaque(), DemuxerInput.readCallback, nil,
        DemuxerInput.seekCallback)
    else { throw DecodeError.corrupt("cannot start FFmpeg: out of memory") }
    // MP4: seeks always reach the store, never read through the bytes between (which may be a
    // gap left by a seek beyond the download). Other containers are read whole before a seek.
    if usesIndex { io.pointee.direct = 1 }
    self.io = io
    var context = ff.avformat_alloc_context()
    context?.pointee.pb = io
    let result = ff.avformat_open_input(&context, nil, ff.av_find_input_format(demuxerName), nil)
    guard result >= 0, let context else {
      // avformat_open_input frees the context when it fails.
      if input.starved && !finished && !usesIndex { return false }
      throw DecodeError.corrupt(
        usesIndex ? "no MP4 sample table (moov box) in the file" : message(result))
    }
    format = context
    if !usesIndex {
      // Demuxers that opened fine may still have looked at the end of the file for tags or the
      // length (ADTS, Ogg) and found nothing yet: they do without. Only what the stream needs
      // to start must be here.
      input.starved = false
      let found = ff.avformat_find_stream_info(context, nil)
      if input.starved && !finished { return false }
      if found < 0 { throw DecodeError.corrupt(message(found)) }
    }
    streamIndex = ff.av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
    guard streamIndex >= 0, let stream = audioStream else { throw DecodeError.noAudio }
    for index in 0..<Int(context.pointee.nb_streams) where index != Int(streamIndex) {
      context.pointee.streams[index]!.pointee.discard = AVDISCARD_ALL
    }
    try openCodec(stream)
    phase = .decoding
    nextEntry = 0
    if let target = deferredSeek, usesIndex || input.isWhole {
      deferredSeek = nil
      _ = try performSeek(to: target, movingInput: false)
    }
    return true
  }

  private var demuxerName: String { FFmpegDecoder.demuxerName(for: kind) }

  /// The one demuxer that opens a sniffed container (FFmpeg never probes on its own).
  static func demuxerName(for kind: AudioKind) -> String {
    switch kind {
    case .mp4: return "mp4"
    case .aac: return "aac"
    case .flac: return "flac"
    case .ogg: return "ogg"
    case .wav: return "wav"
    case .mp3, .unknown: return "mp3"
    }
  }

  private func openCodec(_ stream: UnsafeMutablePointer<AVStream>) throws {
    let parameters = stream.pointee.codecpar!
    guard let decoder = ff.avcodec_find_decoder(parameters.pointee.codec_id) else {
      let name =
        ff.avcodec_get_name(parameters.pointee.codec_id).map { String(cString: $0) } ?? "unknown"
      throw DecodeError.corrupt("no decoder for \(name) audio")
    }
    ff.avcodec_free_context(&codec)
    codec = ff.avcodec_alloc_context3(decoder)
    guard let codec else { throw DecodeError.corrupt("cannot start FFmpeg: out of memory") }
    var result = ff.avcodec_parameters_to_context(codec, parameters)
    codec.pointee.pkt_timebase = stream.pointee.time_base
    if result >= 0 { result = ff.avcodec_open2(codec, decoder, nil) }
    if result < 0 { throw DecodeError.corrupt(message(result)) }
  }

  private func closeDemuxer() {
    ff.avformat_close_input(&format)
    streamIndex = -1
    if io != nil {
      ff.av_freep(&io!.pointee.buffer)
      ff.avio_context_free(&io)
    }
  }

  // MARK: - Decoding

  /// One move of the codec: a frame out, or a packet in. Returns a step to hand back, or nil to
  /// go on.
  private func step() throws -> DecodeStep? {
    if let target = deferredSeek {
      guard input.isWhole else {
        if input.isFinished { throw DecodeError.corrupt("the file is cut short") }
        return .needMore
      }
      deferredSeek = nil
      _ = try performSeek(to: target, movingInput: false)
    }
    let received = ff.avcodec_receive_frame(codec, frame)
    if received >= 0 {
      try convert(frame)
      ff.av_frame_unref(frame)
      return nil
    }
    if received == riffle_av_error_eof() {
      try flushResampler()
      phase = .finished
      if !hasFormat { throw DecodeError.corrupt("no audio frame could be decoded") }
      return nil
    }
    if received != riffle_av_error_again() && received != riffle_av_error_invalid() {
      throw DecodeError.corrupt(message(received))
    }
    guard phase == .decoding else { return nil }
    guard try nextPacketIsHere() else { return .needMore }

    input.starved = false
    let read = ff.av_read_frame(format, packet)
    defer { ff.av_packet_unref(packet) }
    if input.starved {
      // The bytes ran out inside the read after all: go back to the packet and wait.
      starvedAt = input.version
      if usesIndex { try seekDemuxer(toEntry: nextEntry) }
      if input.isFinished { throw DecodeError.corrupt("the file is cut short") }
      return .needMore
    }
    if read == riffle_av_error_eof() {
      // Enters draining; what the codec still holds comes out of receive_frame.
      _ = ff.avcodec_send_packet(codec, nil)
      phase = .draining
      return nil
    }
    if read < 0 { throw DecodeError.corrupt(message(read)) }
    guard packet.pointee.stream_index == streamIndex else { return nil }
    if usesIndex, let stream = audioStream {
      let next = ff.av_index_search_timestamp(stream, packet.pointee.dts + 1, AVSEEK_FLAG_ANY)
      nextEntry = next >= 0 ? Int(next) : Int(ff.avformat_index_get_entries_count(stream))
    }
    let sent = ff.avcodec_send_packet(codec, packet)
    if sent == riffle_av_error_invalid() {
      // A damaged packet costs its few milliseconds, as in other players; only a stream that
      // never decodes is an error.
      rejectedPackets += 1
      if !hasFormat && rejectedPackets > 50 {
        throw DecodeError.corrupt("no audio frame could be decoded")
      }
    } else if sent < 0 && sent != riffle_av_error_again() {
      throw DecodeError.corrupt(message(sent))
    }
    return nil
  }

  /// True when libavformat can read the next packet without running out of bytes.
  private func nextPacketIsHere() throws -> Bool {
    if starvedAt == input.version { return false }
    guard usesIndex else {
      if input.isFinished { return true }
      let available = input.contiguous(from: input.readPosition)
      if available >= FFmpegDecoder.lookahead { return true }
      return input.end.map { input.readPosition + available >= $0 } ?? false
    }
    guard let stream = audioStream, nextEntry < ff.avformat_index_get_entries_count(stream),
      let entry = ff.avformat_index_get_entry(stream, Int32(nextEntry))
    else { return true }
    if input.has(entry.pointee.pos, count: Int64(entry.pointee.size)) { return true }
    if input.isFinished {
      let at = Double(entry.pointee.timestamp) * av_q2d(stream.pointee.time_base)
      let whole = duration.map { String(format: " of %.1f s", $0) } ?? ""
      throw DecodeError.corrupt(
        String(format: "the file is cut short at %.1f s", max(0, at)) + whole)
    }
    return false
  }

  // MARK: - Seeking

  /// Seeks the demuxer and the codec. `movingInput`: the feeder goes on from the returned offset
  /// (false when a deferred seek is done while the bytes keep coming in order).
  private func performSeek(to target: Int64, movingInput: Bool) throws -> (
    frame: Int64, inputOffset: Int64
  ) {
    if !usesIndex {
      // All the bytes are here (see `seek`). A demuxer that has met the end may keep stale
      // state (Ogg's page timestamps), so seek in a fresh one.
      openTriedAt = -FFmpegDecoder.openRetryStep
      guard try open() else {
        throw DecodeError.corrupt("cannot seek: the file cannot be reopened")
      }
    }
    guard let stream = audioStream else { return (target, input.cursor) }
    let timestamp = ff.av_rescale_q(
      target, AVRational(num: 1, den: Int32(PCMFormat.sampleRate)), stream.pointee.time_base)
    var inputOffset = input.cursor
    if usesIndex {
      let found = ff.av_index_search_timestamp(
        stream, timestamp, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY)
      // One packet early: AAC frames overlap, so the one before primes the decoder and the
      // audio from the target on is exactly what playing through would give.
      let entry = max(0, Int(found) - 1)
      try seekDemuxer(toEntry: entry)
      if let position = ff.avformat_index_get_entry(stream, Int32(entry))?.pointee.pos {
        inputOffset = position
        if movingInput { input.cursor = position }
      }
    } else {
      let preroll = ff.av_rescale_q(
        FFmpegDecoder.seekPreroll,
        AVRational(num: 1, den: max(1, stream.pointee.codecpar.pointee.sample_rate)),
        stream.pointee.time_base)
      let result = ff.av_seek_frame(
        format, streamIndex, max(0, timestamp - preroll), AVSEEK_FLAG_BACKWARD)
      if result < 0 { throw DecodeError.corrupt("cannot seek: \(message(result))") }
    }
    ff.avcodec_flush_buffers(codec)
    ff.swr_free(&resampler)
    resamplerInput = []
    phase = .decoding
    starvedAt = -1
    dropBefore = target
    outputPosition = nil
    return (target, inputOffset)
  }

  private func seekDemuxer(toEntry entry: Int) throws {
    guard let stream = audioStream,
      let timestamp = ff.avformat_index_get_entry(stream, Int32(entry))?.pointee.timestamp
    else { return }
    let result = ff.av_seek_frame(
      format, streamIndex, timestamp, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY)
    if result < 0 { throw DecodeError.corrupt("cannot seek: \(message(result))") }
    nextEntry = entry
  }

  // MARK: - Conversion to PCMFormat

  private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws {
    let shape = [
      frame.pointee.sample_rate, frame.pointee.ch_layout.nb_channels, frame.pointee.format,
    ]
    if shape != resamplerInput { try makeResampler(for: frame, shape: shape) }
    if dropBefore != nil && outputPosition == nil, let stream = audioStream {
      let pts =
        frame.pointee.pts != riffle_av_nopts_value()
        ? frame.pointee.pts : frame.pointee.best_effort_timestamp
      if pts == riffle_av_nopts_value() {
        // No timestamp to trim by: play from where the demuxer landed.
        dropBefore = nil
      } else {
        outputPosition = ff.av_rescale_q(
          pts, stream.pointee.time_base, AVRational(num: 1, den: Int32(PCMFormat.sampleRate)))
      }
    }
    try resample(frame, capacity: ff.swr_get_out_samples(resampler, frame.pointee.nb_samples))
    hasFormat = true
  }

  private func flushResampler() throws {
    guard resampler != nil else { return }
    try resample(nil, capacity: ff.swr_get_out_samples(resampler, 0))
  }

  /// Converts a frame (or, with nil, what the resampler holds) and keeps the PCM to hand out,
  /// less what comes before a seek's target.
  private func resample(_ frame: UnsafeMutablePointer<AVFrame>?, capacity: Int32) throws {
    guard capacity > 0 else { return }
    var out = Data(count: Int(capacity) * PCMFormat.bytesPerFrame)
    let frames = out.withUnsafeMutableBytes { raw in
      riffle_swr_convert_frame(
        library, resampler!, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), capacity, frame)
    }
    if frames < 0 { throw DecodeError.corrupt(message(frames)) }
    var keepFrom = 0
    if let target = dropBefore, let position = outputPosition {
      keepFrom = Int(min(Int64(frames), max(0, target - position)))
      outputPosition = position + Int64(frames)
      if position + Int64(frames) >= target {
        dropBefore = nil
        outputPosition = nil
      }
    }
    pending.append(
      out[keepFrom * PCMFormat.bytesPerFrame..<Int(frames) * PCMFormat.bytesPerFrame])
  }

  private func makeResampler(for frame: UnsafeMutablePointer<AVFrame>, shape: [Int32]) throws {
    ff.swr_free(&resampler)
    guard FFmpegDecoder.playableSampleRates.contains(frame.pointee.sample_rate) else {
      throw DecodeError.corrupt("an unplayable sample rate of \(frame.pointee.sample_rate) Hz")
    }
    var stereo = AVChannelLayout()
    riffle_channel_layout_stereo(&stereo)
    var layout = AVChannelLayout()
    defer { ff.av_channel_layout_uninit(&layout) }
    var result = riffle_frame_layout(library, frame, &layout)
    if result >= 0 {
      result = ff.swr_alloc_set_opts2(
        &resampler, &stereo, AV_SAMPLE_FMT_S16, Int32(PCMFormat.sampleRate), &layout,
        AVSampleFormat(rawValue: frame.pointee.format), frame.pointee.sample_rate, 0, nil)
    }
    if result >= 0 { result = ff.swr_init(resampler) }
    if result < 0 {
      throw DecodeError.corrupt("cannot convert the audio: \(message(result))")
    }
    resamplerInput = shape
  }

  /// FFmpeg's own words for an error code.
  private func message(_ code: Int32) -> String { FFmpegDecoder.message(code, ff) }

  static func message(_ code: Int32, _ ff: RiffleFFmpeg) -> String {
    var text = [CChar](repeating: 0, count: 128)
    if ff.av_strerror(code, &text, text.count) < 0 { return "FFmpeg error \(code)" }
    let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self).lowercased()
  }
}

/// FFmpeg's libraries as Riffle loads them: on first use, not at start (see CFFmpeg.h).
public enum FFmpegLibraries {
  /// The sonames loaded, dependencies first ("libavutil.so.57", ... "libavformat.so.59").
  public static var sonames: [String] {
    (0..<4).compactMap { riffle_ffmpeg_soname(Int32($0)).map { String(cString: $0) } }
  }

  /// The most FFmpeg allocates at once (see CFFmpeg.h): a header's claim beyond it is refused.
  public static let largestAllocation = Int(RIFFLE_FFMPEG_LARGEST_ALLOCATION)

  /// Whether FFmpeg, loaded as the decoder loads it, would allocate `bytes` in one block.
  static func allocates(_ bytes: Int) throws -> Bool {
    let ff = try FFmpegDecoder.load(for: .mp4).pointee
    guard var block = ff.av_malloc(bytes) else { return false }
    ff.av_freep(&block)
    return true
  }

  /// Whether the libraries load and have every function Riffle calls, from `directory` or,
  /// when nil, the loader's usual search path: nil when they do, else why not. Leaves the
  /// libraries the decoder uses alone.
  public static func problem(loadingFrom directory: String? = nil) -> String? {
    LazyLibrary.probeProblem { riffle_ffmpeg_probe(directory, $0, $1) }
  }
}
