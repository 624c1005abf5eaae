import Foundation
import RiffleCore

/// What a station's ICY metadata block says: the title playing ("Artist - Title") and a URL.
public struct ICYMetadata: Equatable, Sendable {
  /// `StreamTitle`, sanitized; nil when the block had none (an empty one is "").
  public var title: String?
  /// `StreamUrl`, sanitized, when given.
  public var url: String?

  public init(title: String?, url: String? = nil) {
    self.title = title
    self.url = url
  }

  /// The title as artist and title, when it reads "Artist - Title".
  public var artistAndTitle: (artist: String, title: String)? {
    guard let title, let dash = title.range(of: " - ") else { return nil }
    let artist = title[..<dash.lowerBound].trimmingCharacters(in: .whitespaces)
    let song = title[dash.upperBound...].trimmingCharacters(in: .whitespaces)
    return artist.isEmpty || song.isEmpty ? nil : (artist, song)
  }

  /// Reads one block's text: `StreamTitle='...';StreamUrl='...';`, padded with NULs. A value
  /// ends at the first `';` (a title may hold a lone `'`: "Guns N' Roses"); text that is not
  /// UTF-8 is read as Latin-1, as old servers send it.
  public static func parse(_ block: some Collection<UInt8>) -> ICYMetadata {
    let bytes = Array(block.prefix { $0 != 0 })
    let text =
      String(validating: bytes, as: UTF8.self)
      ?? String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
    var found = ICYMetadata(title: nil)
    var rest = Substring(text)
    while let equals = rest.range(of: "='") {
      let key = rest[..<equals.lowerBound].trimmingCharacters(in: .whitespaces).lowercased()
      let after = rest[equals.upperBound...]
      let end = after.range(of: "';")?.lowerBound ?? after.lastIndex(of: "'") ?? after.endIndex
      let value = TextSanitizer.sanitize(String(after[..<end]))
        .trimmingCharacters(in: .whitespaces)
      switch key {
      case "streamtitle": found.title = value
      case "streamurl": found.url = value
      default: break
      }
      guard end < after.endIndex else { break }
      rest = after[end...].dropFirst(after[end...].hasPrefix("';") ? 2 : 1)
    }
    return found
  }
}

/// Splits an ICY stream (`Icy-MetaData: 1` asked, `icy-metaint: N` answered) into its audio and
/// its metadata blocks: N bytes of audio, one length byte (times 16), that many bytes of
/// metadata, and again. The network cuts the stream anywhere (inside a block, on the length
/// byte), so the splitter keeps where it is between chunks; it never holds more than one block
/// (at most 4,080 bytes).
public struct ICYStreamSplitter: Sendable {
  private enum State: Sendable {
    case audio(left: Int)
    case length
    case metadata(left: Int)
  }

  public let interval: Int
  private var state: State
  private var block: [UInt8] = []

  /// `interval` is the station's `icy-metaint` (bytes of audio between blocks), at least 1.
  public init(interval: Int) {
    self.interval = max(1, interval)
    state = .audio(left: self.interval)
  }

  /// Takes the next bytes of the stream: the audio among them, and each metadata block they
  /// complete (an empty block, which says "no change", gives nothing).
  public mutating func feed(_ chunk: some Collection<UInt8>) -> (
    audio: [UInt8], metadata: [ICYMetadata]
  ) {
    var audio: [UInt8] = []
    audio.reserveCapacity(chunk.count)
    var metadata: [ICYMetadata] = []
    var index = chunk.startIndex
    while index < chunk.endIndex {
      switch state {
      case .audio(let left):
        let end = chunk.index(index, offsetBy: left, limitedBy: chunk.endIndex) ?? chunk.endIndex
        audio += chunk[index..<end]
        let taken = chunk.distance(from: index, to: end)
        index = end
        state = taken == left ? .length : .audio(left: left - taken)
      case .length:
        let size = Int(chunk[index]) * 16
        index = chunk.index(after: index)
        block.removeAll(keepingCapacity: true)
        state = size == 0 ? .audio(left: interval) : .metadata(left: size)
      case .metadata(let left):
        let end = chunk.index(index, offsetBy: left, limitedBy: chunk.endIndex) ?? chunk.endIndex
        block += chunk[index..<end]
        let taken = chunk.distance(from: index, to: end)
        index = end
        if taken == left {
          metadata.append(ICYMetadata.parse(block))
          block.removeAll(keepingCapacity: true)
          state = .audio(left: interval)
        } else {
          state = .metadata(left: left - taken)
        }
      }
    }
    return (audio, metadata)
  }
}
