import Foundation
import RiffleCore
import RiffleTestSupport
import Testing

@testable import RiffleAPI

/// What one stream handed back: the bytes, and how it ended.
private final class StreamEnd: @unchecked Sendable {
  private let done = DispatchSemaphore(value: 0)
  private let lock = NSLock()
  private var _error: HTTPError?
  private var _data = Data()

  var handlers: StreamHandlers {
    StreamHandlers(
      onResponse: { _, _, _ in },
      onData: { chunk in
        self.lock.withLock { self._data.append(chunk) }
        return true
      },
      onComplete: { error in
        self.lock.withLock { self._error = error }
        self.done.signal()
      })
  }

  /// How the stream ended (nil: whole), or a timeout.
  func wait() throws -> (error: HTTPError?, data: Data) {
    guard done.wait(timeout: .now() + 10) == .success else {
      throw LoopbackHTTPServerError("the stream did not end")
    }
    return lock.withLock { (_error, _data) }
  }
}

/// Whether the test server's credentials have stopped working.
final class Expired: @unchecked Sendable {
  private let lock = NSLock()
  private var _value = false
  var value: Bool {
    get { lock.withLock { _value } }
    set { lock.withLock { _value = newValue } }
  }
}

/// Waits for a completion-style call.
private func wait<T: Sendable>(_ start: (@escaping @Sendable (T) -> Void) -> Void) -> T? {
  let done = DispatchSemaphore(value: 0)
  let box = Held<T>()
  start {
    box.value = $0
    done.signal()
  }
  guard done.wait(timeout: .now() + 10) == .success else { return nil }
  return box.value
}

private final class Held<T>: @unchecked Sendable {
  var value: T?
}

@Suite("Subsonic streams: fetched signed, with the server's format and bit rate", .serialized)
struct SubsonicStreamTests {
  /// A server of API 1.16 that checks the token, serves a "song" with Range support, and
  /// answers 500 with the request it got echoed in its body for song "bad".
  static func server(song: Data, expired: Expired = Expired()) throws -> LoopbackHTTPServer {
    try LoopbackHTTPServer { request in
      let query = request.formQuery
      let ok = Data(#"{"subsonic-response":{"status":"ok","version":"1.16.1"}}"#.utf8)
      guard let salt = query["s"], query["t"] == SubsonicAuth.token(password: "sesame", salt: salt)
      else { return .respond(status: 200, body: ok) }
      if expired.value {
        // Every signed request refused, with status 200, as Supysonic answers.
        return .respond(
          status: 200, headers: ["Content-Type": "application/json"],
          body: Data(
            #"{"subsonic-response":{"status":"failed","version":"1.16.1","error":{"code":40,"message":"Wrong username or password"}}}"#
              .utf8))
      }
      if request.path == "/rest/stream" {
        switch query["id"] {
        case "bad": return .respond(status: 500, body: Data("failed: \(request.target)".utf8))
        case "expired":
          // As Supysonic answers a stream whose credentials stopped working: 200, an envelope.
          return .respond(
            status: 200, headers: ["Content-Type": "application/json"],
            body: Data(
              #"{"subsonic-response":{"status":"failed","version":"1.16.1","error":{"code":40,"message":"Wrong username or password"}}}"#
                .utf8))
        case "login":
          return .respond(
            status: 200, headers: ["Content-Type": "text/html; charset=utf-8"],
            body: Data("<!DOCTYPE html><html><form>Sign in</form></html>".utf8))
        default: break
        }
        return .file(song, contentType: "audio/mpeg")
      }
      return .respond(status: 200, body: ok)
    }
  }

  @Test(
    "format and max_bit_rate reach stream at fetch time, a seek's Range too; no credential in what an error says"
  )
  func formatAndBitRate() throws {
    let song = Data((0..<50_000).map { UInt8($0 % 251) })
    let server = try Self.server(song: song)
    defer { server.stop() }
    SubsonicServers.shared.register([
      SubsonicServerSettings(
        name: "tuned", url: server.baseURL, user: "joe", credential: .password("sesame"),
        format: "opus", maxBitRate: 96),
      SubsonicServerSettings(
        name: "plain", url: server.baseURL, user: "joe", credential: .password("sesame")),
    ])
    defer { SubsonicServers.shared.register([]) }

    // From an offset, as a seek past the download asks.
    let tuned = StreamEnd()
    HTTPClient.shared.stream(
      HTTPRequest(url: URL(string: "subsonic://tuned/stream?id=s1")!, offset: 20_000),
      handlers: tuned.handlers)
    let whole = try tuned.wait()
    #expect(whole.error == nil)
    #expect(whole.data == song.suffix(from: 20_000))
    let streamed = try #require(server.requests.last { $0.path == "/rest/stream" })
    let query = streamed.formQuery
    #expect(query["id"] == "s1" && query["format"] == "opus" && query["maxBitRate"] == "96")
    #expect(query["u"] == "joe" && query["p"] == nil)
    #expect(streamed.headers["range"] == "bytes=20000-")

    // A server without the settings leaves them to the server.
    let plain = StreamEnd()
    HTTPClient.shared.stream(
      HTTPRequest(url: URL(string: "subsonic://plain/stream?id=s2")!), handlers: plain.handlers)
    #expect(try plain.wait().error == nil)
    let left = try #require(server.requests.last { $0.path == "/rest/stream" }).formQuery
    #expect(left["id"] == "s2" && left["format"] == nil && left["maxBitRate"] == nil)

    // A failure (the server echoes the signed request in its body) says nothing secret.
    let bad = StreamEnd()
    HTTPClient.shared.stream(
      HTTPRequest(url: URL(string: "subsonic://tuned/stream?id=bad")!), handlers: bad.handlers)
    let failed = try #require(try bad.wait().error)
    for said in [failed.userMessage, String(describing: failed)] {
      for secret in ["sesame", "t=", "s=", "u=joe"] {
        #expect(!said.contains(secret), "\(secret) in \(said)")
      }
    }
  }

  @Test("credentials that stopped working, or a sign-in page, in place of a song: said, not played")
  func refusalsInPlaceOfASong() throws {
    let server = try Self.server(song: Data(count: 1_000))
    defer { server.stop() }
    SubsonicServers.shared.register([
      SubsonicServerSettings(
        name: "home", url: server.baseURL, user: "joe", credential: .password("sesame"))
    ])
    defer { SubsonicServers.shared.register([]) }
    for (id, said) in [
      ("expired", "home: wrong user or password"),
      ("login", "something else than the Subsonic API"),
    ] {
      let end = StreamEnd()
      HTTPClient.shared.stream(
        HTTPRequest(url: URL(string: "subsonic://home/stream?id=\(id)")!), handlers: end.handlers)
      let (error, data) = try end.wait()
      #expect(data.isEmpty, "\(id): no byte of it played")
      let message = error?.userMessage ?? ""
      #expect(message.contains(said), "\(id): \(message)")
    }
    // A song is still a song.
    let song = StreamEnd()
    HTTPClient.shared.stream(
      HTTPRequest(url: URL(string: "subsonic://home/stream?id=s1")!), handlers: song.handlers)
    let whole = try song.wait()
    #expect(whole.error == nil && whole.data.count == 1_000)
  }

  @Test("credentials that stop working mid-song: a seek's Range request says so")
  func expiredMidSong() throws {
    let expired = Expired()
    let server = try Self.server(song: Data(count: 1_000), expired: expired)
    defer { server.stop() }
    SubsonicServers.shared.register([
      SubsonicServerSettings(
        name: "home", url: server.baseURL, user: "joe", credential: .password("sesame"))
    ])
    defer { SubsonicServers.shared.register([]) }
    let first = StreamEnd()
    HTTPClient.shared.stream(
      HTTPRequest(url: URL(string: "subsonic://home/stream?id=s1")!), handlers: first.handlers)
    #expect(try first.wait().error == nil)
    expired.value = true
    // Answered 200 to a Range request, curl stops before the body: a signed ping explains.
    let seek = StreamEnd()
    HTTPClient.shared.stream(
      HTTPRequest(url: URL(string: "subsonic://home/stream?id=s1")!, offset: 500),
      handlers: seek.handlers)
    let (error, data) = try seek.wait()
    #expect(data.isEmpty)
    #expect(
      error?.userMessage.contains("home: wrong user or password") == true,
      "\(String(describing: error))")
    // A page asked for now says the same; what was loaded before is the reducer's to keep.
    let client = try #require(SubsonicServers.shared.client(named: "home"))
    let page = wait { done in client.page(.albums, cursor: .offset(20, limit: 20)) { done($0) } }
    guard case .failure(let failure)? = page else {
      Issue.record("a page with stale credentials: \(String(describing: page))")
      return
    }
    #expect(failure.userMessage.contains("home: wrong user or password"))
    #expect(!failure.failure.isTransient, "not retried in a loop")
  }

  @Test("a server config.toml no longer names: said so, with what to do")
  func unknownServer() throws {
    let end = StreamEnd()
    HTTPClient.shared.stream(
      HTTPRequest(url: URL(string: "subsonic://gone/stream?id=s1")!), handlers: end.handlers)
    let error = try #require(try end.wait().error)
    #expect(error == .noServer("gone"))
    #expect(
      error.userMessage.contains("No server named \u{201C}gone\u{201D}")
        && error.userMessage.contains("riffle server add"), "\(error.userMessage)")
  }
}
