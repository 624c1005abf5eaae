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

/// An open output taking PCM in `PCMFormat`: a libao device, for PulseAudio a libpulse stream
/// of our own, and for null nothing at all.
///
/// Devices that are not sound cards (null, wav) take audio as fast as it comes, so they are
/// paced: `write` returns how long to wait before the next write keeps them at real time.
///
/// The null output is Riffle's own, not libao's null driver: opening any libao driver loads
/// every plugin libao has (ALSA, PulseAudio, OSS, NAS, sndio, and X11 libraries with them), 40
/// libraries and several MB for a device that discards what it gets.
///
/// PulseAudio is written to through libpulse-simple rather than libao's pulse driver: that
/// driver asks the server for a 20 ms buffer (and its `buffer_time` option overflows above
/// about 48 ms), so the server wakes every few milliseconds to refill it. Our stream asks for
/// `pulseBufferMilliseconds`, and the audio the server still holds counts as queued.
public final class AudioOutput: @unchecked Sendable {
  public let driverName: String
  /// What was written, for the visualizer (off until asked for).
  public let tap = PCMTap()
  /// A libao device (every driver but pulse).
  private var device: OpaquePointer?
  /// A libpulse-simple playback stream (the pulse driver).
  private var stream: OpaquePointer?
  /// Until `close`.
  private var isOpen = true
  private let paced: Bool
  /// How much audio the PulseAudio server is asked to hold: pausing lets at most this much
  /// play on. 250 ms is what a libpulse-simple stream that names no target (mpg123's) gets; at
  /// 200 ms the server's own CPU for our stream was 1.07 times mpg123's, at 250 ms 0.82 times
  /// (docs/performance.md).
  public static let pulseBufferMilliseconds: UInt32 = 250
  /// How far ahead of real time a paced device may run, like a sound card's buffer.
  public static let pacedLead = 0.2

  private var pacingStart = Date()
  private var framesSinceStart = 0
  /// Guards `device` and the pacing clock.
  private let stateLock = NSLock()
  /// Serialises writes and close on the device.
  private let playLock = NSLock()

  /// libao loads every driver plugin it has (ALSA's among them) when initialised, about 5 ms:
  /// done once, and only when one of its drivers is wanted (PulseAudio goes around it).
  private static let libraryReady: Void = { ao_initialize() }()

  private init(
    driverName: String, device: OpaquePointer?, stream: OpaquePointer? = nil, paced: Bool
  ) {
    self.driverName = driverName
    self.device = device
    self.stream = stream
    self.paced = paced
  }

  /// True for outputs worth closing during a long pause (a sound server stream keeps a thread
  /// waking); never for file drivers, whose file ends at close.
  public var closesWhenPaused: Bool { driverName == "pulse" }

  /// Opens the output the user chose. `auto` never fails: it ends at a paced null device.
  public static func open(_ choice: AudioDriverChoice) throws -> AudioOutput {
    switch choice {
    case .auto:
      // A fixed order: the system default may name a driver that cannot open here, and some
      // drivers (nas) take seconds to fail.
      if let output = try? openPulse() { return output }
      if let output = try? openLive("alsa") { return output }
      return openNull()
    case .pulse: return try openPulse()
    case .alsa: return try openLive("alsa")
    case .null: return openNull()
    case .wav(let path): return try openFile(path)
    }
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

  private static func openLive(_ name: String) throws -> AudioOutput {
    _ = libraryReady
    let id = ao_driver_id(name)
    guard id >= 0 else { throw AudioOutputError(description: "no \(name) audio driver") }
    var format = format()
    guard let device = ao_open_live(id, &format, nil) else {
      throw AudioOutputError(description: "cannot open \(name) audio (\(errnoText))")
    }
    return AudioOutput(driverName: name, device: device, paced: false)
  }

  private static func openNull() -> AudioOutput {
    AudioOutput(driverName: "null", device: nil, paced: true)
  }

  private static func openPulse() throws -> AudioOutput {
    guard let pulse = riffle_pulse() else {
      let reason = LazyLibrary.failure(riffle_pulse_error())
      throw AudioOutputError(description: "cannot load PulseAudio's library (\(reason))")
    }
    var error: Int32 = 0
    guard
      let stream = riffle_pa_open_playback(
        pulse, "Riffle", "Riffle playback", UInt32(PCMFormat.sampleRate),
        pulseBufferMilliseconds, &error)
    else {
      throw AudioOutputError(
        description: "cannot open pulse audio (\(PulseLibrary.describe(error)))")
    }
    return AudioOutput(driverName: "pulse", device: nil, stream: stream, paced: false)
  }

  private static func openFile(_ path: String) throws -> AudioOutput {
    _ = libraryReady
    let id = ao_driver_id("wav")
    guard id >= 0 else { throw AudioOutputError(description: "no wav audio driver") }
    var format = format()
    guard let device = ao_open_file(id, path, 1, &format, nil) else {
      throw AudioOutputError(description: "cannot write \(path) (\(errnoText))")
    }
    return AudioOutput(driverName: "wav", device: device, paced: true)
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

  /// Plays PCM; returns seconds to wait before writing more (0 for real devices).
  @discardableResult
  public func write(_ pcm: UnsafeRawBufferPointer) -> TimeInterval {
    guard pcm.count > 0 else { return 0 }
    // ao_play may block for as long as the sound server takes the buffer; only writes and
    // close wait on `playLock`, so readers of the position never wait on the device.
    playLock.lock()
    defer { playLock.unlock() }
    let (device, stream, isOpen) = stateLock.withLock { (self.device, self.stream, self.isOpen) }
    guard isOpen else { return 0 }
    if let stream {
      // Blocks until the server has room; large writes are cut up by libpulse.
      _ = PulseLibrary.functions.pa_simple_write(stream, pcm.baseAddress, pcm.count, nil)
      // Kept once the server has taken it: its latency then counts it as queued.
      tap.append(pcm)
      return 0
    }
    if paced {
      stateLock.withLock {
        // After a pause or a stall the clock has run on: start counting again from here.
        if queued(at: Date()) < 0 {
          pacingStart = Date()
          framesSinceStart = 0
        }
      }
    }
    if let device {
      let bytes = UnsafeMutablePointer(
        mutating: pcm.baseAddress!.assumingMemoryBound(to: CChar.self))
      ao_play(device, bytes, UInt32(pcm.count))
    }
    tap.append(pcm)
    guard paced else { return 0 }
    return stateLock.withLock {
      framesSinceStart += pcm.count / PCMFormat.bytesPerFrame
      return max(0, queued(at: Date()) - AudioOutput.pacedLead)
    }
  }

  /// The `count` mono samples being heard now (written less what the output still holds), for
  /// the visualizer; nil until the tap (enable `tap.isEnabled`) has that many.
  public func heardSamples(count: Int) -> [Float]? {
    tap.heard(count: count, queued: queuedSeconds())
  }

  /// Forgets what a paced device holds (after a seek the old audio is not to be counted).
  public func restartPacing() {
    stateLock.withLock {
      framesSinceStart = 0
      pacingStart = Date()
    }
  }

  /// Seconds written but not yet heard (paced devices and PulseAudio; a paced device's figure
  /// may be negative when starved).
  public func queuedSeconds(at now: Date = Date()) -> Double {
    let stream = stateLock.withLock { self.stream }
    if let stream {
      // libpulse interpolates the server's timing: no round trip per call.
      return Double(PulseLibrary.functions.pa_simple_get_latency(stream, nil)) / 1_000_000
    }
    return stateLock.withLock { queued(at: now) }
  }

  private func queued(at now: Date) -> Double {
    guard paced else { return 0 }
    return Double(framesSinceStart) / Double(PCMFormat.sampleRate)
      - now.timeIntervalSince(pacingStart)
  }

  /// Closes the device, after any write under way; file drivers write their header sizes
  /// only here.
  public func close() {
    playLock.withLock {
      let (open, openStream) = stateLock.withLock {
        defer {
          device = nil
          stream = nil
          isOpen = false
        }
        return (device, stream)
      }
      if let open { ao_close(open) }
      // What the server still holds plays out first (the engine closes a pulse output only
      // when nothing is left to hear, or to quit).
      if let openStream {
        _ = PulseLibrary.functions.pa_simple_drain(openStream, nil)
        PulseLibrary.functions.pa_simple_free(openStream)
      }
    }
  }

  deinit { close() }
}
