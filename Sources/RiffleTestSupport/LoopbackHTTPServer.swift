import Foundation
import Glibc

/// An error raised when a ``LoopbackHTTPServer`` cannot be set up.
///
/// The description names the system call that failed and the reason the
/// system gave, e.g. `bind(127.0.0.1:8080) failed: Address already in use`.
public struct LoopbackHTTPServerError: Error, CustomStringConvertible {
  /// A human-readable explanation of what went wrong.
  public let message: String

  /// Creates an error carrying the given message.
  public init(_ message: String) {
    self.message = message
  }

  /// The error message.
  public var description: String { message }
}

/// A small, real HTTP/1.1 server bound to 127.0.0.1, for tests.
///
/// Tests start one to serve feeds, audio and network faults to code that
/// speaks real HTTP (for example libcurl). It uses plain POSIX sockets: one
/// thread accepts connections and every connection is served on its own
/// thread. Each connection carries exactly one request; every response is
/// sent with `Connection: close` and the socket is closed afterwards.
///
/// The handler runs on the connection's thread, so several invocations can
/// run at once. A request that cannot be parsed is answered with
/// `400 Bad Request` without calling the handler and is not recorded.
///
/// ```swift
/// let server = try LoopbackHTTPServer(handler: LoopbackHTTPServer.routes([
///     "/feed.xml": .respond(
///         status: 200, headers: ["Content-Type": "application/rss+xml"], body: feed),
///     "/episode.mp3": .file(audio, contentType: "audio/mpeg"),
/// ]))
/// defer { server.stop() }
/// let url = server.url("/feed.xml")
/// ```
public final class LoopbackHTTPServer: @unchecked Sendable {
  /// One HTTP request as received by the server.
  public struct Request: Sendable {
    /// The request method exactly as sent, e.g. `GET`.
    public let method: String
    /// The request target exactly as sent: path plus query, e.g. `/a/b?x=1`.
    public let target: String
    /// The header fields, keyed by lowercased name.
    ///
    /// A field sent more than once has its values joined with `", "`.
    public let headers: [String: String]
    /// The request body (empty when none was sent).
    public let body: Data

    /// Creates a request value, e.g. to unit-test a handler directly.
    public init(
      method: String, target: String, headers: [String: String] = [:], body: Data = Data()
    ) {
      self.method = method
      self.target = target
      var lowered: [String: String] = [:]
      for (name, value) in headers { lowered[name.lowercased()] = value }
      self.headers = lowered
      self.body = body
    }

    /// The query's items as a server reading form encoding sees them ("+" is a space,
    /// percent escapes decoded); a name given twice keeps its last value.
    public var formQuery: [String: String] {
      guard let query = target.split(separator: "?", maxSplits: 1).dropFirst().first else {
        return [:]
      }
      func decode(_ text: Substring) -> String {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
      }
      var items: [String: String] = [:]
      for pair in query.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        items[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
      }
      return items
    }

    /// The target without its query string (and without scheme and
    /// authority if the client sent an absolute URL); not percent-decoded.
    public var path: String {
      var rest = Substring(target)
      let lower = target.lowercased()
      if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
        rest = rest[rest.index(rest.firstIndex(of: ":")!, offsetBy: 3)...]
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }), rest[slash] == "/"
        else {
          return "/"
        }
        rest = rest[slash...]
      }
      if let query = rest.firstIndex(of: "?") { rest = rest[..<query] }
      return String(rest)
    }
  }

  /// What the server does in answer to a request.
  public enum Reply: Sendable {
    /// Sends `status` with `headers` and `body`.
    ///
    /// `Content-Length` is added unless `headers` already has one (so a
    /// test may declare a wrong length on purpose); `Connection: close`
    /// always replaces any given `Connection` header. No body (and no
    /// added `Content-Length`) is sent for 1xx, 204 and 304, and no body
    /// is sent in answer to `HEAD`.
    case respond(status: Int, headers: [String: String] = [:], body: Data)
    /// Serves `data` like a static file, honouring a `Range` header.
    ///
    /// Without a usable `Range` the answer is `200` with the whole body.
    /// `Range: bytes=N-`, `bytes=N-M` and `bytes=-N` (suffix) give `206`
    /// with `Content-Range`; a range starting past the end gives `416`
    /// with `Content-Range: bytes */LENGTH`. Multi-range and malformed
    /// `Range` headers are ignored (whole body). Always sends
    /// `Accept-Ranges: bytes`.
    case file(Data, contentType: String)
    /// Like ``file(_:contentType:)`` (including `Range`), but the body is
    /// sent in small chunks paced to about `bytesPerSecond`.
    case throttled(Data, contentType: String, bytesPerSecond: Int)
    /// Answers `200` declaring the full `Content-Length` of `data`, sends
    /// only the first `after` bytes of it, then closes the connection
    /// normally (FIN), so the client sees a truncated body.
    case cutOff(Data, contentType: String, after: Int)
    /// Answers `200` declaring the full `Content-Length` of `of`, sends
    /// the first `afterBytes` bytes, waits until the client has
    /// acknowledged them, then aborts the connection with a TCP RST
    /// (`SO_LINGER` 0).
    case reset(afterBytes: Int, of: Data, contentType: String)
    /// Reads the request and never answers; the connection stays open
    /// until the client gives up or ``LoopbackHTTPServer/stop()`` is called.
    case hang
    /// Redirects to `location` (absolute URL or path) with the given
    /// status (302 unless stated) and an empty body.
    case redirect(status: Int = 302, location: String)
  }

  /// The TCP port the server listens on (the one chosen by the system
  /// when the server was created with port 0).
  public let port: UInt16

  private let core: Core

  /// Starts a server on 127.0.0.1 that answers every request with `handler`.
  ///
  /// - Parameters:
  ///   - port: The port to listen on; 0 (the default) picks a free
  ///     ephemeral port, readable afterwards from ``port``.
  ///   - handler: Called once per well-formed request, on that
  ///     connection's thread, to decide the reply.
  /// - Throws: ``LoopbackHTTPServerError`` describing the failing system
  ///   call if the socket cannot be created, bound or listened on.
  public init(port: UInt16 = 0, handler: @escaping @Sendable (Request) -> Reply) throws {
    let (listenFD, boundPort) = try Self.makeListener(port: port)
    // A socket pair (close-on-exec from the start) serves as the wake-up pipe.
    var pipeFDs: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &pipeFDs) == 0
    else {
      let reason = Self.errnoDescription()
      close(listenFD)
      throw LoopbackHTTPServerError("socketpair() failed: \(reason)")
    }
    self.port = boundPort
    self.core = Core(
      listenFD: listenFD, wakeRead: pipeFDs[0], wakeWrite: pipeFDs[1], handler: handler)
    core.startAcceptThread()
  }

  deinit {
    core.stop()
  }

  /// The server's root URL, `http://127.0.0.1:PORT`.
  public var baseURL: URL {
    URL(string: "http://127.0.0.1:\(port)")!
  }

  /// The URL of `path` on this server, e.g. `url("/feed.xml?page=2")`.
  ///
  /// `path` should start with `/` (one is inserted if missing) and may
  /// include a query. Characters not allowed in URLs are percent-encoded.
  public func url(_ path: String) -> URL {
    let normalized = path.hasPrefix("/") ? path : "/" + path
    let base = "http://127.0.0.1:\(port)"
    if let url = URL(string: base + normalized) { return url }
    var allowed = CharacterSet.urlPathAllowed
    allowed.formUnion(.urlQueryAllowed)
    if let encoded = normalized.addingPercentEncoding(withAllowedCharacters: allowed),
      let url = URL(string: base + encoded)
    {
      return url
    }
    preconditionFailure(
      "LoopbackHTTPServer.url: cannot form a URL from path \(path.debugDescription)")
  }

  /// Every well-formed request received so far, in arrival order.
  ///
  /// A request is recorded before its handler runs. Safe to read from any
  /// thread.
  public var requests: [Request] {
    core.recordedRequests()
  }

  /// Stops the server: closes the listening socket and every open
  /// connection (including ones held by ``Reply/hang``), and waits for all
  /// server threads to finish.
  ///
  /// Idempotent, and also called from `deinit`. Replies in progress are
  /// cut short. A handler that blocks delays `stop()` until it returns.
  public func stop() {
    core.stop()
  }

  /// Makes a handler that looks the request's ``Request/path`` up in
  /// `table`, answering with `fallback` (404 by default) when absent.
  public static func routes(
    _ table: [String: Reply],
    fallback: Reply = .respond(status: 404, body: Data("not found".utf8))
  ) -> @Sendable (Request) -> Reply {
    return { request in table[request.path] ?? fallback }
  }

  // MARK: - Setup

  private static func makeListener(port: UInt16) throws -> (Int32, UInt16) {
    let fd = socket(
      AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else {
      throw LoopbackHTTPServerError("socket() failed: \(errnoDescription())")
    }
    var yes: Int32 = 1
    guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) == 0
    else {
      let reason = errnoDescription()
      close(fd)
      throw LoopbackHTTPServerError("setsockopt(SO_REUSEADDR) failed: \(reason)")
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
    let bound = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else {
      let reason = errnoDescription()
      close(fd)
      throw LoopbackHTTPServerError("bind(127.0.0.1:\(port)) failed: \(reason)")
    }
    guard listen(fd, 128) == 0 else {
      let reason = errnoDescription()
      close(fd)
      throw LoopbackHTTPServerError("listen() on 127.0.0.1:\(port) failed: \(reason)")
    }
    var actual = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &actual) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(fd, $0, &length)
      }
    }
    guard named == 0 else {
      let reason = errnoDescription()
      close(fd)
      throw LoopbackHTTPServerError("getsockname() failed: \(reason)")
    }
    return (fd, UInt16(bigEndian: actual.sin_port))
  }

  private static func errnoDescription(_ code: Int32 = errno) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
  }
}

// MARK: - Server core (shared with the server threads)

/// State shared by the server object and its threads. The threads retain
/// this, not the server, so the server can be deinitialised (and stop
/// itself) while they run.
private final class Core: @unchecked Sendable {
  let listenFD: Int32
  /// Read end of a pipe that becomes readable (forever) once stopping;
  /// every blocking wait of every thread polls it.
  let wakeRead: Int32
  let wakeWrite: Int32
  let handler: @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply

  private let condition = NSCondition()
  // Everything below is guarded by `condition`.
  private var requests: [LoopbackHTTPServer.Request] = []
  private var stopRequested = false
  private var sharedFDsClosed = false
  private var activeThreads = 0
  private var serverThreadIDs: Set<pthread_t> = []

  init(
    listenFD: Int32, wakeRead: Int32, wakeWrite: Int32,
    handler: @escaping @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply
  ) {
    self.listenFD = listenFD
    self.wakeRead = wakeRead
    self.wakeWrite = wakeWrite
    self.handler = handler
  }

  func record(_ request: LoopbackHTTPServer.Request) {
    condition.lock()
    requests.append(request)
    condition.unlock()
  }

  func recordedRequests() -> [LoopbackHTTPServer.Request] {
    condition.lock()
    defer { condition.unlock() }
    return requests
  }

  func startAcceptThread() {
    _ = spawn(name: "LoopbackHTTP accept") { core in core.acceptLoop() }
  }

  /// Starts a server thread unless the server is stopping. Returns whether
  /// the thread was started.
  private func spawn(name: String, _ body: @escaping @Sendable (Core) -> Void) -> Bool {
    condition.lock()
    guard !stopRequested else {
      condition.unlock()
      return false
    }
    activeThreads += 1
    condition.unlock()
    let thread = Thread { [self] in
      self.threadStarted()
      body(self)
      self.threadFinished()
    }
    thread.name = name
    thread.start()
    return true
  }

  private func threadStarted() {
    condition.lock()
    serverThreadIDs.insert(pthread_self())
    condition.unlock()
  }

  private func threadFinished() {
    condition.lock()
    serverThreadIDs.remove(pthread_self())
    activeThreads -= 1
    let closeNow = activeThreads == 0 && stopRequested && !sharedFDsClosed
    if closeNow { sharedFDsClosed = true }
    condition.broadcast()
    condition.unlock()
    if closeNow { closeSharedFDs() }
  }

  private func closeSharedFDs() {
    close(listenFD)
    close(wakeRead)
    close(wakeWrite)
  }

  func stop() {
    condition.lock()
    let firstCall = !stopRequested
    stopRequested = true
    condition.unlock()
    if firstCall {
      var byte: UInt8 = 1
      while write(wakeWrite, &byte, 1) < 0 && errno == EINTR {}
    }
    condition.lock()
    // A handler calling stop() runs on a server thread: don't wait for
    // that thread itself (it closes the shared descriptors when done).
    let ownThreads = serverThreadIDs.contains(pthread_self()) ? 1 : 0
    while activeThreads > ownThreads {
      condition.wait()
    }
    let closeNow = activeThreads == 0 && !sharedFDsClosed
    if closeNow { sharedFDsClosed = true }
    condition.unlock()
    if closeNow { closeSharedFDs() }
  }

  var isStopping: Bool {
    condition.lock()
    defer { condition.unlock() }
    return stopRequested
  }

  // MARK: Accepting

  private typealias Accept4 =
    @convention(c) (
      Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32
    ) -> Int32

  /// `accept4(SOCK_CLOEXEC | SOCK_NONBLOCK)`, looked up at run time because
  /// Swift's Glibc module doesn't declare it.
  private let accept4Function: Accept4? = dlsym(nil, "accept4").map {
    unsafeBitCast($0, to: Accept4.self)
  }

  /// Accepts a connection that is non-blocking and close-on-exec (set
  /// atomically when possible, so processes spawned concurrently by a test
  /// never inherit it and keep it open).
  private func acceptClient() -> Int32 {
    if let accept4Function {
      return accept4Function(
        listenFD, nil, nil, Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue))
    }
    let client = accept(listenFD, nil, nil)
    if client >= 0 {
      _ = fcntl(client, F_SETFD, fcntl(client, F_GETFD) | FD_CLOEXEC)
      _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
    }
    return client
  }

  private func acceptLoop() {
    while true {
      var fds = [
        pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&fds, 2, -1)
      if ready < 0 {
        if errno == EINTR { continue }
        return
      }
      if fds[1].revents != 0 { return }
      guard fds[0].revents != 0 else { continue }
      let client = acceptClient()
      if client < 0 {
        switch errno {
        case EINTR, EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO:
          continue
        case EMFILE, ENFILE, ENOBUFS, ENOMEM:
          usleep(10_000)
          continue
        default:
          return
        }
      }
      let started = spawn(name: "LoopbackHTTP conn") { core in
        Connection(fd: client, core: core).serve()
      }
      if !started {
        close(client)
        return
      }
    }
  }
}

// MARK: - One connection

private final class Connection {
  typealias Reply = LoopbackHTTPServer.Reply
  typealias Request = LoopbackHTTPServer.Request

  private let fd: Int32
  private let core: Core
  private var buffer: [UInt8] = []
  private var closed = false

  private static let maxHeaderBytes = 64 * 1024
  private static let maxBodyBytes = 256 * 1024 * 1024

  init(fd: Int32, core: Core) {
    self.fd = fd
    self.core = core
  }

  deinit {
    if !closed { close(fd) }
  }

  func serve() {
    switch readRequest() {
    case .gone:
      return
    case .malformed(let reason):
      _ = sendResponseHead(
        status: 400,
        headers: [
          ("Content-Type", "text/plain; charset=utf-8"),
          ("Content-Length", "\(Data("bad request: \(reason)\n".utf8).count)"),
        ])
      _ = sendAll(Data("bad request: \(reason)\n".utf8))
      finishGracefully()
    case .request(let request):
      core.record(request)
      let reply = core.handler(request)
      respond(with: reply, to: request)
    }
  }

  // MARK: Waiting

  private enum WaitResult { case ready, timeout, stopping, failed }

  /// Waits until `fd` has one of `events`, the server stops, or `timeoutMs`
  /// passes (-1 waits indefinitely).
  private func wait(for events: Int32, timeoutMs: Int = -1) -> WaitResult {
    let deadline = timeoutMs < 0 ? nil : monotonicMs() + timeoutMs
    while true {
      var remaining: Int32 = -1
      if let deadline {
        remaining = Int32(clamping: max(0, deadline - monotonicMs()))
      }
      var fds = [
        pollfd(fd: fd, events: Int16(events), revents: 0),
        pollfd(fd: core.wakeRead, events: Int16(POLLIN), revents: 0),
      ]
      let result = poll(&fds, 2, remaining)
      if result < 0 {
        if errno == EINTR { continue }
        return .failed
      }
      if fds[1].revents != 0 { return .stopping }
      if result == 0 { return .timeout }
      if fds[0].revents != 0 { return .ready }
    }
  }

  /// Sleeps for `ms` milliseconds; returns false if the server is stopping.
  private func pause(ms: Int) -> Bool {
    let deadline = monotonicMs() + ms
    while true {
      let remaining = Int32(clamping: max(0, deadline - monotonicMs()))
      var wake = [pollfd(fd: core.wakeRead, events: Int16(POLLIN), revents: 0)]
      let result = poll(&wake, 1, remaining)
      if result < 0 {
        if errno == EINTR { continue }
        return !core.isStopping
      }
      if result > 0 { return false }
      if monotonicMs() >= deadline { return true }
    }
  }

  // MARK: Reading

  private enum ReadOutcome { case data, eof, gone }

  /// Reads whatever is available into `buffer`, waiting if necessary.
  private func readMore(timeoutMs: Int = -1) -> ReadOutcome {
    while true {
      switch wait(for: Int32(POLLIN), timeoutMs: timeoutMs) {
      case .stopping, .failed, .timeout:
        return .gone
      case .ready:
        break
      }
      var chunk = [UInt8](repeating: 0, count: 65_536)
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count > 0 {
        buffer.append(contentsOf: chunk[0..<count])
        return .data
      }
      if count == 0 { return .eof }
      switch errno {
      case EINTR, EAGAIN, EWOULDBLOCK:
        continue
      default:
        return .gone
      }
    }
  }

  private enum ParseOutcome {
    case request(Request)
    case malformed(String)
    case gone
  }

  private func readRequest() -> ParseOutcome {
    // Find the end of the header section.
    var headEnd: (start: Int, after: Int)?
    while true {
      // Tolerate empty lines before the request line (RFC 9112 §2.2).
      while let first = buffer.first, first == 13 || first == 10 { buffer.removeFirst() }
      headEnd = Self.findHeaderEnd(buffer)
      if headEnd != nil { break }
      if buffer.count > Self.maxHeaderBytes { return .malformed("header section too large") }
      switch readMore() {
      case .data: continue
      case .eof:
        return buffer.isEmpty ? .gone : .malformed("connection closed inside the header section")
      case .gone: return .gone
      }
    }
    guard let headEnd else { return .gone }
    if headEnd.start > Self.maxHeaderBytes { return .malformed("header section too large") }

    // Split into lines on LF bytes (a Swift String would treat CRLF as one
    // Character), dropping a CR before each LF.
    var lines = buffer[0..<headEnd.start].split(separator: 10, omittingEmptySubsequences: false).map
    {
      line -> Substring in
      let bytes = line.last == 13 ? line.dropLast() : line
      return Substring(String(decoding: bytes, as: UTF8.self))
    }
    guard !lines.isEmpty else { return .malformed("empty request") }
    let requestLine = lines.removeFirst()
    let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 3 else {
      return .malformed("request line must be 'METHOD TARGET HTTP/1.x'")
    }
    let method = String(parts[0])
    let target = String(parts[1])
    let version = String(parts[2])
    guard !method.isEmpty, method.utf8.allSatisfy(Self.isTokenByte) else {
      return .malformed("invalid method")
    }
    guard !target.isEmpty, target.utf8.allSatisfy({ $0 > 32 && $0 != 127 }) else {
      return .malformed("invalid request target")
    }
    guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
      return .malformed("unsupported protocol version \(version.debugDescription)")
    }

    var headers: [String: String] = [:]
    for line in lines {
      if line.isEmpty { continue }
      if line.first == " " || line.first == "\t" {
        return .malformed("obsolete header line folding")
      }
      guard let colon = line.firstIndex(of: ":") else {
        return .malformed("header line without ':'")
      }
      let name = line[..<colon]
      guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
        return .malformed("invalid header name")
      }
      let value = line[line.index(after: colon)...].trimmingCharacters(
        in: CharacterSet(charactersIn: " \t"))
      let key = name.lowercased()
      if let existing = headers[key] {
        headers[key] = existing + ", " + value
      } else {
        headers[key] = value
      }
    }

    buffer.removeFirst(headEnd.after)

    // Body.
    let body: [UInt8]
    if let transferEncoding = headers["transfer-encoding"] {
      let codings = transferEncoding.lowercased().split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard codings.last == "chunked" else { return .malformed("unsupported Transfer-Encoding") }
      if headers["content-length"] != nil {
        return .malformed("both Transfer-Encoding and Content-Length")
      }
      sendContinueIfExpected(headers)
      var decoded: [UInt8]?
      while decoded == nil {
        switch Self.decodeChunked(buffer) {
        case .complete(let bytes): decoded = bytes
        case .malformed(let reason): return .malformed(reason)
        case .needMore:
          if buffer.count > Self.maxBodyBytes { return .malformed("body too large") }
          switch readMore() {
          case .data: continue
          case .eof: return .malformed("connection closed inside the chunked body")
          case .gone: return .gone
          }
        }
      }
      body = decoded ?? []
    } else if let lengthField = headers["content-length"] {
      let values = Set(
        lengthField.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
      guard values.count == 1, let text = values.first, !text.isEmpty,
        text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
        let length = Int(text)
      else {
        return .malformed("invalid Content-Length")
      }
      guard length <= Self.maxBodyBytes else { return .malformed("body too large") }
      if length > buffer.count { sendContinueIfExpected(headers) }
      while buffer.count < length {
        switch readMore() {
        case .data: continue
        case .eof: return .malformed("connection closed before the whole body arrived")
        case .gone: return .gone
        }
      }
      body = Array(buffer[0..<length])
    } else {
      body = []
    }
    return .request(Request(method: method, target: target, headers: headers, body: Data(body)))
  }

  private func sendContinueIfExpected(_ headers: [String: String]) {
    if headers["expect"]?.lowercased() == "100-continue" {
      _ = sendAll(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
    }
  }

  /// Locates the blank line ending the header section: returns the offset
  /// where it starts and the offset just after it.
  private static func findHeaderEnd(_ bytes: [UInt8]) -> (start: Int, after: Int)? {
    guard bytes.count >= 2 else { return nil }
    var index = 0
    while index < bytes.count {
      if bytes[index] == 10 {
        // "\n\n" or "\n\r\n"
        if index + 1 < bytes.count, bytes[index + 1] == 10 {
          return (index + 1, index + 2)
        }
        if index + 2 < bytes.count, bytes[index + 1] == 13, bytes[index + 2] == 10 {
          return (index + 1, index + 3)
        }
      }
      index += 1
    }
    return nil
  }

  private static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "A")...UInt8(ascii: "Z"):
      return true
    default:
      return "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
  }

  private enum ChunkedResult {
    case complete([UInt8])
    case needMore
    case malformed(String)
  }

  private static func decodeChunked(_ bytes: [UInt8]) -> ChunkedResult {
    var output: [UInt8] = []
    var index = 0
    func readLine() -> String? {
      guard let newline = bytes[index...].firstIndex(of: 10) else { return nil }
      var end = newline
      if end > index, bytes[end - 1] == 13 { end -= 1 }
      let line = String(decoding: bytes[index..<end], as: UTF8.self)
      index = newline + 1
      return line
    }
    while true {
      guard let sizeLine = readLine() else { return .needMore }
      let sizeText =
        sizeLine.split(separator: ";", maxSplits: 1).first.map {
          $0.trimmingCharacters(in: .whitespaces)
        } ?? ""
      guard !sizeText.isEmpty, sizeText.count <= 15, let size = Int(sizeText, radix: 16) else {
        return .malformed("invalid chunk size")
      }
      if size == 0 {
        // Trailer section, ended by an empty line.
        while true {
          guard let trailer = readLine() else { return .needMore }
          if trailer.isEmpty { return .complete(output) }
        }
      }
      guard bytes.count - index >= size else { return .needMore }
      output.append(contentsOf: bytes[index..<(index + size)])
      index += size
      guard let terminator = readLine() else { return .needMore }
      guard terminator.isEmpty else { return .malformed("chunk not followed by CRLF") }
      if output.count > maxBodyBytes { return .malformed("body too large") }
    }
  }

  // MARK: Writing

  /// Sends every byte, waiting for socket space as needed. Returns false if
  /// the client went away or the server is stopping.
  private func sendAll(_ data: Data) -> Bool {
    data.withUnsafeBytes { raw -> Bool in
      guard var pointer = raw.baseAddress else { return true }
      var remaining = raw.count
      while remaining > 0 {
        let sent = send(fd, pointer, remaining, Int32(MSG_NOSIGNAL))
        if sent > 0 {
          pointer += sent
          remaining -= sent
          continue
        }
        if sent < 0 {
          switch errno {
          case EINTR:
            continue
          case EAGAIN, EWOULDBLOCK:
            guard wait(for: Int32(POLLOUT)) == .ready else { return false }
            continue
          default:
            return false
          }
        }
        return false
      }
      return true
    }
  }

  private func sendResponseHead(status: Int, headers: [(String, String)]) -> Bool {
    var head = "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\n"
    for (name, value) in headers where name.lowercased() != "connection" {
      head += "\(name): \(value)\r\n"
    }
    head += "Connection: close\r\n\r\n"
    return sendAll(Data(head.utf8))
  }

  private func respond(with reply: Reply, to request: Request) {
    let isHead = request.method == "HEAD"
    switch reply {
    case .respond(let status, let headers, let body):
      let bodyless = (100..<200).contains(status) || status == 204 || status == 304
      var fields = headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map {
        ($0.key, $0.value)
      }
      if !bodyless, !fields.contains(where: { $0.0.lowercased() == "content-length" }) {
        fields.append(("Content-Length", "\(body.count)"))
      }
      guard sendResponseHead(status: status, headers: fields) else { return }
      if !isHead, !bodyless, !body.isEmpty {
        guard sendAll(body) else { return }
      }
      finishGracefully()

    case .file(let data, let contentType):
      sendRanged(data, contentType: contentType, request: request, bytesPerSecond: nil)

    case .throttled(let data, let contentType, let bytesPerSecond):
      sendRanged(
        data, contentType: contentType, request: request, bytesPerSecond: max(1, bytesPerSecond))

    case .cutOff(let data, let contentType, let after):
      let fields = [("Content-Type", contentType), ("Content-Length", "\(data.count)")]
      guard sendResponseHead(status: 200, headers: fields) else { return }
      let count = min(max(0, after), data.count)
      if !isHead, count > 0 {
        guard sendAll(data.prefix(count)) else { return }
      }
      finishGracefully()

    case .reset(let afterBytes, let data, let contentType):
      let fields = [("Content-Type", contentType), ("Content-Length", "\(data.count)")]
      guard sendResponseHead(status: 200, headers: fields) else { return }
      let count = min(max(0, afterBytes), data.count)
      if !isHead, count > 0 {
        guard sendAll(data.prefix(count)) else { return }
      }
      abortWithReset()

    case .hang:
      holdUntilStopOrClientCloses()

    case .redirect(let status, let location):
      let fields = [("Location", location), ("Content-Length", "0")]
      guard sendResponseHead(status: status, headers: fields) else { return }
      finishGracefully()
    }
  }

  private func sendRanged(_ data: Data, contentType: String, request: Request, bytesPerSecond: Int?)
  {
    let total = data.count
    var fields: [(String, String)] = [("Content-Type", contentType), ("Accept-Ranges", "bytes")]
    let status: Int
    let range: Range<Int>
    switch Self.resolveRange(request.headers["range"], total: total) {
    case .whole:
      status = 200
      range = 0..<total
    case .partial(let lower, let upper):
      status = 206
      range = lower..<(upper + 1)
      fields.append(("Content-Range", "bytes \(lower)-\(upper)/\(total)"))
    case .unsatisfiable:
      fields = [
        ("Content-Type", "text/plain; charset=utf-8"), ("Accept-Ranges", "bytes"),
        ("Content-Range", "bytes */\(total)"), ("Content-Length", "0"),
      ]
      if sendResponseHead(status: 416, headers: fields) { finishGracefully() }
      return
    }
    fields.append(("Content-Length", "\(range.count)"))
    guard sendResponseHead(status: status, headers: fields) else { return }
    if request.method == "HEAD" || range.isEmpty {
      finishGracefully()
      return
    }
    let start = data.startIndex
    let body = data[(start + range.lowerBound)..<(start + range.upperBound)]
    if let rate = bytesPerSecond {
      // Chunks of ~1/20 s worth of data; chunk k leaves at k*chunk/rate.
      let chunkSize = max(1, min(rate / 20, 16_384))
      let began = monotonicNs()
      var sent = 0
      while sent < body.count {
        let due = began + UInt64(Double(sent) / Double(rate) * 1e9)
        let now = monotonicNs()
        if due > now {
          guard pause(ms: Int((due - now + 999_999) / 1_000_000)) else { return }
        }
        let size = min(chunkSize, body.count - sent)
        let from = body.startIndex + sent
        guard sendAll(body[from..<(from + size)]) else { return }
        sent += size
      }
    } else {
      guard sendAll(body) else { return }
    }
    finishGracefully()
  }

  enum RangeResolution: Equatable {
    case whole
    case partial(Int, Int)
    case unsatisfiable
  }

  /// Interprets a `Range` header against a body of `total` bytes.
  static func resolveRange(_ header: String?, total: Int) -> RangeResolution {
    guard let header else { return .whole }
    let trimmed = header.trimmingCharacters(in: .whitespaces)
    guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
    let spec = trimmed.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
    guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
    let first = String(spec[..<dash]).trimmingCharacters(in: .whitespaces)
    let last = String(spec[spec.index(after: dash)...]).trimmingCharacters(in: .whitespaces)
    func number(_ text: String) -> Int? {
      guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
      return Int(text) ?? Int.max
    }
    if first.isEmpty {
      // Suffix range: the last N bytes.
      guard let suffix = number(last) else { return .whole }
      guard suffix > 0, total > 0 else { return .unsatisfiable }
      return .partial(max(0, total - suffix), total - 1)
    }
    guard let lower = number(first) else { return .whole }
    if last.isEmpty {
      return lower < total ? .partial(lower, total - 1) : .unsatisfiable
    }
    guard let upper = number(last), upper >= lower else { return .whole }
    guard lower < total else { return .unsatisfiable }
    return .partial(lower, min(upper, total - 1))
  }

  // MARK: Closing

  /// Half-closes, lets the client read everything and close its side
  /// (briefly), then closes. Avoids a RST that could destroy the response.
  private func finishGracefully() {
    guard !closed else { return }
    shutdown(fd, Int32(SHUT_WR))
    let deadline = monotonicMs() + 1_000
    var scratch = [UInt8](repeating: 0, count: 16_384)
    while true {
      let remaining = deadline - monotonicMs()
      if remaining <= 0 { break }
      guard wait(for: Int32(POLLIN), timeoutMs: remaining) == .ready else { break }
      let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count == 0 { break }
      if count < 0, errno != EINTR, errno != EAGAIN, errno != EWOULDBLOCK { break }
    }
    closed = true
    close(fd)
  }

  /// Waits (up to 2 s) for the client to acknowledge all sent data, then
  /// closes with SO_LINGER 0 so the kernel sends RST.
  private func abortWithReset() {
    guard !closed else { return }
    let deadline = monotonicMs() + 2_000
    while monotonicMs() < deadline {
      var unacknowledged: Int32 = 0
      // SIOCOUTQ (== TIOCOUTQ): bytes in the send queue not yet acknowledged.
      if ioctl(fd, UInt(TIOCOUTQ), &unacknowledged) != 0 || unacknowledged == 0 { break }
      guard pause(ms: 2) else { break }
    }
    // Give the client a moment to read what arrived before the RST.
    _ = pause(ms: 20)
    var lingerOption = linger(l_onoff: 1, l_linger: 0)
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lingerOption, socklen_t(MemoryLayout<linger>.size))
    closed = true
    close(fd)
  }

  private func holdUntilStopOrClientCloses() {
    var scratch = [UInt8](repeating: 0, count: 16_384)
    while true {
      guard wait(for: Int32(POLLIN)) == .ready else { return }
      let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count == 0 { return }
      if count < 0, errno != EINTR, errno != EAGAIN, errno != EWOULDBLOCK { return }
    }
  }

  static func reasonPhrase(_ status: Int) -> String {
    switch status {
    case 100: return "Continue"
    case 200: return "OK"
    case 201: return "Created"
    case 202: return "Accepted"
    case 204: return "No Content"
    case 206: return "Partial Content"
    case 301: return "Moved Permanently"
    case 302: return "Found"
    case 303: return "See Other"
    case 304: return "Not Modified"
    case 307: return "Temporary Redirect"
    case 308: return "Permanent Redirect"
    case 400: return "Bad Request"
    case 401: return "Unauthorized"
    case 403: return "Forbidden"
    case 404: return "Not Found"
    case 405: return "Method Not Allowed"
    case 406: return "Not Acceptable"
    case 408: return "Request Timeout"
    case 410: return "Gone"
    case 411: return "Length Required"
    case 413: return "Content Too Large"
    case 415: return "Unsupported Media Type"
    case 416: return "Range Not Satisfiable"
    case 429: return "Too Many Requests"
    case 500: return "Internal Server Error"
    case 501: return "Not Implemented"
    case 502: return "Bad Gateway"
    case 503: return "Service Unavailable"
    case 504: return "Gateway Timeout"
    default:
      switch status {
      case 100..<200: return "Informational"
      case 200..<300: return "Success"
      case 300..<400: return "Redirection"
      case 400..<500: return "Client Error"
      default: return "Server Error"
      }
    }
  }
}

// MARK: - Clock

private func monotonicNs() -> UInt64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

private func monotonicMs() -> Int {
  Int(monotonicNs() / 1_000_000)
}
