import Foundation
import RiffleAPI
import RiffleAudio
import RiffleTestSupport
import Testing

/// M4A through the whole engine: HTTP download, sniffing, FFmpeg, the wav driver.
@Suite("Playback engine with M4A", .serialized)
struct FFmpegPlaybackTests {
  /// Interleaved samples of what `DecoderFactory.decodeAll` makes of a file.
  private func decoded(_ bytes: Data) throws -> [Int16] {
    try DecoderFactory.decodeAll(bytes).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
  }

  private func play(
    _ bytes: Data, path: String, bytesPerSecond: Int, seekAfterStart: Double? = nil
  ) throws -> (wav: WAVFile, events: [PlaybackEvent], server: LoopbackHTTPServer) {
    let server = try LoopbackHTTPServer(
      handler: LoopbackHTTPServer.routes([
        path: .throttled(bytes, contentType: "audio/mpeg", bytesPerSecond: bytesPerSecond)
      ]))
    let dir = try TemporaryDirectory()
    let wav = dir.file("out.wav")
    let log = EventLog()
    let engine = PlaybackEngine(
      client: HTTPClient(), output: { try AudioDriverChoice.wav(wav.path).open() },
      onEvent: { log.append($0) })
    engine.play(server.url(path), playID: 4)
    if let seconds = seekAfterStart {
      #expect(log.wait(timeout: 20) { $0.duration != nil })
      engine.seek(to: seconds, playID: 4)
    }
    let finished = log.wait(timeout: 60) { $0 == .finished(playID: 4) }
    engine.shutdown()
    #expect(finished, "events: \(log.all)")
    return (try WAVFile.read(wav), log.all, server)
  }

  @Test("an M4A streamed over slow HTTP under an .mp3 name plays exactly as it decodes")
  func streamedM4A() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("short.m4a"))
    let (wav, events, server) = try play(bytes, path: "/preview.mp3", bytesPerSecond: 24_000)
    defer { server.stop() }
    #expect(wav.sampleRate == 44_100 && wav.channels == 2)
    #expect(wav.samples == (try decoded(bytes)), "the WAV differs from the decoded M4A")
    guard case .started(4, let duration)? = events.first else {
      Issue.record("first event should be started: \(events)")
      return
    }
    #expect(
      duration.map { abs($0 - 4.0) < 0.001 } == true, "duration \(String(describing: duration))")
  }

  @Test("an M4A with its sample table last plays whole once its end has arrived")
  func moovLastOverHTTP() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("moov-last.m4a"))
    let (wav, events, server) = try play(bytes, path: "/late-index.m4a", bytesPerSecond: 40_000)
    defer { server.stop() }
    #expect(wav.samples == (try decoded(bytes)))
    #expect(!events.contains { if case .failed = $0 { true } else { false } }, "\(events)")
  }

  @Test("an M4A cut off in its audio plays what came, then says it is damaged")
  func cutOffM4A() throws {
    let bytes = try Data(contentsOf: TestFiles.fixture("short.m4a"))
    let dir = try TemporaryDirectory()
    let file = dir.file("half.m4a")
    try bytes.prefix(bytes.count / 2).write(to: file)
    let log = EventLog()
    let engine = PlaybackEngine(
      output: { try AudioDriverChoice.wav(dir.file("out.wav").path).open() },
      onEvent: { log.append($0) })
    engine.play(file, playID: 5)
    let failed = log.wait(timeout: 10) {
      $0 == .failed(playID: 5, "the audio is damaged (the file is cut short at 2.0 s of 4.0 s)")
    }
    #expect(failed, "events: \(log.all)")
    engine.shutdown()
    #expect(try WAVFile.read(dir.file("out.wav")).seconds > 1.5, "the part that came is heard")
  }

  @Test("a seek beyond the download of an M4A makes a Range request and plays on exactly")
  func seekBeyondDownload() throws {
    let dir = try TemporaryDirectory()
    let m4a = try TestFiles.encodeM4A(
      TestFiles.catalog.appendingPathComponent("audio/riffle-003.mp3"), into: dir)
    let bytes = try Data(contentsOf: m4a)
    let whole = try decoded(bytes)
    // About 16 kB/s of audio served at 24 kB/s: at the start little has arrived, and 12 s in
    // lies about 190 kB into the file.
    let (wav, _, server) = try play(
      bytes, path: "/long.m4a", bytesPerSecond: 24_000, seekAfterStart: 12)
    defer { server.stop() }
    let ranges = server.requests.compactMap { $0.headers["range"] }
    #expect(ranges.contains { $0.hasPrefix("bytes=") && $0 != "bytes=0-" }, "ranges: \(ranges)")
    // What plays is some of the start, then exactly the song from 12 s on.
    let tail = whole[(12 * 44_100 * 2)...]
    #expect(wav.samples.count >= tail.count)
    let head = wav.samples.count - tail.count
    #expect(wav.samples[head...].elementsEqual(tail), "the song from 12 s differs")
    #expect(wav.samples[..<head].elementsEqual(whole[..<head]), "the start differs")
    #expect(head < 44_100 * 2 * 3, "played \(head / 2) frames before the seek")
  }
}
