import Foundation
import RiffleCore
import RiffleTestSupport
import Testing

@testable import RiffleAPI

/// A Subsonic answer's JSON text.
private func answer(_ body: String, version: String = "1.16.1", open: Bool = false) -> Data {
  let fields = body.isEmpty ? "" : "," + body
  return Data(
    #"{"subsonic-response":{"status":"ok","version":"\#(version)","openSubsonic":\#(open)\#(fields)}}"#
      .utf8)
}

private func failure(_ code: Int, _ message: String = "") -> Data {
  Data(
    #"{"subsonic-response":{"status":"failed","version":"1.16.1","error":{"code":\#(code),"message":"\#(message)"}}}"#
      .utf8)
}

/// Waits for a completion-style call.
private func wait<T: Sendable>(_ start: (@escaping @Sendable (T) -> Void) -> Void) -> T? {
  let done = DispatchSemaphore(value: 0)
  let box = Box<T>()
  start {
    box.value = $0
    done.signal()
  }
  guard done.wait(timeout: .now() + 10) == .success else { return nil }
  return box.value
}

private final class Box<T>: @unchecked Sendable {
  var value: T?
}

@Suite("Subsonic client: answers, errors, signing")
struct SubsonicClientTests {
  @Test("every documented error code names what to change")
  func errorCodes() {
    func message(_ code: Int) -> String {
      do {
        _ = try SubsonicEnvelope.open(failure(code, "said"), server: "home")
        return ""
      } catch {
        return error.userMessage
      }
    }
    #expect(message(10).contains("a required parameter is missing"))
    #expect(message(20).contains("wants a newer client"))
    #expect(message(30).contains("update the server"))
    #expect(message(40).contains("wrong user or password") && message(40).contains("config.toml"))
    #expect(message(41).contains("allow_plain_password = true"))
    #expect(message(42).contains("password or api_key"))
    #expect(message(43).contains("either password or api_key"))
    #expect(message(44).contains("set a new api_key"))
    #expect(message(50).contains("may not do that"))
    #expect(message(70).contains("not found"))
    #expect(message(99).contains("error 99"))
    for code in [10, 20, 30, 40, 41, 42, 43, 44, 50, 70] {
      #expect(message(code).hasPrefix("home"), "\(code): names the server")
    }
  }

  @Test("a sign-in page answered with 200, and JSON that is not the API, are not the API")
  func notTheAPI() {
    let page = Data("<!DOCTYPE html><html><body><form>Sign in</form></body></html>".utf8)
    #expect(throws: SubsonicError.notTheAPI(server: "home")) {
      try SubsonicEnvelope.open(page, server: "home")
    }
    #expect(throws: SubsonicError.notTheAPI(server: "home")) {
      try SubsonicEnvelope.open(Data(#"{"ok":true}"#.utf8), server: "home")
    }
    #expect(SubsonicClient.versionInfo(page) == nil)
    // A refusal still says the version.
    #expect(SubsonicClient.versionInfo(failure(10))?.version == SubsonicVersion("1.16.1"))
  }

  @Test("songs: ids, credential-free addresses, stars as likes, text sanitized, videos left out")
  func songs() throws {
    let response = try SubsonicEnvelope.open(
      answer(
        #""album":{"song":[{"id":"s1","title":"Dawn\u001b[31m","artist":"Mira Sol","album":"Light","albumId":"a1","coverArt":"c1","duration":201,"starred":"2026-01-01T00:00:00Z"},{"id":"s2","title":"Clip","isVideo":true},{"title":"no id"},{"id":"s3","title":"Plain"}]}"#
      ), server: "home")
    let songs = SubsonicSongs(server: "home").songs(response["album"]!["song"]!.array!)
    #expect(songs.map(\.id) == ["subsonic:home:s1", "subsonic:home:s3"])
    let first = songs[0]
    #expect(first.title.hasPrefix("Dawn") && !first.title.contains("\u{1B}"))
    #expect(first.displayName == "Mira Sol")
    #expect(first.album == "Light")
    #expect(first.albumID == "a1")
    #expect(first.isLiked && first.likeCount == 1)
    #expect(!songs[1].isLiked)
    #expect(first.likeDestination == .server)
    #expect(first.duration == 201)
    #expect(first.audioURL.absoluteString == "subsonic://home/stream?id=s1")
    #expect(first.imageURL?.absoluteString == "subsonic://home/getCoverArt?id=c1&size=600")
    #expect(!first.isAlbumPage)
    #expect(SubsonicSongs.parse(songID: first.id)! == ("home", "s1"))
    #expect(SubsonicSongs.parse(songID: "subsonic:home:a:b:c")! == ("home", "a:b:c"))
    #expect(SubsonicSongs.parse(songID: "podcast:x") == nil)
  }

  @Test("albums: one page each, opened rather than played")
  func albums() throws {
    let response = try SubsonicEnvelope.open(
      answer(
        #""albumList2":{"album":[{"id":"a1","name":"Light","artist":"Mira Sol","coverArt":"c1","songCount":2,"year":2024},{"name":"no id"}]}"#
      ), server: "home")
    let pages = SubsonicSongs(server: "home").albumPages(
      response["albumList2"]!["album"]!.array!)
    #expect(pages.count == 1)
    #expect(pages[0].isAlbumPage && pages[0].albumID == "a1")
    #expect(pages[0].title == "Light" && pages[0].displayName == "Mira Sol")
    #expect(pages[0].album == "2 songs \u{00B7} 2024")
  }

  @Test("OpenSubsonic lyrics: synced with the offset, else plain, else none")
  func lyrics() throws {
    let synced = try SubsonicEnvelope.open(
      answer(
        #""lyricsList":{"structuredLyrics":[{"synced":false,"line":[{"value":"plain"}]},{"synced":true,"offset":-500,"line":[{"start":1000,"value":"one"},{"start":2500,"value":"two"}]}]}"#
      ), server: "home")
    #expect(
      SubsonicSongs.structuredLyrics(synced)
        == .synced(
          SyncedLyrics([LyricLine(time: 1.5, text: "one"), LyricLine(time: 3, text: "two")])))
    let plain = try SubsonicEnvelope.open(
      answer(#""lyricsList":{"structuredLyrics":[{"synced":false,"line":[{"value":"la"}]}]}"#),
      server: "home")
    #expect(SubsonicSongs.structuredLyrics(plain) == .plain(["la"]))
    #expect(
      SubsonicSongs.structuredLyrics(try SubsonicEnvelope.open(answer(""), server: "home"))
        == .notFound)
  }

  @Test("request addresses: under the base path, every value escaped whole")
  func addresses() {
    let client = SubsonicClient(
      SubsonicServerSettings(
        name: "home", url: URL(string: "https://music.example/navidrome/")!, user: "a+b",
        credential: .password("x")))
    let url = client.url(
      "search3", version: SubsonicVersion("1.12.0")!,
      signed: [URLQueryItem(name: "query", value: "rock & roll+1")])
    #expect(
      url.absoluteString
        == "https://music.example/navidrome/rest/search3?query=rock%20%26%20roll%2B1&v=1.12.0&c=riffle&f=json"
    )
    // Never a newer version than the server's, nor than Riffle's.
    #expect(
      client.url("ping", version: SubsonicVersion("1.99.0")!, signed: []).absoluteString
        .contains("v=1.16.1"))
  }

  @Test("against a server of API 1.16: salted tokens, never the password; failures named")
  func tokenServer() throws {
    let server = try LoopbackHTTPServer { request in
      let query = request.formQuery
      // Unsigned: only the version (as every answer has).
      guard let user = query["u"], let token = query["t"], let salt = query["s"] else {
        return .respond(status: 200, body: failure(10))
      }
      guard query["p"] == nil, user == "joe",
        token == SubsonicAuth.token(password: "sesame", salt: salt)
      else { return .respond(status: 200, body: failure(40)) }
      switch request.path {
      case "/rest/ping": return .respond(status: 200, body: answer(""))
      case "/rest/getAlbumList2":
        return .respond(
          status: 200,
          body: answer(
            #""albumList2":{"album":[{"id":"a1","name":"One"},{"id":"a2","name":"Two"}]}"#))
      case "/rest/star": return .respond(status: 200, body: failure(70, "Unknown song"))
      default: return .respond(status: 200, body: Data("<html>login</html>".utf8))
      }
    }
    defer { server.stop() }
    let settings = SubsonicServerSettings(
      name: "home", url: server.baseURL, user: "joe", credential: .password("sesame"),
      format: "opus", maxBitRate: 128)
    let client = SubsonicClient(settings)
    // A full page of 2 albums when the page size is 20: the end.
    let page = wait { done in client.page(.albums, cursor: nil) { done($0) } }
    let albums = try #require(try page?.get())
    #expect(albums.songs.map(\.title) == ["One", "Two"])
    #expect(albums.next == nil)
    let asked = server.requests.first { $0.path == "/rest/getAlbumList2" }?.formQuery ?? [:]
    #expect(asked["type"] == "newest" && asked["size"] == "20" && asked["offset"] == "0")
    #expect(asked["f"] == "json" && asked["v"] == "1.16.1")
    for request in server.requests { #expect(!request.target.contains("sesame")) }
    // A stream's address: signed with a fresh salt, the format and bit rate set.
    let signed = wait { done in
      client.resolve(URL(string: "subsonic://home/stream?id=s1")!) { done($0) }
    }
    let stream = try #require(try signed?.get())
    let items = Dictionary(
      uniqueKeysWithValues: (URLComponents(url: stream, resolvingAgainstBaseURL: false)?
        .queryItems ?? []).map { ($0.name, $0.value ?? "") })
    #expect(items["id"] == "s1" && items["format"] == "opus" && items["maxBitRate"] == "128")
    #expect(items["t"] == SubsonicAuth.token(password: "sesame", salt: items["s"] ?? ""))
    // A refusal names itself; a page instead of the API says so.
    let star = wait { done in client.star("nope", true) { done($0) } }
    #expect(star??.userMessage.contains("home: not found") == true)
    let other = wait { done in client.call("getNowPlaying") { done($0) } }
    if case .failure(let error)? = other {
      #expect(error == .api(.notTheAPI(server: "home")))
    } else {
      Issue.record("a page is not the API: \(String(describing: other))")
    }
  }

  @Test("albums page lazily: 20 at a time from the offset, on while pages are full")
  func albumPaging() throws {
    let server = try LoopbackHTTPServer { request in
      guard request.formQuery["t"] != nil else { return .respond(status: 200, body: failure(10)) }
      guard request.path == "/rest/getAlbumList2" else {
        return .respond(status: 200, body: answer(""))
      }
      // 10,000 albums: each page only the slice asked for.
      let offset = Int(request.formQuery["offset"] ?? "") ?? -1
      let size = Int(request.formQuery["size"] ?? "") ?? -1
      let ids = (offset..<min(offset + size, 10_000)).map { #"{"id":"a\#($0)","name":"A\#($0)"}"# }
      return .respond(
        status: 200,
        body: answer(#""albumList2":{"album":[\#(ids.joined(separator: ","))]}"#))
    }
    defer { server.stop() }
    let client = SubsonicClient(
      SubsonicServerSettings(
        name: "home", url: server.baseURL, user: "joe", credential: .password("sesame")))
    let first = try #require(
      try wait { done in client.page(.albums, cursor: nil) { done($0) } }?.get())
    #expect(first.songs.count == 20 && first.songs.first?.title == "A0")
    #expect(first.next == .offset(20, limit: 20))
    let last = try #require(
      try wait { done in client.page(.albums, cursor: .offset(9_990, limit: 20)) { done($0) } }?
        .get())
    #expect(last.songs.count == 10 && last.next == nil)
    let asked = server.requests.filter { $0.path == "/rest/getAlbumList2" }.map {
      $0.formQuery["offset"] ?? ""
    }
    #expect(asked == ["0", "9990"])
  }

  @Test("a wrong password is found by the first signed ping")
  func wrongPassword() throws {
    let server = try LoopbackHTTPServer { request in
      .respond(status: 200, body: request.formQuery["t"] == nil ? failure(10) : failure(40))
    }
    defer { server.stop() }
    let client = SubsonicClient(
      SubsonicServerSettings(
        name: "home", url: server.baseURL, user: "joe", credential: .password("wrong")))
    let result = wait { done in client.page(.albums, cursor: nil) { done($0) } }
    guard case .failure(let error)? = result else {
      Issue.record("no failure: \(String(describing: result))")
      return
    }
    #expect(error.userMessage.contains("wrong user or password"))
    #expect(!error.isTransient)
  }

  @Test("an http server older than 1.13 on another host: no password sent, the setting named")
  func tooOldOverHTTP() {
    let client = SubsonicClient(
      SubsonicServerSettings(
        name: "old", url: URL(string: "http://music.lan:4040")!, user: "joe",
        credential: .password("sesame")))
    #expect(throws: SubsonicError.tooOldForTokens(server: "old", version: "1.12.0")) {
      try client.signedURL("ping", [], SubsonicAuth.ServerInfo(version: SubsonicVersion("1.12.0")!))
    }
  }
}
