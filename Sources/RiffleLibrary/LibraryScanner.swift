import Foundation
import RiffleAudio

#if canImport(Glibc)
  import Glibc
#endif

/// A file or folder the scan could not take as it is: one line of the report.
public struct ScanIssue: Equatable, Sendable, CustomStringConvertible {
  public var path: String
  public var message: String

  public init(path: String, message: String) {
    self.path = path
    self.message = message
  }

  public var description: String { "\(path): \(message)" }
}

/// What a scan did.
public struct ScanReport: Equatable, Sendable {
  public var counts = LibraryCounts(songs: 0, albums: 0, artists: 0)
  /// Songs read for the first time, read again because they changed, dropped because gone.
  public var new = 0
  public var changed = 0
  public var removed = 0
  /// Files the index holds as unreadable (this scan's and earlier ones' still there).
  public var unreadable = 0
  /// Songs whose loudness was measured (no ReplayGain tags), and how long that took.
  public var loudnessMeasured = 0
  public var loudnessSeconds = 0.0
  /// Wall time of the whole scan, loudness included.
  public var seconds = 0.0
  /// What could not be read, and what was changed on the way in (cut titles, escapes).
  public var issues: [ScanIssue] = []

  public init() {}

  /// The summary line `riffle library scan` prints.
  public var summary: String {
    let time = String(format: "%.2f", seconds)
    func count(_ number: Int, _ noun: String) -> String {
      "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
    return
      "\(count(counts.songs, "song")), \(count(counts.albums, "album")), "
      + "\(count(counts.artists, "artist")): "
      + "\(new) new, \(changed) changed, \(removed) removed, \(unreadable) unreadable, \(time) s"
  }
}

/// Brings the index up to date with folders: only files whose size or modification time
/// changed are read again, files gone are dropped, and each batch of files is written in one
/// transaction, so a scan killed at any moment leaves the index as it was after some batch.
///
/// One scan at a time per index: a second Riffle waits for the first (a lock file beside the
/// index), then finds little left to do.
public final class LibraryScanner {
  public let index: LibraryIndex
  /// Files read between two commits.
  public var batchSize = 200
  /// Measure EBU R128 loudness of songs without ReplayGain tags (decodes each such song once).
  public var measuresLoudness = true
  /// Told after each batch is committed, with the songs read so far in this scan (new and
  /// changed), so a scan behind the screen can show its songs as they come.
  public var onBatch: ((Int) -> Void)?

  public init(index: LibraryIndex) {
    self.index = index
  }

  /// Scans `roots`. With `dropOutside`, songs under no root (a folder no longer in the
  /// library) are dropped as well. `waiting` is told when another scan holds the lock.
  public func scan(
    roots: [URL], dropOutside: Bool = false, waiting: (String) -> Void = { _ in }
  ) throws -> ScanReport {
    let started = DispatchTime.now()
    let lock = try ScanLock(path: index.url.path + ".lock", waiting: waiting)
    defer { lock.release() }

    var report = ScanReport()
    var stored = try index.storedFiles()
    var seen = Set<String>()
    var readNow = Set<String>()
    var walk = FolderWalk()
    var batch: [ScannedFile] = []
    var beside: [FoundFile] = []
    let rootPaths = roots.map { Self.clean($0.path) }

    func flush() throws {
      let wrote = !batch.isEmpty
      try index.write(batch)
      try index.updateBeside(beside)
      if wrote { onBatch?(report.new + report.changed) }
      batch.removeAll(keepingCapacity: true)
      beside.removeAll(keepingCapacity: true)
    }

    for root in rootPaths {
      _ = try walk.walk(root) { files in
        for file in files {
          guard seen.insert(file.path).inserted else { continue }
          let old = stored[file.path]
          if let old, old.stamp == file.stamp {
            if old.isSong && (old.coverPath != file.coverPath || old.lrcPath != file.lrcPath) {
              beside.append(file)
            }
            continue
          }
          let (scanned, notes) = try Self.read(file)
          report.issues += notes.map { ScanIssue(path: file.path, message: $0) }
          switch scanned.result {
          case .success:
            if old?.isSong == true { report.changed += 1 } else { report.new += 1 }
            readNow.insert(file.path)
          case .failure(let problem):
            if old?.isSong == true { report.removed += 1 }
            report.issues.append(ScanIssue(path: file.path, message: problem.message))
          }
          batch.append(scanned)
          if batch.count >= batchSize { try flush() }
        }
      }
    }
    try flush()
    report.issues.insert(contentsOf: walk.problems, at: 0)

    // What is gone: not seen under a root that was walked, and not under a folder that
    // could not be read (a drive not mounted, a folder without permission).
    let kept = walk.unreadableFolders.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
    let walked = rootPaths.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
    let gone = stored.keys.filter { path in
      guard !seen.contains(path), !kept.contains(where: { path.hasPrefix($0) }) else {
        return false
      }
      return dropOutside || walked.contains { path.hasPrefix($0) }
    }
    stored.removeAll()
    report.removed += try index.remove(gone.sorted())

    // The same song twice (same artist, album, disc, track and title): both are kept, and
    // said once, by the scan that read one of them.
    let groups = readNow.isEmpty ? [] : try index.duplicateGroups()
    for group in groups where group.contains(where: readNow.contains) {
      // The one known before goes first: the newcomer is the duplicate.
      let ordered = group.filter { !readNow.contains($0) } + group.filter(readNow.contains)
      for path in ordered.dropFirst() {
        report.issues.append(ScanIssue(path: path, message: "the same song as \(ordered[0])"))
      }
    }

    if measuresLoudness {
      let loudnessStarted = DispatchTime.now()
      report.loudnessMeasured = try measureLoudness()
      report.loudnessSeconds = Self.seconds(since: loudnessStarted)
    }
    report.counts = try index.counts()
    report.unreadable = try index.unreadableFiles().count
    report.seconds = Self.seconds(since: started)
    return report
  }

  /// Reads one file's tags; with notes on what was wrong in them (cut titles, escapes).
  /// Without FFmpeg no file can be read: that stops the scan rather than marking every file
  /// unreadable (which would keep them out until each changed).
  private static func read(_ file: FoundFile) throws(FileTagsError) -> (ScannedFile, [String]) {
    let result: Result<TrackInfo, ScanProblem>
    var notes: [String] = []
    do {
      let tags = try FileTags.read(path: file.path)
      let info: TrackInfo
      (info, notes) = TagMapping.info(
        from: tags, fileName: (file.path as NSString).lastPathComponent)
      result = .success(info)
    } catch .missingLibrary(let reason) {
      throw .missingLibrary(reason)
    } catch {
      result = .failure(ScanProblem(message: error.description))
    }
    let scanned = ScannedFile(
      path: file.path, stamp: file.stamp, result: result, coverPath: file.coverPath,
      lrcPath: file.lrcPath)
    return (scanned, notes)
  }

  /// Measures the songs that need it, committing every few songs; returns how many.
  private func measureLoudness() throws -> Int {
    var measured: [(path: String, loudness: Double?)] = []
    var count = 0
    for path in try index.pathsNeedingLoudness() {
      measured.append((path, try? Loudness.integrated(of: URL(fileURLWithPath: path))))
      count += 1
      if measured.count >= 20 {
        try index.setLoudness(measured)
        measured.removeAll()
      }
    }
    try index.setLoudness(measured)
    return count
  }

  /// A path without a trailing slash (except the root itself).
  static func clean(_ path: String) -> String {
    var path = path
    while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
    return path
  }

  static func seconds(since start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
  }
}

/// The lock that keeps two scans of one index apart: `flock` on a file beside it, released
/// by the kernel if the process dies.
struct ScanLock {
  private let descriptor: Int32

  init(path: String, waiting: (String) -> Void) throws {
    descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw ScanLockError(message: "cannot open \(path): \(FolderWalk.describe(errno))")
    }
    if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      waiting("another Riffle is scanning the library; waiting for it to finish")
      while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
    }
  }

  func release() {
    flock(descriptor, LOCK_UN)
    close(descriptor)
  }
}

struct ScanLockError: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}
