import Foundation
import RiffleAPI
import RiffleAudio
import RiffleCore
import RiffleDesktop
import RiffleFingerprint
import RiffleLibrary
import RiffleTUI

#if canImport(Glibc)
  import Glibc
#endif

/// `riffle --version`: Riffle's version, then each C library as loaded in this process: the
/// version it reports (or its package's, from the ELF package note some distributions add), and
/// the file it came from.
enum VersionReport {
  static func text() -> String {
    let libraries =
      NetworkLibraries.linked + AudioLibraries.linked + ScreenLibraries.linked
      + DesktopLibraries.linked + FingerprintLibraries.linked + LibraryLibraries.linked
    let rows = libraries.map { library -> (name: String, version: String, file: String) in
      let file = loadedFile(library.address)
      var version = library.version ?? file.flatMap(packageVersion) ?? "(no version call)"
      if let detail = library.detail { version += " (\(detail))" }
      return (library.name, version, file ?? "")
    }
    let nameWidth = rows.map(\.name.count).max() ?? 0
    let versionWidth = rows.map(\.version.count).max() ?? 0
    let lines = rows.map { row in
      "  " + row.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
        + row.version.padding(toLength: versionWidth, withPad: " ", startingAt: 0) + "  "
        + row.file
    }
    return (["riffle \(RiffleVersion.string)", "C libraries in use:"] + lines)
      .joined(separator: "\n")
  }

  /// The real path of the shared object mapped where `address` is, from the mappings read once
  /// from /proc/self/maps.
  static func loadedFile(_ address: UInt) -> String? {
    mappings.first { $0.range.contains(address) }?.path
  }

  /// The file-backed mappings of this process: address range and real path.
  private static let mappings: [(range: Range<UInt>, path: String)] = {
    // /proc files report a size of 0: read to the end rather than by size.
    guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps"),
      let data = try? handle.readToEnd()
    else { return [] }
    var realPaths: [Substring: String] = [:]
    return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
      // start-end perms offset dev inode path
      let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
      guard fields.count == 6 else { return nil }
      let path = fields[5].drop { $0 == " " }
      guard path.hasPrefix("/") else { return nil }
      let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
      guard bounds.count == 2, bounds[0] < bounds[1] else { return nil }
      if realPaths[path] == nil {
        realPaths[path] = URL(fileURLWithPath: String(path)).resolvingSymlinksInPath().path
      }
      return (bounds[0]..<bounds[1], realPaths[path]!)
    }
  }()

  /// The "version" of the FDO packaging note (`.note.package`) in an ELF file's PT_NOTE
  /// segments, as systemd and some distributions' packages carry.
  static func packageVersion(_ file: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: file) else { return nil }
    defer { try? handle.close() }
    func read(_ offset: UInt64, _ count: Int) -> [UInt8]? {
      guard (try? handle.seek(toOffset: offset)) != nil,
        let data = try? handle.read(upToCount: count), data.count == count
      else { return nil }
      return [UInt8](data)
    }
    // 64-bit little-endian ELF only (the platforms Riffle builds for).
    guard let header = read(0, 64), header[0..<4] == [0x7F, 0x45, 0x4C, 0x46], header[4] == 2,
      header[5] == 1
    else { return nil }
    let programHeaders = header.load64(32)
    let entrySize = Int(header.load16(54))
    let count = Int(header.load16(56))
    for index in 0..<count {
      guard let entry = read(programHeaders + UInt64(index * entrySize), 56),
        entry.load32(0) == 4  // PT_NOTE
      else { continue }
      let size = Int(entry.load64(32))
      guard size < 1 << 20, let notes = read(entry.load64(8), size),
        let json = fdoNote(notes)
      else { continue }
      let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
      return object?["version"] as? String
    }
    return nil
  }

  /// The JSON text of an FDO_PACKAGING_METADATA note (owner "FDO", type 0xcafe1a7e) among
  /// the notes of a segment.
  static func fdoNote(_ notes: [UInt8]) -> String? {
    var offset = 0
    func aligned(_ n: Int) -> Int { (n + 3) & ~3 }
    while offset + 12 <= notes.count {
      let nameSize = Int(notes.load32(offset))
      let descSize = Int(notes.load32(offset + 4))
      let type = notes.load32(offset + 8)
      let descStart = offset + 12 + aligned(nameSize)
      guard nameSize < notes.count, descSize < notes.count, descStart + descSize <= notes.count
      else { return nil }
      let name = notes[(offset + 12)..<(offset + 12 + nameSize)].prefix { $0 != 0 }
      if type == 0xcafe_1a7e && Array(name) == Array("FDO".utf8) {
        let desc = notes[descStart..<(descStart + descSize)].prefix { $0 != 0 }
        return String(decoding: desc, as: UTF8.self)
      }
      offset = descStart + aligned(descSize)
    }
    return nil
  }
}

extension [UInt8] {
  /// Little-endian integers at a byte offset.
  fileprivate func load16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
  fileprivate func load32(_ at: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(self[at + $1]) << (8 * $1) }
  }
  fileprivate func load64(_ at: Int) -> UInt64 {
    (0..<8).reduce(0) { $0 | UInt64(self[at + $1]) << (8 * $1) }
  }
}
