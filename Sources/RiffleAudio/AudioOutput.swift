import CAO
import CPulseSimple
import Foundation
import RiffleCore

/// Which output the user asked for on the command line (`--audio`).
public enum AudioDriverChoice: Equatable, Sendable, CustomStringConvertible {
  /// pulse, then alsa, then the null driver paced in real time.
  case auto
  case pulse
  case alsa
  /// No sound, paced in real time.
  case null
  /// Everything played, in order, into one WAV file; paced in real time.
  case wav(String)

  public init?(argument: String) {
    switch argument {
    case "auto": self = .auto
    case "pulse": self = .pulse
    case "alsa": self = .alsa
    case "null": self = .null
    default:
      guard argument.hasPrefix("wav:"), argument.count > 4 else { return nil }
      self = .wav(String(argument.dropFirst(4)))
    }
  }

  public var description: String {
    switch self {
    case .auto: return "auto"
    case .pulse: return "pulse"
    case .alsa: return "alsa"
    case .null: return "null"
    case .wav(let path): return "wav:\(path)"
    }
  }
}

/// Why no output could be opened.
public struct AudioOutputError: Error, CustomStringConvertible, Sendable {
  public var description: String
}

/// An open output taking PCM in `PCMFormat`: a PulseAudio stream of our own, a libao device
/// (ALSA, or a WAV file), or nothing at all, paced in real time.
///
/// Outputs that are not sound cards (null, wav) take audio as fast as it comes, so they are
/// paced: `write` returns how long to wait before the next write keeps them at real time.
public protocol AudioOutput: AnyObject, Sendable {
  /// "pulse", "alsa", "wav" or "null".
  var driverName: String { get }
  /// True for outputs worth closing during a long pause (a sound server stream keeps a thread
  /// waking); never for file drivers, whose file ends at close.
  var closesWhenPaused: Bool { get }
  /// Plays PCM; returns seconds to wait before writing more (0 for real devices).
  @discardableResult func write(_ pcm: UnsafeRawBufferPointer) -> TimeInterval
  /// Forgets what a paced output holds (after a seek the old audio is not to be counted).
  func restartPacing()
  /// Seconds written but not yet heard (a paced output's figure may be negative when starved).
  func queuedSeconds(at now: Date) -> Double
  /// Closes the output, after any write under way; a WAV file's header sizes are written only
  /// here.
  func close()
  /// What was written, for the visualizer (kept only while `tap.isEnabled`).
  var tap: PCMTap { get }
}

extension AudioOutput {
  public var closesWhenPaused: Bool { false }
  public func restartPacing() {}
  public func queuedSeconds() -> Double { queuedSeconds(at: Date()) }

  /// The `count` mono samples being heard now (written less what the output still holds), for
  /// the visualizer; nil until the tap (enable `tap.isEnabled`) has that many.
  public func heardSamples(count: Int) -> [Float]? {
    tap.heard(count: count, queued: queuedSeconds())
  }
}

extension AudioDriverChoice {
  /// Opens the output the user chose. `auto` never fails: it ends at the paced null output.
  public func open() throws -> any AudioOutput {
    switch self {
    case .auto:
      // A fixed order: the system default may name a driver that cannot open here, and some
      // drivers (nas) take seconds to fail.
      if let output = try? PulseOutput() { return output }
      if let output = try? LibaoOutput(live: "alsa") { return output }
      return NullOutput()
    case .pulse: return try PulseOutput()
    case .alsa: return try LibaoOutput(live: "alsa")
    case .null: return NullOutput()
    case .wav(let path): return try LibaoOutput(file: path)
    }
  }
}

/// Keeps a device that takes audio as fast as it comes at real time, with a lead like a sound
/// card's buffer.
public struct PacingClock: Sendable {
  /// How far ahead of real time a paced output may run.
  public static let lead = 0.2

  private var start = Date()
  private var frames = 0

  /// Seconds written but not yet due at `now` (negative when starved).
  func queued(at now: Date) -> Double {
    Double(frames) / Double(PCMFormat.sampleRate) - now.timeIntervalSince(start)
  }

  /// After a pause or a stall the clock has run on: start counting again from here.
  mutating func beforeWrite(at now: Date) {
    if queued(at: now) < 0 { restart(at: now) }
  }

  /// Counts `bytes` written; returns how long to wait before the next write.
  mutating func wrote(bytes: Int, at now: Date) -> TimeInterval {
    frames += bytes / PCMFormat.bytesPerFrame
    return max(0, queued(at: now) - Self.lead)
  }

  mutating func restart(at now: Date) {
    start = now
    frames = 0
  }
}

/// Riffle's own null output: no sound, paced in real time. Not libao's null driver: opening any
/// libao driver loads every plugin libao has (ALSA, PulseAudio, OSS, NAS, sndio, and X11
/// libraries with them), 40 libraries and several MB for a device that discards what it gets.
final class NullOutput: AudioOutput, @unchecked Sendable {
  let driverName = "null"
  let tap = PCMTap()
  private var clock = PacingClock()
  private var isOpen = true
  private let lock = NSLock()

  func write(_ pcm: UnsafeRawBufferPointer) -> TimeInterval {
    guard pcm.count > 0 else { return 0 }
    return lock.withLock {
      guard isOpen else { return 0 }
      let now = Date()
      clock.beforeWrite(at: now)
      tap.append(pcm)
      return clock.wrote(bytes: pcm.count, at: now)
    }
  }

  func restartPacing() { lock.withLock { clock.restart(at: Date()) } }
  func queuedSeconds(at now: Date) -> Double { lock.withLock { clock.queued(at: now) } }
  func close() { lock.withLock { isOpen = false } }
}

/// A PulseAudio playback stream through libpulse-simple, not libao's pulse driver: that driver
/// asks the server for a 20 ms buffer (and its `buffer_time` option overflows above about 48
/// ms), so the server wakes every few milliseconds to refill it. Our stream asks for
/// `bufferMilliseconds`, and the audio the server still holds counts as queued.
final class PulseOutput: AudioOutput, @unchecked Sendable {
  let driverName = "pulse"
  let tap = PCMTap()
  var closesWhenPaused: Bool { true }
  /// How much audio the PulseAudio server is asked to hold: pausing lets at most this much
  /// play on. 250 ms is what a libpulse-simple stream that names no target (mpg123's) gets; at
  /// 200 ms the server's own CPU for our stream was 1.07 times mpg123's, at 250 ms 0.82 times
  /// (docs/performance.md).
  static let bufferMilliseconds: UInt32 = 250

  /// Nil once closed.
  private var stream: OpaquePointer?
  /// Guards `stream` for readers of the position.
  private let stateLock = NSLock()
  /// Serialises writes and close.
  private let playLock = NSLock()

  init() throws {
    guard let pulse = riffle_pulse() else {
      let reason = LazyLibrary.failure(riffle_pulse_error())
      throw AudioOutputError(description: "cannot load PulseAudio's library (\(reason))")
    }
    var error: Int32 = 0
    guard
      let stream = riffle_pa_open_playback(
        pulse, "Riffle", "Riffle playback", UInt32(PCMFormat.sampleRate),
        Self.bufferMilliseconds, &error)
    else {
      throw AudioOutputError(
        description: "cannot open pulse audio (\(PulseLibrary.describe(error)))")
    }
    self.stream = stream
  }

  func write(_ pcm: UnsafeRawBufferPointer) -> TimeInterval {
    guard pcm.count > 0 else { return 0 }
    playLock.lock()
    defer { playLock.unlock() }
    guard let stream = stateLock.withLock({ self.stream }) else { return 0 }
    // Blocks until the server has room; large writes are cut up by libpulse.
    _ = PulseLibrary.functions.pa_simple_write(stream, pcm.baseAddress, pcm.count, nil)
    // Kept once the server has taken it: its latency then counts it as queued.
    tap.append(pcm)
    return 0
  }

  func queuedSeconds(at now: Date) -> Double {
    guard let stream = stateLock.withLock({ self.stream }) else { return 0 }
    // libpulse interpolates the server's timing: no round trip per call.
    return Double(PulseLibrary.functions.pa_simple_get_latency(stream, nil)) / 1_000_000
  }

  func close() {
    playLock.withLock {
      let open = stateLock.withLock {
        defer { stream = nil }
        return stream
      }
      // What the server still holds plays out first (the engine closes a pulse output only
      // when nothing is left to hear, or to quit).
      if let open {
        _ = PulseLibrary.functions.pa_simple_drain(open, nil)
        PulseLibrary.functions.pa_simple_free(open)
      }
    }
  }

  deinit { close() }
}

/// A libao device: ALSA live, or a WAV file (paced in real time, since a file takes audio as
/// fast as it comes).
final class LibaoOutput: AudioOutput, @unchecked Sendable {
  let driverName: String
  let tap = PCMTap()
  /// Nil once closed.
  private var device: OpaquePointer?
  /// Set for file drivers.
  private var clock: PacingClock?
  /// Guards `device` and the pacing clock.
  private let stateLock = NSLock()
  /// Serialises writes and close on the device: ao_play may block for as long as the sound
  /// server takes the buffer, and readers of the position must never wait on it.
  private let playLock = NSLock()

  /// libao loads every driver plugin it has (ALSA's among them) when initialised, about 5 ms:
  /// done once, and only when one of its drivers is wanted (PulseAudio goes around it).
  private static let libraryReady: Void = { ao_initialize() }()

  /// A live device of the libao driver `name`.
  init(live name: String) throws {
    _ = Self.libraryReady
    let id = ao_driver_id(name)
    guard id >= 0 else { throw AudioOutputError(description: "no \(name) audio driver") }
    var format = Self.format()
    guard let device = ao_open_live(id, &format, nil) else {
      throw AudioOutputError(description: "cannot open \(name) audio (\(Self.errnoText))")
    }
    self.driverName = name
    self.device = device
  }

  /// A WAV file at `path`, overwritten.
  init(file path: String) throws {
    _ = Self.libraryReady
    let id = ao_driver_id("wav")
    guard id >= 0 else { throw AudioOutputError(description: "no wav audio driver") }
    var format = Self.format()
    guard let device = ao_open_file(id, path, 1, &format, nil) else {
      throw AudioOutputError(description: "cannot write \(path) (\(Self.errnoText))")
    }
    self.driverName = "wav"
    self.device = device
    self.clock = PacingClock()
  }

  private static func format() -> ao_sample_format {
    var format = ao_sample_format()
    format.bits = 16
    format.rate = Int32(PCMFormat.sampleRate)
    format.channels = Int32(PCMFormat.channels)
    format.byte_format = AO_FMT_LITTLE
    format.matrix = nil
    return format
  }

  private static var errnoText: String {
    switch errno {
    case AO_ENODRIVER: return "no such driver"
    case AO_ENOTLIVE: return "not a live device"
    case AO_EBADOPTION: return "bad option"
    case AO_EOPENDEVICE: return "device will not open"
    case AO_EOPENFILE: return "file will not open"
    case AO_EFILEEXISTS: return "file exists"
    case AO_EBADFORMAT: return "format not supported"
    default: return "error \(errno)"
    }
  }

  func write(_ pcm: UnsafeRawBufferPointer) -> TimeInterval {
    guard pcm.count > 0 else { return 0 }
    playLock.lock()
    defer { playLock.unlock() }
    guard
      let device = stateLock.withLock({ () -> OpaquePointer? in
        clock?.beforeWrite(at: Date())
        return self.device
      })
    else { return 0 }
    let bytes = UnsafeMutablePointer(
      mutating: pcm.baseAddress!.assumingMemoryBound(to: CChar.self))
    ao_play(device, bytes, UInt32(pcm.count))
    tap.append(pcm)
    return stateLock.withLock { clock?.wrote(bytes: pcm.count, at: Date()) ?? 0 }
  }

  func restartPacing() { stateLock.withLock { clock?.restart(at: Date()) } }

  func queuedSeconds(at now: Date) -> Double {
    stateLock.withLock { clock?.queued(at: now) ?? 0 }
  }

  func close() {
    playLock.withLock {
      let open = stateLock.withLock {
        defer { device = nil }
        return device
      }
      if let open { ao_close(open) }
    }
  }

  deinit { close() }
}
