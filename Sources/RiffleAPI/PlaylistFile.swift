import Foundation
import RiffleCore

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Playlist files: M3U and M3U8 (with `#EXTINF`), PLS and XSPF read into songs; M3U8 written.
///
/// Entries resolve against the playlist's own URL (relative paths for local files, URLs for
/// the rest). A remote playlist cannot point at local files. Entries that name nothing playable
/// are counted, not fatal; a playlist that names itself is not followed.
public enum PlaylistFile {
  /// The kinds of playlist file, told by their first bytes (the extension only as a last word).
  public enum Format: Equatable, Sendable {
    case m3u, pls, xspf
  }

  /// Songs of a playlist and how many entries could not be used.
  public struct Parsed: Equatable, Sendable {
    public var songs: [Song]
    public var skipped: Int
  }

  /// Why a playlist could not be read.
  public enum ReadError: Error, Equatable, Sendable, ReportableFailure {
    case http(HTTPError)
    case notAPlaylist(String)

    public var userMessage: String {
      switch self {
      case .http(let error): return error.userMessage
      case .notAPlaylist(let name): return "\(name) is not a playlist (M3U, PLS or XSPF)"
      }
    }
    public var isTransient: Bool {
      if case .http(let error) = self { return error.isTransient }
      return false
    }
    public var retryAfter: Double? { nil }
  }

  /// True for a path or URL whose name says it is a playlist.
  public static func looksLikePlaylist(_ url: URL) -> Bool {
    ["m3u", "m3u8", "pls", "xspf"].contains(url.pathExtension.lowercased())
  }

  /// The largest playlist read: a million-entry M3U is about 100 MB; far past what a page
  /// turns through.
  public static let maxBytes = 20_000_000

  /// Reads a playlist through the shared client (a file or http(s)).
  public static func load(
    _ url: URL, client: HTTPClient = .shared,
    completion: @escaping @Sendable (Result<SourcePage, ReadError>) -> Void
  ) {
    client.fetch(HTTPRequest(url: url, maxBytes: maxBytes)) { result in
      switch result {
      case .failure(let error): completion(.failure(.http(error)))
      case .success(let response):
        guard let parsed = parse(response.body, base: url) else {
          completion(.failure(.notAPlaylist(url.lastPathComponent)))
          return
        }
        completion(.success(SourcePage(songs: parsed.songs, skipped: parsed.skipped)))
      }
    }
  }

  /// Reads a playlist's bytes; nil when they are not a playlist of a known kind.
  public static func parse(_ data: Data, base: URL) -> Parsed? {
    let text = decodeText(data)
    guard let format = format(of: text, name: base) else { return nil }
    let entries: [Entry]
    switch format {
    case .m3u: entries = m3uEntries(text)
    case .pls: entries = plsEntries(text)
    case .xspf:
      guard let parsed = xspfEntries(data) else { return nil }
      entries = parsed
    }
    var songs: [Song] = []
    var skipped = 0
    var seen = Set<String>()
    for entry in entries {
      // Playlists inside a playlist are not followed (one could name the playlist itself).
      guard let url = resolve(entry.location, base: base), !looksLikePlaylist(url) else {
        skipped += 1
        continue
      }
      // A server's song (`subsonic://NAME/stream?id=ID`, saved with w) is that server's song
      // again: played, starred and scrobbled through the server config.toml names NAME.
      let server = serverSong(url)
      if url.scheme?.lowercased() == SubsonicServers.scheme, server == nil {
        skipped += 1
        continue
      }
      let id =
        server.map { SubsonicSongs.songID(server: $0.server, id: $0.id) }
        ?? "playlist:" + url.absoluteString
      // The same file twice is one song (ids must be unique on the pages).
      guard seen.insert(id).inserted else { continue }
      let (artist, title) = splitTitle(entry.title, fallback: url)
      songs.append(
        Song(
          id: id, title: TextSanitizer.sanitize(title),
          displayName: TextSanitizer.sanitize(entry.artist ?? artist), handle: "",
          imageURL: entry.image.flatMap { resolve($0, base: base) }, audioURL: url,
          duration: entry.duration.flatMap { $0 > 0 ? $0 : nil },
          album: entry.album.map(TextSanitizer.sanitize),
          likeDestination: server == nil ? .localOnly : .server))
    }
    return Parsed(songs: songs, skipped: skipped)
  }

  /// An M3U8 playlist of `songs`: `#EXTINF` with the length and "artist - title"; local files
  /// as paths relative to `folder` where they are below it, else absolute; URLs as they are.
  public static func m3u8(_ songs: [Song], relativeTo folder: URL? = nil) -> String {
    var lines = ["#EXTM3U"]
    for song in songs {
      let seconds = Int((song.duration ?? -1).rounded())
      let name = [song.displayName, song.title].filter { !$0.isEmpty }.joined(separator: " - ")
      lines.append("#EXTINF:\(seconds),\(oneLine(name))")
      let url = song.audioURL
      if url.isFileURL, let folder, url.path.hasPrefix(folder.path + "/") {
        lines.append(String(url.path.dropFirst(folder.path.count + 1)))
      } else {
        lines.append(url.isFileURL ? url.path : url.absoluteString)
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Saves `songs` as `TITLE.m3u8` in `folder` (a number added when the name is taken); returns
  /// the file.
  public static func save(_ songs: [Song], title: String, in folder: URL) throws -> URL {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let base = fileName(title)
    var file = folder.appendingPathComponent(base + ".m3u8")
    var number = 2
    while FileManager.default.fileExists(atPath: file.path) {
      file = folder.appendingPathComponent("\(base) \(number).m3u8")
      number += 1
    }
    try AtomicFile.write(Data(m3u8(songs, relativeTo: folder).utf8), to: file)
    return file
  }

  /// The playlists saved in `folder`, by name.
  public static func saved(in folder: URL) -> [URL] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { !$0.hasPrefix(".") }.sorted()
      .map { folder.appendingPathComponent($0) }.filter(looksLikePlaylist)
  }

  // MARK: - Reading

  struct Entry: Equatable {
    var location: String
    var title: String?
    var artist: String?
    var album: String?
    var duration: Double?
    var image: String?
  }

  /// UTF-8 (with or without a byte order mark), UTF-16 with one, else Latin-1 (old .m3u and
  /// .pls files are in the system's 8-bit encoding; Latin-1 never fails).
  static func decodeText(_ data: Data) -> String {
    if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
      return String(data: data, encoding: .utf16) ?? ""
    }
    var bytes = data
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
    if let text = String(data: bytes, encoding: .utf8) { return text }
    return String(data: bytes, encoding: .isoLatin1) ?? ""
  }

  static func format(of text: String, name: URL) -> Format? {
    let start = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.prefix(512).lowercased()
    if start.hasPrefix("#extm3u") { return .m3u }
    if start.hasPrefix("[playlist]") { return .pls }
    if start.hasPrefix("<?xml") || start.hasPrefix("<playlist") {
      return start.contains("<playlist") ? .xspf : nil
    }
    // A plain M3U has no header: one location a line, comments with #.
    switch name.pathExtension.lowercased() {
    case "m3u", "m3u8": return .m3u
    case "pls": return .pls
    case "xspf": return .xspf
    default: return nil
    }
  }

  static func lines(_ text: String) -> [Substring] {
    text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
  }

  static func m3uEntries(_ text: String) -> [Entry] {
    var entries: [Entry] = []
    var pending: (duration: Double?, title: String?)?
    for raw in lines(text) {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.isEmpty { continue }
      if line.hasPrefix("#") {
        if line.uppercased().hasPrefix("#EXTINF:") {
          let body = line.dropFirst(8)
          let parts = body.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
          // The length may carry attributes after it (`-1 tvg-id="..."`).
          let seconds = parts.first?.split(separator: " ").first.flatMap { Double($0) }
          let title = parts.count > 1 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : nil
          pending = (seconds, title?.isEmpty == true ? nil : title)
        }
        continue
      }
      entries.append(Entry(location: line, title: pending?.title, duration: pending?.duration))
      pending = nil
    }
    return entries
  }

  static func plsEntries(_ text: String) -> [Entry] {
    var files: [Int: String] = [:]
    var titles: [Int: String] = [:]
    var lengths: [Int: Double] = [:]
    for raw in lines(text) {
      let parts = raw.split(separator: "=", maxSplits: 1)
      guard parts.count == 2 else { continue }
      let key = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
      let value = parts[1].trimmingCharacters(in: .whitespaces)
      func number(after prefix: String) -> Int? {
        key.hasPrefix(prefix) ? Int(key.dropFirst(prefix.count)) : nil
      }
      if let n = number(after: "file") {
        files[n] = value
      } else if let n = number(after: "title") {
        titles[n] = value
      } else if let n = number(after: "length") {
        lengths[n] = Double(value)
      }
    }
    return files.keys.sorted().compactMap { n in
      guard let file = files[n] else { return nil }
      return Entry(location: file, title: titles[n], duration: lengths[n])
    }
  }

  static func xspfEntries(_ data: Data) -> [Entry]? {
    let reader = XSPFReader()
    let parser = XMLParser(data: data)
    parser.delegate = reader
    parser.shouldResolveExternalEntities = false
    guard parser.parse(), reader.sawPlaylist else { return nil }
    return reader.entries
  }

  static func resolve(_ location: String, base: URL) -> URL? {
    let text = location.trimmingCharacters(in: .whitespaces)
    guard !text.isEmpty else { return nil }
    let url: URL?
    if text.hasPrefix("/") {
      url = URL(fileURLWithPath: text)
    } else if text.contains("://") {
      url = URL(string: text)
    } else if base.isFileURL {
      // A Windows playlist's backslashes are folder separators.
      url =
        URL(
          fileURLWithPath: text.replacingOccurrences(of: "\\", with: "/"),
          relativeTo: base.deletingLastPathComponent()
        ).standardizedFileURL
    } else {
      url = URL(string: text, relativeTo: base)?.absoluteURL
    }
    guard let url, let scheme = url.scheme?.lowercased(),
      ["http", "https", "file", SubsonicServers.scheme].contains(scheme)
    else { return nil }
    // A remote playlist cannot point at this machine's files, nor at the user's own servers.
    if (scheme == "file" || scheme == SubsonicServers.scheme) && !base.isFileURL { return nil }
    return url
  }

  /// The server's name and its own id of a `subsonic://NAME/stream?id=ID` address.
  static func serverSong(_ url: URL) -> (server: String, id: String)? {
    guard url.scheme?.lowercased() == SubsonicServers.scheme, let name = url.host,
      SubsonicServerSettings.isValidName(name), url.path == "/stream",
      let id = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
        .first(where: { $0.name == "id" })?.value, !id.isEmpty
    else { return nil }
    return (name, id)
  }

  /// "Artist - Title" as M3U writes it; without a title, the file's name.
  static func splitTitle(_ text: String?, fallback url: URL) -> (artist: String, title: String) {
    guard let text, !text.isEmpty else {
      return ("", url.deletingPathExtension().lastPathComponent.removingPercentEncoding ?? "")
    }
    if let range = text.range(of: " - ") {
      return (String(text[..<range.lowerBound]), String(text[range.upperBound...]))
    }
    return ("", text)
  }

  private static func oneLine(_ text: String) -> String {
    TextSanitizer.sanitize(text).replacingOccurrences(of: "\n", with: " ")
  }

  private static func fileName(_ title: String) -> String {
    let cleaned = TextSanitizer.sanitize(title).map { "/\\:*?\"<>|".contains($0) ? "-" : $0 }
    let name = String(cleaned).trimmingCharacters(in: .whitespaces.union(.init(charactersIn: ".")))
    return name.isEmpty ? "Playlist" : String(name.prefix(100))
  }
}

/// Reads XSPF's `<track>` elements: location, title, creator, album, duration (ms), image.
private final class XSPFReader: NSObject, XMLParserDelegate {
  var entries: [PlaylistFile.Entry] = []
  var sawPlaylist = false
  private var track: PlaylistFile.Entry?
  private var text = ""

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
    qualifiedName: String?, attributes: [String: String] = [:]
  ) {
    if name == "playlist" { sawPlaylist = true }
    if name == "track" { track = PlaylistFile.Entry(location: "") }
    text = ""
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) {
    if text.count < 10_000 { text += string }
  }

  func parser(
    _ parser: XMLParser, didEndElement name: String, namespaceURI: String?,
    qualifiedName: String?
  ) {
    let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
    switch name {
    case "track":
      if let track, !track.location.isEmpty { entries.append(track) }
      track = nil
    case "location" where track?.location.isEmpty == true: track?.location = value
    case "title": track?.title = value
    case "creator": track?.artist = value
    case "album": track?.album = value
    case "duration": track?.duration = Double(value).map { $0 / 1000 }
    case "image": track?.image = value
    default: break
    }
    text = ""
  }
}
