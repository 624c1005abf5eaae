import Foundation
import RiffleCore

/// Radio Browser (radio-browser.info), the public directory of radio stations: a search by
/// name gives stations as pages, one station a page.
///
/// `GET {base}/json/stations/search?name=TERM&hidebroken=true&order=clickcount&reverse=true
/// &limit=N` answers an array of stations (`name`, `url_resolved` or `url`, `tags`, `country`,
/// `codec`, `bitrate`, `favicon`, ...). The directory asks its users to send a User-Agent that
/// names the program: `HTTPClient` sends "Riffle/VERSION".
public struct RadioBrowser: Sendable {
  /// One of the directory's mirrors (`all.api.radio-browser.info` lists them).
  public static let defaultBase = URL(string: "https://de1.api.radio-browser.info")!
  /// Stations asked for a search.
  public static let limit = 50
  /// A directory's answer larger than this is refused.
  static let maxBytes = 4_000_000

  public let base: URL
  public let client: HTTPClient

  public init(base: URL = RadioBrowser.defaultBase, client: HTTPClient = .shared) {
    self.base = base
    self.client = client
  }

  /// The search's address, every character of the term percent-encoded.
  public func searchURL(_ term: String) -> URL {
    var components = URLComponents(
      url: base.appendingPathComponent("json/stations/search"), resolvingAgainstBaseURL: false)!
    components.queryItems = [
      URLQueryItem(name: "name", value: term),
      URLQueryItem(name: "hidebroken", value: "true"),
      URLQueryItem(name: "order", value: "clickcount"),
      URLQueryItem(name: "reverse", value: "true"),
      URLQueryItem(name: "limit", value: String(Self.limit)),
    ]
    // A "+" left as it is would read as a space.
    components.percentEncodedQuery = components.percentEncodedQuery?
      .replacingOccurrences(of: "+", with: "%2B")
    return components.url!
  }

  /// The stations whose name holds `term`, most listened to first, as one page.
  public func search(
    _ term: String, completion: @escaping @Sendable (Result<SourcePage, CatalogError>) -> Void
  ) {
    let request = HTTPRequest(
      url: searchURL(term), headers: ["Accept": "application/json"], maxBytes: Self.maxBytes)
    client.fetch(request) { result in
      switch result {
      case .failure(let error): completion(.failure(.http(error)))
      case .success(let response): completion(Self.page(response.body))
      }
    }
  }

  /// The directory's answer as a page of stations; entries without an http(s) stream are
  /// skipped and counted, a stream named twice is kept once.
  public static func page(_ body: Data) -> Result<SourcePage, CatalogError> {
    let root: JSONValue
    do {
      root = try JSONValue.parse(body)
    } catch {
      return .failure(.invalid(error.description))
    }
    guard let entries = root.array else {
      return .failure(.invalid("not a list of stations"))
    }
    var songs: [Song] = []
    var seen: Set<String> = []
    var skipped = 0
    for entry in entries {
      let address = entry["url_resolved"]?.nonEmptyText ?? entry["url"]?.nonEmptyText
      guard let address, let url = streamURL(address),
        let name = clean(entry["name"]?.text), seen.insert(url.absoluteString).inserted
      else {
        skipped += 1
        continue
      }
      let tags = (entry["tags"]?.text ?? "").split(separator: ",").prefix(3)
        .compactMap { clean(String($0)) }
      var about = tags.joined(separator: ", ")
      if about.isEmpty { about = "Live radio" }
      var song = StationPlaylist.stationSong(url, name: name, genre: about)
      song.album =
        [clean(entry["country"]?.text), codec(entry)].compactMap { $0 }
        .joined(separator: " \u{00B7} ").nilIfEmpty
      if let icon = entry["favicon"]?.nonEmptyText.flatMap(streamURL) { song.imageURL = icon }
      songs.append(song)
    }
    return .success(SourcePage(songs: songs, skipped: skipped))
  }

  /// "MP3 128 kbps", when the directory says.
  private static func codec(_ entry: JSONValue) -> String? {
    let codec = clean(entry["codec"]?.text)
    let rate = entry["bitrate"]?.int.flatMap { $0 > 0 ? "\($0) kbps" : nil }
    let text = [codec, rate].compactMap { $0 }.joined(separator: " ")
    return text.isEmpty ? nil : text
  }

  private static func clean(_ text: String?) -> String? {
    guard let text else { return nil }
    let cleaned = TextSanitizer.sanitize(String(text.prefix(200)))
      .trimmingCharacters(in: .whitespacesAndNewlines)
    return cleaned.isEmpty ? nil : cleaned
  }

  private static func streamURL(_ text: String) -> URL? {
    guard text.count < 2048, let url = URL(string: text.trimmingCharacters(in: .whitespaces)),
      let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
      url.host != nil
    else { return nil }
    return url
  }
}

extension String {
  fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}

/// A station the user keeps (`l` on a station's page).
public struct FavouriteStation: Codable, Equatable, Sendable {
  /// The stream's URL.
  public var url: String
  public var name: String
  /// Its genre or tags, as the page showed them.
  public var genre: String

  public init(url: String, name: String, genre: String) {
    self.url = url
    self.name = name
    self.genre = genre
  }
}

/// The stations the user keeps, in `$XDG_DATA_HOME/riffle/stations.json`, written atomically
/// (`AtomicFile`) and read again before each change. A file that cannot be read is reported and
/// never overwritten.
public final class FavouriteStations: @unchecked Sendable {
  public let file: URL
  private let lock = NSLock()

  public init(file: URL) {
    self.file = file
  }

  private struct Stored: Codable {
    var stations: [FavouriteStation]
  }

  /// Every station kept, in the order they were kept; a missing file is none.
  public func all() throws -> [FavouriteStation] {
    try lock.withLock { try read() }
  }

  private func read() throws -> [FavouriteStation] {
    guard let data = try? Data(contentsOf: file) else {
      if FileManager.default.fileExists(atPath: file.path) {
        throw CatalogError.invalid("cannot read \(file.path)")
      }
      return []
    }
    do {
      return try JSONDecoder().decode(Stored.self, from: data).stations
    } catch {
      throw CatalogError.invalid("\(file.path) is damaged; it is left as it is")
    }
  }

  /// Keeps `station` (once per URL), or lets it go.
  public func set(_ station: FavouriteStation, kept: Bool) throws {
    try lock.withLock {
      var stations = try read()
      stations.removeAll { $0.url == station.url }
      if kept { stations.append(station) }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      try AtomicFile.write(encoder.encode(Stored(stations: stations)), to: file)
    }
  }

  /// The stations kept, as one page (each liked: they are the user's).
  public func page() -> Result<SourcePage, CatalogError> {
    do {
      let songs = try all().compactMap { station -> Song? in
        guard let url = URL(string: station.url) else { return nil }
        var song = StationPlaylist.stationSong(url, name: station.name, genre: station.genre)
        song.isLiked = true
        return song
      }
      return .success(SourcePage(songs: songs))
    } catch let error as CatalogError {
      return .failure(error)
    } catch {
      return .failure(.invalid(String(describing: error)))
    }
  }
}
