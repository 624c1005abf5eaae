import Foundation
import RiffleCore

/// Apple's charts: the most-played songs of a country from Apple's public marketing-tools RSS
/// JSON (`{base}/api/v2/{cc}/music/most-played/100/songs.json`), in chart order, each with the
/// preview the iTunes lookup gives (the chart itself carries none).
///
/// The chart answers `{"feed": {"title", "country", "results": [{"id", "name", "artistName",
/// "artworkUrl100", "genres": [{"genreId", "name"}], ...}]}}`. A genre chart is the country's
/// chart kept to the songs of that genre (the v2 feed has no genre charts of its own).
public struct AppleCharts: Sendable {
  public static let defaultBase = URL(string: "https://rss.applemarketingtools.com")!
  /// Songs a chart holds (the most the feed gives).
  public static let chartSize = 100

  public let base: URL
  public let itunes: ITunesCatalog

  public init(base: URL = AppleCharts.defaultBase, itunes: ITunesCatalog = ITunesCatalog()) {
    self.base = base
    self.itunes = itunes
  }

  /// The genres `riffle charts --list` names: Apple's genre ids and names.
  public static let genres: [(id: String, name: String)] = [
    ("20", "Alternative"), ("2", "Blues"), ("5", "Classical"), ("6", "Country"), ("17", "Dance"),
    ("7", "Electronic"), ("18", "Hip-Hop/Rap"), ("11", "Jazz"), ("51", "K-Pop"), ("12", "Latin"),
    ("14", "Pop"), ("15", "R&B/Soul"), ("24", "Reggae"), ("21", "Rock"),
    ("10", "Singer/Songwriter"), ("16", "Soundtrack"), ("19", "World"),
  ]

  /// The genre a user's word names (its name, ignoring case and punctuation, or its id).
  public static func genre(named text: String) -> (id: String, name: String)? {
    func key(_ s: String) -> String {
      s.lowercased().filter { $0.isLetter || $0.isNumber }
    }
    let wanted = key(text)
    return genres.first { key($0.name) == wanted || $0.id == wanted }
      ?? genres.first { key($0.name).hasPrefix(wanted) && !wanted.isEmpty }
  }

  /// A country code as the feed takes it: two letters, lowercased; nil otherwise.
  public static func country(_ text: String) -> String? {
    let code = text.lowercased()
    guard code.count == 2, code.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
    return code
  }

  /// The chart's address for a country.
  public func chartURL(country: String) -> URL {
    base.appendingPathComponent(
      "api/v2/\(country)/music/most-played/\(Self.chartSize)/songs.json")
  }

  /// The chart as one page: its songs with previews, in chart order, kept to `genre` when
  /// one is given. Songs without a preview are skipped and counted.
  public func page(
    genre: String?, country: String,
    completion: @escaping @Sendable (Result<SourcePage, CatalogError>) -> Void
  ) {
    let request = HTTPRequest(
      url: chartURL(country: country), headers: ["Accept": "application/json"],
      maxBytes: 5_000_000)
    let itunes = self.itunes
    itunes.client.fetch(request) { result in
      switch result {
      case .failure(let error):
        completion(.failure(.http(error)))
      case .success(let response):
        let entries: [ChartEntry]
        do throws(CatalogError) {
          entries = try Self.entries(response.body).filter { entry in
            genre.map { wanted in entry.genres.contains { Self.sameGenre($0, wanted) } } ?? true
          }
        } catch {
          return completion(.failure(error))
        }
        guard !entries.isEmpty else { return completion(.success(SourcePage(songs: []))) }
        itunes.fetch(itunes.lookupURL(ids: entries.map(\.id), country: country)) { result in
          completion(result.map { Self.songs(entries, previews: $0) })
        }
      }
    }
  }

  /// One song of the chart as the feed lists it.
  struct ChartEntry: Equatable {
    var id: String
    var name: String
    var artist: String
    var genres: [String]
  }

  static func sameGenre(_ a: String, _ b: String) -> Bool {
    func key(_ s: String) -> String { s.lowercased().filter { $0.isLetter || $0.isNumber } }
    return key(a) == key(b)
  }

  /// The chart's entries, in order; entries without an id are left out.
  static func entries(_ data: Data) throws(CatalogError) -> [ChartEntry] {
    if FeedDecoder.looksLikeWebPage(data) {
      throw CatalogError.invalid("a web page, not the chart")
    }
    let root: JSONValue
    do {
      root = try JSONValue.parse(data)
    } catch {
      throw CatalogError.invalid("not JSON")
    }
    guard let results = root["feed"]?["results"]?.array else {
      throw CatalogError.invalid("no chart in the answer")
    }
    return results.compactMap { item in
      guard let id = item["id"]?.nonEmptyText, id.allSatisfy(\.isNumber) else { return nil }
      let genres = (item["genres"]?.array ?? []).flatMap { genre in
        [genre["name"]?.nonEmptyText, genre["genreId"]?.nonEmptyText].compactMap { $0 }
      }
      return ChartEntry(
        id: id, name: item["name"]?.nonEmptyText ?? "",
        artist: item["artistName"]?.nonEmptyText ?? "", genres: genres)
    }
  }

  /// The chart's songs in chart order, each with its preview from the lookup.
  static func songs(_ entries: [ChartEntry], previews: [JSONValue]) -> SourcePage {
    var byID: [String: Song] = [:]
    for item in previews {
      guard let id = item["trackId"]?.int, let song = ITunesDecoder.song(from: item) else {
        continue
      }
      byID[String(id)] = song
    }
    var songs: [Song] = []
    var skipped = 0
    var seen = Set<String>()
    for entry in entries where seen.insert(entry.id).inserted {
      if let song = byID[entry.id] { songs.append(song) } else { skipped += 1 }
    }
    return SourcePage(songs: songs, next: nil, skipped: skipped)
  }
}
