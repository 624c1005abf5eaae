import Foundation

/// Real audio files with real tags, written by the `ffmpeg` program (a sine tone of a few
/// seconds), for the library's tests: each format the player plays, as its usual tools tag it.
public enum AudioEncoder {
  /// A format and the ffmpeg options that write it.
  public enum Format: String, CaseIterable, Sendable {
    case mp3, m4a, flac, ogg, opus, wav

    var options: [String] {
      switch self {
      case .mp3: return ["-c:a", "libmp3lame", "-b:a", "64k", "-id3v2_version", "4"]
      case .m4a: return ["-c:a", "aac", "-b:a", "64k"]
      case .flac: return ["-c:a", "flac"]
      case .ogg: return ["-c:a", "libvorbis", "-q:a", "0"]
      case .opus: return ["-c:a", "libopus", "-b:a", "32k"]
      case .wav: return ["-c:a", "pcm_s16le"]
      }
    }

    /// Whether ffmpeg can embed a picture in this format (MP3 APIC, MP4 covr, FLAC PICTURE).
    public var embedsPicture: Bool { self == .mp3 || self == .m4a || self == .flac }
  }

  /// One file to write.
  public struct Job: Sendable {
    public var path: String
    public var format: Format
    public var tags: [String: String]
    public var cover: URL?
    public var extraOptions: [String]

    public init(
      path: String, format: Format, tags: [String: String] = [:], cover: URL? = nil,
      extraOptions: [String] = []
    ) {
      self.path = path
      self.format = format
      self.tags = tags
      self.cover = cover
      self.extraOptions = extraOptions
    }
  }

  /// Writes `jobs` from one tone of `seconds`, many outputs per ffmpeg run (a run costs far
  /// more than an output). Folders are made as needed. With `source`, its audio is copied into
  /// each output instead (already encoded in each job's format: no encoding, only tagging).
  public static func encode(
    _ jobs: [Job], seconds: Double = 1, frequency: Int = 440, source: URL? = nil
  ) throws {
    for start in stride(from: 0, to: jobs.count, by: 64) {
      let chunk = Array(jobs[start..<min(jobs.count, start + 64)])
      var arguments = ["-nostdin", "-loglevel", "error", "-y"]
      if let source {
        arguments += ["-i", source.path]
      } else {
        arguments += [
          "-f", "lavfi", "-i", "sine=frequency=\(frequency):duration=\(seconds):sample_rate=44100",
        ]
      }
      // Each picture is an input of its own.
      var pictures: [URL: Int] = [:]
      for job in chunk {
        guard let cover = job.cover, job.format.embedsPicture, pictures[cover] == nil else {
          continue
        }
        pictures[cover] = pictures.count + 1
        arguments += ["-i", cover.path]
      }
      for job in chunk {
        try FileManager.default.createDirectory(
          at: URL(fileURLWithPath: job.path).deletingLastPathComponent(),
          withIntermediateDirectories: true)
        arguments += ["-map", "0:a"]
        if let cover = job.cover, job.format.embedsPicture, let input = pictures[cover] {
          arguments += ["-map", "\(input):v", "-c:v", "copy", "-disposition:v", "attached_pic"]
        }
        arguments += (source == nil ? job.format.options : ["-c:a", "copy"]) + job.extraOptions
        for (key, value) in job.tags.sorted(by: { $0.key < $1.key }) {
          arguments += ["-metadata", "\(key)=\(value)"]
        }
        arguments += ["-f", job.format == .m4a ? "ipod" : job.format.rawValue, job.path]
      }
      let result = try runProgram("/usr/bin/ffmpeg", arguments)
      guard result.status == 0 else {
        throw WAVFile.FormatError(description: "ffmpeg could not encode: \(result.stderr)")
      }
    }
  }
}
