import Foundation

/// MP3 files with SYLT frames (synced lyrics in ID3v2), made at test time by real tools:
/// ffmpeg encodes a tone and writes the usual tags, then mutagen (python3-mutagen, Debian's
/// package) adds the frames. Neither ffmpeg nor mutagen's command-line tools write SYLT, so a
/// few lines of Python call mutagen's `SYLT` frame class.
public enum SyncedLyricsFixture {
  /// One SYLT frame to write.
  public struct Frame: Sendable {
    /// (text, time) pairs in the order the frame lists them.
    public var lines: [(String, Int)]
    /// ID3 text encoding: 0 Latin-1, 1 UTF-16 with BOM, 2 UTF-16BE, 3 UTF-8.
    public var encoding: Int
    /// Time stamp format: 2 milliseconds, 1 MPEG frames.
    public var format: Int
    /// Content type: 1 lyrics, 2 text transcription, ...
    public var type: Int
    /// Frames of one tag need distinct descriptions (with the language, their key).
    public var description: String

    public init(
      lines: [(String, Int)], encoding: Int = 3, format: Int = 2, type: Int = 1,
      description: String = ""
    ) {
      self.lines = lines
      self.encoding = encoding
      self.format = format
      self.type = type
      self.description = description
    }
  }

  /// Adds the frames (and an USLT frame with `unsynced`, when given) to the ID3v2 tag of the
  /// MP3 at `path`.
  public static func add(_ frames: [Frame], unsynced: String? = nil, to path: String) throws {
    let spec: [String: Any] = [
      "frames": frames.map { frame in
        [
          "lines": frame.lines.map { [$0.0, $0.1] as [Any] }, "encoding": frame.encoding,
          "format": frame.format, "type": frame.type, "desc": frame.description,
        ] as [String: Any]
      },
      "uslt": unsynced as Any? ?? NSNull(),
    ]
    // A file, not an argument: a huge frame's lines would pass the limit on arguments.
    let specFile = URL(fileURLWithPath: path + ".sylt.json")
    try JSONSerialization.data(withJSONObject: spec).write(to: specFile)
    defer { try? FileManager.default.removeItem(at: specFile) }
    let result = try runProgram("/usr/bin/python3", ["-c", script, path, specFile.path])
    guard result.status == 0 else {
      throw FixtureFailure(
        "mutagen could not add SYLT (scripts/setup-debian.sh installs python3-mutagen): "
          + result.stderr)
    }
  }

  /// Encodes `seconds` of a tone as an MP3 at `path` with `tags` (ffmpeg), then adds `frames`.
  public static func writeMP3(
    _ path: String, seconds: Double, tags: [String: String], frames: [Frame],
    unsynced: String? = nil
  ) throws {
    var arguments = [
      "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
      "sine=frequency=440:duration=\(seconds):sample_rate=44100", "-ac", "2", "-c:a",
      "libmp3lame", "-b:a", "64k", "-id3v2_version", "4",
    ]
    for (key, value) in tags.sorted(by: { $0.key < $1.key }) {
      arguments += ["-metadata", "\(key)=\(value)"]
    }
    let result = try runProgram("/usr/bin/ffmpeg", arguments + [path])
    guard result.status == 0 else { throw FixtureFailure("ffmpeg: " + result.stderr) }
    try add(frames, unsynced: unsynced, to: path)
  }

  private static let script = """
    import json, sys
    from mutagen.id3 import ID3, ID3NoHeaderError, SYLT, USLT
    path = sys.argv[1]
    with open(sys.argv[2], encoding="utf-8") as spec_file:
        spec = json.load(spec_file)
    try:
        tags = ID3(path)
    except ID3NoHeaderError:
        tags = ID3()
    for f in spec["frames"]:
        tags.add(SYLT(encoding=f["encoding"], lang="eng", format=f["format"], type=f["type"],
                      desc=f["desc"], text=[(t, ms) for t, ms in f["lines"]]))
    if spec["uslt"] is not None:
        tags.add(USLT(encoding=3, lang="eng", desc="", text=spec["uslt"]))
    tags.save(path, v2_version=4)
    """

  struct FixtureFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }
}
