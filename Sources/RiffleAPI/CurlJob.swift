import CCurl
import Foundation

/// One libcurl easy transfer (http or https): set up by `start`, driven by `TransferLoop`, ended
/// by `finish`. Everything here runs on the loop's thread.
final class CurlJob: @unchecked Sendable {
  let client: HTTPClient
  let request: HTTPRequest
  let handlers: StreamHandlers
  let transfer: Transfer

  /// libcurl's functions, set by `start`.
  private var library: UnsafePointer<RiffleCurl>?
  private var handle: UnsafeMutableRawPointer?
  private var headerList: UnsafeMutablePointer<curl_slist>?
  private var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
  private var body: Data
  private var responded = false
  private var errorStatus: Int?
  private var retryAfter: Int?
  private var excerpt = Data()
  private var received = 0
  private var failure: HTTPError?
  private var stoppedByHandler = false
  private var finished = false
  /// The kept headers (`HTTPResponse.keptNames`) of the response being received (reset by each
  /// status line, so a redirect's are not kept).
  private var keptHeaders: [String: String] = [:]

  init(client: HTTPClient, request: HTTPRequest, handlers: StreamHandlers, transfer: Transfer) {
    self.client = client
    self.request = request
    self.handlers = handlers
    self.transfer = transfer
    self.body = request.body ?? Data()
  }

  /// True once a batched stream (`HTTPRequest.batchDelay`) is past its start: its connection,
  /// its headers and its first bytes (a station's burst) come at once, the rest in batches.
  var isBatching: Bool {
    request.batchDelay > 0 && responded && received >= TransferLoop.batchAfterBytes
      && request.canBatch?() ?? true
  }

  /// Makes the easy handle with libcurl's functions `c`; nil when the job ended at once.
  func start(_ library: UnsafePointer<RiffleCurl>) -> UnsafeMutableRawPointer? {
    self.library = library
    let c = library.pointee
    guard let curl = c.curl_easy_init() else {
      complete(.transport("cannot start a transfer"))
      return nil
    }
    handle = curl
    let me = Unmanaged.passUnretained(self).toOpaque()
    riffle_curl_setopt_string(library, curl, CURLOPT_URL, request.url.absoluteString)
    riffle_curl_setopt_string(library, curl, CURLOPT_PROTOCOLS_STR, "http,https")
    riffle_curl_setopt_string(library, curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
    riffle_curl_setopt_long(library, curl, CURLOPT_FOLLOWLOCATION, 1)
    riffle_curl_setopt_long(library, curl, CURLOPT_MAXREDIRS, 5)
    riffle_curl_setopt_long(library, curl, CURLOPT_NOSIGNAL, 1)
    riffle_curl_setopt_long(library, curl, CURLOPT_SSL_VERIFYPEER, 1)
    riffle_curl_setopt_long(library, curl, CURLOPT_SSL_VERIFYHOST, 2)
    riffle_curl_setopt_string(library, curl, CURLOPT_USERAGENT, client.userAgent)
    // "": every encoding curl decodes.
    riffle_curl_setopt_string(library, curl, CURLOPT_ACCEPT_ENCODING, "")
    riffle_curl_setopt_long(library, curl, CURLOPT_CONNECTTIMEOUT, client.connectTimeout)
    // A stall timeout rather than a total one: under 1 byte/s for stallTimeout seconds fails.
    riffle_curl_setopt_long(library, curl, CURLOPT_LOW_SPEED_LIMIT, 1)
    riffle_curl_setopt_long(library, curl, CURLOPT_LOW_SPEED_TIME, client.stallTimeout)
    errorBuffer.withUnsafeMutableBufferPointer {
      _ = riffle_curl_setopt_pointer(library, curl, CURLOPT_ERRORBUFFER, $0.baseAddress)
    }
    riffle_curl_setopt_data_cb(library, curl, CURLOPT_WRITEFUNCTION, CurlJob.writeCallback)
    riffle_curl_setopt_pointer(library, curl, CURLOPT_WRITEDATA, me)
    riffle_curl_setopt_data_cb(library, curl, CURLOPT_HEADERFUNCTION, CurlJob.headerCallback)
    riffle_curl_setopt_pointer(library, curl, CURLOPT_HEADERDATA, me)
    riffle_curl_setopt_long(library, curl, CURLOPT_NOPROGRESS, 0)
    riffle_curl_setopt_xferinfo_cb(library, curl, CurlJob.progressCallback)
    riffle_curl_setopt_pointer(library, curl, CURLOPT_XFERINFODATA, me)
    riffle_curl_setopt_pointer(library, curl, CURLOPT_PRIVATE, me)
    if request.offset > 0 {
      riffle_curl_setopt_off(library, curl, CURLOPT_RESUME_FROM_LARGE, curl_off_t(request.offset))
    }
    for (name, value) in request.headers {
      headerList = c.curl_slist_append(headerList, "\(name): \(value)")
    }
    if let list = headerList { riffle_curl_setopt_pointer(library, curl, CURLOPT_HTTPHEADER, list) }

    let method = request.method.uppercased()
    switch method {
    case "GET": break
    case "HEAD": riffle_curl_setopt_long(library, curl, CURLOPT_NOBODY, 1)
    case "POST": riffle_curl_setopt_long(library, curl, CURLOPT_POST, 1)
    default: riffle_curl_setopt_string(library, curl, CURLOPT_CUSTOMREQUEST, method)
    }
    if method != "GET" && method != "HEAD" {
      // The body lives in this job until curl is done with the handle.
      riffle_curl_setopt_off(library, curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
      body.withUnsafeMutableBytes {
        _ = riffle_curl_setopt_pointer(library, curl, CURLOPT_COPYPOSTFIELDS, $0.baseAddress)
      }
    }
    // The loop keeps the job alive until finish().
    _ = Unmanaged.passRetained(self)
    return curl
  }

  /// Why the job cannot be started at all (a scheme other than http and https), if it cannot:
  /// the loop then refuses it without loading libcurl.
  var refusal: HTTPError? {
    let scheme = request.url.scheme?.lowercased()
    return scheme == "http" || scheme == "https"
      ? nil : .unsupportedURL(request.url.absoluteString)
  }

  /// Ends the transfer before it started, with `error`.
  func refuse(_ error: HTTPError) {
    complete(error)
  }

  /// Ends the transfer with curl's result and frees the handle.
  func finish(_ code: CURLcode) {
    defer {
      if let handle { library?.pointee.curl_easy_cleanup(handle) }
      library?.pointee.curl_slist_free_all(headerList)
      handle = nil
      headerList = nil
      Unmanaged.passUnretained(self).release()
    }
    if !responded { startResponse() }
    let host = request.url.displayHost
    if let failure {
      complete(failure)
    } else if let status = errorStatus {
      complete(
        .status(
          status, host: host, excerpt: String(decoding: excerpt, as: UTF8.self),
          retryAfter: retryAfter))
    } else if code == CURLE_OK {
      complete(nil)
    } else if transfer.isCancelled || stoppedByHandler {
      complete(.cancelled)
    } else {
      let detail = String(
        decoding: errorBuffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) },
        as: UTF8.self)
      complete(Self.map(code, host: host, detail: detail, library: library))
    }
  }

  private func complete(_ error: HTTPError?) {
    guard !finished else { return }
    finished = true
    handlers.onComplete(error)
  }

  /// Called once the headers are in: reports status and length, and decides on error statuses.
  private func startResponse() {
    responded = true
    guard let library, let curl = handle else { return }
    var status = 0
    riffle_curl_getinfo_long(library, curl, CURLINFO_RESPONSE_CODE, &status)
    var typePointer: UnsafeMutablePointer<CChar>? = nil
    riffle_curl_getinfo_string(library, curl, CURLINFO_CONTENT_TYPE, &typePointer)
    let contentType = typePointer.map { String(cString: $0) }  // copied: it lives in the handle
    var length: curl_off_t = -1
    riffle_curl_getinfo_off(library, curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
    if status == 0 { return }
    if status >= 400 {
      errorStatus = status
      var after: curl_off_t = -1
      riffle_curl_getinfo_off(library, curl, CURLINFO_RETRY_AFTER, &after)
      if after > 0 { retryAfter = Int(after) }
      return
    }
    if length > request.maxBytes {
      failure = .tooLarge(limit: request.maxBytes)
      return
    }
    handlers.onHeaders(keptHeaders)
    handlers.onResponse(status, contentType, length >= 0 ? Int64(length) : nil)
  }

  /// Takes one header line; keeps only the headers named in `HTTPResponse.keptNames`.
  private func header(_ line: UnsafeRawBufferPointer) -> Int {
    let text = String(decoding: line.prefix(2048), as: UTF8.self)
    if text.hasPrefix("HTTP/") {
      keptHeaders = [:]
    } else if let colon = text.firstIndex(of: ":") {
      let name = text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
      if HTTPResponse.keptNames.contains(name) {
        keptHeaders[name] = text[text.index(after: colon)...]
          .trimmingCharacters(in: .whitespacesAndNewlines)
      }
    }
    return line.count
  }

  private static let headerCallback: riffle_curl_data_cb = { data, size, count, context in
    guard let data, let context else { return 0 }
    let job = Unmanaged<CurlJob>.fromOpaque(context).takeUnretainedValue()
    return job.header(UnsafeRawBufferPointer(start: data, count: size * count))
  }

  /// Takes a chunk from curl; returning anything but the chunk's size aborts the transfer.
  private func receive(_ chunk: UnsafeRawBufferPointer) -> Int {
    if !responded { startResponse() }
    if transfer.isCancelled || failure != nil { return 0 }
    if errorStatus != nil {
      // Keep the start of an error body for the message, then stop.
      excerpt.append(contentsOf: chunk.prefix(512 - excerpt.count))
      return excerpt.count >= 512 ? 0 : chunk.count
    }
    received += chunk.count
    if received > request.maxBytes {
      failure = .tooLarge(limit: request.maxBytes)
      return 0
    }
    if !handlers.onData(Data(chunk)) {
      stoppedByHandler = true
      return 0
    }
    return chunk.count
  }

  private static let writeCallback: riffle_curl_data_cb = { data, size, count, context in
    guard let data, let context else { return 0 }
    let job = Unmanaged<CurlJob>.fromOpaque(context).takeUnretainedValue()
    return job.receive(UnsafeRawBufferPointer(start: data, count: size * count))
  }

  private static let progressCallback: riffle_curl_xferinfo_cb = { context, _, _, _, _ in
    guard let context else { return 0 }
    let job = Unmanaged<CurlJob>.fromOpaque(context).takeUnretainedValue()
    return job.transfer.isCancelled ? 1 : 0
  }

  static func map(
    _ code: CURLcode, host: String, detail: String, library: UnsafePointer<RiffleCurl>?
  ) -> HTTPError {
    switch code {
    case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_PROXY:
      return .noConnection(host: host)
    case CURLE_OPERATION_TIMEDOUT: return .timeout(host: host)
    case CURLE_TOO_MANY_REDIRECTS: return .tooManyRedirects(host: host)
    case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_SEND_ERROR:
      return .connectionLost(host: host)
    case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
      return .unsupportedURL(host)
    default:
      let text =
        detail.isEmpty
        ? library?.pointee.curl_easy_strerror(code).map { String(cString: $0) }
          ?? "curl error \(code.rawValue)"
        : detail
      return .transport(text)
    }
  }
}
