import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writes files so that a crash or kill at any moment leaves either the old or the new file,
/// never a half one: write a temporary file beside it, fsync, rename over, fsync the folder.
public enum AtomicFile {
  /// `mode`: the new file's permissions (0600 for a file holding a password).
  public static func write(_ data: Data, to url: URL, mode: mode_t = 0o644) throws {
    let folder = url.deletingLastPathComponent()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let temp = folder.appendingPathComponent(
      temporaryName(for: url.lastPathComponent, pid: getpid()))
    let fd = open(temp.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard fd >= 0 else { throw POSIXError.current("create \(temp.path)") }
    var ok = true
    data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 {
          if errno == EINTR { continue }
          ok = false
          return
        }
        offset += n
      }
    }
    if ok && fsync(fd) != 0 { ok = false }
    let error = POSIXError.current("write \(temp.path)")
    close(fd)
    guard ok else {
      unlink(temp.path)
      throw error
    }
    guard rename(temp.path, url.path) == 0 else {
      let error = POSIXError.current("rename to \(url.path)")
      unlink(temp.path)
      throw error
    }
    let dir = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if dir >= 0 {
      fsync(dir)
      close(dir)
    }
  }
}

extension AtomicFile {
  static func temporaryName(for name: String, pid: pid_t) -> String { ".\(name).\(pid).tmp" }

  /// Removes temporary files a killed writer left in `folder`: those of processes no longer
  /// running. Without this every crash mid-write would leave a hidden file behind for good.
  /// Returns how many were removed.
  @discardableResult
  public static func removeStaleTemporaries(in folder: URL) -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    var removed = 0
    for name in names where name.hasPrefix(".") && name.hasSuffix(".tmp") {
      let parts = name.dropLast(4).split(separator: ".")
      guard let last = parts.last, let pid = pid_t(last), pid != getpid() else { continue }
      // kill(pid, 0) fails with ESRCH only when no such process exists.
      guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
      if unlink(folder.appendingPathComponent(name).path) == 0 { removed += 1 }
    }
    return removed
  }
}

/// An errno with what was being done when it happened.
public struct POSIXError: Error, CustomStringConvertible, Sendable {
  public var code: Int32
  public var operation: String

  public static func current(_ operation: String) -> POSIXError {
    POSIXError(code: errno, operation: operation)
  }

  public var description: String {
    "\(operation): \(String(cString: strerror(code)))"
  }
}
