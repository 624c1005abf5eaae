import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One file:// transfer, read by the transfer loop's thread a chunk at a time.
///
/// Local files do not go through libcurl: loading it (and the 30 libraries it brings) only to
/// read a file cost 12 ms at start and 7 MB for a player that plays a local catalog. What curl
/// did for files, this does the same way: status 200, the length left to read, the tail from an
/// offset, the size limit, cancelling, and `.fileUnreadable` for a file that cannot be read.
final class FileJob: @unchecked Sendable {
  let request: HTTPRequest
  let handlers: StreamHandlers
  let transfer: Transfer

  /// How much one step reads: the loop serves every transfer in turn, a step each.
  static let chunkSize = 64 * 1024

  private var descriptor: Int32 = -1
  private var received = 0
  private var finished = false
  private var buffer = [UInt8](repeating: 0, count: FileJob.chunkSize)

  init(request: HTTPRequest, handlers: StreamHandlers, transfer: Transfer) {
    self.request = request
    self.handlers = handlers
    self.transfer = transfer
  }

  /// Opens the file and reports the response; false when the job ended at once.
  func start() -> Bool {
    let path = request.url.path
    if let host = request.url.host, !host.isEmpty, host != "localhost" {
      // file://server/share/x.mp3 names another machine's file.
      finish(.unsupportedURL(request.url.absoluteString))
      return false
    }
    // O_NONBLOCK: opening a named pipe would otherwise wait for a writer, and hold up every
    // transfer on the loop with it. Only regular files are read on, where it changes nothing.
    descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    var status = stat()
    guard descriptor >= 0, fstat(descriptor, &status) == 0,
      status.st_mode & S_IFMT == S_IFREG
    else {
      finish(.fileUnreadable(path: path))
      return false
    }
    let size = Int64(status.st_size)
    guard request.offset <= size else {
      finish(.transport("\(request.url.lastPathComponent) is shorter than the offset asked for"))
      return false
    }
    guard request.offset == 0 || lseek(descriptor, off_t(request.offset), SEEK_SET) >= 0 else {
      finish(.fileUnreadable(path: path))
      return false
    }
    let length = size - request.offset
    if length > request.maxBytes {
      finish(.tooLarge(limit: request.maxBytes))
      return false
    }
    handlers.onResponse(200, nil, length)
    if request.method.uppercased() == "HEAD" {
      finish(nil)
      return false
    }
    return true
  }

  /// Passes on the next chunk; false once the job has ended.
  func step() -> Bool {
    guard !finished else { return false }
    if transfer.isCancelled {
      finish(.cancelled)
      return false
    }
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    if count < 0 {
      if errno == EINTR { return true }
      finish(.fileUnreadable(path: request.url.path))
      return false
    }
    if count == 0 {
      finish(nil)
      return false
    }
    received += count
    if received > request.maxBytes {
      finish(.tooLarge(limit: request.maxBytes))
      return false
    }
    if !handlers.onData(Data(buffer[0..<count])) {
      finish(.cancelled)
      return false
    }
    return true
  }

  private func finish(_ error: HTTPError?) {
    guard !finished else { return }
    finished = true
    if descriptor >= 0 {
      close(descriptor)
      descriptor = -1
    }
    handlers.onComplete(error)
  }
}
