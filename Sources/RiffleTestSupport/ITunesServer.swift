import Foundation

/// Answers like the iTunes Search API, over a real `LoopbackHTTPServer`: `/search` (songs by
/// term, sliced by `offset` and `limit`; artists with `entity=musicArtist`) and `/lookup`
/// (an artist and their songs), with iTunes' own field names and types and its
/// `text/javascript; charset=utf-8` content type.
public struct ITunesServer: Sendable {
  /// A song as iTunes describes it.
  public struct Track: Sendable {
    public var trackId: Int
    public var artistId: Int
    public var artistName: String?
    public var trackName: String?
    public var collectionName: String?
    /// A path on the server ("/audio/x.m4a") or nil for a track without a preview.
    public var previewPath: String?
    public var artworkPath: String?

    public init(
      trackId: Int, artistId: Int = 1, artistName: String? = "Band", trackName: String?,
      collectionName: String? = "Album", previewPath: String? = "/audio/preview.m4a",
      artworkPath: String? = nil
    ) {
      self.trackId = trackId
      self.artistId = artistId
      self.artistName = artistName
      self.trackName = trackName
      self.collectionName = collectionName
      self.previewPath = previewPath
      self.artworkPath = artworkPath
    }
  }

  /// Songs a term finds, in order.
  public var songsByTerm: [String: [Track]]
  /// Artists by id with their songs, most popular first.
  public var artists: [Int: (name: String, tracks: [Track])]

  public init(
    songsByTerm: [String: [Track]] = [:], artists: [Int: (name: String, tracks: [Track])] = [:]
  ) {
    self.songsByTerm = songsByTerm
    self.artists = artists
  }

  /// The query items of a request target, percent-decoded (`+` stays a plus).
  public static func query(_ target: String) -> [String: String] {
    guard let components = URLComponents(string: "http://x" + target) else { return [:] }
    var items: [String: String] = [:]
    for item in components.queryItems ?? [] { items[item.name] = item.value ?? "" }
    return items
  }

  /// Answers one request; `base` is the server's own URL (for preview and artwork URLs).
  public func reply(to request: LoopbackHTTPServer.Request, base: URL)
    -> LoopbackHTTPServer.Reply?
  {
    let query = Self.query(request.target)
    switch request.path {
    case "/search":
      let term = query["term"] ?? ""
      if query["entity"] == "musicArtist" {
        let wanted = term.lowercased()
        let found = artists.filter { $0.value.name.lowercased().contains(wanted) }
          .sorted { $0.key < $1.key }
          .map { Self.artistJSON(id: $0.key, name: $0.value.name) }
        return Self.answer(found)
      }
      let all = songsByTerm[term] ?? []
      let offset = Int(query["offset"] ?? "0") ?? 0
      let limit = Int(query["limit"] ?? "50") ?? 50
      let slice = all.dropFirst(offset).prefix(limit)
      return Self.answer(slice.map { Self.trackJSON($0, base: base) })
    case "/lookup":
      guard let id = Int(query["id"] ?? ""), let artist = artists[id] else {
        return Self.answer([])
      }
      let limit = Int(query["limit"] ?? "50") ?? 50
      return Self.answer(
        [Self.artistJSON(id: id, name: artist.name)]
          + artist.tracks.prefix(limit).map { Self.trackJSON($0, base: base) })
    default:
      return nil
    }
  }

  /// `{"resultCount": N, "results": [...]}` as iTunes sends it.
  public static func answer(_ results: [String]) -> LoopbackHTTPServer.Reply {
    let body =
      "\n\n\n{\n \"resultCount\":\(results.count),\n \"results\": [\n"
      + results.joined(separator: ",\n") + "]\n}\n\n\n"
    return .respond(
      status: 200, headers: ["Content-Type": "text/javascript; charset=utf-8"],
      body: Data(body.utf8))
  }

  static func artistJSON(id: Int, name: String) -> String {
    """
    {"wrapperType":"artist", "artistType":"Artist", "artistName":\(quoted(name)), \
    "artistLinkUrl":"https://music.apple.com/us/artist/x/\(id)?uo=4", "artistId":\(id), \
    "amgArtistId":\(id * 7), "primaryGenreName":"Pop", "primaryGenreId":14}
    """
  }

  /// A track with every field iTunes sends for a song; missing values are left out, as iTunes
  /// does.
  public static func trackJSON(_ track: Track, base: URL) -> String {
    var fields: [String] = [
      #""wrapperType":"track""#, #""kind":"song""#, "\"artistId\":\(track.artistId)",
      "\"collectionId\":\(track.trackId + 900_000)", "\"trackId\":\(track.trackId)",
    ]
    if let name = track.artistName { fields.append("\"artistName\":\(quoted(name))") }
    if let name = track.collectionName {
      fields.append("\"collectionName\":\(quoted(name))")
      fields.append("\"collectionCensoredName\":\(quoted(name))")
    }
    if let name = track.trackName {
      fields.append("\"trackName\":\(quoted(name))")
      fields.append("\"trackCensoredName\":\(quoted(name))")
    }
    fields += [
      "\"artistViewUrl\":\"https://music.apple.com/us/artist/x/\(track.artistId)?uo=4\"",
      "\"trackViewUrl\":\"https://music.apple.com/us/album/x/1?i=\(track.trackId)&uo=4\"",
    ]
    if let path = track.previewPath {
      fields.append("\"previewUrl\":\(quoted(base.absoluteString + path))")
    }
    if let path = track.artworkPath {
      let art = base.absoluteString + path
      fields += [
        "\"artworkUrl30\":\(quoted(art + "/30x30bb.jpg"))",
        "\"artworkUrl60\":\(quoted(art + "/60x60bb.jpg"))",
        "\"artworkUrl100\":\(quoted(art + "/100x100bb.jpg"))",
      ]
    }
    fields += [
      #""collectionPrice":9.99"#, #""trackPrice":1.29"#,
      #""releaseDate":"2011-05-23T12:00:00Z""#, #""collectionExplicitness":"notExplicit""#,
      #""trackExplicitness":"notExplicit""#, #""discCount":1"#, #""discNumber":1"#,
      #""trackCount":12"#, "\"trackNumber\":\(track.trackId % 12 + 1)",
      #""trackTimeMillis":215733"#, #""country":"USA""#, #""currency":"USD""#,
      #""primaryGenreName":"Pop""#, #""isStreamable":true"#,
    ]
    return "{" + fields.joined(separator: ", ") + "}"
  }

  static func quoted(_ text: String) -> String {
    let data = try? JSONSerialization.data(
      withJSONObject: [text], options: [.withoutEscapingSlashes])
    let array = data.flatMap { String(data: $0, encoding: .utf8) } ?? "[\"\"]"
    return String(array.dropFirst().dropLast())
  }
}
