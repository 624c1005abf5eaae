import Foundation
import RiffleAudio
import RiffleFingerprint
import RiffleTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `riffle-fingerprint-bench`: how well and how fast Riffle names songs, on a catalog of
/// synthesized songs (scripts/bench-fingerprint.sh; results in docs/fingerprinting.md).
///
/// Options: `--songs N` (catalog size, default 100), `--index-songs N` (the large index for
/// query time, default 1000), `--seed N`.
@main
enum FingerprintBench {
  struct Options {
    var songs = 100
    var indexSongs = 1_000
    var seed: UInt64 = 1
    /// Only conditions whose name contains this.
    var only: String?
  }

  /// Parameters, with overrides from RIFFLE_FP_<NAME> variables for tuning runs.
  static func parameters() -> FingerprintParameters {
    var p = FingerprintParameters()
    let env = ProcessInfo.processInfo.environment
    func int(_ name: String, _ value: inout Int) {
      if let v = env["RIFFLE_FP_\(name)"].flatMap(Int.init) { value = v }
    }
    func float(_ name: String, _ value: inout Float) {
      if let v = env["RIFFLE_FP_\(name)"].flatMap(Float.init) { value = v }
    }
    func double(_ name: String, _ value: inout Double) {
      if let v = env["RIFFLE_FP_\(name)"].flatMap(Double.init) { value = v }
    }
    int("BIN_RADIUS", &p.peakBinRadius)
    int("FRAME_RADIUS", &p.peakFrameRadius)
    float("ABOVE_MEAN", &p.peakAboveMean)
    int("LEVEL_RADIUS", &p.levelBinRadius)
    int("PEAKS_PER_SECOND", &p.peaksPerSecond)
    int("QUERY_PEAKS_PER_SECOND", &p.queryPeaksPerSecond)
    int("LOW_PEAKS_PER_SECOND", &p.lowPeaksPerSecond)
    int("QUERY_LOW_PEAKS_PER_SECOND", &p.queryLowPeaksPerSecond)
    int("LOW_PEAKS_BELOW_BIN", &p.lowPeaksBelowBin)
    int("HIGH_PEAKS_PER_SECOND", &p.highPeaksPerSecond)
    int("QUERY_HIGH_PEAKS_PER_SECOND", &p.queryHighPeaksPerSecond)
    int("HIGH_PEAKS_FROM_BIN", &p.highPeaksFromBin)
    int("FAN_OUT", &p.fanOut)
    int("QUERY_FAN_OUT", &p.queryFanOut)
    int("DENSE_QUERY_PEAKS_PER_SECOND", &p.denseQueryPeaksPerSecond)
    int("DENSE_QUERY_FAN_OUT", &p.denseQueryFanOut)
    int("DENSE_QUERY_LOW_PEAKS_PER_SECOND", &p.denseQueryLowPeaksPerSecond)
    int("DENSE_CANDIDATES", &p.denseCandidates)
    double("SCAN_SECONDS", &p.scanSeconds)
    int("SCAN_MAX_SONGS", &p.scanMaxSongs)
    int("SCAN_STEP", &p.scanStep)
    int("SCAN_QUERY_STEP", &p.scanQueryStep)
    int("SCAN_ALIGNMENTS_PER_SONG", &p.scanAlignmentsPerSong)
    double("SCAN_PENALTY", &p.scanPenalty)
    double("SCAN_LARGE_SECONDS", &p.scanLargeSeconds)
    int("SCAN_LARGE_QUERY_STEP", &p.scanLargeQueryStep)
    int("MIN_BIN", &p.minBin)
    int("HOLD_FRAMES", &p.peakHoldFrames)
    float("HOLD_WEIGHT", &p.peakHoldWeight)
    double("SAME_AUDIO_SHARE", &p.sameAudioShare)
    double("SAME_AUDIO_SECONDS", &p.sameAudioSeconds)
    double("SAME_AUDIO_BITS", &p.sameAudioBits)
    int("MAX_FRAME_DELTA", &p.maxFrameDelta)
    int("MAX_BIN_DELTA", &p.maxBinDelta)
    int("MIN_SCORE", &p.minScore)
    double("MARGIN", &p.minMarginOverRunnerUp)
    double("SHARE", &p.minShareOfQuery)
    double("MAX_SPEED_CHANGE", &p.maxSpeedChange)
    double("SPEED_STEP", &p.speedStep)
    double("MAX_ROW_OVER_MEAN", &p.maxRowOverMean)
    int("MIN_ROW_CAP", &p.minRowCap)
    int("CHECKED_CANDIDATES", &p.checkedCandidates)
    int("ALIGNMENTS_PER_SONG", &p.alignmentsPerSong)
    if let v = env["RIFFLE_FP_CHECK_AT_SPEED_ONE"].flatMap(Int.init) { p.checksAtSpeedOne = v != 0 }
    double("SPEED_ONE_WITHIN", &p.speedOneWithin)
    double("BITS_IN_FULL", &p.bitsInFull)
    double("BASS_WHERE_BITS_UNDER", &p.bassWhereBitsUnder)
    double("BASS_OVER_PEAKS", &p.bassOverPeaks)
    double("BASS_PENALTY", &p.bassPenalty)
    if let v = env["RIFFLE_FP_BASS_UNDER_HASHES"].flatMap(Int.init) { p.bassUnderHashes = v != 0 }
    if env["RIFFLE_FP_NO_BASS"] != nil { p.bassBandEdges = [] }
    if let v = env["RIFFLE_FP_PLACES_BY_SCAN"].flatMap(Int.init) { p.placesByScan = v != 0 }
    if let v = env["RIFFLE_FP_SHARED_BACKING_BY_PEAKS"].flatMap(Int.init) {
      p.sharedBackingByPeaks = v != 0
    }
    double("SAME_AUDIO_EVIDENCE_SHARE", &p.sameAudioEvidenceShare)
    double("SPEED_ONE_PENALTY", &p.speedOnePenalty)
    double("MIN_EVIDENCE_WITH_HASHES", &p.minEvidenceWithHashes)
    double("MIN_EVIDENCE_WITH_STRONG_HASHES", &p.minEvidenceWithStrongHashes)
    int("STRONG_HASHES", &p.strongHashes)
    double("STRONG_HASHES_OVER_RUNNER_UP", &p.strongHashesOverRunnerUp)
    return p
  }

  static func main() throws {
    var options = Options()
    var real: RealMusicBench.Options?
    var args = CommandLine.arguments.dropFirst().makeIterator()
    func realOptions(_ change: (inout RealMusicBench.Options) -> Void) {
      var o = real ?? RealMusicBench.Options()
      change(&o)
      real = o
    }
    while let arg = args.next() {
      switch arg {
      case "--music": let v = args.next() ?? ""; realOptions { $0.list = v }
      case "--queries-per-song":
        let v = Int(args.next() ?? "") ?? 2; realOptions { $0.queriesPerSong = v }
      case "--max-songs": let v = Int(args.next() ?? "") ?? .max; realOptions { $0.maxSongs = v }
      case "--riffle": let v = args.next(); realOptions { $0.riffle = v }
      case "--scale":
        let v = (args.next() ?? "").split(separator: ",").compactMap { Int($0) }
        realOptions { $0.scaleSongs = v }
      case "--songs": options.songs = Int(args.next() ?? "") ?? options.songs
      case "--index-songs": options.indexSongs = Int(args.next() ?? "") ?? options.indexSongs
      case "--seed": options.seed = UInt64(args.next() ?? "") ?? options.seed
      case "--only": options.only = args.next()
      default:
        FileHandle.standardError.write(Data("unknown option \(arg)\n".utf8))
        exit(2)
      }
    }
    if var real {
      real.only = options.only
      real.seed = options.seed
      try RealMusicBench.run(real)
    } else {
      try run(options)
    }
  }

  static func log(_ text: String) {
    FileHandle.standardError.write(Data("\(text)\n".utf8))
  }

  static func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
  }

  /// CPU time of this thread: a query's cost without the other users of a shared machine.
  static func cpuNow() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
  }

  /// The length of synthesized song `i`: 30 to 60 s.
  static func length(seed: UInt64) -> Double {
    var random = SeededRandom(seed: seed ^ 0xABCD)
    return Double(random.int(30...60))
  }

  static func run(_ options: Options) throws {
    let fingerprinter = Fingerprinter(parameters: parameters())
    let cores = ProcessInfo.processInfo.activeProcessorCount

    // The catalog, and as many songs that are not in it.
    log("synthesizing \(options.songs * 2) songs...")
    let catalogSeeds = (0..<options.songs).map { options.seed &* 1_000_003 &+ UInt64($0) }
    let strangerSeeds = (0..<options.songs).map {
      options.seed &* 1_000_003 &+ 500_000 &+ UInt64($0)
    }
    let catalog = synthesize(catalogSeeds)
    let strangers = synthesize(strangerSeeds)

    log("fingerprinting the catalog...")
    var prints: [SongPrint] = []
    let audioSeconds = catalog.reduce(0.0) { $0 + Double($1.count) / 44_100 }
    let buildStart = now()
    prints = fingerprintAll(catalog, ids: catalogSeeds.map { "song-\($0)" }, fingerprinter)
    let index = FingerprintIndex(songs: prints, parameters: fingerprinter.parameters)
    let buildSeconds = now() - buildStart

    // Queries: every condition, one excerpt from a random place of every song, catalog and not.
    var rows: [(String, String, String)] = []
    var falseMatches = 0
    var strangerQueries = 0
    var wrongSong = 0
    var queryRandom = SeededRandom(seed: options.seed &+ 77)
    var scores: [(right: Bool, FingerprintMatch)] = []
    let scratch = try ScratchFolder()
    for condition in Condition.all where options.only.map(condition.name.contains) ?? true {
      var right = 0
      var positionsOff: [Double] = []
      for (which, songs) in [(0, catalog), (1, strangers)] {
        for (i, song) in songs.enumerated() {
          let start = queryRandom.unit() * (Double(song.count) / 44_100 - condition.seconds)
          var random = SeededRandom(seed: queryRandom.next())
          let query = try condition.make(
            from: song, start: start, random: &random, scratch: scratch)
          let recording = fingerprinter.recording(mono: query)
          if ProcessInfo.processInfo.environment["RIFFLE_BENCH_SCORES"] != nil {
            log(
              "score\t\(condition.name)\t\(which == 0 ? "catalog" : "stranger")\t"
                + RealMusicBench.candidateLog(
                  index, recording, right: which == 0 ? "song-\(catalogSeeds[i])" : ""))
          }
          let candidate = index.bestCandidate(peaks: recording.peaks)
          let match = index.match(recording)
          if let candidate {
            let ok = which == 0 && candidate.songID == "song-\(catalogSeeds[i])"
            scores.append((ok, candidate))
          }
          if which == 0 {
            if match?.songID == "song-\(catalogSeeds[i])" {
              right += 1
              positionsOff.append(abs(match!.offset - start))
            } else if match != nil {
              wrongSong += 1
            }
          } else {
            strangerQueries += 1
            if let match {
              falseMatches += 1
              log(
                "false match: \(condition.name), stranger \(i) -> \(match.songID) at "
                  + String(
                    format: "%.2f s, speed %.3f, evidence %.2f, score %d", match.offset,
                    match.speed, match.evidence ?? -99, match.score)
                  + (match.fromScan ? ", found by the scan" : ""))
            }
          }
        }
      }
      let accuracy = 100 * Double(right) / Double(catalog.count)
      let placed = positionsOff.filter { $0 <= 0.1 }.count
      rows.append(
        (
          condition.name, String(format: "%.0f%%", accuracy),
          String(format: "%.0f%%", 100 * Double(placed) / Double(max(1, positionsOff.count)))
        ))
      log(String(format: "%-28@ %6.1f%%", condition.name as NSString, accuracy))
    }

    if ProcessInfo.processInfo.environment["RIFFLE_BENCH_SCORES"] != nil {
      for (right, m) in scores {
        print("score \(right ? 1 : 0) \(m.score) \(m.runnerUp) \(m.queryHashes)")
      }
    }

    // Query time against a large index.
    log("building a \(options.indexSongs)-song index for the query time...")
    let extraSeeds = (0..<max(0, options.indexSongs - options.songs)).map {
      options.seed &* 1_000_003 &+ 900_000 &+ UInt64($0)
    }
    var large = prints
    for chunk in stride(from: 0, to: extraSeeds.count, by: 20) {  // 20 songs of audio at a time
      let seeds = Array(extraSeeds[chunk..<min(extraSeeds.count, chunk + 20)])
      large += fingerprintAll(synthesize(seeds), ids: seeds.map { "song-\($0)" }, fingerprinter)
    }
    let largeIndex = FingerprintIndex(songs: large, parameters: fingerprinter.parameters)
    var times: [Double] = []
    var largeRight = 0
    for (i, song) in catalog.enumerated() {
      let start = queryRandom.unit() * (Double(song.count) / 44_100 - 10)
      let clip = Array(song[Int(start * 44_100)..<Int((start + 10) * 44_100)])
      var random = SeededRandom(seed: UInt64(i))
      let noisy = Noise.white.add(to: clip, snr: 0, random: &random)
      let recording = fingerprinter.recording(mono: noisy)
      let t0 = cpuNow()
      let match = largeIndex.match(recording)
      times.append(cpuNow() - t0)
      if match?.songID == "song-\(catalogSeeds[i])" { largeRight += 1 }
    }
    times.sort()
    let stages = stageTimes(catalog[0], fingerprinter, largeIndex)

    print("| query | top-1 right | of those, placed within 0.1 s |")
    print("| --- | --- | --- |")
    for row in rows { print("| \(row.0) | \(row.1) | \(row.2) |") }
    print("")
    print("| figure | value |")
    print("| --- | --- |")
    print("| catalog | \(options.songs) songs, \(Int(audioSeconds)) s of audio |")
    print(
      "| false matches (queries from \(options.songs) songs not in the catalog) | "
        + String(
          format: "%d of %d (%.2f%%)", falseMatches, strangerQueries,
          100 * Double(falseMatches) / Double(max(1, strangerQueries))) + " |")
    print("| wrong song named for a catalog query | \(wrongSong) |")
    print(
      String(
        format: "| index build | %.0fx real time (%.1f s for %.0f s of audio, %d cores) |",
        audioSeconds / buildSeconds, buildSeconds, audioSeconds, cores))
    print("| hashes per second of audio | \(Int(Double(index.postingCount) / audioSeconds)) |")
    print(
      String(
        format:
          "| 10 s query (CPU time), %d songs (%d hashes) | median %.1f ms, 95th %.1f ms, %d of %d right (0 dB white) |",
        large.count, largeIndex.postingCount, 1000 * times[times.count / 2],
        1000 * times[min(times.count - 1, times.count * 95 / 100)], largeRight, catalog.count))
    print("| a 10 s query, stage by stage (CPU) | \(stages) |")
  }

  /// CPU milliseconds of each stage of one 10 s query (the median of 20 runs).
  static func stageTimes(_ song: [Float], _ f: Fingerprinter, _ index: FingerprintIndex)
    -> String
  {
    let clip = Array(song.prefix(441_000))
    let p = f.parameters
    let resampler = Resampler(decimation: p.decimation)
    var t = [[Double]](repeating: [], count: 5)
    for _ in 0..<20 {
      var t0 = cpuNow()
      let low = resampler.downsample(clip)
      t[0].append(cpuNow() - t0)
      t0 = cpuNow()
      let spectrogram = SpectrumAnalyzer.spectrogram(low, parameters: p)
      t[1].append(cpuNow() - t0)
      t0 = cpuNow()
      let peaks = PeakPicker.recordingPeaks(in: spectrogram, parameters: p)
      t[2].append(cpuNow() - t0)
      t0 = cpuNow()
      let recording = Recording(
        peaks: peaks.peaks, densePeaks: peaks.dense, spectrogram: spectrogram, parameters: p)
      t[3].append(cpuNow() - t0)
      t0 = cpuNow()
      _ = index.match(recording)
      t[4].append(cpuNow() - t0)
    }
    let names = ["resample", "spectrogram", "peaks", "bits at 21 speeds and ranks", "matching"]
    return zip(names, t).map { name, times in
      String(format: "%@ %.1f", name, 1000 * times.sorted()[times.count / 2])
    }.joined(separator: ", ") + " ms"
  }

  static func synthesize(_ seeds: [UInt64]) -> [[Float]] {
    let slots = Slots<[Float]>(seeds.count)
    DispatchQueue.concurrentPerform(iterations: seeds.count) { i in
      slots.set(i, SongSynth.song(seed: seeds[i], seconds: length(seed: seeds[i])))
    }
    return slots.values
  }

  static func fingerprintAll(_ songs: [[Float]], ids: [String], _ f: Fingerprinter) -> [SongPrint] {
    let slots = Slots<SongPrint>(songs.count)
    DispatchQueue.concurrentPerform(iterations: songs.count) { i in
      slots.set(i, f.print(id: ids[i], audioKey: ids[i], mono: songs[i]))
    }
    return slots.values
  }
}

/// One way a query differs from the song: its length and what happened to it.
struct Condition {
  enum Change {
    case clean
    case noise(Noise, snr: Double)
    case volume(Float)
    case mp3(kbps: Int)
  }
  var seconds: Double
  var change: Change

  var name: String {
    let length = "\(Int(seconds)) s"
    switch change {
    case .clean: return "\(length), clean"
    case .noise(let kind, let snr):
      return
        "\(length), \(kind == .white ? "white" : "pink") noise \(snr > 0 ? "+" : "")\(Int(snr)) dB"
    case .volume(let gain):
      return "\(length), volume \(String(format: "%+.0f", 20 * log10(gain))) dB"
    case .mp3(let kbps): return "\(length), MP3 \(kbps) kbps"
    }
  }

  static var all: [Condition] {
    [3.0, 5, 10].flatMap { seconds in
      [
        Change.clean, .noise(.white, snr: 10), .noise(.white, snr: 0), .noise(.white, snr: -5),
        .noise(.pink, snr: 10), .noise(.pink, snr: 0), .noise(.pink, snr: -5), .volume(0.1),
        .volume(0.5), .mp3(kbps: 64),
      ].map { Condition(seconds: seconds, change: $0) }
    }
  }

  func make(from song: [Float], start: Double, random: inout SeededRandom, scratch: ScratchFolder)
    throws -> [Float]
  {
    let first = Int(start * 44_100)
    let clip = Array(song[first..<min(song.count, first + Int(seconds * 44_100))])
    switch change {
    case .clean: return clip
    case .noise(let noise, let snr): return noise.add(to: clip, snr: snr, random: &random)
    case .volume(let gain): return clip.map { $0 * gain }
    case .mp3(let kbps): return try scratch.throughMP3(clip, kbps: kbps)
    }
  }
}

/// A temporary folder for the MP3 round trips.
final class ScratchFolder: Sendable {
  let url: URL
  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "riffle-fp-bench-\(getpid())")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }
  deinit { try? FileManager.default.removeItem(at: url) }

  /// Encodes with the `lame` program at a constant bit rate and decodes with Riffle's decoder.
  func throughMP3(_ clip: [Float], kbps: Int) throws -> [Float] {
    let peak = clip.map(abs).max() ?? 1
    let scaled = peak > 0.99 ? clip.map { $0 * 0.99 / peak } : clip
    let wav = url.appendingPathComponent("q.wav")
    let mp3 = url.appendingPathComponent("q.mp3")
    try WAVWriter.data(samples: WAVWriter.pcm16(scaled), channels: 1, sampleRate: 44_100)
      .write(to: wav)
    let lame = Process()
    lame.executableURL = URL(fileURLWithPath: "/usr/bin/lame")
    lame.arguments = ["--quiet", "-b", String(kbps), "--cbr", wav.path, mp3.path]
    try lame.run()
    lame.waitUntilExit()
    guard lame.terminationStatus == 0 else { throw BenchError("lame failed") }
    let pcm = try DecoderFactory.decodeAll(Data(contentsOf: mp3))
    return pcm.withUnsafeBytes { Resampler.mono(pcm16: $0, channels: PCMFormat.channels) }
  }
}

struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Results filled in from several threads.
final class Slots<T>: @unchecked Sendable {
  private let lock = NSLock()
  private var slots: [T?]
  init(_ count: Int) { slots = Array(repeating: nil, count: count) }
  func set(_ i: Int, _ value: T) { lock.withLock { slots[i] = value } }
  var values: [T] { lock.withLock { slots.map { $0! } } }
}
