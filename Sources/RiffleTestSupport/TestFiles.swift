import Foundation

/// Where the repository, its fixtures and the built binary are, seen from a test.
public enum TestFiles {
  /// The repository root (this file is Sources/RiffleTestSupport/TestFiles.swift).
  public static let repoRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  public static func fixture(_ name: String) -> URL {
    repoRoot.appendingPathComponent("Tests/Fixtures").appendingPathComponent(name)
  }

  public static let catalog = repoRoot.appendingPathComponent("Resources/Catalog")

  /// The riffle binary under test: $RIFFLE_BINARY, else the debug build in the repo.
  public static var riffleBinary: String {
    if let path = ProcessInfo.processInfo.environment["RIFFLE_BINARY"], !path.isEmpty {
      return path
    }
    return repoRoot.appendingPathComponent(".build/debug/riffle").path
  }
}

/// The id of a process that has just ended: no process runs under it (until the system hands
/// it out again, which takes a while).
public func endedProcessID() throws -> Int32 {
  let ended = Process()
  ended.executableURL = URL(fileURLWithPath: "/bin/true")
  try ended.run()
  ended.waitUntilExit()
  return ended.processIdentifier
}

/// A temporary folder removed when the value goes away.
public final class TemporaryDirectory: @unchecked Sendable {
  public let url: URL

  public init(_ prefix: String = "riffle-test") throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  /// XDG_* variables that keep the player's files in this folder.
  public var xdgEnvironment: [String: String] {
    [
      "XDG_CONFIG_HOME": url.appendingPathComponent("config").path,
      "XDG_DATA_HOME": url.appendingPathComponent("data").path,
      "XDG_CACHE_HOME": url.appendingPathComponent("cache").path,
    ]
  }

  deinit { try? FileManager.default.removeItem(at: url) }
}

/// A PCM WAV file as libao's wav driver writes it.
public struct WAVFile: Sendable {
  public var channels: Int
  public var sampleRate: Int
  public var bitsPerSample: Int
  /// Interleaved 16-bit samples.
  public var samples: [Int16]

  public var frames: Int { channels == 0 ? 0 : samples.count / channels }
  public var seconds: Double { Double(frames) / Double(max(sampleRate, 1)) }

  /// Root mean square of all samples, 0...1.
  public var rms: Double {
    guard !samples.isEmpty else { return 0 }
    let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
    return (sum / Double(samples.count)).squareRoot() / 32768
  }

  public struct FormatError: Error, CustomStringConvertible {
    public var description: String
  }

  public static func read(_ url: URL) throws -> WAVFile {
    let data = try Data(contentsOf: url)
    let bytes = [UInt8](data)
    func u32(_ at: Int) -> Int {
      Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
    }
    func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    guard bytes.count >= 12, String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF",
      String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE"
    else { throw FormatError(description: "\(url.lastPathComponent) is not a WAV file") }
    var offset = 12
    var wav = WAVFile(channels: 0, sampleRate: 0, bitsPerSample: 0, samples: [])
    while offset + 8 <= bytes.count {
      let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
      let size = u32(offset + 4)
      let body = offset + 8
      if id == "fmt " {
        wav.channels = u16(body + 2)
        wav.sampleRate = u32(body + 4)
        wav.bitsPerSample = u16(body + 14)
      } else if id == "data" {
        let end = min(bytes.count, body + size)
        guard wav.bitsPerSample == 16 else {
          throw FormatError(description: "expected 16-bit PCM, got \(wav.bitsPerSample)")
        }
        wav.samples.reserveCapacity((end - body) / 2)
        var i = body
        while i + 1 < end {
          wav.samples.append(Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8))
          i += 2
        }
        return wav
      }
      offset = body + size + (size & 1)
    }
    throw FormatError(description: "\(url.lastPathComponent) has no data chunk")
  }
}

/// Runs a program to its end and returns its exit status and output.
@discardableResult
public func runProgram(
  _ path: String, _ arguments: [String], environment: [String: String]? = nil
) throws -> (status: Int32, stdout: String, stderr: String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  if let environment {
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  }
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  process.standardInput = FileHandle.nullDevice
  try process.run()
  let outData = out.fileHandleForReading.readDataToEndOfFile()
  let errData = err.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (
    process.terminationStatus, String(decoding: outData, as: UTF8.self),
    String(decoding: errData, as: UTF8.self)
  )
}

extension WAVFile {
  /// Decodes an MP3 with mpg123's command-line program: the independent reference for what a
  /// song holds.
  public static func decodedByMPG123(_ file: URL) throws -> WAVFile {
    let dir = try TemporaryDirectory()
    let out = dir.file("reference.wav")
    let result = try runProgram("/usr/bin/mpg123", ["-q", "-w", out.path, file.path])
    guard result.status == 0 else {
      throw FormatError(description: "mpg123 failed on \(file.lastPathComponent): \(result.stderr)")
    }
    return try read(out)
  }
}

extension WAVFile {
  /// Decodes any audio file with the `ffmpeg` program to 44.1 kHz stereo 16-bit: the
  /// independent reference for what an M4A holds (`ffmpeg -i f -ar 44100 -ac 2 -f wav`).
  public static func decodedByFFmpeg(_ file: URL) throws -> WAVFile {
    let dir = try TemporaryDirectory()
    let out = dir.file("reference.wav")
    let result = try runProgram(
      "/usr/bin/ffmpeg",
      [
        "-nostdin", "-loglevel", "error", "-i", file.path, "-ar", "44100", "-ac", "2",
        "-c:a", "pcm_s16le", "-f", "wav", out.path,
      ])
    guard result.status == 0 else {
      throw FormatError(description: "ffmpeg failed on \(file.lastPathComponent): \(result.stderr)")
    }
    return try read(out)
  }
}

extension TestFiles {
  /// Encodes `source` to AAC-LC 128k in M4A with the `ffmpeg` program, as iTunes previews are,
  /// for tests that need a longer M4A than the committed fixtures (which stay small). Noise
  /// substitution is off, as for the fixtures (see scripts/make-catalog.py).
  public static func encodeM4A(_ source: URL, into dir: TemporaryDirectory) throws -> URL {
    let out = dir.file(source.deletingPathExtension().lastPathComponent + ".m4a")
    let result = try runProgram(
      "/usr/bin/ffmpeg",
      [
        "-nostdin", "-loglevel", "error", "-y", "-i", source.path, "-c:a", "aac", "-b:a", "128k",
        "-aac_pns", "0", "-map_metadata", "-1", "-movflags", "+faststart", out.path,
      ])
    guard result.status == 0 else {
      throw WAVFile.FormatError(description: "ffmpeg could not encode: \(result.stderr)")
    }
    return out
  }
}
