import CLinux
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
  /// A live stream's ICY metadata named a new title ("Artist - Title"; "" when it went blank).
  case streamTitle(playID: Int, String)
  /// A live stream stopped: it ended, the connection failed, or it sent no audio for
  /// `PlaybackEngine.liveSilenceLimit`. `transient` when trying again may work.
  case dropped(playID: Int, String, transient: Bool)
}

/// Where the engine keeps songs it has played whole, so they play again offline.
public protocol AudioCache: Sendable {
  /// A local copy of `url`, if there is one.
  func cachedFile(for url: URL) -> URL?
  /// Keeps the bytes of `url` (called off the main queue, once a download is whole).
  func store(_ data: Data, for url: URL)
}

/// Plays one song at a time: download (HTTP client) -> decoder -> output, on a thread of its own.
///
/// Starting a song cancels the one before at once (its download and its writes). Pause blocks
/// the playing thread on a condition, so a paused player uses no CPU. Seeking moves within the
/// bytes already downloaded, or restarts the download there with an HTTP Range request. A local
/// file (the catalog, a cached copy) is not downloaded: the playing thread reads it a piece at a
/// time (`SongFile`). The position comes from the frames the output has taken, less what a paced
/// output still holds.
public final class PlaybackEngine: @unchecked Sendable {
  private let client: HTTPClient
  private let cache: AudioCache?
  private let openOutput: @Sendable () throws -> any AudioOutput
  private let onEvent: @Sendable (PlaybackEvent) -> Void

  private let lock = NSCondition()
  private var output: (any AudioOutput)?
  private var outputError: String?
  private var session: Session?
  private var paused = false
  /// See `setGain`.
  private var gain = 1.0

  /// Frames written to the output since it was first opened, across songs.
  private var totalFrames = 0
  /// The request whose position is shown: `totalFrames` stood at `heardBase` at its frame 0,
  /// and at `heardEnd` after its last frame once a following song writes on (gapless).
  private var heardPlayID = 0
  private var heardBase = 0
  private var heardEnd: Int?
  /// What plays after the current song, if known (`prepare(next:)`).
  private var nextRequest: NextRequest?
  /// A song whose last frames the output still holds while the song after it already writes.
  private var tail: Session?

  /// How long the decoder waits for bytes before saying "buffering".
  public var stallReportDelay: TimeInterval = 0.5

  /// How long a station's bytes gather on the network side before they are handed on, once
  /// its first bytes are in (a station's start is not delayed, `TransferLoop.batchAfterBytes`)
  /// and while the playing thread has bytes ahead of it (`liveBatchHoldOff`): a transfer
  /// thread's turn costs about as much for one packet as for a batch.
  /// `RIFFLE_LIVE_BATCH=0` turns the batching off: the benchmark measures the station's cost
  /// both ways in one run (`riffle-bench radio`).
  static let liveBatchDelay: TimeInterval =
    ProcessInfo.processInfo.environment["RIFFLE_LIVE_BATCH"] == "0" ? 0 : 0.5
  /// How long after the playing thread last waited for a station's bytes they are not batched.
  static let liveBatchHoldOff: TimeInterval = 5

  /// How long a live stream may go without giving a sound before it counts as dropped.
  public var liveSilenceLimit: TimeInterval = 10

  /// How long a pause lasts before a sound server's stream is closed (so that nothing wakes
  /// while paused); longer than the server's buffer, so everything written has been heard.
  static let closeOutputAfterPause: TimeInterval = 1

  public init(
    client: HTTPClient = .shared,
    cache: AudioCache? = nil,
    output: @escaping @Sendable () throws -> any AudioOutput,
    onEvent: @escaping @Sendable (PlaybackEvent) -> Void
  ) {
    self.client = client
    self.cache = cache
    self.openOutput = output
    self.onEvent = onEvent
  }

  /// The name of the open output driver, once one is open.
  public var driverName: String? { lock.withLock { output?.driverName } }

  /// Stops what plays and starts `url` under the request number `playID`.
  /// Plays `url` under request `playID`; `gainDB` is the song's ReplayGain (a cut only: a
  /// boost could clip, and no peak is known to keep it from doing so).
  /// `live`: a radio station's stream, which has no end and no length: it asks for ICY
  /// metadata (titles come back as `.streamTitle`), is never cached, and reports its end, a
  /// failed connection or `liveSilenceLimit` without sound as `.dropped`.
  public func play(_ url: URL, playID: Int, gainDB: Double? = nil, live: Bool = false) {
    let source = live ? url : cache?.cachedFile(for: url) ?? url
    let gain = gainDB.map { min(1, pow(10, $0 / 20)) } ?? 1
    let session = Session(playID: playID, source: source, original: url, gain: gain, live: live)
    // The song already playing on after the one before (gapless): it takes this request's number.
    let adopted: Session? = lock.withLock {
      guard !live, let current = self.session, current.isFollower, !current.isCancelled,
        current.original == url, current.gain == gain
      else { return nil }
      tail?.cancel()
      tail = nil
      paused = false
      heardPlayID = playID
      heardBase = current.startMark ?? totalFrames
      heardEnd = nil
      lock.broadcast()
      return current
    }
    if let adopted {
      Trace.mark("play \(playID)")
      let held = adopted.adopt(as: playID)
      if held.contains(where: { if case .started = $0 { true } else { false } }) {
        Trace.mark("sample \(playID)")
      }
      for event in held { onEvent(event) }
      return
    }
    Trace.mark("play \(playID)")
    lock.withLock {
      self.session?.cancel()
      self.session = session
      tail?.cancel()
      tail = nil
      paused = false
      heardPlayID = playID
      heardBase = totalFrames
      heardEnd = nil
      lock.broadcast()
    }
    startDownload(session, from: 0)
    let thread = Thread { [self] in
      // Named for /proc and debuggers (Foundation's `name` does not reach the kernel here).
      riffle_name_current_thread("riffle-playback")
      run(session)
    }
    thread.start()
  }

  /// Says which song follows the current one when it ends by itself (nil: none known, or not
  /// one to prepare, such as a station). When the current song's bytes are all decoded, the
  /// engine opens this one and writes its sound into the same output right after, so nothing
  /// is lost between them; the current song is still reported `.finished` once its last sample
  /// is heard, and a `play` of this URL then takes over the song already playing.
  public func prepare(next url: URL?, gainDB: Double? = nil) {
    lock.withLock {
      nextRequest = url.map {
        NextRequest(url: $0, gain: gainDB.map { min(1, pow(10, $0 / 20)) } ?? 1)
      }
    }
  }

  public func pause() {
    lock.withLock { paused = true }
  }

  /// The gain (0...1) applied to everything decoded from now on: the player's volume, in
  /// Riffle's own output path so it works the same with every audio backend.
  public func setGain(_ gain: Double) {
    lock.withLock { self.gain = min(1, max(0, gain)) }
  }

  public func resume() {
    lock.withLock {
      paused = false
      lock.broadcast()
    }
  }

  /// Moves request `playID` to `seconds` into the song.
  public func seek(to seconds: Double, playID: Int) {
    let target: Session? = lock.withLock {
      // A live stream has nowhere to seek to.
      guard let session, session.playID == playID, !session.live else { return nil }
      session.requestSeek(seconds)
      lock.broadcast()
      return session
    }
    target?.bytes.poke()
  }

  /// Stops playback; the output stays open for the next song.
  public func stop() {
    lock.withLock {
      session?.cancel()
      session = nil
      tail?.cancel()
      tail = nil
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
      var frames = totalFrames - queuedFrames() - heardBase
      if let heardEnd { frames = min(frames, heardEnd - heardBase) }
      return max(0, Double(frames) / Double(PCMFormat.sampleRate))
    }
  }

  // MARK: - Downloads

  /// Starts (or restarts at `offset`) the download that fills the session's buffer; a local
  /// file has none: its playing thread reads the file itself.
  private func startDownload(_ session: Session, from offset: Int64) {
    guard let buffer = session.download else { return }
    streamDownload(session, buffer, generation: buffer.restart(at: offset), from: offset)
  }

  /// Continues a download the buffer stopped ahead of the reader, once the reader nears its end.
  private func refillIfDue(_ session: Session) {
    guard let buffer = session.download, let (generation, offset) = buffer.takeRefill() else {
      return
    }
    streamDownload(session, buffer, generation: generation, from: offset)
  }

  private func streamDownload(
    _ session: Session, _ buffer: SongBuffer, generation: Int, from offset: Int64
  ) {
    guard session.live else {
      let transfer = client.stream(
        HTTPRequest(url: session.source, maxBytes: 500_000_000, offset: offset),
        handlers: StreamHandlers(
          onResponse: { _, _, length in buffer.setLength(length, generation: generation) },
          onData: { data in buffer.append(data, generation: generation) },
          onComplete: { error in buffer.finish(error, generation: generation) }))
      session.replaceTransfer(transfer)
      return
    }
    // A station: ICY metadata asked for, split out of the audio before the buffer sees it. No
    // length and no limit: the stream goes on as long as it is listened to.
    let id = session.playID
    let onEvent = self.onEvent
    var request = HTTPRequest(url: session.source, headers: ["Icy-MetaData": "1"], maxBytes: .max)
    request.batchDelay = Self.liveBatchDelay
    // Only while the reader has bytes ahead (a server's burst, kept ahead as it plays): a
    // reader that waited for bytes lately gets every packet at once again.
    request.canBatch = { !buffer.waitedForBytes(within: Self.liveBatchHoldOff) }
    let transfer = client.stream(
      request,
      handlers: StreamHandlers(
        onData: { data in
          let (audio, title) = session.icy.split(data)
          if let title { onEvent(.streamTitle(playID: id, title)) }
          return audio.isEmpty || buffer.append(audio, generation: generation)
        },
        onComplete: { error in buffer.finish(error, generation: generation) },
        onHeaders: { headers in session.icy.start(metaint: headers["icy-metaint"]) }))
    session.replaceTransfer(transfer)
  }

  // MARK: - The playing thread

  private func run(_ session: Session) {
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 32_768, alignment: 16)
    defer { scratch.deallocate() }
    var decoder: AudioDecoder?
    var sniffBytes = Data()
    var soundReported = false
    var buffering = false
    /// When sound last went to the output (or the stream was asked for): a live stream silent
    /// for `liveSilenceLimit` is dropped.
    var lastSound = Date()

    func fail(_ reason: String) {
      if !session.isCancelled { emit(session) { .failed(playID: $0, reason) } }
      session.cancel()
    }

    /// A live stream that stopped; the reducer decides whether to connect again.
    func drop(_ reason: String, transient: Bool) {
      if !session.isCancelled {
        emit(session) { .dropped(playID: $0, reason, transient: transient) }
      }
      session.cancel()
    }

    /// Decodes everything fed so far and plays it. False when the session must stop.
    func drain(_ decoder: AudioDecoder) throws -> Bool {
      while !session.hasPendingSeek {
        if session.isCancelled { return false }
        switch try decoder.decode(into: scratch) {
        case .needMore, .done: return true
        case .pcm(let count):
          guard count > 0 else { continue }
          lastSound = Date()
          if !soundReported || buffering {
            if !soundReported, !session.isFollower { Trace.mark("sample \(session.playID)") }
            soundReported = true
            buffering = false
            // A stream without a length (a radio station) has none; mpg123 would guess one
            // from the bytes so far.
            let duration = session.bytes.expectedLength == nil ? nil : decoder.duration
            emit(session) { .started(playID: $0, duration: duration) }
          }
          let pcm = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count])
          PCMGain.apply(lock.withLock { gain } * session.gain, to: pcm)
          guard write(UnsafeRawBufferPointer(pcm), for: session) else {
            return false
          }
        }
      }
      return true
    }

    while !session.isCancelled {
      if session.live, Date().timeIntervalSince(lastSound) >= liveSilenceLimit {
        drop("sent no audio for \(Int(liveSilenceLimit)) s", transient: true)
        return
      }
      do {
        // A seek asked for before the format is known waits for the decoder (identify starts
        // a song part-way in).
        if let decoder, let seconds = session.takeSeek() {
          try seek(decoder, to: seconds, in: session)
        }
        refillIfDue(session)
        switch session.bytes.read(timeout: stallReportDelay, interrupt: { session.hasPendingSeek })
        {
        case .cancelled:
          return
        case .timedOut:
          if soundReported && !buffering && !session.hasPendingSeek {
            buffering = true
            emit(session) { .buffering(playID: $0) }
          }
        case .failed(let error):
          let reason = (error as? HTTPError)?.userMessage ?? String(describing: error)
          if session.live {
            drop(reason, transient: (error as? HTTPError)?.isTransient ?? false)
          } else {
            fail(reason)
          }
          return
        case .bytes(let data):
          if let decoder {
            try decoder.feed(data)
            guard try drain(decoder) else { return }
          } else {
            sniffBytes.append(data)
            let whole = session.bytes.expectedLength.map { Int64(sniffBytes.count) >= $0 } ?? false
            guard sniffBytes.count >= AudioSniffer.preferredLength || whole else { continue }
            let started = try makeDecoder(sniffBytes, session: session)
            decoder = started
            sniffBytes = Data()
            guard try drain(started) else { return }
          }
        case .end:
          if decoder == nil {
            guard !sniffBytes.isEmpty else { throw DecodeError.noAudio }
            decoder = try makeDecoder(sniffBytes, session: session)
          }
          // Nothing more comes: what the decoder held back for lack of bytes plays now. After a
          // seek the decoder may also hold input it was given before: play it out.
          decoder!.finishInput()
          guard try drain(decoder!) else { return }
          if session.hasPendingSeek { continue }
          guard decoder?.hasFormat == true else { throw DecodeError.noAudio }
          if session.live {
            drop("stopped sending", transient: true)
            return
          }
          keepInCache(session)
          if let mark = startFollower(after: session) {
            // The next song writes on into the output; this one ends when its last sample is
            // heard.
            waitForTail(of: session, endingAt: mark)
            if !session.isCancelled { emit(session) { .finished(playID: $0) } }
            return
          }
          waitForOutputToDrain(session)
          if !session.isCancelled { emit(session) { .finished(playID: $0) } }
          closeOutputIfIdle(after: session)
          return
        }
      } catch {
        fail(String(describing: error))
        return
      }
    }
  }

  private func makeDecoder(_ firstBytes: Data, session: Session) throws -> AudioDecoder {
    let decoder = try DecoderFactory.make(for: AudioSniffer.kind(of: firstBytes))
    if let length = session.bytes.expectedLength { decoder.setInputLength(length) }
    try decoder.feed(firstBytes)
    return decoder
  }

  /// Moves the decoder and the bytes to `seconds`; the position follows at once.
  private func seek(_ decoder: AudioDecoder, to seconds: Double, in session: Session) throws {
    let frame = Int64(max(0, seconds) * Double(PCMFormat.sampleRate))
    let (reached, inputOffset) = try decoder.seek(toFrame: frame)
    if !session.bytes.seek(to: inputOffset) {
      startDownload(session, from: inputOffset)
    }
    lock.withLock {
      guard self.session === session else { return }
      heardBase = totalFrames - Int(reached)
      heardEnd = nil
      output?.restartPacing()
    }
  }

  private func keepInCache(_ session: Session) {
    guard let cache, session.source == session.original, !session.original.isFileURL,
      let data = session.download?.completeData
    else { return }
    // On this thread, before the song is reported finished: a quit right after the end must
    // not lose the copy.
    cache.store(data, for: session.original)
  }

  /// Writes PCM for `session` unless it was cancelled; waits while paused and while a paced
  /// output is ahead of real time. False when the session must stop.
  private func write(_ pcm: UnsafeRawBufferPointer, for session: Session) -> Bool {
    lock.lock()
    while paused && self.session === session && !session.hasPendingSeek {
      waitWhilePaused()
    }
    guard self.session === session, !session.isCancelled else {
      lock.unlock()
      return false
    }
    // Audio decoded before a seek is stale: drop it.
    if session.hasPendingSeek {
      lock.unlock()
      return true
    }
    if output == nil {
      if outputError == nil {
        do {
          output = try openOutput()
        } catch {
          outputError = "No audio output: \(error)"
        }
      }
      if let outputError {
        lock.unlock()
        emit(session) { .failed(playID: $0, outputError) }
        return false
      }
    }
    let device = output!
    lock.unlock()

    // Outside the engine's lock: a sound server may take its time, and the main queue reads
    // the position under that lock every tick.
    let wait = device.write(pcm)

    lock.lock()
    defer { lock.unlock() }
    guard self.session === session, !session.isCancelled else { return false }
    if session.startMark == nil { session.startMark = totalFrames }
    totalFrames += pcm.count / PCMFormat.bytesPerFrame
    if wait > 0 {
      // Wake early for cancel, pause or seek.
      _ = lock.wait(until: Date().addingTimeInterval(wait))
    }
    return self.session === session && !session.isCancelled
  }

  /// Frames the output holds that are not heard yet (call holding `lock`).
  private func queuedFrames() -> Int {
    Int(max(0, output?.queuedSeconds() ?? 0) * Double(PCMFormat.sampleRate))
  }

  /// Sends an event about `session`; a following song not yet asked for keeps its events until
  /// the `play` that takes it over.
  private func emit(_ session: Session, _ event: @escaping (Int) -> PlaybackEvent) {
    if let id = session.reportingID(holding: event) { onEvent(event(id)) }
  }

  /// Once `session`'s bytes are all decoded and written: when a song to follow is known, opens
  /// it on a thread of its own, writing into the same output (gapless). Returns the output's
  /// frame count at the end of `session`, or nil when nothing follows.
  private func startFollower(after session: Session) -> Int? {
    let follower: Session? = lock.withLock {
      // A follower not yet taken over does not chain another: what follows it is not known
      // until the reducer has moved on to it.
      guard self.session === session, !session.isCancelled, !session.live, !session.isFollower,
        let next = nextRequest
      else { return nil }
      let source = cache?.cachedFile(for: next.url) ?? next.url
      let follower = Session(
        playID: Session.followerID, source: source, original: next.url, gain: next.gain)
      self.session = follower
      tail = session
      heardEnd = totalFrames
      return follower
    }
    guard let follower else { return nil }
    startDownload(follower, from: 0)
    let thread = Thread { [self] in
      riffle_name_current_thread("riffle-playback")
      run(follower)
    }
    thread.start()
    return lock.withLock { heardEnd }
  }

  /// Waits until the output has played everything up to `mark` (frames written in all), the
  /// end of `session`, while the song after it writes on.
  private func waitForTail(of session: Session, endingAt mark: Int) {
    lock.withLock {
      var before = Int.max
      while tail === session, !session.isCancelled {
        if paused {
          waitWhilePaused()
          before = .max
          continue
        }
        let left = mark - (totalFrames - queuedFrames())
        // A sound server's figure may stop short: stop when it no longer falls.
        if left <= 0 || left >= before { break }
        before = left
        _ = lock.wait(until: Date().addingTimeInterval(Double(left) / Double(PCMFormat.sampleRate)))
      }
      if tail === session { tail = nil }
    }
  }

  /// Waits (holding `lock`) until woken; once a pause has lasted `closeOutputAfterPause`, a
  /// sound server's stream is closed (it has played all it held) and the next write reopens it.
  private func waitWhilePaused() {
    guard let open = output, open.closesWhenPaused else {
      lock.wait()
      return
    }
    let deadline = Date().addingTimeInterval(Self.closeOutputAfterPause)
    if !lock.wait(until: deadline), paused, output === open {
      open.close()
      output = nil
    }
  }

  /// After a song ends, a sound server's stream is closed unless another song starts within
  /// `closeOutputAfterPause`: idle on a page, nothing wakes for it.
  private func closeOutputIfIdle(after session: Session) {
    lock.withLock {
      guard let open = output, open.closesWhenPaused else { return }
      let deadline = Date().addingTimeInterval(Self.closeOutputAfterPause)
      while self.session === session, Date() < deadline { _ = lock.wait(until: deadline) }
      if self.session === session, output === open {
        open.close()
        output = nil
      }
    }
  }

  /// An output still holds up to its buffer of audio: the song ends when that is heard.
  private func waitForOutputToDrain(_ session: Session) {
    lock.withLock {
      var before = Double.infinity
      while self.session === session, !session.isCancelled, !session.hasPendingSeek {
        if paused {
          waitWhilePaused()
          before = .infinity
          continue
        }
        let queued = output?.queuedSeconds() ?? 0
        // A sound server's figure may stop short of 0: stop when it no longer falls.
        if queued <= 0 || queued >= before { return }
        before = queued
        _ = lock.wait(until: Date().addingTimeInterval(queued))
      }
    }
  }
}

/// One play request: its bytes, its download, its pending seek, its cancellation.
private final class Session: @unchecked Sendable {
  /// The request number of a song started to follow another before any `play` asked for it.
  static let followerID = -1

  /// The request number; `followerID` until a following song is taken over.
  var playID: Int { lock.withLock { id } }
  private var id: Int
  /// Events of a following song, kept until it is taken over.
  private var held: [(Int) -> PlaybackEvent] = []
  /// The engine's `totalFrames` when this request's first frame was written (engine's lock).
  var startMark: Int?
  /// Where the bytes come from: the song's URL, or its copy in the cache.
  let source: URL
  let original: URL
  /// What the playing thread reads: the download, or the local file itself.
  let bytes: SongBytes
  /// The download's buffer, for a song that is not a local file.
  let download: SongBuffer?
  private let lock = NSLock()
  private var transfer: Transfer?
  private var pendingSeek: Double?

  /// The song's ReplayGain as a factor (1: none), applied with the volume.
  let gain: Double

  /// A radio station's stream (see `PlaybackEngine.play`).
  let live: Bool
  /// Splits a station's ICY metadata out of its bytes (transfer thread only).
  let icy = ICYDemuxer()

  init(playID: Int, source: URL, original: URL, gain: Double = 1, live: Bool = false) {
    self.live = live
    self.id = playID
    self.source = source
    self.original = original
    self.gain = gain
    if source.isFileURL {
      bytes = SongFile(url: source)
      download = nil
    } else {
      let buffer = SongBuffer()
      bytes = buffer
      download = buffer
    }
  }

  var isCancelled: Bool { bytes.isCancelled }

  var isFollower: Bool { playID == Self.followerID }

  /// The number to report `event` under, or nil when it is kept for the takeover.
  func reportingID(holding event: @escaping (Int) -> PlaybackEvent) -> Int? {
    lock.withLock {
      guard id == Self.followerID else { return id }
      held.append(event)
      return nil
    }
  }

  /// Takes a following song over as request `playID`; returns the events it kept.
  func adopt(as playID: Int) -> [PlaybackEvent] {
    lock.withLock {
      id = playID
      defer { held = [] }
      return held.map { $0(playID) }
    }
  }

  func cancel() {
    bytes.cancel()
    lock.withLock { transfer }?.cancel()
  }

  /// Sets the download feeding the buffer, cancelling the one before.
  func replaceTransfer(_ new: Transfer) {
    let old = lock.withLock {
      defer { transfer = new }
      return transfer
    }
    old?.cancel()
    if isCancelled { new.cancel() }
  }

  func requestSeek(_ seconds: Double) {
    lock.withLock { pendingSeek = seconds }
  }

  var hasPendingSeek: Bool { lock.withLock { pendingSeek != nil } }

  func takeSeek() -> Double? {
    lock.withLock {
      defer { pendingSeek = nil }
      return pendingSeek
    }
  }
}

/// The song that follows the current one (`PlaybackEngine.prepare(next:)`).
private struct NextRequest {
  let url: URL
  let gain: Double
}

extension DiskCache: AudioCache {
  public func cachedFile(for url: URL) -> URL? { file(for: url) }
}
