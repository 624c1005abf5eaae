import Foundation
import RiffleCore
import RiffleTestSupport
import Testing

@testable import RiffleAPI

/// The iTunes client against a loopback server answering in iTunes' own format.
@Suite("iTunes Search API client")
struct ITunesCatalogTests {
  /// Starts a server with `itunes`' answers and `extra` routes, and a catalog pointed at it.
  private func serve(
    _ itunes: ITunesServer,
    extra: @escaping @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply? = { _ in
      nil
    }
  ) throws -> (LoopbackHTTPServer, ITunesCatalog) {
    let box = BaseBox()
    let server = try LoopbackHTTPServer { request in
      extra(request) ?? itunes.reply(to: request, base: box.base!)
        ?? .respond(status: 404, body: Data())
    }
    box.base = server.baseURL
    return (server, ITunesCatalog(base: server.baseURL, client: HTTPClient()))
  }

  private func search(_ catalog: ITunesCatalog, _ term: String, offset: Int = 0) -> Result<
    ITunesBatch, CatalogError
  > {
    let done = Completion<Result<ITunesBatch, CatalogError>>()
    catalog.search(term: term, offset: offset, limit: 25) { done.set($0) }
    return done.wait()
  }

  private func tracks(_ count: Int, from first: Int = 1) -> [ITunesServer.Track] {
    (first..<(first + count)).map { ITunesServer.Track(trackId: $0, trackName: "Song \($0)") }
  }

  @Test("the search URL is built from components: every user character is encoded")
  func searchURL() {
    let catalog = ITunesCatalog(base: URL(string: "http://127.0.0.1:9/api/")!)
    let url = catalog.searchURL(term: "AC/DC & C++ = 100% rock?#x", offset: 50, limit: 25)
    #expect(url.path == "/api/search")
    let items = URLComponents(url: url, resolvingAgainstBaseURL: false)!.queryItems!
    #expect(items.map(\.name) == ["term", "media", "entity", "limit", "offset"])
    #expect(items.first?.value == "AC/DC & C++ = 100% rock?#x")
    #expect(!url.absoluteString.contains("C++"), "a bare + would read as a space")
    #expect(url.query?.contains("media=music&entity=song&limit=25&offset=50") == true)
  }

  @Test("a search sends the term, media, entity, limit and offset, and reads iTunes' format")
  func searchDecodes() throws {
    let itunes = ITunesServer(songsByTerm: [
      "neon tide": [
        .init(
          trackId: 101, artistName: "Mira Sol", trackName: "Neon Tide", collectionName: "Tides",
          artworkPath: "/art/101")
      ]
    ])
    let (server, catalog) = try serve(itunes)
    defer { server.stop() }
    let batch = try search(catalog, "neon tide").get()
    let target = try #require(server.requests.first?.target)
    let query = ITunesServer.query(target)
    #expect(
      query == [
        "term": "neon tide", "media": "music", "entity": "song", "limit": "25", "offset": "0",
      ])
    #expect(batch.received == 1)
    let song = try #require(batch.songs.first)
    #expect(song.id == "itunes:101")
    #expect(song.title == "Neon Tide")
    #expect(song.displayName == "Mira Sol")
    #expect(song.handle == "")
    #expect(song.album == "Tides")
    #expect(song.audioURL == server.url("/audio/preview.m4a"))
    #expect(song.imageURL == server.url("/art/101/600x600bb.jpg"), "artwork asked for at 600x600")
    #expect(song.trackLength == 215.733)
    #expect(song.duration == nil, "a preview's length comes from the decoder, not the track's")
  }

  @Test("offsets page through the results; a short batch says so by its count")
  func offsets() throws {
    let (server, catalog) = try serve(ITunesServer(songsByTerm: ["x": tracks(60)]))
    defer { server.stop() }
    #expect(try search(catalog, "x", offset: 0).get().songs.first?.title == "Song 1")
    #expect(try search(catalog, "x", offset: 25).get().songs.first?.title == "Song 26")
    let last = try search(catalog, "x", offset: 50).get()
    #expect(last.received == 10)
    #expect(last.songs.map(\.title).last == "Song 60")
    #expect(server.requests.map { ITunesServer.query($0.target)["offset"] } == ["0", "25", "50"])
  }

  @Test("no results is an empty batch, not an error")
  func empty() throws {
    let (server, catalog) = try serve(ITunesServer())
    defer { server.stop() }
    let batch = try search(catalog, "zzzz").get()
    #expect(batch.songs.isEmpty)
    #expect(batch.received == 0)
  }

  @Test("missing fields leave placeholders to the page; a result without a preview is skipped")
  func missingFields() throws {
    let itunes = ITunesServer(songsByTerm: [
      "x": [
        .init(trackId: 1, artistName: nil, trackName: nil, collectionName: nil),
        .init(trackId: 2, trackName: "No preview", previewPath: nil),
      ]
    ])
    let (server, catalog) = try serve(itunes)
    defer { server.stop() }
    let batch = try search(catalog, "x").get()
    #expect(batch.received == 2)
    #expect(batch.skipped == 1)
    let song = try #require(batch.songs.first)
    #expect(song.title == "")
    #expect(song.displayName == "")
    #expect(song.album == nil)
    #expect(song.imageURL == nil)
  }

  @Test(
    "a number where text goes reads as text, a list as missing; videos left out, non-http previews skipped"
  )
  func hostileFields() throws {
    let body = """
      {"resultCount":4,"results":[
      {"kind":"song","trackId":"7","trackName":42,"artistName":["x"],"previewUrl":"https://a/1.m4a"},
      {"kind":"music-video","trackId":8,"previewUrl":"https://a/2.m4v"},
      {"kind":"song","trackId":9,"previewUrl":"file:///etc/passwd"},
      "not an object"]}
      """
    let results = try ITunesDecoder.results(Data(body.utf8))
    let batch = ITunesDecoder.batch(results)
    #expect(batch.received == 4)
    #expect(batch.skipped == 2, "the file:// preview and the non-object")
    #expect(batch.songs.map(\.id) == ["itunes:7", "itunes:8"], "a music video plays its sound")
    #expect(batch.songs.first?.title == "42")
    #expect(batch.songs.first?.id == "itunes:7")
    #expect(batch.songs.first?.displayName == "")
  }

  @Test("an audiobook's title is its collectionName; a music video plays its preview's sound")
  func audiobooksAndVideos() throws {
    let body = """
      {"resultCount":2,"results":[
      {"wrapperType":"audiobook","collectionId":5,"artistName":"Ana Ruiz",
       "collectionName":"The Long Road","previewUrl":"https://a/book.m4a",
       "artworkUrl100":"https://a/100x100bb.jpg"},
      {"wrapperType":"track","kind":"music-video","trackId":6,"artistName":"Band",
       "trackName":"Clip","collectionName":"Album","previewUrl":"https://a/6.m4v"}]}
      """
    let batch = ITunesDecoder.batch(try ITunesDecoder.results(Data(body.utf8)))
    #expect(batch.songs.map(\.title) == ["The Long Road", "Clip"])
    #expect(batch.songs.first?.album == nil)
    #expect(batch.songs.first?.displayName == "Ana Ruiz")
    #expect(batch.songs.last?.audioURL.absoluteString == "https://a/6.m4v")
    #expect(batch.skipped == 0)
  }

  @Test(
    "podcasts and the same track twice are left out without counting as songs without a preview")
  func notSongsAndRepeats() throws {
    let body = """
      {"resultCount":5,"results":[
      {"kind":"song","trackId":1,"trackName":"One","previewUrl":"https://a/1.m4a"},
      {"kind":"music-video","trackId":2,"trackName":"One (video)","previewUrl":"https://a/2.m4v"},
      {"kind":"podcast","trackId":3,"trackName":"Talk","previewUrl":"https://a/3.mp3"},
      {"kind":"song","trackId":1,"trackName":"One","previewUrl":"https://a/1.m4a"},
      {"kind":"song","trackId":4,"trackName":"No preview"}]}
      """
    let batch = ITunesDecoder.batch(try ITunesDecoder.results(Data(body.utf8)))
    #expect(batch.received == 5, "every result moves the offset on")
    #expect(batch.songs.map(\.title) == ["One", "One (video)"])
    #expect(batch.skipped == 1, "only the song without a preview")
  }

  @Test("an answer that is not iTunes' says so")
  func notITunes() {
    #expect(throws: CatalogError.invalid("not JSON")) {
      try ITunesDecoder.results(Data("<html>".utf8))
    }
    #expect(throws: CatalogError.invalid("no results list")) {
      try ITunesDecoder.results(Data(#"{"errorMessage":"Invalid value(s) for key(s)"}"#.utf8))
    }
  }

  @Test("403 and 429 are rate limits: they may pass, with the wait the server gave")
  func rateLimited() throws {
    let (server, catalog) = try serve(ITunesServer()) { request in
      request.target.contains("term=slow")
        ? .respond(status: 429, headers: ["Retry-After": "7"], body: Data())
        : .respond(status: 403, body: Data("<html>Forbidden</html>".utf8))
    }
    defer { server.stop() }
    let forbidden = search(catalog, "x")
    guard case .failure(let error) = forbidden else {
      Issue.record("403 should fail")
      return
    }
    #expect(error == .rateLimited(host: "127.0.0.1", retryAfter: nil))
    #expect(error.isTransient)
    #expect(error.userMessage == "127.0.0.1 is limiting requests")
    #expect(error.retryAfter == CatalogError.rateLimitWait, "no Retry-After: 3 s, one call's share")
    guard case .failure(let slow) = search(catalog, "slow") else {
      Issue.record("429 should fail")
      return
    }
    #expect(slow.retryAfter == 7)
  }

  @Test("no connection is an error that may pass")
  func offline() throws {
    let (server, catalog) = try serve(ITunesServer())
    server.stop()
    guard case .failure(let error) = search(catalog, "x") else {
      Issue.record("a stopped server should fail")
      return
    }
    #expect(error.isTransient)
    #expect(error.userMessage.contains("127.0.0.1"))
  }

  @Test("an artist's top songs: found by name, looked up by id, repeats dropped and counted")
  func artistTopSongs() throws {
    let tracks: [ITunesServer.Track] = [
      .init(trackId: 1, artistId: 42, artistName: "Mira Sol", trackName: "Neon Tide"),
      .init(trackId: 2, artistId: 42, artistName: "Mira Sol", trackName: "Paper Lanterns"),
      .init(
        trackId: 3, artistId: 42, artistName: "Mira Sol", trackName: "Neon Tide (Remastered 2011)"
      ),
      .init(trackId: 4, artistId: 42, artistName: "Mira Sol", trackName: "Neon Tide - Live"),
      .init(trackId: 5, artistId: 42, artistName: "Mira Sol", trackName: "Slow Orbit [Deluxe]"),
      .init(trackId: 6, artistId: 42, artistName: "Mira Sol", trackName: "Slow Orbit"),
    ]
    let itunes = ITunesServer(artists: [
      41: (name: "Mira Solano", tracks: []), 42: (name: "Mira Sol", tracks: tracks),
    ])
    let (server, catalog) = try serve(itunes)
    defer { server.stop() }
    let done = Completion<Result<ArtistSongs, CatalogError>>()
    catalog.topSongs(artist: "mira sol", limit: 100) { done.set($0) }
    let artist = try done.wait().get()
    #expect(artist.name == "Mira Sol", "the exact name wins over the first found")
    #expect(artist.songs.map(\.title) == ["Neon Tide", "Paper Lanterns", "Slow Orbit [Deluxe]"])
    #expect(artist.hidden == 3)
    let queries = server.requests.map { ITunesServer.query($0.target) }
    #expect(queries.first?["entity"] == "musicArtist")
    #expect(queries.first?["attribute"] == "artistTerm")
    #expect(queries.last == ["id": "42", "entity": "song", "limit": "100"])
  }

  @Test("a name several artists answer to gives the list to choose from, with genres")
  func severalArtists() throws {
    func artist(_ id: Int, _ name: String, _ genre: String?) -> JSONValue {
      var members: [String: JSONValue] = [
        "wrapperType": .string("artist"), "artistId": .integer(Int64(id)),
        "artistName": .string(name),
      ]
      if let genre { members["primaryGenreName"] = .string(genre) }
      return .object(members)
    }
    let queen = [artist(1, "Queen", "Rock"), artist(2, "Queen Latifah", "Hip-Hop/Rap")]
    #expect(
      ITunesDecoder.artistMatch(queen, named: "queen")
        == .one(ArtistMatch(id: 1, name: "Queen", genre: "Rock")), "an exact, unique match")
    let nirvana = [
      artist(3, "Nirvana", "Rock"), artist(4, "Nirvana Tribute", nil), artist(5, "NIRVANA", "Pop"),
      artist(3, "Nirvana", "Rock"),
    ]
    #expect(
      ITunesDecoder.artistMatch(nirvana, named: "Nirvana")
        == .several([
          ArtistMatch(id: 3, name: "Nirvana", genre: "Rock"),
          ArtistMatch(id: 5, name: "NIRVANA", genre: "Pop"),
        ]), "two of the exact name: those two")
    #expect(
      ITunesDecoder.artistMatch(queen, named: "que")
        == .several([
          ArtistMatch(id: 1, name: "Queen", genre: "Rock"),
          ArtistMatch(id: 2, name: "Queen Latifah", genre: "Hip-Hop/Rap"),
        ]), "none exactly: every one found")
    #expect(
      ITunesDecoder.artistMatch([artist(6, "Björk", nil)], named: "bjork")
        == .one(ArtistMatch(id: 6, name: "Björk")))
    #expect(ITunesDecoder.artistMatch([], named: "x") == .none)

    let itunes = ITunesServer(artists: [
      8: (name: "Nirvana", tracks: []), 9: (name: "Nirvana", tracks: []),
    ])
    let (server, catalog) = try serve(itunes)
    defer { server.stop() }
    let done = Completion<Result<ArtistSongs, CatalogError>>()
    catalog.topSongs(artist: "Nirvana", limit: 100) { done.set($0) }
    let answer = try done.wait().get()
    #expect(answer.songs.isEmpty)
    #expect(answer.choices.map(\.id) == [8, 9])
    #expect(server.requests.count == 1, "no songs asked for before the user chooses")
  }

  @Test("an artist iTunes does not know has no songs, after one request")
  func unknownArtist() throws {
    let (server, catalog) = try serve(ITunesServer())
    defer { server.stop() }
    let done = Completion<Result<ArtistSongs, CatalogError>>()
    catalog.topSongs(artist: "Nobody", limit: 100) { done.set($0) }
    #expect(try done.wait().get().songs.isEmpty)
    #expect(server.requests.count == 1)
  }
}

/// The server's URL, known only once it runs.
private final class BaseBox: @unchecked Sendable {
  var base: URL?
}

/// Waits for a completion that runs on another thread.
private final class Completion<Value: Sendable>: @unchecked Sendable {
  private let semaphore = DispatchSemaphore(value: 0)
  private var value: Value?

  func set(_ value: Value) {
    self.value = value
    semaphore.signal()
  }

  func wait() -> Value {
    _ = semaphore.wait(timeout: .now() + 10)
    return value!
  }
}

@Suite("Search history file")
struct SearchHistoryTests {
  @Test("saved terms load back in order; a missing or broken file is an empty history")
  func roundTrip() throws {
    let folder = try TemporaryDirectory("riffle-history")
    let file = folder.url.appendingPathComponent("data/search-history.json")
    #expect(SearchHistory.load(from: file).isEmpty)
    try SearchHistory.save(["a", "b c"], to: file)
    #expect(SearchHistory.load(from: file) == ["a", "b c"])
    try Data("{broken".utf8).write(to: file)
    #expect(SearchHistory.load(from: file).isEmpty)
  }
}
