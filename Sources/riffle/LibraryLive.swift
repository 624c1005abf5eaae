import Foundation
import RiffleCore
import RiffleLibrary

/// Keeps the library's index in step with its folders while the player runs: a scan behind
/// the screen at start (`riffle FOLDER`), then a rescan each time inotify reports a change
/// (`LibraryWatcher`). Each scan that found something tells the player
/// (`.libraryChanged`), which reads the pages of a library source again.
///
/// Scans run on one serial queue of their own, so two never overlap; the
/// index's own lock keeps them apart from another Riffle's.
final class LibraryLive: @unchecked Sendable {
  private let queue = DispatchQueue(label: "riffle.library.live")
  private let roots: [URL]
  private let post: @Sendable (PlayerAction) -> Void
  // Touched on `queue` only.
  private var watcher: LibraryWatcher?
  private var ownIndex: LibraryIndex?

  /// The scans' own connection to the index: the player's serialises its calls, and
  /// a keystroke's search must not wait behind a scan's reads and batches.
  private func scanIndex() -> LibraryIndex? {
    if let ownIndex { return ownIndex }
    do {
      ownIndex = try LibraryIndex()
    } catch {
      FileHandle.standardError.write(Data("library: \(error)\n".utf8))
    }
    return ownIndex
  }

  /// Starts following `roots`; with `scanAtStart`, scans them at once (its progress on the
  /// status line with `showingProgress`: a first scan, whose songs come as it goes).
  init(
    roots: [URL], scanAtStart: Bool, showingProgress: Bool,
    post: @escaping @Sendable (PlayerAction) -> Void
  ) {
    self.roots = roots
    self.post = post
    queue.async {
      if scanAtStart { self.scan(showingProgress: showingProgress) }
      self.watch()
    }
  }

  /// True when the index has no song under `folder` yet: its first scan is still to come.
  static func firstScan(of folder: URL, in index: LibraryIndex?) -> Bool {
    guard let index else { return false }
    return ((try? index.songs(.folder(folder.path), limit: 1)) ?? []).isEmpty
  }

  private func watch() {
    do {
      // The watcher reads events on a queue of its own; the scans stay on this one.
      let queue = self.queue
      watcher = try LibraryWatcher(roots: roots) { [weak self] _ in
        queue.async { [weak self] in self?.scan(showingProgress: false) }
      }
    } catch {
      FileHandle.standardError.write(Data("library: \(error)\n".utf8))
    }
  }

  private func scan(showingProgress: Bool) {
    guard let index = scanIndex() else { return }
    let scanner = LibraryScanner(index: index)
    // Loudness is `riffle library scan`'s: it decodes every song whole.
    scanner.measuresLoudness = false
    let post = self.post
    let named = roots.count == 1 ? TextSanitizer.sanitize(roots[0].lastPathComponent) : "music"
    if showingProgress {
      post(.libraryChanged(note: "Scanning \(named)\u{2026}"))
      scanner.onBatch = { found in
        post(.libraryChanged(note: "Scanning \(named)\u{2026} \(found) songs found"))
      }
    }
    do {
      let report = try scanner.scan(roots: roots)
      FileHandle.standardError.write(Data("library: \(report.summary)\n".utf8))
      for issue in report.issues {
        FileHandle.standardError.write(Data("library: \(issue)\n".utf8))
      }
      let changes = report.new + report.changed + report.removed
      guard showingProgress || changes > 0 else { return }
      post(.libraryChanged(note: Self.note(report, first: showingProgress)))
    } catch {
      post(.notify("The library could not be scanned: \(error)"))
    }
  }

  /// What the status line says once a scan is done.
  static func note(_ report: ScanReport, first: Bool) -> String {
    var parts: [String] = []
    if report.new > 0 { parts.append("\(report.new) new") }
    if report.changed > 0 { parts.append("\(report.changed) changed") }
    if report.removed > 0 { parts.append("\(report.removed) removed") }
    if report.unreadable > 0 { parts.append("\(report.unreadable) unreadable (see the log)") }
    let what = parts.isEmpty ? "up to date" : parts.joined(separator: ", ")
    return first ? "Scanned: \(report.counts.songs) songs, \(what)" : "Library: \(what)"
  }
}
