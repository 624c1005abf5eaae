import Foundation
import RiffleCore
import RiffleTestSupport
import Testing

@testable import RiffleAPI

// HTTPClient against a real HTTP server on 127.0.0.1 (LoopbackHTTPServer) through real libcurl.

/// Waits for one fetch; nil (and a recorded issue) when it never completes.
private func fetch(
  _ request: HTTPRequest, client: HTTPClient = .shared, timeout: TimeInterval = 20,
  sourceLocation: SourceLocation = #_sourceLocation
) -> Result<HTTPResponse, HTTPError>? {
  let box = Box<Result<HTTPResponse, HTTPError>>()
  client.fetch(request) { box.put($0) }
  let result = box.wait(timeout: timeout)
  if result == nil {
    Issue.record(
      "fetch of \(request.url) did not complete in \(timeout) s", sourceLocation: sourceLocation)
  }
  return result
}

private func fetch(
  _ url: URL, client: HTTPClient = .shared, sourceLocation: SourceLocation = #_sourceLocation
) -> Result<HTTPResponse, HTTPError>? {
  fetch(HTTPRequest(url: url), client: client, sourceLocation: sourceLocation)
}

/// The error of a failed result; nil for a success.
private func failure(_ result: Result<HTTPResponse, HTTPError>?) -> HTTPError? {
  if case .failure(let error) = result { return error }
  return nil
}

/// The response of a successful result; nil for a failure.
private func success(_ result: Result<HTTPResponse, HTTPError>?) -> HTTPResponse? {
  if case .success(let response) = result { return response }
  return nil
}

/// One value handed over from another thread.
private final class Box<Value: Sendable>: @unchecked Sendable {
  private let condition = NSCondition()
  private var value: Value?

  func put(_ value: Value) {
    condition.withLock {
      self.value = value
      condition.broadcast()
    }
  }

  func wait(timeout: TimeInterval) -> Value? {
    condition.withLock {
      let deadline = Date().addingTimeInterval(timeout)
      while value == nil {
        if !condition.wait(until: deadline) { break }
      }
      return value
    }
  }
}

/// Records what a stream's handlers saw.
private final class StreamLog: @unchecked Sendable {
  private let condition = NSCondition()
  private var _responses: [(status: Int, type: String?, length: Int64?)] = []
  private var _data = Data()
  private var _completions: [HTTPError?] = []
  private var _completedAt: Date?
  private let keepGoing: @Sendable (Data) -> Bool

  init(keepGoing: @escaping @Sendable (Data) -> Bool = { _ in true }) {
    self.keepGoing = keepGoing
  }

  var handlers: StreamHandlers {
    StreamHandlers(
      onResponse: { status, type, length in
        self.condition.withLock { self._responses.append((status, type, length)) }
      },
      onData: { chunk in
        let total = self.condition.withLock {
          self._data.append(chunk)
          self.condition.broadcast()
          return self._data
        }
        return self.keepGoing(total)
      },
      onComplete: { error in
        self.condition.withLock {
          self._completions.append(error)
          self._completedAt = Date()
          self.condition.broadcast()
        }
      })
  }

  var responses: [(status: Int, type: String?, length: Int64?)] {
    condition.withLock { _responses }
  }
  var data: Data { condition.withLock { _data } }
  var completions: [HTTPError?] { condition.withLock { _completions } }
  var completedAt: Date? { condition.withLock { _completedAt } }

  /// The completion's error (`.some(nil)` for success), or nil when none came in time.
  func waitForCompletion(timeout: TimeInterval) -> HTTPError?? {
    condition.withLock {
      let deadline = Date().addingTimeInterval(timeout)
      while _completions.isEmpty {
        if !condition.wait(until: deadline) { break }
      }
      return _completions.first
    }
  }
}

/// A port on 127.0.0.1 that refuses connections: bound (so no other test's server or client
/// can take it) but never listening.
final class ClosedPort {
  let port: UInt16
  private let fd: Int32

  init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard fd >= 0, bound else {
      close(fd)
      throw LoopbackHTTPServerError("cannot reserve a port: errno \(errno)")
    }
    self.fd = fd
    port = UInt16(bigEndian: address.sin_port)
  }

  func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

  deinit { close(fd) }
}

/// Waits until the server has received `count` requests.
private func waitForRequests(
  _ server: LoopbackHTTPServer, count: Int, timeout: TimeInterval = 10
) -> Bool {
  let deadline = Date().addingTimeInterval(timeout)
  while Date() < deadline {
    if server.requests.count >= count { return true }
    Thread.sleep(forTimeInterval: 0.005)
  }
  return false
}

/// `data` compressed by /bin/gzip.
private func gzip(_ data: Data) throws -> Data {
  let dir = try TemporaryDirectory("riffle-gzip")
  let input = dir.file("plain")
  try data.write(to: input)
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/bin/gzip")
  process.arguments = ["-c", "-n", "-9", input.path]
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  let output = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  #expect(process.terminationStatus == 0)
  return output
}

/// `data` as a zlib stream ("deflate" in HTTP) of stored (uncompressed) deflate blocks.
private func zlibStored(_ data: Data) -> Data {
  var out = Data([0x78, 0x01])
  let bytes = [UInt8](data)
  var offset = 0
  repeat {
    let count = min(65_535, bytes.count - offset)
    let last: UInt8 = offset + count == bytes.count ? 1 : 0
    out.append(last)
    out.append(contentsOf: [UInt8(count & 0xFF), UInt8(count >> 8)])
    out.append(contentsOf: [UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)])
    out.append(contentsOf: bytes[offset..<(offset + count)])
    offset += count
  } while offset < bytes.count
  var a: UInt32 = 1
  var b: UInt32 = 0
  for byte in bytes {
    a = (a + UInt32(byte)) % 65_521
    b = (b + a) % 65_521
  }
  let adler = (b << 16) | a
  out.append(contentsOf: [24, 16, 8, 0].map { UInt8((adler >> UInt32($0)) & 0xFF) })
  return out
}

/// Bytes 0, 1, 2, ... 255, 0, 1, ... of the given length: every offset is recognisable.
private func pattern(_ count: Int) -> Data {
  Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) })
}

@Suite("HTTPClient: requests and responses")
struct HTTPClientRequestTests {
  @Test("A GET returns the body and the content type the server sent")
  func getBodyAndContentType() throws {
    let body = Data(#"{"songs": []}"#.utf8)
    let server = try LoopbackHTTPServer(
      handler: LoopbackHTTPServer.routes([
        "/feed.json": .respond(
          status: 200, headers: ["Content-Type": "application/json; charset=utf-8"], body: body)
      ]))
    defer { server.stop() }
    let response = try #require(success(fetch(server.url("/feed.json?page=2"))))
    #expect(response.status == 200)
    #expect(response.contentType == "application/json; charset=utf-8")
    #expect(response.body == body)
    let request = try #require(server.requests.first)
    #expect(server.requests.count == 1)
    #expect(request.method == "GET")
    #expect(request.target == "/feed.json?page=2")
    #expect(request.body.isEmpty)
  }

  @Test("An empty 200 body is a success with no bytes")
  func emptyBody() throws {
    let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: Data()) }
    defer { server.stop() }
    let response = try #require(success(fetch(server.url("/empty"))))
    #expect(response.status == 200)
    #expect(response.body.isEmpty)
  }

  @Test("A 204 with no body is a success")
  func noContent() throws {
    let server = try LoopbackHTTPServer { _ in .respond(status: 204, body: Data()) }
    defer { server.stop() }
    let response = try #require(
      success(fetch(HTTPRequest(url: server.url("/x"), method: "DELETE"))))
    #expect(response.status == 204)
  }

  @Test(
    "POST, PUT and DELETE arrive with the method, body and headers as sent",
    arguments: ["POST", "PUT", "DELETE"])
  func methodsWithBodies(method: String) throws {
    let server = try LoopbackHTTPServer { request in
      .respond(
        status: 200, headers: ["Content-Type": "text/plain"],
        body: Data("got \(request.method)".utf8))
    }
    defer { server.stop() }
    // Binary on purpose: a zero byte and bytes that are not UTF-8.
    let payload = Data([0x7B, 0x00, 0xFF, 0xFE]) + Data(#""liked": true}"#.utf8)
    let request = HTTPRequest(
      url: server.url("/api/songs/abc/like"), method: method,
      headers: [
        "Content-Type": "application/json", "X-Riffle-Test": "42", "Accept": "application/json",
      ],
      body: payload)
    let response = try #require(success(fetch(request)))
    #expect(response.status == 200)
    #expect(response.body == Data("got \(method)".utf8))
    let received = try #require(server.requests.first)
    #expect(server.requests.count == 1)
    #expect(received.method == method)
    #expect(received.target == "/api/songs/abc/like")
    #expect(received.body == payload)
    #expect(received.headers["content-type"] == "application/json")
    #expect(received.headers["x-riffle-test"] == "42")
    #expect(received.headers["accept"] == "application/json")
    #expect(received.headers["content-length"] == "\(payload.count)")
  }

  @Test(
    "POST and DELETE with an empty body send no bytes and a zero length",
    arguments: ["POST", "DELETE"])
  func emptyBodies(method: String) throws {
    let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: Data("ok".utf8)) }
    defer { server.stop() }
    let response = try #require(
      success(fetch(HTTPRequest(url: server.url("/like"), method: method, body: Data()))))
    #expect(response.body == Data("ok".utf8))
    let received = try #require(server.requests.first)
    #expect(received.method == method)
    #expect(received.body.isEmpty)
    #expect(received.headers["content-length"] == "0")
  }

  @Test("The User-Agent is Riffle/<version> and gzip is accepted")
  func userAgent() throws {
    let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: Data("ok".utf8)) }
    defer { server.stop() }
    _ = try #require(success(fetch(server.url("/"))))
    let received = try #require(server.requests.first)
    #expect(received.headers["user-agent"] == "Riffle/\(RiffleVersion.string)")
    #expect(!RiffleVersion.string.isEmpty)
    let encodings = received.headers["accept-encoding"] ?? ""
    #expect(encodings.contains("gzip"))
    #expect(encodings.contains("deflate"))
  }

  @Test("A gzip-encoded body is decoded")
  func gzipDecoded() throws {
    let plain = Data(String(repeating: #"{"id": "song", "title": "Neon Tide"}, "#, count: 400).utf8)
    let compressed = try gzip(plain)
    #expect(compressed.count < plain.count / 4)
    #expect(compressed.prefix(2) == Data([0x1F, 0x8B]))
    let server = try LoopbackHTTPServer { _ in
      .respond(
        status: 200, headers: ["Content-Encoding": "gzip", "Content-Type": "application/json"],
        body: compressed)
    }
    defer { server.stop() }
    let response = try #require(success(fetch(server.url("/feed.json"))))
    #expect(response.body == plain)
    #expect(response.contentType == "application/json")
  }

  @Test("A deflate-encoded body is decoded")
  func deflateDecoded() throws {
    let plain = Data("Paper Lanterns by Oskar Vale. ".utf8) + pattern(70_000)
    let server = try LoopbackHTTPServer { _ in
      .respond(status: 200, headers: ["Content-Encoding": "deflate"], body: zlibStored(plain))
    }
    defer { server.stop() }
    let response = try #require(success(fetch(server.url("/deflate"))))
    #expect(response.body == plain)
  }

  @Test("Twenty fetches at once all succeed, and they run side by side")
  func concurrentFetches() throws {
    let server = try LoopbackHTTPServer { request in
      Thread.sleep(forTimeInterval: 0.3)
      return .respond(status: 200, body: Data("body of \(request.path)".utf8))
    }
    defer { server.stop() }
    let group = DispatchGroup()
    let results = ResultsByIndex()
    let started = Date()
    for index in 0..<20 {
      group.enter()
      HTTPClient.shared.fetch(HTTPRequest(url: server.url("/song/\(index)"))) { result in
        results.set(index, result)
        group.leave()
      }
    }
    #expect(group.wait(timeout: .now() + 20) == .success)
    let elapsed = Date().timeIntervalSince(started)
    for index in 0..<20 {
      let response = success(results.get(index))
      #expect(response?.status == 200, "fetch \(index): \(String(describing: results.get(index)))")
      #expect(response?.body == Data("body of /song/\(index)".utf8))
    }
    #expect(server.requests.count == 20)
    // One after another would take 20 × 0.3 s = 6 s.
    #expect(elapsed < 3, "20 fetches took \(elapsed) s")
  }
}

private final class ResultsByIndex: @unchecked Sendable {
  private let lock = NSLock()
  private var results: [Int: Result<HTTPResponse, HTTPError>] = [:]
  func set(_ index: Int, _ result: Result<HTTPResponse, HTTPError>) {
    lock.withLock { results[index] = result }
  }
  func get(_ index: Int) -> Result<HTTPResponse, HTTPError>? { lock.withLock { results[index] } }
}

@Suite("HTTPClient: error statuses")
struct HTTPClientStatusTests {
  @Test("A 404 is .status with the host and the start of the body")
  func notFound() throws {
    let server = try LoopbackHTTPServer(handler: LoopbackHTTPServer.routes([:]))
    defer { server.stop() }
    let error = failure(fetch(server.url("/missing.json")))
    #expect(error == .status(404, host: "127.0.0.1", excerpt: "not found", retryAfter: nil))
    #expect(error?.userMessage == "Not found (404) at 127.0.0.1")
    #expect(error?.isTransient == false)
  }

  @Test("A 500 is .status with the host and the start of the body")
  func serverError() throws {
    let server = try LoopbackHTTPServer { _ in
      .respond(status: 500, body: Data("database on fire".utf8))
    }
    defer { server.stop() }
    let error = failure(fetch(server.url("/api/songs")))
    #expect(error == .status(500, host: "127.0.0.1", excerpt: "database on fire", retryAfter: nil))
    #expect(error?.userMessage == "Server error 500 from 127.0.0.1")
    #expect(error?.isTransient == true)
  }

  @Test("A long error body is cut to a short excerpt")
  func longErrorBodyExcerpt() throws {
    let page = "<html>" + String(repeating: "Bad gateway. ", count: 2000) + "</html>"
    let server = try LoopbackHTTPServer { _ in .respond(status: 502, body: Data(page.utf8)) }
    defer { server.stop() }
    guard case .status(let code, let host, let excerpt, _) = failure(fetch(server.url("/"))) else {
      Issue.record("expected a status error")
      return
    }
    #expect(code == 502)
    #expect(host == "127.0.0.1")
    #expect(!excerpt.isEmpty)
    #expect(excerpt.utf8.count <= 512)
    #expect(page.hasPrefix(excerpt))
  }

  @Test("A 429 with Retry-After gives the seconds asked for")
  func tooManyRequests() throws {
    let server = try LoopbackHTTPServer { _ in
      .respond(status: 429, headers: ["Retry-After": "17"], body: Data("slow down".utf8))
    }
    defer { server.stop() }
    let error = failure(fetch(server.url("/api/songs")))
    #expect(error == .status(429, host: "127.0.0.1", excerpt: "slow down", retryAfter: 17))
    #expect(error?.isTransient == true)
    #expect(error?.userMessage == "Too many requests (429): 127.0.0.1 asks us to slow down")
  }

  @Test("A 503 without Retry-After has no retryAfter")
  func unavailableWithoutRetryAfter() throws {
    let server = try LoopbackHTTPServer { _ in .respond(status: 503, body: Data()) }
    defer { server.stop() }
    #expect(
      failure(fetch(server.url("/")))
        == .status(503, host: "127.0.0.1", excerpt: "", retryAfter: nil))
  }

  @Test("A stream that gets an error status ends with .status and passes no chunk on")
  func streamErrorStatus() throws {
    let server = try LoopbackHTTPServer { _ in
      .respond(status: 403, body: Data("members only".utf8))
    }
    defer { server.stop() }
    let log = StreamLog()
    HTTPClient.shared.stream(HTTPRequest(url: server.url("/song.mp3")), handlers: log.handlers)
    let completion = try #require(log.waitForCompletion(timeout: 10))
    #expect(completion == .status(403, host: "127.0.0.1", excerpt: "members only", retryAfter: nil))
    #expect(log.data.isEmpty)
    #expect(log.responses.isEmpty)
    #expect(log.completions.count == 1)
  }
}

@Suite("HTTPClient: redirects")
struct HTTPClientRedirectTests {
  @Test("A redirect is followed to the body")
  func redirectFollowed() throws {
    let server = try LoopbackHTTPServer(
      handler: LoopbackHTTPServer.routes([
        "/old": .redirect(location: "/new"),
        "/new": .respond(
          status: 200, headers: ["Content-Type": "text/plain"], body: Data("moved here".utf8)),
      ]))
    defer { server.stop() }
    let response = try #require(success(fetch(server.url("/old"))))
    #expect(response.status == 200)
    #expect(response.body == Data("moved here".utf8))
    #expect(server.requests.map(\.path) == ["/old", "/new"])
  }

  @Test("Five redirects in a row are followed")
  func fiveRedirects() throws {
    let server = try LoopbackHTTPServer { request in
      let step = Int(request.path.dropFirst("/hop/".count)) ?? 0
      return step == 0
        ? .respond(status: 200, body: Data("arrived".utf8))
        : .redirect(status: 301, location: "/hop/\(step - 1)")
    }
    defer { server.stop() }
    let response = try #require(success(fetch(server.url("/hop/5"))))
    #expect(response.body == Data("arrived".utf8))
    #expect(server.requests.count == 6)
  }

  @Test("A sixth redirect is refused with .tooManyRedirects")
  func sixRedirects() throws {
    let server = try LoopbackHTTPServer { request in
      let step = Int(request.path.dropFirst("/hop/".count)) ?? 0
      return step == 0
        ? .respond(status: 200, body: Data("arrived".utf8))
        : .redirect(location: "/hop/\(step - 1)")
    }
    defer { server.stop() }
    #expect(failure(fetch(server.url("/hop/6"))) == .tooManyRedirects(host: "127.0.0.1"))
    #expect(server.requests.count == 6)
  }

  @Test("A redirect loop ends with .tooManyRedirects")
  func redirectLoop() throws {
    let server = try LoopbackHTTPServer(
      handler: LoopbackHTTPServer.routes([
        "/a": .redirect(location: "/b"),
        "/b": .redirect(status: 307, location: "/a"),
      ]))
    defer { server.stop() }
    let error = failure(fetch(server.url("/a")))
    #expect(error == .tooManyRedirects(host: "127.0.0.1"))
    #expect(error?.userMessage == "Too many redirects from 127.0.0.1")
    #expect(error?.isTransient == false)
    #expect(server.requests.count <= 6)
  }

  @Test("A redirect to file:// is refused and the file is not read")
  func redirectToFileRefused() throws {
    let dir = try TemporaryDirectory()
    let secret = dir.file("secret.txt")
    try Data("private key material".utf8).write(to: secret)
    let server = try LoopbackHTTPServer { _ in .redirect(location: secret.absoluteString) }
    defer { server.stop() }
    let log = StreamLog()
    HTTPClient.shared.stream(HTTPRequest(url: server.url("/feed.json")), handlers: log.handlers)
    let completion = try #require(log.waitForCompletion(timeout: 10))
    let error = try #require(completion)
    #expect(error == .unsupportedURL("127.0.0.1"))
    #expect(error.isTransient == false)
    #expect(log.data.isEmpty)
    #expect(!log.responses.contains { $0.status == 200 })
  }
}

@Suite("HTTPClient: network faults")
struct HTTPClientFaultTests {
  @Test("A refused port is .noConnection")
  func refusedPort() throws {
    let port = try ClosedPort()
    let error = failure(fetch(port.url("/feed.json")))
    #expect(error == .noConnection(host: "127.0.0.1"))
    #expect(error?.isTransient == true)
    #expect(error?.userMessage == "No connection to 127.0.0.1")
  }

  @Test("A server that accepts and never answers times out after the stall timeout")
  func hangingServerTimesOut() throws {
    let server = try LoopbackHTTPServer { _ in .hang }
    defer { server.stop() }
    let client = HTTPClient(stallTimeout: 1)
    let started = Date()
    let error = failure(fetch(HTTPRequest(url: server.url("/feed.json")), client: client))
    let elapsed = Date().timeIntervalSince(started)
    #expect(error == .timeout(host: "127.0.0.1"))
    #expect(error?.userMessage == "127.0.0.1 is not answering (timed out)")
    #expect(elapsed >= 0.9, "timed out after \(elapsed) s")
    #expect(elapsed < 3.5, "timed out after \(elapsed) s")
  }

  @Test("A slow body that keeps coming is not cut by the stall timeout")
  func slowBodyIsNotAStall() throws {
    let body = pattern(6_000)
    let server = try LoopbackHTTPServer { _ in
      .throttled(body, contentType: "audio/mpeg", bytesPerSecond: 2_000)
    }
    defer { server.stop() }
    let client = HTTPClient(stallTimeout: 1)
    let response = try #require(
      success(fetch(HTTPRequest(url: server.url("/slow.mp3")), client: client)))
    #expect(response.body == body)
  }

  @Test("A body cut off before its Content-Length is .connectionLost")
  func cutOffBody() throws {
    let server = try LoopbackHTTPServer { _ in
      .cutOff(pattern(100_000), contentType: "application/json", after: 30_000)
    }
    defer { server.stop() }
    let error = failure(fetch(server.url("/feed.json")))
    #expect(error == .connectionLost(host: "127.0.0.1"))
    #expect(error?.isTransient == true)
    #expect(error?.userMessage == "Connection to 127.0.0.1 was cut off")
  }

  @Test("A stream reset mid-body passes the bytes it had, then ends with .connectionLost")
  func resetMidStream() throws {
    let body = pattern(200_000)
    let server = try LoopbackHTTPServer { _ in
      .reset(afterBytes: 50_000, of: body, contentType: "audio/mpeg")
    }
    defer { server.stop() }
    let log = StreamLog()
    HTTPClient.shared.stream(HTTPRequest(url: server.url("/song.mp3")), handlers: log.handlers)
    let completion = try #require(log.waitForCompletion(timeout: 10))
    #expect(completion == .connectionLost(host: "127.0.0.1"))
    #expect(log.data.count <= 50_000)
    #expect(log.data == body.prefix(log.data.count))
    #expect(log.responses.first?.status == 200)
    #expect(log.responses.first?.length == 200_000)
  }
}

@Suite("HTTPClient: size limits")
struct HTTPClientLimitTests {
  @Test("A declared Content-Length over maxBytes is refused before the body")
  func tooLargeDeclared() throws {
    let server = try LoopbackHTTPServer { _ in
      .respond(status: 200, headers: ["Content-Type": "application/json"], body: pattern(2_000_000))
    }
    defer { server.stop() }
    let log = StreamLog()
    HTTPClient.shared.stream(
      HTTPRequest(url: server.url("/feed.json"), maxBytes: 1_000_000), handlers: log.handlers)
    let completion = try #require(log.waitForCompletion(timeout: 10))
    #expect(completion == .tooLarge(limit: 1_000_000))
    #expect(log.data.isEmpty)
    #expect(log.responses.isEmpty)
    #expect(HTTPError.tooLarge(limit: 1_000_000).userMessage == "Response too large (over 1 MB)")
  }

  @Test("The default limit refuses a 60 MB body")
  func sixtyMegabytes() throws {
    let big = Data(count: 60_000_000)
    let server = try LoopbackHTTPServer { _ in
      .respond(status: 200, headers: ["Content-Type": "application/json"], body: big)
    }
    defer { server.stop() }
    let error = failure(fetch(server.url("/feed.json")))
    #expect(error == .tooLarge(limit: 20_000_000))
    #expect(error?.userMessage == "Response too large (over 20 MB)")
    #expect(error?.isTransient == false)
  }

  @Test("A chunked body of unknown length is refused once it passes maxBytes")
  func tooLargeChunked() throws {
    // A chunked body (the server's own Content-Length is overridden by Transfer-Encoding).
    var chunked = Data()
    let piece = pattern(16_384)
    for _ in 0..<100 {
      chunked += Data((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Data("\r\n".utf8)
    }
    chunked += Data("0\r\n\r\n".utf8)
    let body = chunked
    let server = try LoopbackHTTPServer { _ in
      .respond(
        status: 200,
        headers: ["Transfer-Encoding": "chunked", "Content-Type": "application/json"],
        body: body)
    }
    defer { server.stop() }
    let log = StreamLog()
    HTTPClient.shared.stream(
      HTTPRequest(url: server.url("/feed.json"), maxBytes: 500_000), handlers: log.handlers)
    let completion = try #require(log.waitForCompletion(timeout: 10))
    #expect(completion == .tooLarge(limit: 500_000))
    #expect(log.responses.first?.length == nil)
    #expect(log.data.count <= 500_000)
    #expect(log.data.count > 0)
  }

  @Test("A small gzip body that inflates past maxBytes is refused")
  func tooLargeAfterDecoding() throws {
    let compressed = try gzip(Data(count: 5_000_000))
    #expect(compressed.count < 100_000)
    let server = try LoopbackHTTPServer { _ in
      .respond(status: 200, headers: ["Content-Encoding": "gzip"], body: compressed)
    }
    defer { server.stop() }
    let error = failure(fetch(HTTPRequest(url: server.url("/bomb.json"), maxBytes: 1_000_000)))
    #expect(error == .tooLarge(limit: 1_000_000))
  }

  @Test("A body of exactly maxBytes is accepted")
  func exactlyMaxBytes() throws {
    let body = pattern(100_000)
    let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: body) }
    defer { server.stop() }
    let response = try #require(
      success(fetch(HTTPRequest(url: server.url("/x"), maxBytes: 100_000))))
    #expect(response.body == body)
  }
}

@Suite("HTTPClient: streams, cancelling and ranges")
struct HTTPClientStreamTests {
  @Test("Cancelling a stream that hangs completes it with .cancelled within 200 ms")
  func cancelHangingStream() throws {
    let server = try LoopbackHTTPServer { _ in .hang }
    defer { server.stop() }
    // A client of its own: no other test's transfer wakes its loop. Cancels at several
    // moments, so none of them can ride on one of curl's own timer wake-ups by luck.
    let client = HTTPClient()
    for (round, delay) in [0.05, 0.3, 0.55].enumerated() {
      let log = StreamLog()
      let transfer = client.stream(
        HTTPRequest(url: server.url("/song-\(round).mp3")), handlers: log.handlers)
      #expect(waitForRequests(server, count: round + 1))
      Thread.sleep(forTimeInterval: delay)
      #expect(log.completions.isEmpty)
      let cancelledAt = Date()
      transfer.cancel()
      #expect(transfer.isCancelled)
      let completion = try #require(log.waitForCompletion(timeout: 5))
      #expect(completion == .cancelled)
      let took = try #require(log.completedAt).timeIntervalSince(cancelledAt)
      #expect(took < 0.2, "cancel \(round) took \(took) s")
      transfer.cancel()  // a second cancel is harmless
      Thread.sleep(forTimeInterval: 0.05)
      #expect(log.completions.count == 1)
    }
  }

  @Test("Cancelling a stream mid-body stops the chunks and completes with .cancelled")
  func cancelMidBody() throws {
    let body = pattern(400_000)
    let server = try LoopbackHTTPServer { _ in
      .throttled(body, contentType: "audio/mpeg", bytesPerSecond: 100_000)
    }
    defer { server.stop() }
    let log = StreamLog()
    let transfer = HTTPClient.shared.stream(
      HTTPRequest(url: server.url("/song.mp3")), handlers: log.handlers)
    let deadline = Date().addingTimeInterval(10)
    while log.data.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    transfer.cancel()
    let completion = try #require(log.waitForCompletion(timeout: 2))
    #expect(completion == .cancelled)
    let had = log.data.count
    Thread.sleep(forTimeInterval: 0.3)
    #expect(log.data.count == had)
    #expect(had < body.count)
  }

  @Test("A stream whose handler returns false stops with .cancelled")
  func handlerStops() throws {
    let server = try LoopbackHTTPServer { _ in
      .throttled(pattern(300_000), contentType: "audio/mpeg", bytesPerSecond: 300_000)
    }
    defer { server.stop() }
    let log = StreamLog(keepGoing: { $0.count < 20_000 })
    HTTPClient.shared.stream(HTTPRequest(url: server.url("/song.mp3")), handlers: log.handlers)
    let completion = try #require(log.waitForCompletion(timeout: 10))
    #expect(completion == .cancelled)
    #expect(log.data.count < 300_000)
  }

  @Test("A stream passes every chunk in order and reports status, type and length first")
  func streamWhole() throws {
    let body = pattern(300_000)
    let server = try LoopbackHTTPServer { _ in .file(body, contentType: "audio/mpeg") }
    defer { server.stop() }
    let log = StreamLog()
    HTTPClient.shared.stream(HTTPRequest(url: server.url("/song.mp3")), handlers: log.handlers)
    let completion = try #require(log.waitForCompletion(timeout: 10))
    #expect(completion == HTTPError?.none)
    #expect(log.data == body)
    #expect(log.responses.count == 1)
    #expect(log.responses.first?.status == 200)
    #expect(log.responses.first?.type == "audio/mpeg")
    #expect(log.responses.first?.length == 300_000)
    #expect(server.requests.first?.headers["range"] == nil)
  }

  @Test("A stream with an offset sends a Range header and gets the tail")
  func streamWithOffset() throws {
    let body = pattern(300_000)
    let server = try LoopbackHTTPServer { _ in .file(body, contentType: "audio/mpeg") }
    defer { server.stop() }
    let log = StreamLog()
    HTTPClient.shared.stream(
      HTTPRequest(url: server.url("/song.mp3"), offset: 123_456), handlers: log.handlers)
    let completion = try #require(log.waitForCompletion(timeout: 10))
    #expect(completion == HTTPError?.none)
    #expect(server.requests.first?.headers["range"] == "bytes=123456-")
    #expect(log.data == body.suffix(from: 123_456))
    #expect(log.responses.first?.status == 206)
    #expect(log.responses.first?.length == Int64(300_000 - 123_456))
  }

  @Test("An offset on a server without Range support fails instead of giving byte 0 on")
  func offsetWithoutRangeSupport() throws {
    let body = pattern(50_000)
    let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: body) }
    defer { server.stop() }
    let log = StreamLog()
    HTTPClient.shared.stream(
      HTTPRequest(url: server.url("/song.mp3"), offset: 10_000), handlers: log.handlers)
    let completion = try #require(log.waitForCompletion(timeout: 10))
    #expect(completion != HTTPError?.none)
    #expect(log.data.isEmpty)
  }

  @Test("An offset past the end is a 416 status")
  func offsetPastTheEnd() throws {
    let server = try LoopbackHTTPServer { _ in .file(pattern(1_000), contentType: "audio/mpeg") }
    defer { server.stop() }
    let error = failure(fetch(HTTPRequest(url: server.url("/song.mp3"), offset: 5_000)))
    guard case .status(416, "127.0.0.1", _, _)? = error else {
      Issue.record("expected a 416, got \(String(describing: error))")
      return
    }
  }
}

@Suite("HTTPClient: file and other URLs")
struct HTTPClientFileTests {
  @Test("A file:// URL reads the file")
  func readsFile() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("feed.json")
    let body = pattern(70_000)
    try body.write(to: file)
    let response = try #require(success(fetch(file)))
    #expect(response.status == 200)
    #expect(response.body == body)
  }

  @Test("A file:// stream with an offset gives the tail of the file")
  func fileWithOffset() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("song.mp3")
    let body = pattern(70_000)
    try body.write(to: file)
    let response = try #require(success(fetch(HTTPRequest(url: file, offset: 65_000))))
    #expect(response.body == body.suffix(from: 65_000))
  }

  @Test("A missing file is .fileUnreadable with its path")
  func missingFile() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("nothing here.json")
    let error = failure(fetch(file))
    #expect(error == .fileUnreadable(path: file.path))
    #expect(error?.userMessage == "Cannot read \(file.path)")
    #expect(error?.isTransient == false)
  }

  @Test("A file:// stream reports 200 and the length left, then every chunk in order")
  func fileStream() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("song.mp3")
    let body = pattern(300_000)
    try body.write(to: file)
    let log = StreamLog()
    HTTPClient.shared.stream(HTTPRequest(url: file, offset: 1_000), handlers: log.handlers)
    let completion = try #require(log.waitForCompletion(timeout: 10))
    #expect(completion == HTTPError?.none)
    #expect(log.data == body.suffix(from: 1_000))
    #expect(log.responses.count == 1)
    #expect(log.responses.first?.status == 200)
    #expect(log.responses.first?.length == 299_000)
  }

  @Test(
    "A file:// URL that is not a readable file is .fileUnreadable, naming it",
    arguments: ["a folder", "unreadable"])
  func unreadableFile(kind: String) throws {
    let dir = try TemporaryDirectory()
    let target = dir.file(kind)
    if kind == "a folder" {
      try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    } else {
      try pattern(10).write(to: target)
      try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: target.path)
      // Root reads anything: there the folder case alone says it.
      if FileManager.default.isReadableFile(atPath: target.path) { return }
    }
    #expect(failure(fetch(target)) == .fileUnreadable(path: target.path))
  }

  @Test("A named pipe is .fileUnreadable at once: opening it does not wait for a writer")
  func namedPipe() throws {
    let dir = try TemporaryDirectory()
    let fifo = dir.file("song.mp3")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    #expect(failure(fetch(HTTPRequest(url: fifo), timeout: 5)) == .fileUnreadable(path: fifo.path))
  }

  @Test("A file:// offset past the end and a file over the size limit are refused")
  func fileLimits() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("song.mp3")
    try pattern(5_000).write(to: file)
    let past = failure(fetch(HTTPRequest(url: file, offset: 6_000)))
    #expect(past == .transport("song.mp3 is shorter than the offset asked for"))
    let large = failure(fetch(HTTPRequest(url: file, maxBytes: 4_000)))
    #expect(large == .tooLarge(limit: 4_000))
  }

  @Test("A file:// URL naming another host is refused")
  func fileOnAnotherHost() throws {
    let url = try #require(URL(string: "file://fileserver/music/song.mp3"))
    #expect(failure(fetch(url)) == .unsupportedURL("file://fileserver/music/song.mp3"))
  }

  @Test("Cancelling a file:// stream, or a handler saying stop, ends it with .cancelled")
  func cancelFileStream() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("song.mp3")
    try pattern(2_000_000).write(to: file)
    let stopped = StreamLog(keepGoing: { $0.count < 100_000 })
    HTTPClient.shared.stream(HTTPRequest(url: file), handlers: stopped.handlers)
    #expect(try #require(stopped.waitForCompletion(timeout: 10)) == .cancelled)
    #expect(stopped.data.count < 2_000_000)

    let gate = DispatchSemaphore(value: 0)
    let cancelled = StreamLog(keepGoing: { _ in
      gate.wait()  // holds the loop on the first chunk until the transfer is cancelled
      return true
    })
    let transfer = HTTPClient.shared.stream(HTTPRequest(url: file), handlers: cancelled.handlers)
    transfer.cancel()
    gate.signal()
    #expect(try #require(cancelled.waitForCompletion(timeout: 10)) == .cancelled)
    #expect(cancelled.data.count <= FileJob.chunkSize)
  }

  @Test("Files and http transfers share the client's one thread, turn by turn")
  func filesAndHTTPShareTheLoop() throws {
    let server = try LoopbackHTTPServer { _ in .file(pattern(1_000), contentType: "text/plain") }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let file = dir.file("big.mp3")
    try pattern(8_000_000).write(to: file)
    let client = HTTPClient()
    let threads = ThreadNames()
    let slowFile = StreamLog(keepGoing: { _ in
      threads.note()
      Thread.sleep(forTimeInterval: 0.002)  // 125 chunks: at least 250 ms of reading
      return true
    })
    client.stream(HTTPRequest(url: file), handlers: slowFile.handlers)
    let box = Box<Result<HTTPResponse, HTTPError>>()
    let started = Date()
    client.stream(
      HTTPRequest(url: server.url("/x")),
      handlers: StreamHandlers(
        onData: { _ in
          threads.note()
          return true
        },
        onComplete: { error in
          box.put(
            error.map { .failure($0) }
              ?? .success(.init(status: 200, contentType: nil, body: Data())))
        }))
    _ = try #require(box.wait(timeout: 10))
    let httpTook = Date().timeIntervalSince(started)
    #expect(slowFile.completions.isEmpty, "the http transfer ended before the file was read")
    #expect(httpTook < 5)
    _ = try #require(slowFile.waitForCompletion(timeout: 20))
    #expect(threads.names == ["riffle-http"])
  }

  @Test("A scheme other than http, https and file is refused without a transfer")
  func unsupportedScheme() throws {
    let url = try #require(URL(string: "ftp://example.com/feed.json"))
    let error = failure(fetch(url))
    #expect(error == .unsupportedURL("ftp://example.com/feed.json"))
    #expect(error?.userMessage == "Unsupported address ftp://example.com/feed.json")
  }
}

@Suite("HTTPError: messages and whether to retry")
struct HTTPErrorTests {
  @Test(
    "Each error has its one plain sentence",
    arguments: [
      (HTTPError.noConnection(host: "apitest.suno.com"), "No connection to apitest.suno.com"),
      (.noConnection(host: ""), "No internet connection"),
      (.timeout(host: "apitest.suno.com"), "apitest.suno.com is not answering (timed out)"),
      (.status(404, host: "h.example", excerpt: "x"), "Not found (404) at h.example"),
      (.status(401, host: "h.example", excerpt: ""), "Access denied (401) by h.example"),
      (.status(403, host: "h.example", excerpt: ""), "Access denied (403) by h.example"),
      (
        .status(429, host: "h.example", excerpt: "", retryAfter: 5),
        "Too many requests (429): h.example asks us to slow down"
      ),
      (
        .status(500, host: "apitest.suno.com", excerpt: ""),
        "Server error 500 from apitest.suno.com"
      ),
      (.status(503, host: "h.example", excerpt: ""), "Server error 503 from h.example"),
      (.status(599, host: "h.example", excerpt: ""), "Server error 599 from h.example"),
      (.status(418, host: "h.example", excerpt: ""), "HTTP 418 from h.example"),
      (.status(408, host: "h.example", excerpt: ""), "HTTP 408 from h.example"),
      (.tooLarge(limit: 20_000_000), "Response too large (over 20 MB)"),
      (.tooLarge(limit: 500_000_000), "Response too large (over 500 MB)"),
      (.tooManyRedirects(host: "h.example"), "Too many redirects from h.example"),
      (.connectionLost(host: "cdn.example"), "Connection to cdn.example was cut off"),
      (.fileUnreadable(path: "/tmp/x.mp3"), "Cannot read /tmp/x.mp3"),
      (.unsupportedURL("gopher://x"), "Unsupported address gopher://x"),
      (.cancelled, "Cancelled"),
      (.transport("SSL certificate problem"), "Network error: SSL certificate problem"),
    ])
  func userMessages(error: HTTPError, message: String) {
    #expect(error.userMessage == message)
  }

  @Test(
    "Only errors that may pass are transient",
    arguments: [
      (HTTPError.noConnection(host: "h"), true),
      (.timeout(host: "h"), true),
      (.connectionLost(host: "h"), true),
      (.status(500, host: "h", excerpt: ""), true),
      (.status(502, host: "h", excerpt: ""), true),
      (.status(503, host: "h", excerpt: "", retryAfter: 3), true),
      (.status(429, host: "h", excerpt: ""), true),
      (.status(408, host: "h", excerpt: ""), true),
      (.status(400, host: "h", excerpt: ""), false),
      (.status(401, host: "h", excerpt: ""), false),
      (.status(403, host: "h", excerpt: ""), false),
      (.status(404, host: "h", excerpt: ""), false),
      (.status(410, host: "h", excerpt: ""), false),
      (.tooLarge(limit: 1), false),
      (.tooManyRedirects(host: "h"), false),
      (.fileUnreadable(path: "/x"), false),
      (.unsupportedURL("x"), false),
      (.cancelled, false),
      (.transport("x"), false),
    ])
  func transient(error: HTTPError, expected: Bool) {
    #expect(error.isTransient == expected)
  }

  @Test("A feed load error passes the HTTP error's message, transience and Retry-After on")
  func feedLoadError() {
    let limited = FeedLoadError.http(.status(429, host: "h", excerpt: "", retryAfter: 12))
    #expect(limited.isTransient)
    #expect(limited.retryAfter == 12)
    #expect(limited.userMessage == "Too many requests (429): h asks us to slow down")
    let broken = FeedLoadError.feed(.invalidJSON("x"))
    #expect(!broken.isTransient)
    #expect(broken.retryAfter == nil)
    #expect(broken.userMessage == "The feed is not valid JSON")
    #expect(FeedLoadError.http(.noConnection(host: "h")).retryAfter == nil)
  }
}

@Suite("FeedSource over HTTP")
struct FeedSourceHTTPTests {
  /// Loads a feed and waits for the result.
  private func load(_ url: URL) -> Result<FeedPage, FeedLoadError>? {
    let box = Box<Result<FeedPage, FeedLoadError>>()
    FeedSource().load(url) { box.put($0) }
    return box.wait(timeout: 20)
  }

  @Test("pageURL sets page and page_size and keeps the rest of the query")
  func pageURL() {
    let url = URL(string: "https://studio-api.example.com/api/feed/v2?page=0&lang=en&q=a%20b")!
    #expect(
      FeedSource.pageURL(url, page: 2, pageSize: 10).absoluteString
        == "https://studio-api.example.com/api/feed/v2?lang=en&q=a%20b&page=2&page_size=10")
    #expect(
      FeedSource.pageURL(URL(string: "https://h/songs?page_size=5&page=1")!, page: 3, pageSize: nil)
        .absoluteString == "https://h/songs?page=3")
    #expect(
      FeedSource.pageURL(URL(string: "https://h/songs")!, page: 2, pageSize: 20).absoluteString
        == "https://h/songs?page=2&page_size=20")
  }

  @Test("A page is asked for with its query and decoded with its paging")
  func loadsPage() throws {
    let envelope = #"""
      {"page": 2, "per_page": 2, "total_pages": 3, "songs": [
        {"id": "s3", "title": "Three", "audio_url": "https://cdn.example.com/3.mp3"},
        {"id": "s4", "title": "Four", "audio_url": "/audio/4.mp3"}
      ]}
      """#
    let server = try LoopbackHTTPServer { _ in
      .respond(
        status: 200, headers: ["Content-Type": "application/json"], body: Data(envelope.utf8))
    }
    defer { server.stop() }
    let url = FeedSource.pageURL(server.url("/api/songs"), page: 2, pageSize: 2)
    guard case .success(let page)? = load(url) else {
      Issue.record("the page did not load")
      return
    }
    #expect(server.requests.first?.target == "/api/songs?page=2&page_size=2")
    #expect(server.requests.first?.headers["accept"] == FeedSource.accept)
    #expect(FeedSource.accept.hasPrefix("application/json"), "JSON stays the first choice")
    #expect(page.songs.map(\.id) == ["s3", "s4"])
    #expect(page.songs.last?.audioURL == server.url("/audio/4.mp3"))
    #expect(page.paging == FeedPaging(page: 2, pageSize: 2, totalPages: 3))
  }

  @Test("HTTP and content failures come back as FeedLoadError with their messages")
  func failures() throws {
    let server = try LoopbackHTTPServer(
      handler: LoopbackHTTPServer.routes([
        "/broken": .respond(status: 200, body: Data(#"{"songs": ["#.utf8)),
        "/busy": .respond(status: 503, headers: ["Retry-After": "9"], body: Data()),
      ]))
    defer { server.stop() }
    guard case .failure(let missing)? = load(server.url("/missing")) else {
      Issue.record("a 404 loaded")
      return
    }
    #expect(missing.userMessage == "Not found (404) at 127.0.0.1")
    #expect(!missing.isTransient)
    guard case .failure(let broken)? = load(server.url("/broken")) else {
      Issue.record("invalid JSON loaded")
      return
    }
    #expect(broken.userMessage == "The feed is not valid JSON")
    #expect(!broken.isTransient)
    guard case .failure(let busy)? = load(server.url("/busy")) else {
      Issue.record("a 503 loaded")
      return
    }
    #expect(busy.isTransient)
    #expect(busy.retryAfter == 9)
    #expect(busy.userMessage == "Server error 503 from 127.0.0.1")
  }
}

/// The kernel names of the threads that called `note`.
private final class ThreadNames: @unchecked Sendable {
  private let lock = NSLock()
  private var seen: Set<String> = []

  func note() {
    let name =
      (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    lock.withLock { _ = seen.insert(name) }
  }

  var names: Set<String> { lock.withLock { seen } }
}
