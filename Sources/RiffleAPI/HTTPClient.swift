import Foundation

/// What came back from a finished transfer.
public struct HTTPResponse: Sendable {
  /// The headers a response keeps: cache validators (conditional GETs of podcast feeds) and a
  /// radio station's `icy-*` description.
  public static let keptNames: Set<String> = [
    "etag", "last-modified", "icy-name", "icy-genre", "icy-description", "icy-url", "icy-br",
    "icy-metaint",
  ]

  public var status: Int
  public var contentType: String?
  public var body: Data
  /// The response's headers named in `keptNames` (lowercased), when it sent them. No other
  /// header is kept: none of these can carry a cookie or a token into a log.
  public var headers: [String: String]

  public init(
    status: Int, contentType: String?, body: Data, headers: [String: String] = [:]
  ) {
    self.status = status
    self.contentType = contentType
    self.body = body
    self.headers = headers
  }
}

extension HTTPResponse {
  /// Decodes the body as JSON with snake_case keys mapped to camelCase properties, whatever
  /// the content type says (some APIs answer JSON as text/javascript).
  public func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    // Errors name keys as the server wrote them (snake_case), not as Swift spells them.
    func path(_ keys: [CodingKey]) -> [String] {
      keys.map { $0.intValue.map(String.init) ?? Self.snakeCased($0.stringValue) }
    }
    do {
      return try decoder.decode(type, from: body)
    } catch let DecodingError.typeMismatch(expected, context) {
      throw BodyDecodingError(
        path: path(context.codingPath), reason: "of the wrong type (expected \(expected))")
    } catch let DecodingError.valueNotFound(_, context) {
      throw BodyDecodingError(path: path(context.codingPath), reason: "null")
    } catch let DecodingError.keyNotFound(key, context) {
      throw BodyDecodingError(path: path(context.codingPath + [key]), reason: "missing")
    } catch let DecodingError.dataCorrupted(context) {
      throw BodyDecodingError(path: path(context.codingPath), reason: "not valid JSON")
    }
  }

  /// "trackTimeMillis" -> "track_time_millis".
  static func snakeCased(_ name: String) -> String {
    var out = ""
    for ch in name {
      if ch.isUppercase {
        if !out.isEmpty { out.append("_") }
        out.append(contentsOf: ch.lowercased())
      } else {
        out.append(ch)
      }
    }
    return out
  }
}

/// A body that is not what was expected: which key, and why.
public struct BodyDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
  public var path: [String]
  public var reason: String

  public var description: String {
    path.isEmpty
      ? "The response is \(reason)" : "The response's \(path.joined(separator: ".")) is \(reason)"
  }
}

/// A request the client sends.
public struct HTTPRequest: Sendable {
  public var url: URL
  public var method: String
  public var headers: [String: String]
  public var body: Data?
  /// Bodies larger than this are refused (`HTTPError.tooLarge`).
  public var maxBytes: Int
  /// Ask for the bytes from this offset on (an HTTP Range request).
  public var offset: Int64
  /// For a stream that goes on as long as it is listened to (a radio station): once it has
  /// received its first `TransferLoop.batchAfterBytes`, and while every transfer under way is
  /// such a stream, the transfer thread lets the socket gather bytes this long between turns
  /// instead of waking (and waking the reader) for every small packet. 0: every packet at once.
  public var batchDelay: TimeInterval = 0
  /// Asked each turn of a batched stream: false while its reader runs short of bytes (a server
  /// that sends no burst ahead), so that batching never starves it.
  public var canBatch: (@Sendable () -> Bool)?

  public init(
    url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil,
    maxBytes: Int = 20_000_000, offset: Int64 = 0
  ) {
    self.url = url
    self.method = method
    self.headers = headers
    self.body = body
    self.maxBytes = maxBytes
    self.offset = offset
  }
}

/// A transfer under way; cancelling it stops the download at once.
public final class Transfer: @unchecked Sendable {
  private let lock = NSLock()
  private var cancelled = false
  private let onCancel: @Sendable () -> Void

  init(onCancel: @escaping @Sendable () -> Void = {}) {
    self.onCancel = onCancel
  }

  public var isCancelled: Bool { lock.withLock { cancelled } }

  public func cancel() {
    let first = lock.withLock {
      defer { cancelled = true }
      return !cancelled
    }
    if first { onCancel() }
  }
}

/// Callbacks of a streaming download. They run on the transfer's own thread.
public struct StreamHandlers: Sendable {
  /// The status line and headers are in: status, content type and expected length (if known).
  public var onResponse: @Sendable (_ status: Int, _ contentType: String?, _ length: Int64?) -> Void
  /// A chunk of the body. Return false to stop the transfer.
  public var onData: @Sendable (Data) -> Bool
  /// The end: nil when the body arrived whole.
  public var onComplete: @Sendable (HTTPError?) -> Void
  /// The final response's cache headers (see `HTTPResponse.headers`), just before
  /// `onResponse`.
  public var onHeaders: @Sendable ([String: String]) -> Void

  public init(
    onResponse: @escaping @Sendable (Int, String?, Int64?) -> Void = { _, _, _ in },
    onData: @escaping @Sendable (Data) -> Bool,
    onComplete: @escaping @Sendable (HTTPError?) -> Void,
    onHeaders: @escaping @Sendable ([String: String]) -> Void = { _ in }
  ) {
    self.onResponse = onResponse
    self.onData = onData
    self.onComplete = onComplete
    self.onHeaders = onHeaders
  }
}

/// The one HTTP client every part of Riffle uses: libcurl underneath (loaded by the first
/// http(s) transfer), every transfer on the client's own thread so nothing waits on the main
/// queue.
///
/// http://, https:// and file:// URLs are allowed (files are read without curl, see `FileJob`);
/// redirects go to http(s) only, at most 5.
/// TLS is always verified. Instead of one total timeout there is a connect timeout and a stall
/// timeout (no bytes for that long), so long downloads on slow links still finish.
public final class HTTPClient: Sendable {
  public static let shared = HTTPClient()

  public let userAgent: String
  public let connectTimeout: Int
  public let stallTimeout: Int
  private let loop = TransferLoop()

  public init(
    userAgent: String = "Riffle/\(RiffleVersion.string)", connectTimeout: Int = 10,
    stallTimeout: Int = 20
  ) {
    self.userAgent = userAgent
    self.connectTimeout = connectTimeout
    self.stallTimeout = stallTimeout
  }

  /// Fetches a whole body. The completion runs on the transfer's thread.
  @discardableResult
  public func fetch(
    _ request: HTTPRequest,
    completion: @escaping @Sendable (Result<HTTPResponse, HTTPError>) -> Void
  ) -> Transfer {
    let collector = BodyCollector()
    return stream(
      request,
      handlers: StreamHandlers(
        onResponse: { status, type, _ in collector.start(status: status, contentType: type) },
        onData: { chunk in collector.append(chunk) },
        onComplete: { error in
          let result: Result<HTTPResponse, HTTPError> =
            error.map { .failure($0) }
            ?? .success(
              collector.response())
          // Decoding a large body must not hold up the other transfers on the loop thread.
          BackgroundWork.run("riffle.http.completion") { completion(result) }
        },
        onHeaders: { collector.headers = $0 }))
  }

  /// Fetches a whole body, blocking the calling thread; for tools and tests, never the main queue.
  public func fetchSync(_ request: HTTPRequest) -> Result<HTTPResponse, HTTPError> {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox()
    fetch(request) { result in
      box.value = result
      done.signal()
    }
    done.wait()
    return box.value!
  }

  /// Streams a body chunk by chunk as it arrives. Error statuses (4xx, 5xx) end the transfer
  /// with `HTTPError.status` before any chunk is passed on. The handlers run on the client's
  /// transfer thread and must return quickly.
  @discardableResult
  public func stream(_ request: HTTPRequest, handlers: StreamHandlers) -> Transfer {
    let loop = self.loop
    let transfer = Transfer(onCancel: { loop.wake() })
    if request.url.scheme?.lowercased() == SubsonicServers.scheme {
      // A server's address without credentials: signed (fresh salt) just before it is fetched.
      SubsonicServers.shared.resolve(request.url) { [self] result in
        switch result {
        case .success(let url):
          var signed = request
          signed.url = url
          let server = request.url.host ?? ""
          let quiet = SubsonicServers.shared.refusals(in: handlers, server: server)
          loop.add(CurlJob(client: self, request: signed, handlers: quiet, transfer: transfer))
        case .failure(let error):
          handlers.onComplete(error)
        }
      }
      return transfer
    }
    if request.url.isFileURL {
      loop.add(FileJob(request: request, handlers: handlers, transfer: transfer))
    } else {
      loop.add(CurlJob(client: self, request: request, handlers: handlers, transfer: transfer))
    }
    return transfer
  }
}

private final class ResultBox: @unchecked Sendable {
  var value: Result<HTTPResponse, HTTPError>?
}

/// Gathers a body for `fetch`, refusing to grow past the request's limit.
private final class BodyCollector: @unchecked Sendable {
  private let lock = NSLock()
  private var status = 0
  private var contentType: String?
  private var body = Data()
  private var _keptHeaders: [String: String] = [:]

  var headers: [String: String] {
    get { lock.withLock { _keptHeaders } }
    set { lock.withLock { _keptHeaders = newValue } }
  }

  func start(status: Int, contentType: String?) {
    lock.withLock {
      self.status = status
      self.contentType = contentType
    }
  }
  func append(_ chunk: Data) -> Bool {
    lock.withLock { body.append(chunk) }
    return true
  }
  func response() -> HTTPResponse {
    lock.withLock {
      HTTPResponse(status: status, contentType: contentType, body: body, headers: _keptHeaders)
    }
  }
}
