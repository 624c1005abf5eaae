import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One audio file found by a walk: where, its stamp, and the files beside it that matter.
struct FoundFile {
  var path: String
  var stamp: FileStamp
  var coverPath: String?
  var lrcPath: String?
}

/// Walks folders for audio files, following links to folders but never into a loop, and
/// saying what it could not read instead of stopping.
struct FolderWalk {
  /// File endings of the audio Riffle plays (the bytes decide later; this only skips the rest).
  static let audioExtensions: Set<String> = [
    "mp3", "m4a", "m4b", "mp4", "aac", "flac", "ogg", "oga", "opus", "wav",
  ]
  /// Pictures beside a song that serve as its cover, best first.
  static let coverNames = [
    "cover.jpg", "cover.jpeg", "cover.png", "folder.jpg", "folder.jpeg", "folder.png",
    "front.jpg", "front.jpeg", "front.png",
  ]

  /// Folders that could not be listed for a reason other than being gone: what the index holds
  /// under them is kept.
  private(set) var unreadableFolders: [String] = []
  private(set) var problems: [ScanIssue] = []
  private var visited: [DeviceInode: String] = [:]

  private struct DeviceInode: Hashable {
    var device: UInt64
    var inode: UInt64
  }

  /// Walks `root`, handing each folder's audio files to `found` (a folder at a time, by name).
  /// False when the root itself is missing.
  mutating func walk(_ root: String, _ found: ([FoundFile]) throws -> Void) rethrows -> Bool {
    var info = stat()
    guard stat(root, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
      problems.append(ScanIssue(path: root, message: "folder not found; its songs are kept"))
      unreadableFolders.append(root)
      return false
    }
    var pending = [root]
    visited[DeviceInode(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))] = root
    while let folder = pending.popLast() {
      let (files, folders) = list(folder)
      try found(files)
      // Reversed so folders are walked in name order.
      pending.append(contentsOf: folders.reversed())
    }
    return true
  }

  /// The audio files and subfolders of one folder, by name.
  private mutating func list(_ folder: String) -> (files: [FoundFile], folders: [String]) {
    guard let directory = opendir(folder) else {
      let code = errno
      if code == ENOENT || code == ENOTDIR {
        problems.append(ScanIssue(path: folder, message: "folder vanished during the scan"))
      } else {
        problems.append(
          ScanIssue(path: folder, message: "cannot read folder: \(Self.describe(code))"))
        unreadableFolders.append(folder)
      }
      return ([], [])
    }
    defer { closedir(directory) }
    let descriptor = dirfd(directory)
    var names: [(name: String, type: UInt8)] = []
    while let entry = readdir(directory) {
      let name = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
      }
      if name.hasPrefix(".") { continue }
      names.append((name, entry.pointee.d_type))
    }
    names.sort { $0.name < $1.name }
    let lowered = Set(names.map { $0.name.lowercased() })
    let cover = Self.coverNames.first { lowered.contains($0) }.flatMap { wanted in
      names.first { $0.name.lowercased() == wanted }.map { folder + "/" + $0.name }
    }
    let prefix = folder.hasSuffix("/") ? folder : folder + "/"
    var files: [FoundFile] = []
    var folders: [String] = []
    for (name, type) in names {
      let path = prefix + name
      let isAudio = Self.audioExtensions.contains(Self.fileExtension(name))
      if type == UInt8(DT_REG) && !isAudio { continue }
      if type != UInt8(DT_REG) && type != UInt8(DT_DIR) && type != UInt8(DT_LNK)
        && type != UInt8(DT_UNKNOWN)
      {
        continue
      }
      var info = stat()
      // Follows links: a link to a folder is walked, a link to a song is a song.
      guard fstatat(descriptor, name, &info, 0) == 0 else {
        let code = errno
        if type == UInt8(DT_LNK) && (code == ENOENT || code == ELOOP) {
          if isAudio || code == ELOOP {
            problems.append(
              ScanIssue(
                path: path,
                message: code == ELOOP ? "symbolic link loop" : "broken symbolic link"))
          }
        } else if isAudio || type == UInt8(DT_DIR) {
          problems.append(
            ScanIssue(
              path: path,
              message: code == ENOENT
                ? "vanished during the scan" : "cannot read: \(Self.describe(code))"))
        }
        continue
      }
      switch info.st_mode & S_IFMT {
      case S_IFDIR:
        let key = DeviceInode(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        if let first = visited[key] {
          problems.append(
            ScanIssue(
              path: path,
              message: type == UInt8(DT_LNK) && (first == folder || path.hasPrefix(first + "/"))
                ? "symbolic link loop (leads back to \(first)); skipped"
                : "already scanned as \(first); skipped"))
          continue
        }
        visited[key] = path
        folders.append(path)
      case S_IFREG where isAudio:
        let stamp = FileStamp(
          size: Int64(info.st_size),
          mtime: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
        let base = (name as NSString).deletingPathExtension.lowercased()
        let lrc =
          lowered.contains(base + ".lrc")
          ? names.first { $0.name.lowercased() == base + ".lrc" }
            .map { prefix + $0.name } : nil
        files.append(FoundFile(path: path, stamp: stamp, coverPath: cover, lrcPath: lrc))
      default:
        continue
      }
    }
    return (files, folders)
  }

  static func fileExtension(_ name: String) -> String {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
    return name[name.index(after: dot)...].lowercased()
  }

  static func describe(_ code: Int32) -> String {
    String(cString: strerror(code)).lowercased()
  }
}
