import Foundation
import RiffleCore

/// Finds a song's lyrics: a `.lrc` file beside a local audio file first, then the disk cache,
/// then LRCLIB (`GET {base}/api/get?artist_name=&track_name=&album_name=&duration=`).
///
/// LRCLIB answers a record (`id`, `trackName`, `artistName`, `albumName`, `duration`,
/// `instrumental`, `plainLyrics`, `syncedLyrics`; the last two may be null) or, for a song it
/// does not know, 404 with `{"code":404,"name":"TrackNotFound","message":"..."}`. The body is
/// read as JSON whatever its content type says. Records with words are kept in the cache, so a
/// song's lyrics show again without a connection.
public struct LyricsSource: Sendable {
  public static let defaultBaseURL = URL(string: "https://lrclib.net")!

  public let baseURL: URL
  public let client: HTTPClient
  public let cache: DiskCache?

  public init(baseURL: URL = Self.defaultBaseURL, client: HTTPClient = .shared, cache: DiskCache?) {
    self.baseURL = baseURL
    self.client = client
    self.cache = cache
  }

  /// Looks for the lyrics of `song`; the completion runs off the main queue.
  ///
  /// The audio of a preview (a song with a `trackLength`) is a cut from somewhere inside the
  /// recording, so the times of synced lyrics do not hold for it: its lyrics come as plain text.
  public func load(
    _ song: Song, completion: @escaping @Sendable (Result<Lyrics, LyricsLoadError>) -> Void
  ) {
    let completion: @Sendable (Result<Lyrics, LyricsLoadError>) -> Void = { result in
      guard song.trackLength != nil, case .success(.synced(let synced)) = result else {
        return completion(result)
      }
      completion(.success(.plain(synced.lines.map(\.text))))
    }
    // Files are read off the caller's queue too (the caller is the main queue).
    BackgroundWork.run("riffle.lyrics", qos: .userInitiated) { find(song, completion: completion) }
  }

  /// An episode's notes as plain lines, followed by its chapters ("12:05  Title") when it has a
  /// Podcasting 2.0 chapters file; a chapters file that cannot be had costs only the chapters.
  private func episodeNotes(
    _ song: Song, completion: @escaping @Sendable (Result<Lyrics, LyricsLoadError>) -> Void
  ) {
    let notes = song.notes.map { HTMLText.lines($0, width: HTMLText.measure) } ?? []
    guard let url = song.chaptersURL else { return completion(.success(.plain(notes))) }
    client.fetch(
      HTTPRequest(url: url, headers: ["Accept": "application/json"], maxBytes: 1_000_000)
    ) { result in
      let chapters = (try? result.get()).flatMap { try? Self.chapters($0.body) } ?? []
      guard !chapters.isEmpty else {
        return completion(.success(notes.isEmpty ? .notFound : .plain(notes)))
      }
      let lines = chapters.map { formatTime($0.start) + "  " + $0.title }
      completion(.success(.plain(notes + (notes.isEmpty ? [] : [""]) + ["Chapters"] + lines)))
    }
  }

  /// The chapters of a Podcasting 2.0 chapters file (`{"chapters": [{"startTime", "title"}]}`),
  /// in time order; chapters marked `"toc": false` are left out, as players do.
  public static func chapters(_ body: Data) throws -> [(start: Double, title: String)] {
    let root = try JSONValue.parse(body)
    let list = root["chapters"]?.array ?? []
    return list.compactMap { entry -> (start: Double, title: String)? in
      guard let start = entry["startTime"]?.double, start >= 0, start.isFinite,
        entry["toc"]?.bool != false
      else { return nil }
      let title = TextSanitizer.sanitize(entry["title"]?.text ?? "")
      return (start, title.isEmpty ? "Chapter" : String(title.prefix(200)))
    }.prefix(1000).sorted { $0.start < $1.start }
  }

  /// The .lrc file, the cache, then LRCLIB.
  private func find(
    _ song: Song, completion: @escaping @Sendable (Result<Lyrics, LyricsLoadError>) -> Void
  ) {
    // A podcast episode's description (and its chapters) is its text; no lyrics service knows it.
    if song.notes != nil || song.chaptersURL != nil {
      return episodeNotes(song, completion: completion)
    }
    if song.audioURL.isFileURL, let local = Self.localLyrics(besideAudio: song.audioURL) {
      return completion(.success(local))
    }
    guard let url = Self.requestURL(base: baseURL, for: song) else {
      // Without a title there is nothing to look up.
      return completion(.success(.notFound))
    }
    if let file = cache?.file(for: url), let data = try? Data(contentsOf: file),
      let cached = try? Self.decode(data)
    {
      return completion(.success(cached))
    }
    let cache = self.cache
    client.fetch(
      HTTPRequest(url: url, headers: ["Accept": "application/json"], maxBytes: 2_000_000)
    ) { result in
      switch result {
      case .success(let response):
        do {
          let lyrics = try Self.decode(response.body)
          if lyrics != .notFound { cache?.store(response.body, for: url) }
          completion(.success(lyrics))
        } catch {
          completion(.failure(error as? LyricsLoadError ?? .invalid(String(describing: error))))
        }
      case .failure(.status(404, _, _, _)):
        // Any 404 from /api/get is "no such track": LRCLIB's body names it (`TrackNotFound`),
        // its older one does not (`{"statusCode":404,"error":"Not Found",...}`), and a proxy
        // in front of it may send a page of its own.
        completion(.success(.notFound))
      case .failure(let error):
        completion(.failure(.http(error)))
      }
    }
  }

  /// The LRCLIB request for a song, built from components so no title can change its shape;
  /// nil for a song without a title.
  public static func requestURL(base: URL, for song: Song) -> URL? {
    let title = song.title.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !title.isEmpty,
      var components = URLComponents(
        url: base.appendingPathComponent("api/get"), resolvingAgainstBaseURL: true)
    else { return nil }
    var items = [
      URLQueryItem(
        name: "artist_name", value: song.displayName.trimmingCharacters(in: .whitespaces)),
      URLQueryItem(name: "track_name", value: title),
    ]
    if let album = song.album?.trimmingCharacters(in: .whitespaces), !album.isEmpty {
      items.append(URLQueryItem(name: "album_name", value: album))
    }
    // LRCLIB matches the whole recording's length, not a preview's.
    if let duration = song.trackLength ?? song.duration, duration.isFinite, duration > 0 {
      items.append(URLQueryItem(name: "duration", value: String(Int(duration.rounded()))))
    }
    components.queryItems = items
    // URLComponents leaves "+" alone, which form decoding (LRCLIB's) reads as a space.
    components.percentEncodedQuery = components.percentEncodedQuery?
      .replacingOccurrences(of: "+", with: "%2B")
    return components.url
  }

  /// Reads an LRCLIB body: a record, or the 404 body (as `.notFound`).
  public static func decode(_ body: Data) throws -> Lyrics {
    let root: JSONValue
    do {
      root = try JSONValue.parse(body)
    } catch {
      throw LyricsLoadError.invalid("The lyrics server's answer is not valid JSON")
    }
    guard case .object = root else {
      throw LyricsLoadError.invalid("The lyrics server's answer is not a lyrics record")
    }
    if isTrackNotFound(root) { return .notFound }
    if root["instrumental"]?.bool == true { return .instrumental }
    if let synced = root["syncedLyrics"]?.text, case .synced(let lines)? = Lyrics.fromLRC(synced) {
      return .synced(lines)
    }
    if let plain = root["plainLyrics"]?.text, let lyrics = Lyrics.fromPlainText(plain) {
      return lyrics
    }
    return .notFound
  }

  /// Lyrics from `NAME.lrc` beside `NAME.mp3` (any extension), if there is such a file.
  public static func localLyrics(besideAudio audio: URL) -> Lyrics? {
    let file = audio.deletingPathExtension().appendingPathExtension("lrc")
    guard let data = try? Data(contentsOf: file) else { return nil }
    let text = String(data: data, encoding: .utf8) ?? String(decoding: data, as: UTF8.self)
    return Lyrics.fromLRC(text)
  }

  private static func isTrackNotFound(_ root: JSONValue) -> Bool {
    root["name"]?.text == "TrackNotFound"
      || ((root["code"]?.int == 404 || root["statusCode"]?.int == 404) && root["trackName"] == nil)
  }
}

/// Why lyrics could not be had: the transfer, or an answer that could not be read.
public enum LyricsLoadError: Error, Equatable, Sendable, TransferFailure, ReportableFailure {
  case http(HTTPError)
  case invalid(String)

  public var userMessage: String {
    switch self {
    case .http(let error): return error.userMessage
    case .invalid(let text): return text
    }
  }

  public var transferError: HTTPError? {
    if case .http(let error) = self { return error }
    return nil
  }
}
