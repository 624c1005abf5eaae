import Foundation
import RiffleCore
import RiffleTestSupport
import Testing

@testable import RiffleAPI

/// LRCLIB's answers, in its real field names and types.
enum LRCLIBFixture {
  static let synced = """
    {"id":3396226,"trackName":"I Want to Live","artistName":"Borislav Slavov",\
    "albumName":"Baldur's Gate 3 (Original Game Soundtrack)","duration":233,"instrumental":false,\
    "plainLyrics":"I feel your breath upon my neck\\nA soft caress as cold as death",\
    "syncedLyrics":"[00:17.12] I feel your breath upon my neck\\n[00:20.41] A soft caress as cold as death\\n[00:23.00] "}
    """
  static let plainOnly = """
    {"id":12,"trackName":"Paper Lanterns","artistName":"Oskar Vale","albumName":null,\
    "duration":35.0,"instrumental":false,"plainLyrics":"Paper lanterns\\n\\nfloat away",\
    "syncedLyrics":null}
    """
  static let instrumental = """
    {"id":13,"trackName":"Slow Orbit","artistName":"Juno Reyes","albumName":"Orbit",\
    "duration":242,"instrumental":true,"plainLyrics":null,"syncedLyrics":null}
    """
  static let notFound =
    #"{"code":404,"name":"TrackNotFound","message":"Failed to find specified track"}"#

  static let song = Song(
    id: "s1", title: "I Want to Live", displayName: "Borislav Slavov", handle: "",
    audioURL: URL(string: "https://cdn.example.com/s1.mp3")!, duration: 233.4,
    album: "Baldur's Gate 3 (Original Game Soundtrack)")
}

/// Loads through a source and waits for the answer (the completion runs on another thread).
func loadLyrics(_ source: LyricsSource, _ song: Song) -> Result<Lyrics, LyricsLoadError>? {
  let done = DispatchSemaphore(value: 0)
  let box = LyricsResultBox()
  source.load(song) { result in
    box.set(result)
    done.signal()
  }
  guard done.wait(timeout: .now() + 20) == .success else { return nil }
  return box.value
}

final class LyricsResultBox: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Result<Lyrics, LyricsLoadError>?
  var value: Result<Lyrics, LyricsLoadError>? { lock.withLock { stored } }
  func set(_ value: Result<Lyrics, LyricsLoadError>) { lock.withLock { stored = value } }
}

@Suite("LRCLIB: decoding its answers")
struct LyricsDecodingTests {
  @Test("A record with synced lyrics gives the timed lines; the empty last line is a pause")
  func synced() throws {
    let lyrics = try LyricsSource.decode(Data(LRCLIBFixture.synced.utf8))
    guard case .synced(let synced) = lyrics else {
      Issue.record("expected synced lyrics, got \(lyrics)")
      return
    }
    #expect(synced.lines.map(\.time) == [17.12, 20.41, 23])
    #expect(
      synced.lines.map(\.text) == [
        "I feel your breath upon my neck", "A soft caress as cold as death", "",
      ])
  }

  @Test("syncedLyrics null with plainLyrics gives plain lines, blank verse breaks kept")
  func plainWhenSyncedIsNull() throws {
    #expect(
      try LyricsSource.decode(Data(LRCLIBFixture.plainOnly.utf8))
        == .plain(["Paper lanterns", "", "float away"]))
  }

  @Test("instrumental true gives .instrumental, whatever the lyrics fields hold")
  func instrumental() throws {
    #expect(try LyricsSource.decode(Data(LRCLIBFixture.instrumental.utf8)) == .instrumental)
  }

  @Test("The 404 body is 'not found'; so is a record with no words at all")
  func notFound() throws {
    #expect(try LyricsSource.decode(Data(LRCLIBFixture.notFound.utf8)) == .notFound)
    let empty =
      #"{"id":1,"trackName":"x","instrumental":false,"plainLyrics":"","syncedLyrics":null}"#
    #expect(try LyricsSource.decode(Data(empty.utf8)) == .notFound)
  }

  @Test("Synced text without a single readable time falls back to the plain lyrics")
  func brokenSyncedFallsBack() throws {
    let body = #"{"instrumental":false,"plainLyrics":"a\nb","syncedLyrics":"[xx:yy] a"}"#
    #expect(try LyricsSource.decode(Data(body.utf8)) == .plain(["a", "b"]))
  }

  @Test("Fields of unexpected types cost only themselves")
  func wrongTypes() throws {
    let body =
      #"{"id":"7","duration":"233","instrumental":"no","plainLyrics":"words","syncedLyrics":5}"#
    #expect(try LyricsSource.decode(Data(body.utf8)) == .plain(["words"]))
  }

  @Test("A body that is not JSON, or not an object, is an error that says so")
  func invalid() {
    #expect(throws: LyricsLoadError.invalid("The lyrics server's answer is not valid JSON")) {
      try LyricsSource.decode(Data("<html>".utf8))
    }
    #expect(throws: LyricsLoadError.invalid("The lyrics server's answer is not a lyrics record")) {
      try LyricsSource.decode(Data("[1,2]".utf8))
    }
  }
}

@Suite("LRCLIB: requests through the loopback server")
struct LyricsSourceTests {
  static func server(
    _ reply: @escaping @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply
  ) throws -> LoopbackHTTPServer {
    try LoopbackHTTPServer(handler: reply)
  }

  static func json(_ text: String, status: Int = 200, type: String = "application/json")
    -> LoopbackHTTPServer.Reply
  {
    .respond(status: status, headers: ["Content-Type": type], body: Data(text.utf8))
  }

  @Test("The query carries artist, title, album and whole seconds, read back exactly")
  func queryItems() throws {
    let server = try Self.server { _ in Self.json(LRCLIBFixture.synced) }
    defer { server.stop() }
    var song = LRCLIBFixture.song
    song.title = "1+1=2 & more #1? 100% / 夜明け"
    song.displayName = "AC/DC & \"Friends\""
    let source = LyricsSource(baseURL: server.url("/lrclib"), cache: nil)
    let result = try #require(loadLyrics(source, song))
    #expect((try? result.get()) != nil)
    let request = try #require(server.requests.first)
    #expect(request.method == "GET")
    #expect(request.path == "/lrclib/api/get")
    #expect(
      request.formQuery == [
        "artist_name": "AC/DC & \"Friends\"", "track_name": "1+1=2 & more #1? 100% / 夜明け",
        "album_name": "Baldur's Gate 3 (Original Game Soundtrack)", "duration": "233",
      ])
  }

  @Test("A song without album or length asks without them; one without a title asks nothing")
  func missingFields() throws {
    let server = try Self.server { _ in Self.json(LRCLIBFixture.plainOnly) }
    defer { server.stop() }
    var song = LRCLIBFixture.song
    song.album = nil
    song.duration = nil
    let source = LyricsSource(baseURL: server.url("/"), cache: nil)
    #expect(
      try #require(loadLyrics(source, song))
        == .success(.plain(["Paper lanterns", "", "float away"])))
    let request = try #require(server.requests.first)
    #expect(request.path == "/api/get")
    #expect(
      request.formQuery == [
        "artist_name": "Borislav Slavov", "track_name": "I Want to Live",
      ])

    song.title = "  "
    #expect(try #require(loadLyrics(source, song)) == .success(.notFound))
    #expect(server.requests.count == 1)
  }

  @Test("A preview asks with the whole recording's length and gets synced lyrics as plain text")
  func previewOfARecording() throws {
    let server = try Self.server { _ in Self.json(LRCLIBFixture.synced) }
    defer { server.stop() }
    var song = LRCLIBFixture.song
    song.duration = 30
    song.trackLength = 233.4
    let source = LyricsSource(baseURL: server.baseURL, cache: nil)
    let result = try #require(loadLyrics(source, song))
    #expect(
      result
        == .success(
          .plain(["I feel your breath upon my neck", "A soft caress as cold as death", ""])))
    #expect(server.requests.first?.formQuery["duration"] == "233")
  }

  @Test("The body is read whatever the content type says")
  func anyContentType() throws {
    let server = try Self.server { _ in
      Self.json(LRCLIBFixture.instrumental, type: "text/plain; charset=utf-8")
    }
    defer { server.stop() }
    let source = LyricsSource(baseURL: server.baseURL, cache: nil)
    #expect(try #require(loadLyrics(source, LRCLIBFixture.song)) == .success(.instrumental))
  }

  @Test("Any 404 from /api/get is 'no lyrics': the current body, the older one, an HTML page")
  func notFound() throws {
    let server = try Self.server { request in
      if request.path.hasPrefix("/lrclib/") {
        return Self.json(LRCLIBFixture.notFound, status: 404)
      }
      if request.path.hasPrefix("/older/") {
        return Self.json(
          #"{"statusCode":404,"error":"Not Found","message":"Failed to find specified track"}"#,
          status: 404)
      }
      return .respond(
        status: 404, headers: ["Content-Type": "text/html"], body: Data("<h1>no</h1>".utf8))
    }
    defer { server.stop() }
    for path in ["/lrclib", "/older", "/proxy"] {
      let source = LyricsSource(baseURL: server.url(path), cache: nil)
      #expect(
        try #require(loadLyrics(source, LRCLIBFixture.song)) == .success(.notFound), "\(path)")
    }
    #expect(server.requests.allSatisfy { $0.path.hasSuffix("/api/get") })
    // The older body read as a record (a 200 carrying it) is no lyrics too.
    #expect(
      try LyricsSource.decode(
        Data(
          #"{"statusCode":404,"error":"Not Found","message":"Failed to find specified track"}"#.utf8
        ))
        == .notFound)
  }

  @Test("No connection is a transient failure with the feed's message")
  func noConnection() throws {
    let port = try ClosedPort()
    let source = LyricsSource(baseURL: port.url(""), cache: nil)
    let result = try #require(loadLyrics(source, LRCLIBFixture.song))
    #expect(result == .failure(.http(.noConnection(host: "127.0.0.1"))))
    guard case .failure(let error) = result else { return }
    #expect(error.isTransient)
    #expect(error.userMessage == "No connection to 127.0.0.1")
  }

  @Test("429 and 503 are transient; Retry-After gives the wait")
  func busyServer() throws {
    let server = try Self.server { request in
      request.target.contains("Busy")
        ? .respond(status: 429, headers: ["Retry-After": "12"], body: Data("slow down".utf8))
        : .respond(status: 503, body: Data("down".utf8))
    }
    defer { server.stop() }
    let source = LyricsSource(baseURL: server.baseURL, cache: nil)
    var song = LRCLIBFixture.song
    song.title = "Busy"
    guard case .failure(let limited)? = loadLyrics(source, song) else {
      Issue.record("expected a failure")
      return
    }
    #expect(limited.isTransient)
    #expect(limited.retryAfter == 12)
    song.title = "Down"
    guard case .failure(let down)? = loadLyrics(source, song) else {
      Issue.record("expected a failure")
      return
    }
    #expect(down.isTransient)
    #expect(down.retryAfter == nil)
    #expect(down.userMessage == "Server error 503 from 127.0.0.1")
  }

  @Test("Lyrics once fetched come from the disk cache, with the server gone")
  func cachedForOffline() throws {
    let folder = try TemporaryDirectory()
    let cache = DiskCache(folder: folder.file("lyrics"), capacity: 1 << 20)
    let server = try Self.server { _ in Self.json(LRCLIBFixture.synced) }
    let source = LyricsSource(baseURL: server.baseURL, cache: cache)
    let first = try #require(loadLyrics(source, LRCLIBFixture.song))
    guard case .success(.synced(let lines)) = first else {
      Issue.record("expected synced lyrics, got \(first)")
      return
    }
    server.stop()
    #expect(server.requests.count == 1)
    let again = try #require(loadLyrics(source, LRCLIBFixture.song))
    #expect(again == .success(.synced(lines)))
    // Another song is not in the cache: the failure shows the server is really gone.
    var other = LRCLIBFixture.song
    other.title = "Another"
    guard case .failure(let error)? = loadLyrics(source, other) else {
      Issue.record("expected no connection for a song not cached")
      return
    }
    #expect(error.isTransient)
  }

  @Test("'Not found' is not cached: the words may be added later")
  func notFoundNotCached() throws {
    let folder = try TemporaryDirectory()
    let cache = DiskCache(folder: folder.file("lyrics"), capacity: 1 << 20)
    let server = try Self.server { _ in Self.json(LRCLIBFixture.notFound, status: 404) }
    defer { server.stop() }
    let source = LyricsSource(baseURL: server.baseURL, cache: cache)
    #expect(try #require(loadLyrics(source, LRCLIBFixture.song)) == .success(.notFound))
    #expect(try #require(loadLyrics(source, LRCLIBFixture.song)) == .success(.notFound))
    #expect(server.requests.count == 2)
    #expect(cache.size == 0)
  }

  @Test("A .lrc beside a local audio file is used first, without asking the server")
  func localLRCFirst() throws {
    let folder = try TemporaryDirectory()
    try Data("[ti:x]\n[00:01.00]From the file\n[00:03.50]Second line\n".utf8)
      .write(to: folder.file("track one.lrc"))
    let server = try Self.server { _ in Self.json(LRCLIBFixture.synced) }
    defer { server.stop() }
    let source = LyricsSource(baseURL: server.baseURL, cache: nil)
    var song = LRCLIBFixture.song
    song.audioURL = folder.file("track one.mp3")
    let result = try #require(loadLyrics(source, song))
    #expect(
      result
        == .success(
          .synced(
            SyncedLyrics([
              LyricLine(time: 1, text: "From the file"), LyricLine(time: 3.5, text: "Second line"),
            ]))))
    #expect(server.requests.isEmpty)

    // Without a .lrc beside it, a local song is looked up like any other.
    song.audioURL = folder.file("track two.mp3")
    guard case .success(.synced)? = loadLyrics(source, song) else {
      Issue.record("expected LRCLIB's synced lyrics")
      return
    }
    #expect(server.requests.count == 1)
  }

  @Test("A .lrc with only text lines gives plain lyrics")
  func localPlainLRC() throws {
    let folder = try TemporaryDirectory()
    try Data("First\nSecond\n".utf8).write(to: folder.file("song.lrc"))
    #expect(
      LyricsSource.localLyrics(besideAudio: folder.file("song.m4a")) == .plain(["First", "Second"]))
    #expect(LyricsSource.localLyrics(besideAudio: folder.file("none.mp3")) == nil)
  }
}
