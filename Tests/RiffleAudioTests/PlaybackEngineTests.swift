import Foundation
import RiffleAPI
import RiffleAudio
import RiffleTestSupport
import Testing

/// Collects engine events from its threads.
final class EventLog: @unchecked Sendable {
  private let condition = NSCondition()
  private var events: [PlaybackEvent] = []

  func append(_ event: PlaybackEvent) {
    condition.withLock {
      events.append(event)
      condition.broadcast()
    }
  }

  var all: [PlaybackEvent] { condition.withLock { events } }

  /// Waits until an event matches; returns false on timeout.
  func wait(timeout: TimeInterval, for match: (PlaybackEvent) -> Bool) -> Bool {
    condition.withLock {
      let deadline = Date().addingTimeInterval(timeout)
      while !events.contains(where: match) {
        if !condition.wait(until: deadline) { return events.contains(where: match) }
      }
      return true
    }
  }
}

/// An engine that plays into `out.wav` in `dir` (paced, like a sound card), with its event log.
private func engineWritingWAV(in dir: TemporaryDirectory) -> (PlaybackEngine, EventLog, URL) {
  let wav = dir.file("out.wav")
  let log = EventLog()
  let engine = PlaybackEngine(
    output: { try AudioDriverChoice.wav(wav.path).open() }, onEvent: { log.append($0) })
  return (engine, log, wav)
}

@Suite("Playback engine", .serialized)
struct PlaybackEngineTests {
  @Test("a song played to the wav driver arrives whole, in real time")
  func playsWholeSongToWAV() throws {
    let dir = try TemporaryDirectory()
    let (engine, log, wav) = engineWritingWAV(in: dir)
    let began = Date()
    engine.play(TestFiles.fixture("short-1.mp3"), playID: 7)
    #expect(log.wait(timeout: 10) { $0 == .finished(playID: 7) })
    let elapsed = Date().timeIntervalSince(began)
    engine.shutdown()

    guard case .started(7, let duration)? = log.all.first else {
      Issue.record("first event should be started, got \(log.all)")
      return
    }
    #expect(abs((duration ?? 0) - 2.0) < 0.1)
    // Paced: 2 s of audio takes about 2 s, never milliseconds.
    #expect(elapsed > 1.6 && elapsed < 4, "took \(elapsed) s")
    let written = try WAVFile.read(wav)
    let reference = try WAVFile.decodedByMPG123(TestFiles.fixture("short-1.mp3"))
    #expect(abs(written.frames - reference.frames) <= 1152)
    #expect(written.rms > 0.01)
  }

  @Test("a song's ReplayGain of -6.02 dB halves what is written; a boost is not applied")
  func replayGain() throws {
    func rms(gainDB: Double?) throws -> Double {
      let dir = try TemporaryDirectory()
      let (engine, log, wav) = engineWritingWAV(in: dir)
      engine.play(TestFiles.fixture("short-1.mp3"), playID: 1, gainDB: gainDB)
      #expect(log.wait(timeout: 10) { $0 == .finished(playID: 1) })
      engine.shutdown()
      return try WAVFile.read(wav).rms
    }
    let plain = try rms(gainDB: nil)
    let cut = try rms(gainDB: -6.0206)
    let boost = try rms(gainDB: 6)
    #expect(abs(cut / plain - 0.5) < 0.01, "\(cut) / \(plain)")
    #expect(abs(boost / plain - 1) < 0.001, "\(boost) / \(plain)")
  }

  @Test("a seek asked for right after play, before the format is known, is kept")
  func seekBeforeDecoder() throws {
    let dir = try TemporaryDirectory()
    let (engine, log, wav) = engineWritingWAV(in: dir)
    // A catalog song of 25 s, started 20 s in (as `i` does): about 5 s are played, not 25.
    let song = TestFiles.catalog.appendingPathComponent("audio/riffle-006.mp3")
    engine.play(song, playID: 3)
    engine.seek(to: 20, playID: 3)
    #expect(log.wait(timeout: 30) { $0 == .finished(playID: 3) })
    engine.shutdown()
    let written = try WAVFile.read(wav)
    // Dropping the seek (the engine once did, before the decoder existed) plays all 25 s.
    #expect(written.seconds > 4 && written.seconds < 6, "played \(written.seconds) s")
    #expect(written.rms > 0.01)
  }

  @Test("a local song seeks back before what it has read: the file is read again from there")
  func localSeekBack() throws {
    let dir = try TemporaryDirectory()
    let (engine, log, wav) = engineWritingWAV(in: dir)
    // 25 s; from 22 s one piece reaches the end of the file, so 20 s lies before it.
    let song = TestFiles.catalog.appendingPathComponent("audio/riffle-006.mp3")
    engine.play(song, playID: 4)
    engine.seek(to: 22, playID: 4)
    #expect(log.wait(timeout: 10) { $0 == .started(playID: 4, duration: $0.duration) })
    Thread.sleep(forTimeInterval: 0.3)
    engine.seek(to: 20, playID: 4)
    #expect(log.wait(timeout: 30) { $0 == .finished(playID: 4) })
    engine.shutdown()
    let written = try WAVFile.read(wav)
    // About 0.3 s from 22 s, then the 5 s from 20 s to the end.
    #expect(written.seconds > 4.8 && written.seconds < 6.5, "played \(written.seconds) s")
    #expect(written.rms > 0.01)
  }

  @Test("playing another song cancels the first at once")
  func playCancelsPrevious() throws {
    let dir = try TemporaryDirectory()
    let (engine, log, _) = engineWritingWAV(in: dir)
    engine.play(TestFiles.fixture("short-2.mp3"), playID: 1)
    #expect(log.wait(timeout: 5) { $0 == .started(playID: 1, duration: $0.duration) })
    engine.play(TestFiles.fixture("short-1.mp3"), playID: 2)
    #expect(log.wait(timeout: 10) { $0 == .finished(playID: 2) })
    engine.shutdown()
    #expect(!log.all.contains(.finished(playID: 1)))
    let frames = try WAVFile.read(dir.file("out.wav")).frames
    // All of song 2 (2 s) plus the little of song 1 played before the switch.
    #expect(frames > 88_000 && frames < 88_200 + 44_100, "frames \(frames)")
  }

  @Test("paused, the engine writes nothing; resumed, it carries on")
  func pauseStopsOutput() throws {
    let dir = try TemporaryDirectory()
    let (engine, log, _) = engineWritingWAV(in: dir)
    engine.play(TestFiles.fixture("short-2.mp3"), playID: 1)
    #expect(log.wait(timeout: 5) { if case .started = $0 { true } else { false } })
    engine.pause()
    Thread.sleep(forTimeInterval: 0.4)
    let held = engine.position(playID: 1) ?? -1
    Thread.sleep(forTimeInterval: 0.6)
    #expect(engine.position(playID: 1) == held, "position moved while paused")
    #expect(!log.all.contains(.finished(playID: 1)))
    engine.resume()
    #expect(log.wait(timeout: 10) { $0 == .finished(playID: 1) })
    engine.shutdown()
  }

  @Test("a pause longer than a sound server's grace keeps a file output open and whole")
  func longPauseKeepsFileOutput() throws {
    let dir = try TemporaryDirectory()
    // Only a sound server's stream is closed during a long pause; a WAV file ends at close.
    #expect(try !AudioDriverChoice.wav(dir.file("probe.wav").path).open().closesWhenPaused)
    #expect(try !AudioDriverChoice.null.open().closesWhenPaused)
    let (engine, log, wav) = engineWritingWAV(in: dir)
    engine.play(TestFiles.fixture("short-1.mp3"), playID: 3)
    // Pause once the device is open and has taken audio (it opens at the first write).
    let opened = Date().addingTimeInterval(5)
    while engine.driverName == nil && Date() < opened { Thread.sleep(forTimeInterval: 0.01) }
    #expect(engine.driverName == "wav")
    engine.pause()
    Thread.sleep(forTimeInterval: 1.5)
    #expect(engine.driverName == "wav")
    engine.resume()
    #expect(log.wait(timeout: 10) { $0 == .finished(playID: 3) })
    engine.shutdown()
    let written = try WAVFile.read(wav)
    let reference = try WAVFile.decodedByMPG123(TestFiles.fixture("short-1.mp3"))
    #expect(abs(written.frames - reference.frames) <= 1152)
  }

  @Test("bytes that are not audio fail with a reason, and the next song still plays")
  func corruptFailsThenNextPlays() throws {
    let dir = try TemporaryDirectory()
    let (engine, log, _) = engineWritingWAV(in: dir)
    engine.play(TestFiles.fixture("corrupt.mp3"), playID: 1)
    #expect(
      log.wait(timeout: 5) { $0 == .failed(playID: 1, "not an audio format Riffle can play") })
    engine.play(TestFiles.fixture("short-1.mp3"), playID: 2)
    #expect(log.wait(timeout: 10) { $0 == .finished(playID: 2) })
    engine.shutdown()
  }

  @Test("a missing file fails with a message naming it")
  func missingFile() throws {
    let log = EventLog()
    let engine = PlaybackEngine(
      output: { try AudioDriverChoice.null.open() }, onEvent: { log.append($0) })
    engine.play(URL(fileURLWithPath: "/nonexistent/song.mp3"), playID: 3)
    #expect(log.wait(timeout: 5) { $0 == .failed(playID: 3, "Cannot read /nonexistent/song.mp3") })
    engine.shutdown()
  }
}

extension PlaybackEvent {
  var duration: Double? {
    if case .started(_, let duration) = self { return duration }
    return nil
  }
}

/// A real output that counts the frames it has been given (to see what was written when).
private final class CountingOutput: AudioOutput, @unchecked Sendable {
  private let inner: any AudioOutput
  private let lock = NSLock()
  private var count = 0

  init(_ inner: any AudioOutput) { self.inner = inner }

  var frames: Int { lock.withLock { count } }
  var driverName: String { inner.driverName }
  var closesWhenPaused: Bool { inner.closesWhenPaused }
  var tap: PCMTap { inner.tap }
  func write(_ pcm: UnsafeRawBufferPointer) -> TimeInterval {
    lock.withLock { count += pcm.count / PCMFormat.bytesPerFrame }
    return inner.write(pcm)
  }
  func restartPacing() { inner.restartPacing() }
  func queuedSeconds(at now: Date) -> Double { inner.queuedSeconds(at: now) }
  func close() { inner.close() }
}

@Suite("Playback engine: the next song written on without a gap", .serialized)
struct PlaybackEngineGaplessTests {
  @Test(
    "with the next song prepared, it is written before the first is reported finished; its play takes it over"
  )
  func followerTakesOver() throws {
    let dir = try TemporaryDirectory()
    let wav = dir.file("out.wav")
    let log = EventLog()
    let opened = LockedOutput()
    let engine = PlaybackEngine(
      output: {
        let output = CountingOutput(try AudioDriverChoice.wav(wav.path).open())
        opened.set(output)
        return output
      },
      onEvent: { event in
        if case .finished(1) = event { opened.markFinished() }
        log.append(event)
      })
    let first = TestFiles.fixture("short-1.mp3")
    let second = TestFiles.fixture("short-2.mp3")
    engine.prepare(next: second)
    engine.play(first, playID: 1)
    #expect(log.wait(timeout: 10) { $0 == .finished(playID: 1) })
    // The reducer's answer to the end: play the next song, which is already playing.
    engine.play(second, playID: 2)
    engine.prepare(next: nil)
    #expect(log.wait(timeout: 10) { $0 == .finished(playID: 2) })
    engine.shutdown()

    let firstFrames = try WAVFile.decodedByMPG123(first).frames
    let secondFrames = try WAVFile.decodedByMPG123(second).frames
    // When the first was reported finished (its last sample heard), the second was already
    // being written: a sound card had no moment without audio.
    let atFinish = try #require(opened.framesAtFinish)
    #expect(atFinish > firstFrames + 2_205, "\(atFinish) frames written at the first's end")
    // Both whole, once each: the second was not started again by its play.
    let written = try WAVFile.read(wav)
    #expect(abs(written.frames - firstFrames - secondFrames) <= 2 * 1152)
    let started = log.all.filter { if case .started = $0 { true } else { false } }
    #expect(
      started.count == 2
        && started.last.map { if case .started(2, _) = $0 { true } else { false } } == true,
      "\(log.all)")
    #expect(!log.all.contains { if case .failed = $0 { true } else { false } })
  }

  @Test("a play of another song during the first's tail stops the prepared one; only it plays on")
  func otherSongReplacesFollower() throws {
    let dir = try TemporaryDirectory()
    let (engine, log, wav) = engineWritingWAV(in: dir)
    engine.prepare(next: TestFiles.fixture("short-2.mp3"))
    engine.play(TestFiles.fixture("short-1.mp3"), playID: 1)
    #expect(log.wait(timeout: 10) { $0 == .finished(playID: 1) })
    engine.prepare(next: nil)
    engine.play(TestFiles.fixture("short-1.mp3"), playID: 2)
    #expect(log.wait(timeout: 10) { $0 == .finished(playID: 2) })
    engine.shutdown()
    let written = try WAVFile.read(wav)
    let expected = try 2 * WAVFile.decodedByMPG123(TestFiles.fixture("short-1.mp3")).frames
    // Whatever of the prepared song was written before the play (at most the output's lead).
    #expect(written.frames >= expected - 2 * 1152 && written.frames < expected + 22_050)
  }
}

/// The output the engine opened, and the frames it had been given at the first song's end.
private final class LockedOutput: @unchecked Sendable {
  private let lock = NSLock()
  private var output: CountingOutput?
  private var atFinish: Int?

  func set(_ output: CountingOutput) { lock.withLock { self.output = output } }
  func markFinished() { lock.withLock { atFinish = output?.frames } }
  var framesAtFinish: Int? { lock.withLock { atFinish } }
}
