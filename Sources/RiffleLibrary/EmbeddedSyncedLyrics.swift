import CTagLyrics
import Foundation
import RiffleCore

/// Synced lyrics kept inside a song's ID3v2 tag (SYLT frames), read with TagLib.
///
/// FFmpeg reads every other tag at scan, but skips SYLT; TagLib parses it (its C++ API, behind
/// `CTagLyrics`). The frame is read when the lyrics view asks for a local song's lyrics, not at
/// scan: one file opened on a key press costs nothing a scan would notice, the index needs no
/// new column, and a song's SYLT is current even if its file changed since the last scan.
public enum EmbeddedSyncedLyrics {
  /// Most lines kept from one frame (a hostile tag may list millions).
  public static let mostLines = 5_000
  /// Longest line kept, in bytes before sanitizing (then 500 characters, as titles are).
  public static let longestLineBytes = 4_096

  /// What reading a file's SYLT gave.
  public enum Outcome: Equatable, Sendable {
    /// Timed lines with words in them.
    case synced(SyncedLyrics)
    /// No SYLT frame with millisecond times and words (none at all, an empty one, or one
    /// timed in MPEG frames only).
    case none(String)
    /// TagLib could not open or read the file.
    case unreadable
  }

  /// Reads the synced lyrics of the file at `path`. Each line goes through `TextSanitizer`
  /// (escape sequences and control characters removed) and is cut to 500 characters; the lines
  /// are put in time order whatever order the frame lists them in.
  public static func read(path: String) -> Outcome {
    // Only these carry ID3v2 as Riffle sees them; TagLib's MPEG reader, handed a FLAC or an
    // M4A, would look through the whole file for a tag before giving up.
    let ending = URL(fileURLWithPath: path).pathExtension.lowercased()
    guard ["mp3", "mp2", "wav"].contains(ending) else { return .none("no ID3v2 in .\(ending)") }
    var found = riffle_sylt()
    let status = riffle_sylt_read(path, mostLines, longestLineBytes, &found)
    defer { riffle_sylt_free(&found) }
    switch status {
    case RIFFLE_SYLT_FOUND: break
    case RIFFLE_SYLT_UNREADABLE: return .unreadable
    case RIFFLE_SYLT_MPEG_FRAMES: return .none("SYLT timed in MPEG frames")
    case RIFFLE_SYLT_EMPTY: return .none("empty SYLT frame")
    default: return .none("no SYLT frame")
    }
    var lines: [LyricLine] = []
    lines.reserveCapacity(found.count)
    for index in 0..<found.count {
      let line = found.lines[index]
      let raw = line.text.map { String(cString: $0) } ?? ""
      let text = TextSanitizer.sanitize(raw).trimmingCharacters(in: .whitespaces)
      lines.append(
        LyricLine(
          time: Double(line.milliseconds) / 1000,
          text: String(text.prefix(TagMapping.longestText))))
    }
    // A frame of blank lines only carries no words.
    guard lines.contains(where: { !$0.text.isEmpty }) else { return .none("empty SYLT frame") }
    return .synced(SyncedLyrics(lines))
  }
}
