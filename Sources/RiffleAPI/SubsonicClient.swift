import Foundation
import RiffleCore

/// One Subsonic-compatible server as config.toml's `[[servers]]` names it.
public struct SubsonicServerSettings: Sendable, Equatable {
  /// Letters, digits and `-` only: the name is the host of the server's `subsonic://` URLs.
  public var name: String
  /// The server's base URL (`https://music.example/navidrome`); `rest/...` goes after it.
  public var url: URL
  public var user: String
  public var credential: SubsonicAuth.Credential
  /// `allow_plain_password`: the hex password (`p=enc:`) may cross a network in the clear.
  public var allowPlainPassword: Bool
  /// `format`: what `stream` should send ("mp3", "opus", "raw"); nil leaves it to the server.
  public var format: String?
  /// `max_bit_rate` in kbit/s; nil leaves it to the server.
  public var maxBitRate: Int?

  public init(
    name: String, url: URL, user: String, credential: SubsonicAuth.Credential,
    allowPlainPassword: Bool = false, format: String? = nil, maxBitRate: Int? = nil
  ) {
    self.name = name
    self.url = url
    self.user = user
    self.credential = credential
    self.allowPlainPassword = allowPlainPassword
    self.format = format
    self.maxBitRate = maxBitRate
  }

  /// True for a name that can be a server's: 1 to 40 ASCII letters, digits and `-`.
  public static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.count <= 40
      && name.unicodeScalars.allSatisfy {
        ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || $0 == "-"
      }
  }
}

/// Why a request to a Subsonic server failed: the transfer, or the server's own refusal.
public enum SubsonicLoadError: Error, Equatable, Sendable, TransferFailure, ReportableFailure {
  case http(HTTPError, server: String)
  case api(SubsonicError)

  public var userMessage: String {
    switch self {
    case .http(.status(404, _, _, _), let server):
      return "\(server) has no Subsonic API at its url (404): check url for it in config.toml"
    case .http(.status(let code, _, _, _), let server) where code == 401 || code == 403:
      return
        "\(server) refused the sign-in (\(code)): check user and password for it in config.toml"
    case .http(let error, let server): return "\(server): \(error.userMessage)"
    case .api(let error): return error.userMessage
    }
  }

  public var transferError: HTTPError? {
    if case .http(let error, _) = self { return error }
    return nil
  }
}

/// A Subsonic-compatible server (Navidrome, Airsonic, Gonic, Supysonic...) over the shared HTTP
/// client, in JSON (`f=json`): albums newest first, an album's songs, search, an artist's
/// songs, stars, lyrics, scrobbles, and the signed addresses of streams and covers.
///
/// The first request pings the server without credentials to read its API version (every
/// answer carries it, refusals too), then signs in as `SubsonicAuth` says for that version and
/// checks the credentials with a signed ping. What the songs carry is a `subsonic://NAME/...`
/// address without any credential (`SubsonicServers` signs it when it is fetched), so no secret
/// reaches a saved session, a playlist, a cache file name or the log.
public final class SubsonicClient: @unchecked Sendable {
  public let settings: SubsonicServerSettings
  private let http: HTTPClient
  private let auth: SubsonicAuth
  private let lock = NSLock()
  private var info: SubsonicAuth.ServerInfo?
  /// Album ids of each artist asked for (`ServerQuery.artist`), in the server's order.
  private var artistAlbums: [String: [String]] = [:]

  /// Albums (or songs of a search) asked for at a time.
  public static let pageSize = 20
  /// The newest API version Riffle speaks; older servers are asked in their own.
  public static let spokenVersion = SubsonicVersion("1.16.1")!
  static let clientName = "riffle"

  public init(_ settings: SubsonicServerSettings, http: HTTPClient = .shared) {
    self.settings = settings
    self.http = http
    self.auth = SubsonicAuth(
      server: settings.name, user: settings.user, credential: settings.credential,
      allowPlainPassword: settings.allowPlainPassword)
  }

  // MARK: Signing in

  /// What the server said of itself once signed in; asks it (twice: its version, then the
  /// credentials) the first time.
  public func connect(
    _ done: @escaping @Sendable (Result<SubsonicAuth.ServerInfo, SubsonicLoadError>) -> Void
  ) {
    if let known = lock.withLock({ info }) { return done(.success(known)) }
    let name = settings.name
    let first = url("ping", version: SubsonicVersion("1.12.0")!, signed: [])
    http.fetch(HTTPRequest(url: first, maxBytes: 1 << 20)) { [self] result in
      switch result {
      case .failure(let error): return done(.failure(.http(error.withoutExcerpt, server: name)))
      case .success(let response):
        guard let found = Self.versionInfo(response.body) else {
          return done(.failure(.api(.notTheAPI(server: name))))
        }
        let extensions: @Sendable (@escaping @Sendable (Set<String>) -> Void) -> Void = {
          [self] next in
          guard found.openSubsonic else { return next([]) }
          let asked = url("getOpenSubsonicExtensions", version: found.version, signed: [])
          http.fetch(HTTPRequest(url: asked, maxBytes: 1 << 20)) { result in
            guard case .success(let response) = result,
              let body = try? SubsonicEnvelope.open(response.body, server: name)
            else { return next([]) }
            next(
              Set((body["openSubsonicExtensions"]?.array ?? []).compactMap { $0["name"]?.text }))
          }
        }
        extensions { [self] offered in
          let server = SubsonicAuth.ServerInfo(version: found.version, extensions: offered)
          let signed: URL
          do throws(SubsonicError) {
            signed = try signedURL("ping", [], server)
          } catch {
            return done(.failure(.api(error)))
          }
          http.fetch(HTTPRequest(url: signed, maxBytes: 1 << 20)) { [self] result in
            switch result {
            case .failure(let error): done(.failure(.http(error.withoutExcerpt, server: name)))
            case .success(let response):
              do throws(SubsonicError) {
                _ = try SubsonicEnvelope.open(response.body, server: name)
                lock.withLock { info = server }
                done(.success(server))
              } catch {
                done(.failure(.api(error)))
              }
            }
          }
        }
      }
    }
  }

  /// The API version (and whether it is OpenSubsonic) from any answer, a refusal too.
  static func versionInfo(_ body: Data) -> (version: SubsonicVersion, openSubsonic: Bool)? {
    if FeedDecoder.looksLikeWebPage(body) { return nil }
    guard let root = try? JSONValue.parse(body), let response = root["subsonic-response"],
      let version = response["version"]?.text.flatMap(SubsonicVersion.init)
    else { return nil }
    return (version, response["openSubsonic"]?.bool ?? false)
  }

  /// `rest/ENDPOINT` under the server's URL with the query items, the API version and the
  /// client's name; the values are escaped whole ("+" included), so no value changes the shape.
  func url(_ endpoint: String, version: SubsonicVersion, signed items: [URLQueryItem]) -> URL {
    var components = URLComponents(url: settings.url, resolvingAgainstBaseURL: true)!
    var path = components.percentEncodedPath
    while path.hasSuffix("/") { path.removeLast() }
    components.percentEncodedPath = path + "/rest/" + endpoint
    let all =
      items + [
        URLQueryItem(name: "v", value: min(version, Self.spokenVersion).description),
        URLQueryItem(name: "c", value: Self.clientName),
        URLQueryItem(name: "f", value: "json"),
      ]
    components.percentEncodedQuery = all.map { item in
      Self.escape(item.name) + "=" + Self.escape(item.value ?? "")
    }.joined(separator: "&")
    return components.url!
  }

  static func escape(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~:")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
  }

  /// A request signed as the server's version wants, with a fresh salt.
  func signedURL(
    _ endpoint: String, _ items: [URLQueryItem], _ server: SubsonicAuth.ServerInfo
  ) throws(SubsonicError) -> URL {
    let credentials = try auth.queryItems(
      for: server, base: settings.url, salt: SubsonicAuth.salt())
    return url(endpoint, version: server.version, signed: items + credentials)
  }

  /// Calls an endpoint signed in and hands back the answer's response object.
  public func call(
    _ endpoint: String, _ items: [URLQueryItem] = [],
    _ done: @escaping @Sendable (Result<JSONValue, SubsonicLoadError>) -> Void
  ) {
    let name = settings.name
    connect { [self] result in
      switch result {
      case .failure(let error): done(.failure(error))
      case .success(let server):
        let signed: URL
        do throws(SubsonicError) {
          signed = try signedURL(endpoint, items, server)
        } catch {
          return done(.failure(.api(error)))
        }
        http.fetch(HTTPRequest(url: signed, maxBytes: 16 << 20)) { result in
          switch result {
          case .failure(let error): done(.failure(.http(error.withoutExcerpt, server: name)))
          case .success(let response):
            do throws(SubsonicError) {
              done(.success(try SubsonicEnvelope.open(response.body, server: name)))
            } catch {
              done(.failure(.api(error)))
            }
          }
        }
      }
    }
  }

  /// The signed http(s) address of one of the server's `subsonic://NAME/ENDPOINT?...`
  /// addresses (a stream gets the format and bit rate set for the server).
  public func resolve(_ address: URL, _ done: @escaping @Sendable (Result<URL, HTTPError>) -> Void)
  {
    let endpoint = address.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    var asked = URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems ?? []
    if endpoint == "stream" {
      if let format = settings.format { asked.append(URLQueryItem(name: "format", value: format)) }
      if let rate = settings.maxBitRate {
        asked.append(URLQueryItem(name: "maxBitRate", value: String(rate)))
      }
    }
    let items = asked
    connect { [self] result in
      switch result {
      case .failure(.http(let error, _)): done(.failure(error))
      case .failure(let error): done(.failure(.refused(error.userMessage)))
      case .success(let server):
        do throws(SubsonicError) {
          done(.success(try signedURL(endpoint, items, server)))
        } catch {
          done(.failure(.refused(error.userMessage)))
        }
      }
    }
  }

  // MARK: Pages

  /// One page of what `query` asks for.
  public func page(
    _ query: ServerQuery, cursor: PageCursor?,
    _ done: @escaping @Sendable (Result<SourcePage, SubsonicLoadError>) -> Void
  ) {
    let size = Self.pageSize
    var from = 0
    if case .offset(let at, _)? = cursor { from = at }
    let offset = from
    let decoder = SubsonicSongs(server: settings.name)
    switch query {
    case .albums:
      let items = [
        URLQueryItem(name: "type", value: "newest"), URLQueryItem(name: "size", value: "\(size)"),
        URLQueryItem(name: "offset", value: "\(offset)"),
      ]
      call("getAlbumList2", items) { result in
        done(
          result.map { response in
            let albums = response["albumList2"]?["album"]?.array ?? []
            let pages = decoder.albumPages(albums)
            return SourcePage(
              songs: pages,
              next: albums.count < size ? nil : .offset(offset + albums.count, limit: size),
              skipped: albums.count - pages.count)
          })
      }
    case .album(let id, _):
      call("getAlbum", [URLQueryItem(name: "id", value: id)]) { result in
        done(
          result.map { response in
            let songs = response["album"]?["song"]?.array ?? []
            let decoded = decoder.songs(songs)
            return SourcePage(songs: decoded, skipped: songs.count - decoded.count)
          })
      }
    case .search(let term):
      let items = [
        URLQueryItem(name: "query", value: term), URLQueryItem(name: "songCount", value: "\(size)"),
        URLQueryItem(name: "songOffset", value: "\(offset)"),
        URLQueryItem(name: "artistCount", value: "0"), URLQueryItem(name: "albumCount", value: "0"),
      ]
      call("search3", items) { result in
        done(
          result.map { response in
            let songs = response["searchResult3"]?["song"]?.array ?? []
            let decoded = decoder.songs(songs)
            return SourcePage(
              songs: decoded,
              next: songs.count < size ? nil : .offset(offset + songs.count, limit: size),
              skipped: songs.count - decoded.count)
          })
      }
    case .artist(let name):
      var at = 0
      if case .page(let page, _)? = cursor { at = page }
      let index = at
      artistAlbumIDs(name) { [self] result in
        switch result {
        case .failure(let error): done(.failure(error))
        case .success(let ids):
          guard ids.indices.contains(index) else { return done(.success(SourcePage(songs: []))) }
          call("getAlbum", [URLQueryItem(name: "id", value: ids[index])]) { result in
            done(
              result.map { response in
                var songs = decoder.songs(response["album"]?["song"]?.array ?? [])
                // A compilation: only this artist's songs, when it has any there.
                let own = songs.filter {
                  $0.displayName.caseInsensitiveCompare(name) == .orderedSame
                }
                if !own.isEmpty { songs = own }
                return SourcePage(
                  songs: songs, next: index + 1 < ids.count ? .page(index + 1, size: nil) : nil)
              })
          }
        }
      }
    }
  }

  /// The albums of the artist with this name (the closest match `search3` finds), once.
  private func artistAlbumIDs(
    _ name: String, _ done: @escaping @Sendable (Result<[String], SubsonicLoadError>) -> Void
  ) {
    if let known = lock.withLock({ artistAlbums[name] }) { return done(.success(known)) }
    let items = [
      URLQueryItem(name: "query", value: name), URLQueryItem(name: "artistCount", value: "10"),
      URLQueryItem(name: "albumCount", value: "0"), URLQueryItem(name: "songCount", value: "0"),
    ]
    call("search3", items) { [self] result in
      switch result {
      case .failure(let error): done(.failure(error))
      case .success(let response):
        let artists = response["searchResult3"]?["artist"]?.array ?? []
        let exact = artists.first {
          $0["name"]?.text?.caseInsensitiveCompare(name) == .orderedSame
        }
        guard let id = (exact ?? artists.first)?["id"]?.text else { return done(.success([])) }
        call("getArtist", [URLQueryItem(name: "id", value: id)]) { [self] result in
          done(
            result.map { response in
              let ids = (response["artist"]?["album"]?.array ?? []).compactMap { $0["id"]?.text }
              lock.withLock { artistAlbums[name] = ids }
              return ids
            })
        }
      }
    }
  }

  // MARK: Stars, plays, lyrics

  /// Stars (or unstars) a song: the server's like.
  public func star(
    _ id: String, _ starred: Bool, _ done: @escaping @Sendable (SubsonicLoadError?) -> Void
  ) {
    call(starred ? "star" : "unstar", [URLQueryItem(name: "id", value: id)]) { result in
      if case .failure(let error) = result { return done(error) }
      done(nil)
    }
  }

  /// Tells the server a song is playing (`submission` false) or was heard (true, at `time`).
  public func scrobble(
    _ id: String, submission: Bool, time: Date? = nil,
    _ done: @escaping @Sendable (SubsonicLoadError?) -> Void = { _ in }
  ) {
    var items = [
      URLQueryItem(name: "id", value: id),
      URLQueryItem(name: "submission", value: submission ? "true" : "false"),
    ]
    if let time {
      items.append(
        URLQueryItem(name: "time", value: String(Int64(time.timeIntervalSince1970 * 1000))))
    }
    call("scrobble", items) { result in
      if case .failure(let error) = result { return done(error) }
      done(nil)
    }
  }

  /// A song's lyrics from the server: `getLyricsBySongId` where the server offers OpenSubsonic's
  /// `songLyrics`, else `getLyrics` by artist and title.
  public func lyrics(
    id: String, artist: String, title: String,
    _ done: @escaping @Sendable (Result<Lyrics, SubsonicLoadError>) -> Void
  ) {
    connect { [self] result in
      switch result {
      case .failure(let error): done(.failure(error))
      case .success(let server) where server.extensions.contains("songLyrics"):
        call("getLyricsBySongId", [URLQueryItem(name: "id", value: id)]) { result in
          done(result.map { SubsonicSongs.structuredLyrics($0) })
        }
      case .success:
        let items = [
          URLQueryItem(name: "artist", value: artist), URLQueryItem(name: "title", value: title),
        ]
        call("getLyrics", items) { result in
          done(
            result.map { response in
              let text = response["lyrics"]?["value"]?.text ?? ""
              return Lyrics.fromLRC(text) ?? Lyrics.fromPlainText(text) ?? .notFound
            })
        }
      }
    }
  }
}

/// Turns a server's answers into pages: songs (`child`) and albums (`AlbumID3`).
public struct SubsonicSongs: Sendable {
  public var server: String

  public init(server: String) {
    self.server = server
  }

  /// "subsonic:NAME:ID", the id of a server's song in Riffle.
  public static func songID(server: String, id: String) -> String { "subsonic:\(server):\(id)" }

  /// The server's name and its own id of a song, from its Riffle id.
  public static func parse(songID: String) -> (server: String, id: String)? {
    let parts = songID.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0] == "subsonic", !parts[1].isEmpty, !parts[2].isEmpty else {
      return nil
    }
    return (String(parts[1]), String(parts[2]))
  }

  func address(_ endpoint: String, _ items: [(String, String)]) -> URL {
    var components = URLComponents()
    components.scheme = SubsonicServers.scheme
    components.host = server
    components.path = "/" + endpoint
    components.percentEncodedQuery = items.map {
      SubsonicClient.escape($0.0) + "=" + SubsonicClient.escape($0.1)
    }.joined(separator: "&")
    return components.url!
  }

  func cover(_ value: JSONValue) -> URL? {
    value["coverArt"]?.nonEmptyText.map { address("getCoverArt", [("id", $0), ("size", "600")]) }
  }

  /// Songs that can be played: those with an id (videos left out).
  public func songs(_ entries: [JSONValue]) -> [Song] {
    entries.compactMap { entry in
      guard let id = entry["id"]?.nonEmptyText, entry["isVideo"]?.bool != true else { return nil }
      var song = Song(
        id: Self.songID(server: server, id: id),
        title: TextSanitizer.sanitize(entry["title"]?.text ?? ""),
        displayName: TextSanitizer.sanitize(entry["artist"]?.text ?? ""), handle: "",
        imageURL: cover(entry), audioURL: address("stream", [("id", id)]),
        likeCount: entry["starred"]?.nonEmptyText != nil ? 1 : 0,
        isLiked: entry["starred"]?.nonEmptyText != nil,
        duration: entry["duration"]?.double.flatMap { $0 > 0 ? $0 : nil },
        album: entry["album"]?.nonEmptyText.map(TextSanitizer.sanitize),
        likeDestination: .server)
      song.albumID = entry["albumId"]?.nonEmptyText
      return song
    }
  }

  /// One page per album: its cover, name and artist; it opens (`b`) rather than plays.
  public func albumPages(_ entries: [JSONValue]) -> [Song] {
    entries.compactMap { entry in
      guard let id = entry["id"]?.nonEmptyText else { return nil }
      let name = TextSanitizer.sanitize(entry["name"]?.text ?? entry["title"]?.text ?? "")
      var details: [String] = []
      if let count = entry["songCount"]?.int {
        details.append(count == 1 ? "1 song" : "\(count) songs")
      }
      if let year = entry["year"]?.int, year > 0 { details.append(String(year)) }
      var page = Song(
        id: "subsonic-album:\(server):\(id)", title: name,
        displayName: TextSanitizer.sanitize(entry["artist"]?.text ?? ""), handle: "",
        imageURL: cover(entry), audioURL: address("getAlbum", [("id", id)]),
        album: details.isEmpty ? nil : details.joined(separator: " \u{00B7} "),
        likeDestination: .localOnly)
      page.albumID = id
      page.isAlbumPage = true
      return page
    }
  }

  /// OpenSubsonic's `lyricsList`: the first synced lyrics, else the first plain ones.
  static func structuredLyrics(_ response: JSONValue) -> Lyrics {
    let all = response["lyricsList"]?["structuredLyrics"]?.array ?? []
    func lines(_ entry: JSONValue) -> [JSONValue] { entry["line"]?.array ?? [] }
    if let synced = all.first(where: { $0["synced"]?.bool == true && !lines($0).isEmpty }) {
      let offset = (synced["offset"]?.double ?? 0) / 1000
      let timed = lines(synced).compactMap { line -> LyricLine? in
        guard let start = line["start"]?.double else { return nil }
        return LyricLine(
          time: max(0, start / 1000 - offset),
          text: TextSanitizer.sanitize(line["value"]?.text ?? ""))
      }
      if !timed.isEmpty { return .synced(SyncedLyrics(timed)) }
    }
    if let plain = all.first(where: { !lines($0).isEmpty }) {
      let text = lines(plain).map { TextSanitizer.sanitize($0["value"]?.text ?? "") }
      return .plain(text)
    }
    return .notFound
  }
}

/// The servers of config.toml, by name, and the signing of their `subsonic://` addresses, which
/// `HTTPClient` asks for whenever it fetches one.
public final class SubsonicServers: @unchecked Sendable {
  public static let shared = SubsonicServers()
  /// The scheme of a server's addresses inside Riffle: `subsonic://NAME/stream?id=...`.
  public static let scheme = "subsonic"

  private let lock = NSLock()
  private var clients: [String: SubsonicClient] = [:]

  public init() {}

  /// Makes a client for each server (the ones there before are replaced).
  public func register(_ servers: [SubsonicServerSettings], http: HTTPClient = .shared) {
    let made = Dictionary(
      servers.map { ($0.name.lowercased(), SubsonicClient($0, http: http)) },
      uniquingKeysWith: { first, _ in first })
    lock.withLock { clients = made }
  }

  public func client(named name: String) -> SubsonicClient? {
    lock.withLock { clients[name.lowercased()] }
  }

  /// The client and the server's own id of a server's song, from its Riffle id.
  public func song(_ songID: String) -> (client: SubsonicClient, id: String)? {
    guard let (server, id) = SubsonicSongs.parse(songID: songID), let client = client(named: server)
    else { return nil }
    return (client, id)
  }

  /// The signed address behind a `subsonic://` one.
  func resolve(_ address: URL, _ done: @escaping @Sendable (Result<URL, HTTPError>) -> Void) {
    guard let name = address.host, let client = client(named: name) else {
      return done(.failure(.noServer(address.host ?? "")))
    }
    client.resolve(address, done)
  }
}

extension SubsonicServers {
  /// What the status line says of a server config.toml does not name.
  public static func unknownServerMessage(_ name: String) -> String {
    "No server named \u{201C}\(TextSanitizer.sanitize(name))\u{201D}: add it with riffle server add, or to [[servers]] in config.toml"
  }
}

extension SubsonicServers {
  /// A stream's handlers that tell a refusal from a song: a server answers a `stream` or
  /// `getCoverArt` whose credentials stopped working (or a song it cannot find) with a
  /// `status="failed"` envelope, often with status 200, and a proxy in front of it may answer
  /// with its sign-in page. Such a body (JSON, XML or HTML) is read whole, never passed on as
  /// audio, and ends the transfer with the refusal in Riffle's words. A failure keeps none of
  /// the server's body: it may echo the signed request.
  ///
  /// A transfer that fails otherwise (a Range request answered with such a body is refused by
  /// curl before the body is read; a 401 or 403) is explained by a signed `ping`: when the
  /// server refuses that too, its refusal is what the user reads.
  func refusals(in handlers: StreamHandlers, server: String) -> StreamHandlers {
    let held = HeldBody()
    let client = client(named: server)
    @Sendable func failed(_ error: HTTPError) {
      // Only what a refusal can cause: curl's own words (a Range answered with 200), 401, 403.
      var explainable = false
      switch error {
      case .transport: explainable = true
      case .status(let code, _, _, _): explainable = code == 401 || code == 403
      default: break
      }
      guard explainable, let client else { return handlers.onComplete(error.withoutExcerpt) }
      client.call("ping") { result in
        if case .failure(.api(let refusal)) = result {
          return handlers.onComplete(.refused(refusal.userMessage))
        }
        handlers.onComplete(error.withoutExcerpt)
      }
    }
    return StreamHandlers(
      onResponse: { status, type, length in
        let kind = (type ?? "").lowercased()
        if ["json", "xml", "html"].contains(where: kind.contains) {
          held.start(status: status, type: type, length: length)
        } else {
          handlers.onResponse(status, type, length)
        }
      },
      onData: { chunk in
        guard held.isHolding else { return handlers.onData(chunk) }
        return held.append(chunk)
      },
      onComplete: { error in
        if let error { return failed(error) }
        guard let (status, type, length, body) = held.take() else {
          return handlers.onComplete(nil)
        }
        do throws(SubsonicError) {
          _ = try SubsonicEnvelope.open(body, server: server)
          // Not a refusal after all: what was held goes on.
          handlers.onResponse(status, type, length)
          if !body.isEmpty, !handlers.onData(body) { return handlers.onComplete(.cancelled) }
          handlers.onComplete(nil)
        } catch {
          handlers.onComplete(.refused(error.userMessage))
        }
      },
      onHeaders: handlers.onHeaders)
  }
}

/// The body of an answer that may be a refusal, held until it is whole (at most 1 MB).
private final class HeldBody: @unchecked Sendable {
  private let lock = NSLock()
  private var response: (status: Int, type: String?, length: Int64?)?
  private var body = Data()

  var isHolding: Bool { lock.withLock { response != nil } }

  func start(status: Int, type: String?, length: Int64?) {
    lock.withLock { response = (status, type, length) }
  }

  func append(_ chunk: Data) -> Bool {
    lock.withLock {
      body.append(chunk)
      return body.count <= 1 << 20
    }
  }

  func take() -> (Int, String?, Int64?, Data)? {
    lock.withLock {
      guard let response else { return nil }
      return (response.status, response.type, response.length, body)
    }
  }
}
