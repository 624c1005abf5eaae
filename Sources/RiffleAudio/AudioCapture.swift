import CPulseSimple
import Foundation
import RiffleCore

#if canImport(Glibc)
  import Glibc
#endif

/// Where a recording comes from: the default capture device, or a file read in real time
/// (for tests and for trying `i` without a microphone). What happens after capture is the same.
public enum CaptureChoice: Equatable, Sendable {
  /// PulseAudio's default source (PipeWire and desktop ALSA set-ups serve it too).
  case device
  /// A recording decoded and delivered at the pace it would have been heard.
  case file(String)

  /// `auto`, `pulse` or `file:PATH`; nil for anything else.
  public init?(argument: String) {
    switch argument {
    case "auto", "pulse": self = .device
    default:
      guard argument.hasPrefix("file:"), argument.count > 5 else { return nil }
      self = .file(String(argument.dropFirst(5)))
    }
  }
}

/// A source of mono 16-bit samples at `PCMFormat.sampleRate`, read a block at a time.
public protocol AudioCapture: AnyObject {
  /// The next block (about 100 ms); nil at the end of a file.
  func read() throws -> [Int16]?
  func close()
}

/// Why capture could not start or stopped.
public struct CaptureError: Error, Equatable, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

extension CaptureChoice {
  /// Opens the source.
  public func open() throws -> AudioCapture {
    switch self {
    case .device: return try PulseCapture()
    case .file(let path): return try FileCapture(path: path)
    }
  }
}

/// Recording from PulseAudio's default source through its simple (blocking) API.
final class PulseCapture: AudioCapture {
  private var handle: OpaquePointer?
  static let blockFrames = PCMFormat.sampleRate / 10

  init() throws {
    guard let pulse = riffle_pulse() else {
      let reason = LazyLibrary.failure(riffle_pulse_error())
      throw CaptureError("No capture device (PulseAudio's library cannot be loaded: \(reason))")
    }
    var error: Int32 = 0
    guard
      let handle = riffle_pa_open_record(
        pulse, "Riffle", "Name that song", UInt32(PCMFormat.sampleRate), &error)
    else {
      throw CaptureError("No capture device (PulseAudio: \(PulseLibrary.describe(error)))")
    }
    self.handle = handle
  }

  func read() throws -> [Int16]? {
    guard let handle else { return nil }
    var block = [Int16](repeating: 0, count: Self.blockFrames)
    var error: Int32 = 0
    let status = block.withUnsafeMutableBytes {
      PulseLibrary.functions.pa_simple_read(handle, $0.baseAddress, $0.count, &error)
    }
    guard status >= 0 else {
      throw CaptureError("Recording stopped (PulseAudio: \(PulseLibrary.describe(error)))")
    }
    return block
  }

  func close() {
    if let handle { PulseLibrary.functions.pa_simple_free(handle) }
    handle = nil
  }

  deinit { close() }
}

/// A recording file decoded whole, then handed out 100 ms at a time at the pace of a real
/// device, so what listens cannot tell it from a microphone.
final class FileCapture: AudioCapture {
  private let samples: [Int16]
  private var at = 0
  private var started: Double?

  init(path: String) throws {
    let pcm: Data
    do {
      pcm = try DecoderFactory.decodeAll(Data(contentsOf: URL(fileURLWithPath: path)))
    } catch {
      throw CaptureError("Cannot record from \(path): \(error)")
    }
    samples = pcm.withUnsafeBytes { raw in
      let stereo = raw.bindMemory(to: Int16.self)
      return (0..<stereo.count / 2).map {
        Int16((Int32(stereo[2 * $0]) + Int32(stereo[2 * $0 + 1])) / 2)
      }
    }
  }

  func read() throws -> [Int16]? {
    guard at < samples.count else { return nil }
    let now = Self.now()
    let start = started ?? now
    started = start
    let block = PulseCapture.blockFrames
    // Wait until this block would have finished arriving from a device.
    let due = start + Double(at + block) / Double(PCMFormat.sampleRate)
    if due > now { usleep(useconds_t((due - now) * 1_000_000)) }
    let end = min(samples.count, at + block)
    defer { at = end }
    return Array(samples[at..<end])
  }

  func close() {}

  private static func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
  }
}
