import Foundation

/// Apple's most-played chart (the marketing-tools RSS JSON, v2) and the iTunes lookup of its
/// songs by id, answered in Apple's own formats on loopback: charts by country, each song
/// with its genre, and previews for the songs that have one.
public struct ChartsServer: Sendable {
  public struct Entry: Sendable {
    public var id: Int
    public var name: String
    public var artist: String
    public var genre: (id: String, name: String)
    /// The preview's path on this server; nil: iTunes has no preview for it.
    public var previewPath: String?

    public init(
      id: Int, name: String, artist: String, genre: (id: String, name: String),
      previewPath: String?
    ) {
      self.id = id
      self.name = name
      self.artist = artist
      self.genre = genre
      self.previewPath = previewPath
    }
  }

  /// Chart entries by lowercased country code, in chart order.
  public var charts: [String: [Entry]]

  public init(charts: [String: [Entry]]) {
    self.charts = charts
  }

  public func reply(to request: LoopbackHTTPServer.Request, base: URL)
    -> LoopbackHTTPServer.Reply?
  {
    let parts = request.path.split(separator: "/").map(String.init)
    // /api/v2/{cc}/music/most-played/{n}/songs.json
    if parts.count == 7, parts[0] == "api", parts[1] == "v2", parts[3] == "music",
      parts[4] == "most-played", parts[6] == "songs.json"
    {
      guard let entries = charts[parts[2]] else {
        return .respond(status: 404, body: Data("<html>Not Found</html>".utf8))
      }
      let limit = Int(parts[5]) ?? 100
      let results = entries.prefix(limit).map { entry in
        """
        {"artistName":\(quoted(entry.artist)),"id":"\(entry.id)","name":\(quoted(entry.name)),\
        "releaseDate":"2026-10-02","kind":"songs","artistId":"\(entry.id * 3)",\
        "contentAdvisoryRating":"Explict",\
        "artworkUrl100":"\(base.absoluteString)/art/\(entry.id)/100x100bb.jpg",\
        "genres":[{"genreId":"\(entry.genre.id)","name":\(quoted(entry.genre.name)),\
        "url":"https://itunes.apple.com/us/genre/id\(entry.genre.id)"},\
        {"genreId":"34","name":"Music","url":"https://itunes.apple.com/us/genre/id34"}],\
        "url":"https://music.apple.com/us/album/x/\(entry.id)?i=\(entry.id)"}
        """
      }
      let body = """
        {"feed":{"title":"Top Songs","id":"\(base.absoluteString)\(request.path)",\
        "author":{"name":"Apple","url":"https://www.apple.com/"},\
        "links":[{"self":"\(base.absoluteString)\(request.path)"}],\
        "copyright":"Copyright © 2026 Apple Inc. All rights reserved.","country":"\(parts[2])",\
        "icon":"https://www.apple.com/favicon.ico","updated":"Tue, 24 Nov 2026 22:00:00 +0000",\
        "results":[\(results.joined(separator: ","))]}}
        """
      return .respond(
        status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }
    if request.path == "/lookup" {
      let query = ITunesServer.query(request.target)
      let ids = Set((query["id"] ?? "").split(separator: ",").compactMap { Int($0) })
      let all = charts.values.flatMap { $0 }
      var seen = Set<Int>()
      let found = all.filter { ids.contains($0.id) && seen.insert($0.id).inserted }
      return ITunesServer.answer(
        found.map { entry in
          var fields = [
            #""wrapperType":"track""#, #""kind":"song""#, "\"trackId\":\(entry.id)",
            "\"artistName\":\(quoted(entry.artist))", "\"trackName\":\(quoted(entry.name))",
            "\"primaryGenreName\":\(quoted(entry.genre.name))",
          ]
          if let path = entry.previewPath {
            fields.append("\"previewUrl\":\"\(base.absoluteString)\(path)\"")
          }
          return "{" + fields.joined(separator: ",") + "}"
        })
    }
    return nil
  }

  private func quoted(_ text: String) -> String {
    let data = try? JSONSerialization.data(withJSONObject: [text])
    let array = data.flatMap { String(data: $0, encoding: .utf8) } ?? "[\"\"]"
    return String(array.dropFirst().dropLast())
  }
}
