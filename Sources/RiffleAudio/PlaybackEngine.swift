import Foundation
import RiffleAPI

/// What the engine reports about a play request. Sent from the engine's threads.
public enum PlaybackEvent: Equatable, Sendable {
  /// Sound reaches the output (at first, and again after buffering).
  case started(playID: Int, duration: Double?)
  /// The bytes ran out before the song did.
  case buffering(playID: Int)
  case finished(playID: Int)
  case failed(playID: Int, String)
}

/// Plays one song at a time: download (HTTP client) -> decoder -> output, on a thread of its own.
///
/// Starting a song cancels the one before at once (its download and its writes). Pause blocks
/// the playing thread on a condition, so a paused player uses no CPU. The position comes from
/// the frames the output has taken, less what a paced output still holds.
public final class PlaybackEngine: @unchecked Sendable {
  private let client: HTTPClient
  private let openOutput: @Sendable () throws -> AudioOutput
  private let onEvent: @Sendable (PlaybackEvent) -> Void

  private let lock = NSCondition()
  private var output: AudioOutput?
  private var outputError: String?
  private var session: Session?
  private var paused = false

  /// Seconds of the current request heard so far, and the request it belongs to.
  private var heardFrames = 0
  private var heardPlayID = 0

  /// How long the decoder waits for bytes before saying "buffering".
  public var stallReportDelay: TimeInterval = 0.5

  public init(
    client: HTTPClient = .shared,
    output: @escaping @Sendable () throws -> AudioOutput,
    onEvent: @escaping @Sendable (PlaybackEvent) -> Void
  ) {
    self.client = client
    self.openOutput = output
    self.onEvent = onEvent
  }

  /// The name of the open output driver, once one is open.
  public var driverName: String? { lock.withLock { output?.driverName } }

  /// Stops what plays and starts `url` under the request number `playID`.
  public func play(_ url: URL, playID: Int) {
    let session = Session(playID: playID, url: url)
    lock.withLock {
      self.session?.cancel()
      self.session = session
      paused = false
      heardFrames = 0
      heardPlayID = playID
      lock.broadcast()
    }
    session.transfer = client.stream(
      HTTPRequest(url: url, maxBytes: 500_000_000),
      handlers: StreamHandlers(
        onResponse: { _, _, length in session.bytes.setExpectedLength(length) },
        onData: { data in
          session.bytes.append(data)
          return !session.bytes.isCancelled
        },
        onComplete: { error in session.bytes.finish(error) }))
    let thread = Thread { [self] in run(session) }
    thread.name = "riffle.playback"
    thread.start()
  }

  public func pause() {
    lock.withLock { paused = true }
  }

  public func resume() {
    lock.withLock {
      paused = false
      lock.broadcast()
    }
  }

  /// Stops playback; the output stays open for the next song.
  public func stop() {
    lock.withLock {
      session?.cancel()
      session = nil
      lock.broadcast()
    }
  }

  /// Stops playback and closes the output (a WAV file is complete after this).
  public func shutdown() {
    stop()
    lock.withLock {
      output?.close()
      output = nil
    }
  }

  /// Seconds heard of request `playID`, or nil when another request is current.
  public func position(playID: Int) -> Double? {
    lock.withLock {
      guard heardPlayID == playID else { return nil }
      let queued = max(0, output?.queuedSeconds() ?? 0)
      return max(0, Double(heardFrames) / Double(PCMFormat.sampleRate) - queued)
    }
  }

  // MARK: - The playing thread

  private func run(_ session: Session) {
    let id = session.playID
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32_768, alignment: 16)
    defer { buffer.deallocate() }
    var decoder: AudioDecoder?
    var sniffBytes = Data()
    var startedReported = false
    var buffering = false

    func fail(_ reason: String) {
      if !session.isCancelled { onEvent(.failed(playID: id, reason)) }
    }

    /// Decodes everything fed so far and plays it. False when the session must stop.
    func drain(_ decoder: AudioDecoder) throws -> Bool {
      while true {
        if session.isCancelled { return false }
        let step = try decoder.decode(into: buffer)
        switch step {
        case .needMore, .done: return true
        case .pcm(let count):
          guard count > 0 else { continue }
          if !startedReported || buffering {
            startedReported = true
            buffering = false
            onEvent(.started(playID: id, duration: decoder.duration))
          }
          guard write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), for: session) else {
            return false
          }
        }
      }
    }

    while !session.isCancelled {
      switch session.bytes.read(timeout: stallReportDelay) {
      case .cancelled:
        return
      case .timedOut:
        if startedReported && !buffering {
          buffering = true
          onEvent(.buffering(playID: id))
        }
      case .failed(let error):
        let http = error as? HTTPError
        fail(http?.userMessage ?? String(describing: error))
        return
      case .bytes(let data):
        do {
          if decoder == nil {
            sniffBytes.append(data)
            let complete =
              session.bytes.expectedLength.map { Int64(sniffBytes.count) >= $0 } ?? false
            guard sniffBytes.count >= AudioSniffer.preferredLength || complete else { continue }
            decoder = try startDecoder(sniffBytes, session: session)
            sniffBytes = Data()
          } else {
            try decoder!.feed(data)
          }
          guard try drain(decoder!) else { return }
        } catch {
          fail(String(describing: error))
          session.cancel()
          return
        }
      case .end:
        do {
          if decoder == nil {
            guard !sniffBytes.isEmpty else { throw DecodeError.noAudio }
            decoder = try startDecoder(sniffBytes, session: session)
            guard try drain(decoder!) else { return }
          }
          guard decoder!.hasFormat else { throw DecodeError.noAudio }
        } catch {
          fail(String(describing: error))
          return
        }
        waitForOutputToDrain(session)
        if !session.isCancelled { onEvent(.finished(playID: id)) }
        return
      }
    }
  }

  /// A paced output still holds up to its lead of audio: the song ends when that is heard.
  private func waitForOutputToDrain(_ session: Session) {
    lock.withLock {
      while self.session === session, !session.isCancelled {
        if paused {
          lock.wait()
          continue
        }
        let queued = output?.queuedSeconds() ?? 0
        if queued <= 0 { return }
        _ = lock.wait(until: Date().addingTimeInterval(queued))
      }
    }
  }

  private func startDecoder(_ firstBytes: Data, session: Session) throws -> AudioDecoder {
    let decoder = try DecoderFactory.make(for: AudioSniffer.kind(of: firstBytes))
    if let length = session.bytes.expectedLength { decoder.setInputLength(length) }
    try decoder.feed(firstBytes)
    return decoder
  }

  /// Writes PCM for `session` unless it was cancelled; waits while paused and while a paced
  /// output is ahead of real time. False when the session must stop.
  private func write(_ pcm: UnsafeRawBufferPointer, for session: Session) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    while paused && self.session === session { lock.wait() }
    guard self.session === session, !session.isCancelled else { return false }
    if output == nil {
      if let outputError {
        onEvent(.failed(playID: session.playID, outputError))
        return false
      }
      do {
        output = try openOutput()
      } catch {
        outputError = "No audio output: \(error)"
        onEvent(.failed(playID: session.playID, outputError!))
        return false
      }
    }
    let wait = output!.write(pcm)
    heardFrames += pcm.count / PCMFormat.bytesPerFrame
    if wait > 0 {
      // Wake early for cancel or pause.
      _ = lock.wait(until: Date().addingTimeInterval(wait))
    }
    return self.session === session && !session.isCancelled
  }
}

/// One play request: its download, its bytes, its cancellation.
private final class Session: @unchecked Sendable {
  let playID: Int
  let url: URL
  let bytes = ByteStream()
  var transfer: Transfer?

  init(playID: Int, url: URL) {
    self.playID = playID
    self.url = url
  }

  var isCancelled: Bool { bytes.isCancelled }

  func cancel() {
    bytes.cancel()
    transfer?.cancel()
  }
}
