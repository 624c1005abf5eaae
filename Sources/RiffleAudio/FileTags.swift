import CFFmpeg
import Foundation
import RiffleCore

#if canImport(Glibc)
  import Glibc
#endif

/// What an audio file says about itself, read by FFmpeg's demuxers: its tags as the container
/// holds them (ID3v1/v2, MP4 atoms, Vorbis comments, RIFF INFO, APE), its length and whether
/// a picture is embedded. The mapping of tag names to fields is the library's (RiffleLibrary).
public struct FileTags: Equatable, Sendable {
  /// The container, as the bytes say (never the file name).
  public var kind: AudioKind
  /// Every tag as FFmpeg names it (ID3 frames already turned into "title", "album_artist", a
  /// TXXX frame into its description), the file's own before its audio stream's, in order.
  /// Text in Latin-1 or UTF-16 is UTF-8 by now; bytes that are not valid UTF-8 are replaced.
  public var tags: [(key: String, value: String)] {
    didSet { byKey = Self.index(tags) }
  }
  /// The first value of each tag by its name in lower case (Foundation's case-insensitive
  /// comparison, tag by tag and field by field, took 4% of a scan's time in `perf`).
  private var byKey: [String: String]
  /// Length in seconds, when the container says or FFmpeg can tell.
  public var duration: Double?
  /// A picture inside the file (ID3 APIC, MP4 covr, FLAC or Vorbis picture block).
  public var hasEmbeddedPicture: Bool

  public init(
    kind: AudioKind, tags: [(key: String, value: String)], duration: Double?,
    hasEmbeddedPicture: Bool
  ) {
    self.kind = kind
    self.tags = tags
    self.byKey = Self.index(tags)
    self.duration = duration
    self.hasEmbeddedPicture = hasEmbeddedPicture
  }

  public static func == (a: FileTags, b: FileTags) -> Bool {
    a.kind == b.kind && a.duration == b.duration && a.hasEmbeddedPicture == b.hasEmbeddedPicture
      && a.tags.map(\.key) == b.tags.map(\.key) && a.tags.map(\.value) == b.tags.map(\.value)
  }

  /// The first tag named `key` (any case), or nil.
  public func value(_ key: String) -> String? {
    byKey[key.lowercased()]
  }

  private static func index(_ tags: [(key: String, value: String)]) -> [String: String] {
    var byKey: [String: String] = [:]
    for (key, value) in tags where byKey[key.lowercased()] == nil {
      byKey[key.lowercased()] = value
    }
    return byKey
  }
}

/// Why a file's tags could not be read: a line of the scan report.
public enum FileTagsError: Error, Equatable, Sendable, CustomStringConvertible {
  case empty
  case notAudio(String)
  case unreadable(String)
  case noAudioStream
  case missingLibrary(String)

  public var description: String {
    switch self {
    case .empty: return "empty file"
    case .notAudio(let what): return "not audio Riffle plays (\(what))"
    case .unreadable(let why): return "cannot be read: \(why)"
    case .noAudioStream: return "no audio in the file"
    case .missingLibrary(let why): return "tags need FFmpeg, which could not be loaded (\(why))"
    }
  }
}

extension FileTags {
  /// Reads the tags of the file at `path`. The container is sniffed from the first bytes, as
  /// the player does, and only that container's demuxer opens it: a playlist or other text
  /// named .mp3 is refused before FFmpeg can follow what it names.
  public static func read(path: String) throws(FileTagsError) -> FileTags {
    let head = try readHead(path: path)
    if head.isEmpty { throw .empty }
    let kind = AudioSniffer.kind(of: head)
    guard kind != .unknown else { throw .notAudio(describe(head)) }
    guard let table = riffle_ffmpeg() else {
      throw .missingLibrary(LazyLibrary.failure(riffle_ffmpeg_error()))
    }
    let ff = table.pointee
    var context: UnsafeMutablePointer<AVFormatContext>? = nil
    let opened = ff.avformat_open_input(
      &context, path, ff.av_find_input_format(FFmpegDecoder.demuxerName(for: kind)), nil)
    guard opened >= 0, let format = context else {
      throw .unreadable(FFmpegDecoder.message(opened, ff))
    }
    defer { ff.avformat_close_input(&context) }

    var audio: UnsafeMutablePointer<AVStream>?
    var picture = false
    for index in 0..<Int(format.pointee.nb_streams) {
      guard let stream = format.pointee.streams[index] else { continue }
      if stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 {
        picture = true
      } else if audio == nil, stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
        audio = stream
      }
    }
    var duration = audio.flatMap { seconds(of: $0, ff) } ?? formatSeconds(format)
    if audio == nil || duration == nil {
      // Some containers (MP3 without a Xing header, raw AAC) know their length, or even their
      // streams, only once a few packets were read.
      let found = ff.avformat_find_stream_info(format, nil)
      if found < 0 { throw .unreadable(FFmpegDecoder.message(found, ff)) }
      if audio == nil {
        let index = ff.av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        if index >= 0 { audio = format.pointee.streams[Int(index)] }
      }
      duration = audio.flatMap { seconds(of: $0, ff) } ?? formatSeconds(format)
    }
    guard let audio else { throw .noAudioStream }
    var tags: [(key: String, value: String)] = []
    collect(format.pointee.metadata, into: &tags, ff)
    collect(audio.pointee.metadata, into: &tags, ff)
    return FileTags(kind: kind, tags: tags, duration: duration, hasEmbeddedPicture: picture)
  }

  /// The first bytes, enough to sniff the container.
  private static func readHead(path: String) throws(FileTagsError) -> Data {
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw .unreadable(String(cString: strerror(errno)).lowercased()) }
    defer { Glibc.close(fd) }
    var bytes = [UInt8](repeating: 0, count: AudioSniffer.preferredLength)
    var count = 0
    while count < bytes.count {
      let got = bytes.withUnsafeMutableBytes {
        Glibc.read(fd, $0.baseAddress! + count, $0.count - count)
      }
      if got < 0 && errno == EINTR { continue }
      if got < 0 { throw .unreadable(String(cString: strerror(errno)).lowercased()) }
      if got == 0 { break }
      count += got
    }
    return Data(bytes[0..<count])
  }

  /// A word on what bytes that are not audio look like, for the report.
  private static func describe(_ head: Data) -> String {
    let prefix = [UInt8](head.prefix(8))
    if prefix.starts(with: [0xFF, 0xD8, 0xFF]) { return "a JPEG picture" }
    if prefix.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "a PNG picture" }
    if prefix.starts(with: Array("#EXTM3U".utf8)) { return "a playlist" }
    if prefix.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "a ZIP archive" }
    let text = head.prefix(512).allSatisfy { $0 == 9 || $0 == 10 || $0 == 13 || (32..<127) ~= $0 }
    return text ? "text" : "unknown format"
  }

  private static func seconds(of stream: UnsafeMutablePointer<AVStream>, _ ff: RiffleFFmpeg)
    -> Double?
  {
    let duration = stream.pointee.duration
    let base = stream.pointee.time_base
    guard duration != riffle_av_nopts_value(), duration > 0, base.den > 0 else { return nil }
    return Double(duration) * Double(base.num) / Double(base.den)
  }

  private static func formatSeconds(_ format: UnsafeMutablePointer<AVFormatContext>) -> Double? {
    let duration = format.pointee.duration
    guard duration != riffle_av_nopts_value(), duration > 0 else { return nil }
    return Double(duration) / Double(AV_TIME_BASE)
  }

  private static func collect(
    _ dictionary: OpaquePointer?, into tags: inout [(key: String, value: String)],
    _ ff: RiffleFFmpeg
  ) {
    guard let dictionary else { return }
    var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
    while let next = ff.av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
      entry = next
      guard let key = next.pointee.key, let value = next.pointee.value else { continue }
      tags.append((text(key), text(value)))
    }
  }

  /// C text as UTF-8, bytes that are not valid UTF-8 replaced (never trusted as valid).
  private static func text(_ pointer: UnsafePointer<CChar>) -> String {
    String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
  }
}
