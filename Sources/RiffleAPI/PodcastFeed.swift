import Foundation
import RiffleCore

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// One episode of a podcast as its feed describes it.
public struct PodcastEpisode: Equatable, Sendable {
  /// The feed's `guid` (Atom: `id`), else the audio's URL.
  public var id: String
  public var title: String
  public var published: Date?
  /// Seconds, from `itunes:duration` (seconds, MM:SS or HH:MM:SS).
  public var duration: Double?
  public var audioURL: URL
  /// The enclosure's `length` in bytes, when it gave a positive one.
  public var audioLength: Int64?
  /// The episode's own picture, when it has one.
  public var imageURL: URL?
  /// The description as plain text (tags dropped, entities decoded, sanitized).
  public var notes: String
  /// A Podcasting 2.0 chapters file (`podcast:chapters`), when there is one.
  public var chaptersURL: URL?
}

/// A podcast feed (RSS 2.0 or Atom): the show and its episodes, newest first.
public struct PodcastFeed: Equatable, Sendable {
  public var title: String
  public var author: String?
  public var imageURL: URL?
  public var episodes: [PodcastEpisode]
  /// One line per item left out ("item 3: no audio enclosure").
  public var skipped: [String]

  /// The episodes as pages: the show's name as the artist, its picture where an episode has
  /// none, the description as the notes the lyrics view shows.
  public var songs: [Song] {
    episodes.map { episode in
      Song(
        id: "podcast:" + episode.id, title: episode.title, displayName: title, handle: "",
        imageURL: episode.imageURL ?? imageURL, audioURL: episode.audioURL,
        duration: episode.duration, released: episode.published,
        notes: episode.notes.isEmpty ? nil : episode.notes, chaptersURL: episode.chaptersURL)
    }
  }
}

/// Why a podcast feed could not be read.
public enum PodcastFeedError: Error, Equatable, Sendable {
  /// An HTML page (a server's error or login page) where a feed was expected.
  case htmlPage
  /// XML that libxml2 refused: where and why.
  case invalidXML(line: Int, reason: String)
  /// Well-formed XML whose root is not `rss` or an Atom `feed`.
  case notAFeed(root: String)

  public var userMessage: String {
    switch self {
    case .htmlPage: return "The address gave a web page, not a feed"
    case .invalidXML(let line, _): return "The feed is not valid XML (line \(line))"
    case .notAFeed(let root):
      return "The response is not a podcast feed (<\(TextSanitizer.sanitize(root))>)"
    }
  }
}

/// Reads RSS 2.0 and Atom podcast feeds with Foundation's `XMLParser` (libxml2's SAX parser on
/// Linux): nothing of the document is kept but the fields an episode is made from.
///
/// Items without an audio enclosure are skipped with a note. Relative URLs resolve against the
/// feed's own URL; a remote feed cannot point at `file://` URLs.
public enum PodcastFeedParser {
  /// True when the bytes start (after a byte order mark and white space) with `<`: XML, or an
  /// HTML page, but not a JSON feed.
  public static func looksLikeXML(_ data: Data) -> Bool {
    var bytes = data.prefix(1024)[...]
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
    let first = bytes.first { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }
    return first == UInt8(ascii: "<")
  }

  public static func parse(_ data: Data, base: URL) throws(PodcastFeedError) -> PodcastFeed {
    let head = String(decoding: data.prefix(1024), as: UTF8.self).lowercased()
    if head.contains("<!doctype html") || head.contains("<html") { throw .htmlPage }
    // FoundationXML traps (it force-unwraps a String) when libxml2 hands it a name or value
    // that is not UTF-8, which libxml2 does for a document read as UTF-8 (found by the fuzz
    // target: one byte 0xF9 in an element's name). A document in another encoding is converted
    // by libxml2 and always arrives as UTF-8.
    if isReadAsUTF8(data), String(validating: data, as: UTF8.self) == nil {
      throw .invalidXML(line: lineOfInvalidUTF8(data), reason: "not UTF-8")
    }
    let reader = FeedXMLReader(base: base)
    let parser = XMLParser(data: data)
    parser.shouldProcessNamespaces = true
    parser.shouldResolveExternalEntities = false
    parser.delegate = reader
    let parsed = parser.parse()
    if let problem = reader.problem { throw problem }
    guard parsed else {
      let reason = parser.parserError.map { String(describing: $0) } ?? "unknown error"
      throw .invalidXML(line: parser.lineNumber, reason: reason)
    }
    guard reader.root != nil else { throw .invalidXML(line: parser.lineNumber, reason: "empty") }
    // Newest first; episodes without a date keep their order after the dated ones.
    let episodes = reader.episodes.enumerated().sorted { a, b in
      switch (a.element.published, b.element.published) {
      case (let x?, let y?) where x != y: return x > y
      case (.some, nil): return true
      case (nil, .some): return false
      default: return a.offset < b.offset
      }
    }.map(\.element)
    return PodcastFeed(
      title: reader.show.title.isEmpty ? "Untitled podcast" : reader.show.title,
      author: reader.show.author, imageURL: reader.show.image, episodes: episodes,
      skipped: reader.skipped)
  }

  /// Encodings podcast feeds are found in besides UTF-8, which libxml2 converts to UTF-8.
  static let convertedEncodings: Set<String> = Set(
    (1...15).map { "iso-8859-\($0)" } + (1250...1258).map { "windows-\($0)" } + [
      "latin1", "utf-16", "utf-16le", "utf-16be",
    ])

  /// True when libxml2 reads the bytes as UTF-8: no UTF-16 byte order mark, and an XML
  /// declaration that names UTF-8 or no encoding.
  static func isReadAsUTF8(_ data: Data) -> Bool {
    if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) { return false }
    let head = String(decoding: data.prefix(256), as: UTF8.self).lowercased()
    // Only a declaration that is well formed (the name between matching quotes) is taken at its
    // word; libxml2 reads anything else as UTF-8.
    guard head.hasPrefix("<?xml"), let end = head.range(of: "?>"),
      let declared = head[..<end.lowerBound].range(of: "encoding="),
      let quote = head[declared.upperBound...].first, quote == "\"" || quote == "'"
    else { return true }
    let rest = head[declared.upperBound...].dropFirst()
    guard let close = rest.firstIndex(of: quote) else { return true }
    // Only encodings libxml2 surely converts are left to it: an unknown name (the fuzzer tried
    // "UTF/-8") makes it fall back to reading UTF-8 unchecked.
    return !convertedEncodings.contains(String(rest[..<close]))
  }

  /// The line of the first byte that is not UTF-8 (for the error).
  private static func lineOfInvalidUTF8(_ data: Data) -> Int {
    var parser = Unicode.UTF8.ForwardParser()
    var bytes = data.makeIterator()
    var line = 1
    while true {
      switch parser.parseScalar(from: &bytes) {
      case .valid(let encoded): if encoded.first == 0x0A { line += 1 }
      case .error, .emptyInput: return line
      }
    }
  }

  /// Seconds from `itunes:duration`: "3600", "3600.5", "62:03" or "1:02:03"; nil otherwise.
  public static func duration(_ text: String) -> Double? {
    let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(
      separator: ":", omittingEmptySubsequences: false)
    guard (1...3).contains(parts.count) else { return nil }
    var total = 0.0
    for (index, part) in parts.enumerated() {
      // Only the last part may have a fraction; each part is digits.
      guard let value = Double(part), value >= 0, value.isFinite,
        part.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
        index == parts.count - 1 || !part.contains(".")
      else { return nil }
      if index > 0 && value >= 60 { return nil }
      total = total * 60 + value
    }
    return total > 0 && total < 1_000_000 ? total : nil
  }

  /// A date as RSS (RFC 822, with or without the weekday and seconds) or Atom (RFC 3339) writes
  /// it; nil when it is neither.
  public static func date(_ text: String) -> Date? {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty, trimmed.count < 64 else { return nil }
    let iso = ISO8601DateFormatter()
    if let date = iso.date(from: trimmed) { return date }
    iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = iso.date(from: trimmed) { return date }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    for format in [
      "EEE, d MMM yyyy HH:mm:ss Z", "EEE, d MMM yyyy HH:mm:ss zzz", "d MMM yyyy HH:mm:ss Z",
      "d MMM yyyy HH:mm:ss zzz", "EEE, d MMM yyyy HH:mm Z", "EEE, d MMM yyyy HH:mm zzz",
      "EEE, d MMM yyyy", "yyyy-MM-dd",
    ] {
      formatter.dateFormat = format
      if let date = formatter.date(from: trimmed) { return date }
    }
    return nil
  }
}

/// The namespaces whose elements a podcast feed's fields are in.
private enum Namespace {
  static let itunes = "http://www.itunes.com/dtds/podcast-1.0.dtd"
  static let media = "http://search.yahoo.com/mrss/"
  static let podcast = "https://podcastindex.org/namespace/1.0"
  static let atom = "http://www.w3.org/2005/Atom"
  static let content = "http://purl.org/rss/1.0/modules/content/"

  /// A short name for an element: its local name, prefixed for the namespaces read here.
  static func key(_ local: String, _ uri: String?) -> String {
    switch uri {
    case itunes?: return "itunes:" + local
    case media?: return "media:" + local
    case podcast?, "https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md"?:
      return "podcast:" + local
    case content?: return "content:" + local
    case atom?, nil, ""?: return local
    default: return "?:" + local
    }
  }
}

/// The parser's delegate: collects the show's and each item's fields as they stream past.
private final class FeedXMLReader: NSObject, XMLParserDelegate {
  struct Show {
    var title = ""
    var author: String?
    var image: URL?
  }

  struct Item {
    var id = ""
    var title = ""
    var published: Date?
    var duration: Double?
    var audio: URL?
    var audioLength: Int64?
    var image: URL?
    var description = ""
    var content = ""
    var summary = ""
    var chapters: URL?
  }

  let base: URL
  var root: String?
  var isAtom = false
  var show = Show()
  var item: Item?
  var episodes: [PodcastEpisode] = []
  var skipped: [String] = []
  var problem: PodcastFeedError?
  private var itemCount = 0
  private var ids = Set<String>()
  /// Keys of the open elements, outermost first.
  private var path: [String] = []
  private var text = ""

  /// The largest description kept, in bytes; a feed's text beyond it is cut.
  static let maxText = 100_000
  /// The most episodes kept from one feed.
  static let maxEpisodes = 20_000

  init(base: URL) {
    self.base = base
  }

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
    qualifiedName qName: String?, attributes: [String: String] = [:]
  ) {
    let key = Namespace.key(elementName, namespaceURI)
    if root == nil {
      root = key
      isAtom = key == "feed" && namespaceURI == Namespace.atom
      if elementName.lowercased() == "html" {
        problem = .htmlPage
        parser.abortParsing()
      } else if key != "rss" && !isAtom && elementName != "RDF" {
        problem = .notAFeed(root: String(elementName.prefix(40)))
        parser.abortParsing()
      }
    }
    path.append(key)
    text = ""
    if key == (isAtom ? "entry" : "item") {
      item = Item()
      itemCount += 1
      return
    }
    if item != nil {
      startItemElement(key, attributes)
    } else if path.count <= 3 {
      switch key {
      case "itunes:image":
        show.image = show.image ?? url(attributes["href"])
      case "media:thumbnail":
        show.image = show.image ?? url(attributes["url"])
      default: break
      }
    }
  }

  private func startItemElement(_ key: String, _ attributes: [String: String]) {
    switch key {
    case "enclosure":
      takeAudio(attributes["url"], type: attributes["type"], length: attributes["length"])
    case "link" where isAtom && attributes["rel"] == "enclosure":
      takeAudio(attributes["href"], type: attributes["type"], length: attributes["length"])
    case "media:content":
      let type = attributes["type"] ?? ""
      if type.hasPrefix("image/") || attributes["medium"] == "image" {
        if item?.image == nil { item?.image = url(attributes["url"]) }
      } else if type.hasPrefix("audio/") || attributes["medium"] == "audio" {
        takeAudio(attributes["url"], type: type, length: attributes["fileSize"])
      }
    case "itunes:image":
      if item?.image == nil { item?.image = url(attributes["href"]) }
    case "media:thumbnail":
      if item?.image == nil { item?.image = url(attributes["url"]) }
    case "podcast:chapters":
      if item?.chapters == nil { item?.chapters = url(attributes["url"]) }
    default: break
    }
  }

  /// The first audio (or untyped) enclosure is the episode's audio.
  private func takeAudio(_ address: String?, type: String?, length: String?) {
    guard item?.audio == nil, let found = url(address) else { return }
    let type = type?.lowercased() ?? ""
    guard
      type.isEmpty || type.hasPrefix("audio/") || type == "application/octet-stream"
        || type.hasPrefix("video/")
    else { return }
    item?.audio = found
    item?.audioLength = length.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
      .flatMap { $0 > 0 ? $0 : nil }
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) {
    guard text.utf8.count < Self.maxText else { return }
    text += string
  }

  func parser(_ parser: XMLParser, foundCDATA block: Data) {
    guard text.utf8.count < Self.maxText else { return }
    text += String(decoding: block, as: UTF8.self)
  }

  func parser(
    _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
    qualifiedName qName: String?
  ) {
    let key = path.popLast() ?? ""
    defer { text = "" }
    let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if key == (isAtom ? "entry" : "item"), let ended = item {
      finish(ended)
      item = nil
      return
    }
    if item != nil {
      endItemElement(key, value)
      return
    }
    // The show's own fields: children of the channel (RSS) or of the feed (Atom).
    let parent = path.last ?? ""
    switch (key, parent) {
    case ("title", "channel"), ("title", "feed"):
      show.title = clean(value)
    case ("itunes:author", "channel"):
      show.author = clean(value)
    case ("url", "image") where path.count >= 2 && path[path.count - 2] == "channel":
      show.image = show.image ?? url(value)
    case ("logo", "feed"), ("icon", "feed"):
      show.image = show.image ?? url(value)
    case ("name", "author") where path.count >= 2 && path[path.count - 2] == "feed":
      show.author = show.author ?? clean(value)
    default: break
    }
  }

  private func endItemElement(_ key: String, _ value: String) {
    // Only the item's (or entry's) own children, not those of nested elements.
    guard path.last == (isAtom ? "entry" : "item") else { return }
    switch key {
    case "guid", "id": item?.id = String(value.prefix(500))
    case "title": item?.title = clean(value)
    case "pubDate", "published":
      if let date = PodcastFeedParser.date(value) { item?.published = date }
    case "updated", "dc:date":
      if item?.published == nil { item?.published = PodcastFeedParser.date(value) }
    case "itunes:duration": item?.duration = PodcastFeedParser.duration(value)
    case "description", "summary": item?.description = value
    case "content:encoded", "content": item?.content = value
    case "itunes:summary": item?.summary = value
    default: break
    }
  }

  private func finish(_ ended: Item) {
    guard let audio = ended.audio else {
      skipped.append("item \(itemCount): no audio enclosure")
      return
    }
    guard episodes.count < Self.maxEpisodes else { return }
    let notesSource = [ended.content, ended.description, ended.summary].first { !$0.isEmpty }
    let id = ended.id.isEmpty ? audio.absoluteString : ended.id
    guard ids.insert(id).inserted else {
      skipped.append("item \(itemCount): a repeated guid")
      return
    }
    episodes.append(
      PodcastEpisode(
        id: id, title: ended.title.isEmpty ? "Untitled episode" : ended.title,
        published: ended.published, duration: ended.duration, audioURL: audio,
        audioLength: ended.audioLength, imageURL: ended.image,
        notes: notesSource.map(HTMLText.plain) ?? "", chaptersURL: ended.chapters))
  }

  func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
    if problem == nil {
      problem = .invalidXML(line: parser.lineNumber, reason: String(describing: parseError))
    }
  }

  /// One line of a feed's text as shown: HTML dropped, white space folded, sanitized.
  private func clean(_ value: String) -> String {
    HTMLText.plain(String(value.prefix(1000))).split(whereSeparator: \.isNewline)
      .joined(separator: " ")
  }

  /// A feed's URL text resolved against the feed; only http(s), or file:// in a local feed.
  private func url(_ text: String?) -> URL? {
    guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty,
      text.count < 4096,
      let resolved = URL(string: text, relativeTo: base)?.absoluteURL,
      let scheme = resolved.scheme?.lowercased()
    else { return nil }
    if scheme == "http" || scheme == "https" { return resolved }
    if scheme == "file" && base.isFileURL { return resolved }
    return nil
  }
}
