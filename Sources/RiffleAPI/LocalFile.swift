import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A local file opened for reading, by the rules every file:// read follows.
///
/// Shared by the client's file:// transfers (`FileJob`) and the playback engine, which reads a
/// local song (the bundled catalog, a cached copy) at its own pace instead of holding the whole
/// file in memory. Only a file on this machine is opened (`file:///path` or
/// `file://localhost/path`), and only a regular file: a named pipe or a device is refused at once
/// rather than waited on.
public final class LocalFile: @unchecked Sendable {
  /// The file's path.
  public let path: String
  /// Its size in bytes when it was opened.
  public let size: Int64
  private let descriptor: Int32

  /// Opens `url`; throws `.unsupportedURL` for another machine's file and `.fileUnreadable` for
  /// one that cannot be opened or is not a regular file.
  public init(url: URL) throws(HTTPError) {
    if let host = url.host, !host.isEmpty, host != "localhost" {
      throw .unsupportedURL(url.absoluteString)
    }
    path = url.path
    // O_NONBLOCK: opening a named pipe would otherwise wait for a writer. Regular files, the
    // only ones read on, ignore it.
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    var status = stat()
    guard descriptor >= 0, fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG
    else {
      if descriptor >= 0 { close(descriptor) }
      throw .fileUnreadable(path: path)
    }
    self.descriptor = descriptor
    size = Int64(status.st_size)
  }

  deinit {
    close(descriptor)
  }

  /// Reads up to `buffer.count` bytes from `offset`; 0 at the end of the file.
  public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(HTTPError)
    -> Int
  {
    while true {
      let count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
      if count >= 0 { return count }
      if errno != EINTR { throw .fileUnreadable(path: path) }
    }
  }

  /// Up to `count` bytes from `offset`; empty at the end of the file.
  public func read(at offset: Int64, count: Int) throws(HTTPError) -> Data {
    var data = Data(count: count)
    let read = data.withUnsafeMutableBytes { bytes in
      Result { () throws(HTTPError) -> Int in try self.read(at: offset, into: bytes) }
    }
    data.count = try read.get()
    return data
  }
}
