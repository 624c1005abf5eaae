import Foundation
import RiffleCore

/// The iTunes Search API as a song catalog: searches, paged by offset, and an artist's top
/// songs. Answers are parsed whatever their content type (iTunes says `text/javascript`).
public struct ITunesCatalog: Sendable {
  public static let defaultBase = URL(string: "https://itunes.apple.com")!

  public let base: URL
  public let client: HTTPClient

  public init(base: URL = ITunesCatalog.defaultBase, client: HTTPClient = .shared) {
    self.base = base
    self.client = client
  }

  // MARK: - Addresses

  /// `/search?term=&media=music&entity=song&limit=&offset=`, built from components.
  public func searchURL(term: String, offset: Int, limit: Int) -> URL {
    url(
      "search",
      [
        ("term", term), ("media", "music"), ("entity", "song"), ("limit", String(limit)),
        ("offset", String(offset)),
      ])
  }

  /// Finds artists by name: `/search?term=&media=music&entity=musicArtist&attribute=artistTerm`.
  public func artistSearchURL(name: String) -> URL {
    url(
      "search",
      [
        ("term", name), ("media", "music"), ("entity", "musicArtist"),
        ("attribute", "artistTerm"), ("limit", "5"),
      ])
  }

  /// Songs by their ids, in one request: `/lookup?id=1,2,3&country=&entity=song`.
  public func lookupURL(ids: [String], country: String) -> URL {
    url("lookup", [("id", ids.joined(separator: ",")), ("country", country), ("entity", "song")])
  }

  /// An artist's songs, most popular first: `/lookup?id=&entity=song&limit=`.
  public func topSongsURL(artistID: Int, limit: Int) -> URL {
    url("lookup", [("id", String(artistID)), ("entity", "song"), ("limit", String(limit))])
  }

  /// The base URL with `endpoint` added to its path and the query encoded item by item. `+`
  /// and `&` in what the user typed are encoded too (a bare `+` would read as a space).
  private func url(_ endpoint: String, _ items: [(String, String)]) -> URL {
    var components =
      URLComponents(url: base, resolvingAgainstBaseURL: true) ?? URLComponents()
    let path = components.path.hasSuffix("/") ? components.path : components.path + "/"
    components.path = path + endpoint
    var allowed = CharacterSet.urlQueryAllowed
    allowed.remove(charactersIn: "+&=;/?#")
    components.percentEncodedQueryItems = items.map { name, value in
      URLQueryItem(
        name: name, value: value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
    }
    return components.url ?? base
  }

  // MARK: - Requests

  /// One batch of search results; the completion runs off the main queue.
  @discardableResult
  public func search(
    term: String, offset: Int, limit: Int,
    completion: @escaping @Sendable (Result<ITunesBatch, CatalogError>) -> Void
  ) -> Transfer {
    fetch(searchURL(term: term, offset: offset, limit: limit)) { result in
      completion(result.map(ITunesDecoder.batch))
    }
  }

  /// The artist's songs most popular first, each song once. An artist iTunes does not know
  /// gives no songs (not an error). When the name matches several artists and none clearly
  /// (two of the same name, or none exactly), no songs but the `choices` to choose from.
  public func topSongs(
    artist name: String, limit: Int,
    completion: @escaping @Sendable (Result<ArtistSongs, CatalogError>) -> Void
  ) {
    fetch(artistSearchURL(name: name)) { result in
      switch result {
      case .failure(let error):
        completion(.failure(error))
      case .success(let items):
        switch ITunesDecoder.artistMatch(items, named: name) {
        case .none:
          completion(.success(ArtistSongs(name: name, songs: [], hidden: 0, skipped: 0)))
        case .several(let matches):
          completion(
            .success(
              ArtistSongs(name: name, songs: [], hidden: 0, skipped: 0, choices: matches)))
        case .one(let artist):
          topSongs(artistID: artist.id, name: artist.name, limit: limit, completion: completion)
        }
      }
    }
  }

  /// The songs of the artist with this iTunes id, most popular first, each song once.
  public func topSongs(
    artistID: Int, name: String, limit: Int,
    completion: @escaping @Sendable (Result<ArtistSongs, CatalogError>) -> Void
  ) {
    fetch(topSongsURL(artistID: artistID, limit: limit)) { result in
      completion(
        result.map { items in
          let batch = ITunesDecoder.batch(
            items.filter { $0["artistId"]?.int == artistID || $0["artistId"] == nil })
          let unique = SongDeduplicator.unique(batch.songs)
          return ArtistSongs(
            name: name, songs: unique.songs, hidden: unique.hidden, skipped: batch.skipped)
        })
    }
  }

  /// Results asked for in one batch of a search.
  public static let batchSize = 25
  /// An artist's songs asked for at once, before repeats are dropped.
  public static let artistSongLimit = 100

  /// One page of search results as the player pages them: 25 from `cursor`'s offset (0 for
  /// the first); a batch shorter than asked for is the last.
  public func searchPage(
    term: String, cursor: PageCursor?,
    completion: @escaping @Sendable (Result<SourcePage, CatalogError>) -> Void
  ) {
    let (offset, limit): (Int, Int)
    if case .offset(let from, let size)? = cursor {
      (offset, limit) = (from, size)
    } else {
      (offset, limit) = (0, Self.batchSize)
    }
    search(term: term, offset: offset, limit: limit) { result in
      completion(
        result.map { batch in
          SourcePage(
            songs: batch.songs,
            next: batch.received < limit ? nil : .offset(offset + batch.received, limit: limit),
            skipped: batch.skipped)
        })
    }
  }

  /// An artist's top songs as one page (iTunes gives them at once), or the artists to
  /// choose from when the name matches several.
  public func artistPage(
    name: String, completion: @escaping @Sendable (Result<SourcePage, CatalogError>) -> Void
  ) {
    topSongs(artist: name, limit: Self.artistSongLimit) { result in
      completion(
        result.map {
          SourcePage(
            songs: $0.songs, next: nil, skipped: $0.skipped, hidden: $0.hidden,
            choices: $0.choices)
        })
    }
  }

  /// The top songs of an artist chosen from the list, as one page.
  public func artistPage(
    id: Int, name: String,
    completion: @escaping @Sendable (Result<SourcePage, CatalogError>) -> Void
  ) {
    topSongs(artistID: id, name: name, limit: Self.artistSongLimit) { result in
      completion(
        result.map {
          SourcePage(songs: $0.songs, next: nil, skipped: $0.skipped, hidden: $0.hidden)
        })
    }
  }

  /// GETs a URL and gives the `results` list, or the reason there is none.
  @discardableResult
  func fetch(
    _ url: URL, completion: @escaping @Sendable (Result<[JSONValue], CatalogError>) -> Void
  ) -> Transfer {
    client.fetch(HTTPRequest(url: url, headers: ["Accept": "application/json"])) { result in
      switch result {
      case .failure(.status(let code, let host, _, let after)) where code == 403 || code == 429:
        completion(.failure(.rateLimited(host: host, retryAfter: after.map(Double.init))))
      case .failure(let error):
        completion(.failure(.http(error)))
      case .success(let response):
        do {
          completion(.success(try ITunesDecoder.results(response.body)))
        } catch let error as CatalogError {
          completion(.failure(error))
        } catch {
          completion(.failure(.invalid(String(describing: error))))
        }
      }
    }
  }
}

/// A batch of search results as the player uses them.
public struct ITunesBatch: Equatable, Sendable {
  public var songs: [Song]
  /// Results iTunes sent (playable or not): sets the next offset and says when they end.
  public var received: Int
  /// Songs without a preview to play (results that are not songs are not counted).
  public var skipped: Int
}

/// An artist's top songs with repeats set aside.
public struct ArtistSongs: Equatable, Sendable {
  /// The artist's name as iTunes spells it.
  public var name: String
  public var songs: [Song]
  /// Repeats of the same song (other albums, remasters, live) left out.
  public var hidden: Int
  /// Songs without a preview to play.
  public var skipped: Int
  /// The artists to choose from, when the name matched several and none clearly.
  public var choices: [ArtistMatch] = []
}

/// Why a catalog gave no answer.
public enum CatalogError: Error, Equatable, Sendable, ReportableFailure {
  case http(HTTPError)
  /// 403 or 429: the API allows about 20 calls a minute.
  case rateLimited(host: String, retryAfter: Double?)
  /// The answer is not what the API sends.
  case invalid(String)

  public var userMessage: String {
    switch self {
    case .http(let error): return error.userMessage
    case .rateLimited(let host, _): return "\(host) is limiting requests"
    case .invalid(let detail): return "Unexpected answer from the catalog (\(detail))"
    }
  }

  public var isTransient: Bool {
    switch self {
    case .http(let error): return error.isTransient
    case .rateLimited: return true
    case .invalid: return false
    }
  }

  /// Seconds to wait before asking again: what the server asked for, or for a rate limit
  /// that did not say, one call's share of the API's limit (`rateLimitWait`); nil otherwise.
  public var retryAfter: Double? {
    switch self {
    case .http(.status(_, _, _, let after?)): return Double(after)
    case .rateLimited(_, let after): return after ?? Self.rateLimitWait
    default: return nil
    }
  }

  /// iTunes allows about 20 calls a minute: asking again sooner than 3 s after being limited
  /// only meets the limit again (the general back-off starts at 1 s).
  public static let rateLimitWait = 3.0
}

/// Reads the iTunes Search API's answers: `{"resultCount": N, "results": [...]}` with its own
/// field names (`trackId`, `trackName`, `artistName`, `collectionName`, `previewUrl`,
/// `artworkUrl100`, `trackTimeMillis`, `wrapperType`, `kind`, ...). A field of the wrong type
/// counts as missing; a result without a preview is skipped.
public enum ITunesDecoder {
  public static func results(_ data: Data) throws(CatalogError) -> [JSONValue] {
    let root: JSONValue
    do {
      root = try JSONValue.parse(data)
    } catch {
      throw CatalogError.invalid("not JSON")
    }
    guard case .object = root, let results = root["results"]?.array else {
      throw CatalogError.invalid("no results list")
    }
    return results
  }

  /// The songs among some results, in order, with counts of what was sent and skipped.
  public static func batch(_ results: [JSONValue]) -> ITunesBatch {
    var songs: [Song] = []
    var skipped = 0
    var seen = Set<String>()
    var received = 0
    for item in results {
      // A lookup's first result is the artist itself, not a song: not counted.
      if item["wrapperType"]?.text == "artist" || item["wrapperType"]?.text == "collection" {
        continue
      }
      received += 1
      // Podcasts, films and the like are not songs: left out, and not counted as songs without
      // a preview. Music videos play their preview's sound; audiobooks their sample.
      if !isPlayable(item) { continue }
      guard let song = song(from: item) else {
        skipped += 1
        continue
      }
      // The same track twice in one answer is one song, not one without a preview.
      guard seen.insert(song.id).inserted else { continue }
      songs.append(song)
    }
    return ITunesBatch(songs: songs, received: received, skipped: skipped)
  }

  /// One result as a song, or nil when it has nothing to play.
  public static func song(from item: JSONValue) -> Song? {
    guard case .object = item, isPlayable(item) else { return nil }
    guard let previewText = item["previewUrl"]?.nonEmptyText,
      let preview = URL(string: previewText),
      let scheme = preview.scheme?.lowercased(), scheme == "http" || scheme == "https"
    else { return nil }
    let id = item["trackId"]?.int.map { "itunes:\($0)" } ?? "itunes:" + previewText
    var title = item["trackName"]?.nonEmptyText ?? item["trackCensoredName"]?.nonEmptyText
    var album =
      item["collectionName"]?.nonEmptyText ?? item["collectionCensoredName"]?.nonEmptyText
    // An audiobook has no track: its collection is the book, and so the title.
    if title == nil, item["wrapperType"]?.text == "audiobook" {
      (title, album) = (album, nil)
    }
    let millis = item["trackTimeMillis"]?.double
    var song = Song(
      id: id, title: title ?? "", displayName: item["artistName"]?.nonEmptyText ?? "", handle: "",
      imageURL: artworkURL(item), audioURL: preview, likeCount: 0, isLiked: false,
      duration: nil, album: album, trackLength: millis.flatMap { $0 > 0 ? $0 / 1000 : nil })
    song.webURL = item["trackViewUrl"]?.nonEmptyText.flatMap(URL.init(string:)).flatMap {
      ["http", "https"].contains($0.scheme?.lowercased() ?? "") ? $0 : nil
    }
    return song
  }

  /// True for the results Riffle plays: songs, music videos (their preview's sound; FFmpeg
  /// picks the audio track) and audiobooks (wrapperType `audiobook`, no kind).
  static func isPlayable(_ item: JSONValue) -> Bool {
    guard let kind = item["kind"]?.text else { return true }
    return kind == "song" || kind == "music-video"
  }

  /// The cover at the size a page needs: `artworkUrl100` asked for at 600x600.
  static func artworkURL(_ item: JSONValue) -> URL? {
    guard
      let text = item["artworkUrl100"]?.nonEmptyText ?? item["artworkUrl60"]?.nonEmptyText
        ?? item["artworkUrl30"]?.nonEmptyText
    else { return nil }
    let large = text.replacingOccurrences(
      of: #"/\d+x\d+(bb)?\.(jpg|jpeg|png|webp)$"#, with: "/600x600bb.$2",
      options: .regularExpression)
    guard let url = URL(string: large), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https"
    else { return nil }
    return url
  }

  /// How an artist search answered a name.
  enum ArtistAnswer: Equatable {
    case none
    /// One artist is clearly meant: the only one with that exact name (ignoring case and
    /// accents), or the only result.
    case one(ArtistMatch)
    /// Several artists and none clearly: two or more of the exact name, or none exactly.
    case several([ArtistMatch])
  }

  /// Which artist among search results a name means, if that is clear.
  static func artistMatch(_ items: [JSONValue], named name: String) -> ArtistAnswer {
    var seen = Set<Int>()
    let artists: [ArtistMatch] = items.compactMap { item in
      guard let id = item["artistId"]?.int, seen.insert(id).inserted else { return nil }
      return ArtistMatch(
        id: id, name: item["artistName"]?.nonEmptyText ?? name,
        genre: item["primaryGenreName"]?.nonEmptyText ?? "")
    }
    guard let first = artists.first else { return .none }
    if artists.count == 1 { return .one(first) }
    let wanted = SongDeduplicator.normalizedArtist(name)
    let exact = artists.filter { SongDeduplicator.normalizedArtist($0.name) == wanted }
    if exact.count == 1 { return .one(exact[0]) }
    // Two of the same name: those; none exactly: every one found.
    return .several(exact.isEmpty ? artists : exact)
  }
}
