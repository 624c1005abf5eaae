import CCurl
import Foundation

/// One libcurl easy transfer, run to its end on the calling thread.
final class CurlJob: @unchecked Sendable {
  let client: HTTPClient
  let request: HTTPRequest
  let handlers: StreamHandlers
  let transfer: Transfer

  // Touched only on the transfer's thread (inside curl callbacks and run()).
  private var handle: UnsafeMutableRawPointer?
  private var responded = false
  private var errorStatus: Int?
  private var excerpt = Data()
  private var received = 0
  private var failure: HTTPError?
  private var stoppedByHandler = false

  init(client: HTTPClient, request: HTTPRequest, handlers: StreamHandlers, transfer: Transfer) {
    self.client = client
    self.request = request
    self.handlers = handlers
    self.transfer = transfer
  }

  func run() {
    guard let scheme = request.url.scheme?.lowercased(), ["http", "https", "file"].contains(scheme)
    else {
      handlers.onComplete(.unsupportedURL(request.url.absoluteString))
      return
    }
    guard let curl = curl_easy_init() else {
      handlers.onComplete(.transport("cannot start a transfer"))
      return
    }
    handle = curl
    defer {
      curl_easy_cleanup(curl)
      handle = nil
    }
    var headerList: UnsafeMutablePointer<curl_slist>? = nil
    defer { curl_slist_free_all(headerList) }
    var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

    let me = Unmanaged.passUnretained(self).toOpaque()
    riffle_curl_setopt_string(curl, CURLOPT_URL, request.url.absoluteString)
    riffle_curl_setopt_string(curl, CURLOPT_PROTOCOLS_STR, "http,https,file")
    riffle_curl_setopt_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
    riffle_curl_setopt_long(curl, CURLOPT_FOLLOWLOCATION, 1)
    riffle_curl_setopt_long(curl, CURLOPT_MAXREDIRS, 5)
    riffle_curl_setopt_long(curl, CURLOPT_NOSIGNAL, 1)
    riffle_curl_setopt_long(curl, CURLOPT_SSL_VERIFYPEER, 1)
    riffle_curl_setopt_long(curl, CURLOPT_SSL_VERIFYHOST, 2)
    riffle_curl_setopt_string(curl, CURLOPT_USERAGENT, client.userAgent)
    riffle_curl_setopt_string(curl, CURLOPT_ACCEPT_ENCODING, "")  // every encoding curl decodes
    riffle_curl_setopt_long(curl, CURLOPT_CONNECTTIMEOUT, client.connectTimeout)
    // A stall timeout rather than a total one: under 1 byte/s for stallTimeout seconds fails.
    riffle_curl_setopt_long(curl, CURLOPT_LOW_SPEED_LIMIT, 1)
    riffle_curl_setopt_long(curl, CURLOPT_LOW_SPEED_TIME, client.stallTimeout)
    riffle_curl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, &errorBuffer)
    riffle_curl_setopt_data_cb(curl, CURLOPT_WRITEFUNCTION, CurlJob.writeCallback)
    riffle_curl_setopt_pointer(curl, CURLOPT_WRITEDATA, me)
    riffle_curl_setopt_long(curl, CURLOPT_NOPROGRESS, 0)
    riffle_curl_setopt_xferinfo_cb(curl, CurlJob.progressCallback)
    riffle_curl_setopt_pointer(curl, CURLOPT_XFERINFODATA, me)
    if request.offset > 0 {
      riffle_curl_setopt_off(curl, CURLOPT_RESUME_FROM_LARGE, curl_off_t(request.offset))
    }
    for (name, value) in request.headers {
      headerList = curl_slist_append(headerList, "\(name): \(value)")
    }
    if let list = headerList { riffle_curl_setopt_pointer(curl, CURLOPT_HTTPHEADER, list) }

    let method = request.method.uppercased()
    var body = request.body ?? Data()
    let code: CURLcode = body.withUnsafeMutableBytes { bytes in
      switch method {
      case "GET": break
      case "HEAD": riffle_curl_setopt_long(curl, CURLOPT_NOBODY, 1)
      case "POST":
        riffle_curl_setopt_long(curl, CURLOPT_POST, 1)
      default:
        riffle_curl_setopt_string(curl, CURLOPT_CUSTOMREQUEST, method)
      }
      if method != "GET" && method != "HEAD" {
        riffle_curl_setopt_off(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
        riffle_curl_setopt_pointer(curl, CURLOPT_POSTFIELDS, bytes.baseAddress)
      }
      return curl_easy_perform(curl)
    }

    if !responded { startResponse() }
    let host = request.url.displayHost
    if let failure {
      handlers.onComplete(failure)
    } else if let status = errorStatus {
      handlers.onComplete(
        .status(status, host: host, excerpt: String(decoding: excerpt, as: UTF8.self)))
    } else if code == CURLE_OK {
      handlers.onComplete(nil)
    } else if transfer.isCancelled || stoppedByHandler {
      handlers.onComplete(.cancelled)
    } else {
      let detail = String(
        decoding: errorBuffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) },
        as: UTF8.self)
      handlers.onComplete(Self.map(code, host: host, path: request.url.path, detail: detail))
    }
  }

  /// Called once the headers are in: reports status and length, and decides on error statuses.
  private func startResponse() {
    responded = true
    guard let curl = handle else { return }
    var status = 0
    riffle_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status)
    var typePointer: UnsafeMutablePointer<CChar>? = nil
    riffle_curl_getinfo_string(curl, CURLINFO_CONTENT_TYPE, &typePointer)
    let contentType = typePointer.map { String(cString: $0) }  // copied: it lives in the handle
    var length: curl_off_t = -1
    riffle_curl_getinfo_off(curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
    if request.url.isFileURL { status = 200 }
    if status >= 400 {
      errorStatus = status
      return
    }
    if length > request.maxBytes {
      failure = .tooLarge(limit: request.maxBytes)
      return
    }
    handlers.onResponse(status, contentType, length >= 0 ? Int64(length) : nil)
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

  static func map(_ code: CURLcode, host: String, path: String, detail: String) -> HTTPError {
    switch code {
    case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_PROXY:
      return .noConnection(host: host)
    case CURLE_OPERATION_TIMEDOUT: return .timeout(host: host)
    case CURLE_TOO_MANY_REDIRECTS: return .tooManyRedirects(host: host)
    case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_SEND_ERROR:
      return .connectionLost(host: host)
    case CURLE_FILE_COULDNT_READ_FILE, CURLE_READ_ERROR: return .fileUnreadable(path: path)
    case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
      return .unsupportedURL(host)
    default:
      let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
      return .transport(text)
    }
  }
}
