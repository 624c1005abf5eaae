import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Watches the library's folders (inotify) and reports the paths that changed, a burst at a
/// time: a file written, created, deleted or moved, a folder added or removed. Folders made
/// while watching are watched too. The player rescans on a report (a rescan with nothing
/// changed costs well under a second at 10,000 songs).
public final class LibraryWatcher: @unchecked Sendable {
  /// How long changes are gathered after the first before they are reported together (copying
  /// an album is a few reports, not one per file).
  public var settle: DispatchTimeInterval = .milliseconds(300)
  private let descriptor: Int32
  private let queue: DispatchQueue
  private let onChange: @Sendable ([String]) -> Void
  private var source: DispatchSourceRead?
  // Touched on `queue` only.
  private var folders: [Int32: String] = [:]
  private var pending: [String] = []
  private var reportScheduled = false
  private let roots: [String]

  private static let mask: UInt32 = UInt32(
    IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF
      | IN_MOVE_SELF | IN_ONLYDIR)

  /// Starts watching `roots` and everything under them; `onChange` runs on `queue`.
  public init(
    roots: [URL], queue: DispatchQueue = DispatchQueue(label: "riffle.library-watcher"),
    onChange: @escaping @Sendable ([String]) -> Void
  ) throws {
    descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    guard descriptor >= 0 else {
      throw ScanLockError(message: "cannot watch the library: \(FolderWalk.describe(errno))")
    }
    self.queue = queue
    self.onChange = onChange
    self.roots = roots.map { LibraryScanner.clean($0.path) }
    queue.sync {
      for root in self.roots { watchTree(root) }
    }
    let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
    source.setEventHandler { [weak self] in self?.readEvents() }
    let descriptor = self.descriptor
    source.setCancelHandler { close(descriptor) }
    self.source = source
    source.resume()
  }

  /// Stops watching (also done when the watcher goes away).
  public func stop() {
    source?.cancel()
    source = nil
  }

  deinit { stop() }

  /// Folders watched now (for tests).
  public var watchedFolders: Int { queue.sync { folders.count } }

  /// Watches `folder` and the folders under it (hidden ones aside), each once.
  private func watchTree(_ folder: String) {
    var pending = [folder]
    var seen = Set(folders.values)
    while let next = pending.popLast() {
      guard seen.insert(next).inserted else { continue }
      let watch = inotify_add_watch(descriptor, next, Self.mask)
      guard watch >= 0 else { continue }
      if let known = folders[watch], known != next {
        // The same folder reached by a link: watched once, under its first path.
        continue
      }
      folders[watch] = next
      guard let directory = opendir(next) else { continue }
      while let entry = readdir(directory) {
        let name = withUnsafePointer(to: entry.pointee.d_name) {
          $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
        }
        guard !name.hasPrefix("."),
          entry.pointee.d_type == UInt8(DT_DIR) || entry.pointee.d_type == UInt8(DT_LNK)
            || entry.pointee.d_type == UInt8(DT_UNKNOWN)
        else { continue }
        pending.append(next + "/" + name)
      }
      closedir(directory)
    }
  }

  private func readEvents() {
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count <= 0 { break }
      var offset = 0
      while offset + MemoryLayout<inotify_event>.size <= count {
        let (watch, mask, length) = buffer.withUnsafeBytes { bytes in
          let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
          return (event.wd, event.mask, Int(event.len))
        }
        let nameStart = offset + MemoryLayout<inotify_event>.size
        let nameBytes = buffer[nameStart..<min(count, nameStart + length)].prefix { $0 != 0 }
        let name = String(decoding: nameBytes, as: UTF8.self)
        offset = nameStart + length
        handle(watch: watch, mask: mask, name: name)
      }
    }
    scheduleReport()
  }

  private func handle(watch: Int32, mask: UInt32, name: String) {
    if mask & UInt32(IN_Q_OVERFLOW) != 0 {
      // Events were lost: anything may have changed.
      pending.append(contentsOf: roots)
      return
    }
    if mask & UInt32(IN_IGNORED) != 0 {
      folders[watch] = nil
      return
    }
    guard let folder = folders[watch] else { return }
    let path = name.isEmpty ? folder : folder + "/" + name
    if name.hasPrefix(".") { return }
    pending.append(path)
    if mask & UInt32(IN_ISDIR) != 0 && mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
      watchTree(path)
    }
  }

  private func scheduleReport() {
    guard !pending.isEmpty, !reportScheduled else { return }
    reportScheduled = true
    queue.asyncAfter(deadline: .now() + settle) { [weak self] in
      guard let self else { return }
      self.reportScheduled = false
      var seen = Set<String>()
      let paths = self.pending.filter { seen.insert($0).inserted }
      self.pending.removeAll()
      if !paths.isEmpty { self.onChange(paths) }
    }
  }
}
