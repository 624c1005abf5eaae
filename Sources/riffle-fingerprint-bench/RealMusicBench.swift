import Foundation
import RiffleAudio
import RiffleFingerprint
import RiffleTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The benchmark on real recorded music (`--music LIST`): songs from Debian packages that ship
/// game soundtracks (scripts/bench-fingerprint.sh installs them and lists the files), every
/// other one the catalog and the rest strangers. Each query is an excerpt from a random place
/// of a song, changed the way a recording changes it: noise, voices, a room, a phone line, a
/// speed change, a low volume. The changes that need signal processing are sox's.
enum RealMusicBench {
  struct Options {
    var list = ""
    /// Excerpts per song and condition.
    var queriesPerSong = 2
    /// Only the first this many songs of the list (catalog and strangers together).
    var maxSongs = Int.max
    var only: String?
    var seed: UInt64 = 1
    /// The `riffle` binary, for the index build through `riffle identify` (memory, time, size).
    var riffle: String?
    /// Sizes of the large indexes for the query time.
    var scaleSongs = [1_000]
  }

  enum Change {
    case clean
    case noise(Noise, snr: Double)
    case babble(snr: Double)
    /// A laptop in a room: band limits, reverberation, and pink noise at +10 dB.
    case room
    /// 300 to 3400 Hz and GSM 06.10 (13 kbit/s) at 8 kHz.
    case phone
    /// Played `factor` times as fast: pitch and tempo together (sox's `speed`).
    case speed(Double)
    case volume(db: Double)
  }

  struct Condition {
    var seconds: Double
    var change: Change

    var name: String {
      let length = "\(Int(seconds)) s"
      switch change {
      case .clean: return "\(length), clean"
      case .noise(let kind, let snr):
        return "\(length), \(kind == .white ? "white" : "pink") noise \(Int(snr)) dB"
      case .babble(let snr): return "\(length), babble \(Int(snr)) dB"
      case .room: return "\(length), laptop in a room"
      case .phone: return "\(length), phone line"
      case .speed(let factor): return String(format: "%@, speed %.2f", length, factor)
      case .volume(let db): return "\(length), volume \(Int(db)) dB"
      }
    }

    /// The speed a right answer should report.
    var speed: Double {
      if case .speed(let factor) = change { return factor }
      return 1
    }

    static var all: [Condition] {
      [5.0, 10].flatMap { seconds in
        [
          Change.clean, .noise(.white, snr: 0), .noise(.pink, snr: 0), .babble(snr: 0), .room,
          .phone, .speed(0.95), .speed(0.97), .speed(0.99), .speed(1.01), .speed(1.03),
          .speed(1.05), .volume(db: -30),
        ].map { Condition(seconds: seconds, change: $0) }
      }
    }
  }

  /// One query, fingerprinted: where it came from, its peaks and its bits.
  struct Query {
    var condition: Int
    var song: Int
    var start: Double
    var recording: Recording
  }

  struct Song {
    var path: String
    var isCatalog: Bool
    var id: String { path }
  }

  static func log(_ text: String) { FingerprintBench.log(text) }

  static func run(_ options: Options) throws {
    let fingerprinter = Fingerprinter(parameters: FingerprintBench.parameters())
    let all = try String(contentsOfFile: options.list, encoding: .utf8)
      .split(separator: "\n").map(String.init).filter { !$0.isEmpty }.sorted()
    // A shorter run takes songs spread over the whole list (every package), not its start.
    let paths =
      all.count <= options.maxSongs
      ? all : (0..<options.maxSongs).map { all[$0 * all.count / options.maxSongs] }
    let scratch = try ScratchFolder()
    // The split uses fixed parameters (the defaults of 2026-11-25), so tuning runs, and runs
    // before and after a change of the defaults, compare the same catalog.
    var splitParameters = FingerprintParameters()
    splitParameters.minBin = 9
    let songs = try split(Array(paths), fingerprinter: Fingerprinter(parameters: splitParameters))
    let conditions = Condition.all.filter { c in options.only.map { c.name.contains($0) } ?? true }
    log("making babble from espeak-ng voices...")
    let babble = try makeBabble(scratch)
    let dump = ProcessInfo.processInfo.environment["RIFFLE_BENCH_DUMP"].map(BenchDump.init)
    if let dump {
      for (i, song) in songs.enumerated() {
        dump.line("song\t\(i)\t\(song.isCatalog ? "catalog" : "stranger")\t\(song.path)")
      }
      for (c, condition) in conditions.enumerated() {
        dump.line("condition\t\(c)\t\(condition.name)")
      }
    }

    log("decoding \(songs.count) songs and making \(conditions.count) kinds of query...")
    let prints = Slots<SongPrint?>(songs.count)
    let queries = Slots<[Query]>(songs.count)
    let recordingSeconds = Slots<[Double]>(songs.count)
    let seconds = Slots<Double>(songs.count)
    let fingerprintTime = Slots<Double>(songs.count)
    let counter = AtomicCounter()
    DispatchQueue.concurrentPerform(iterations: songs.count) { i in
      let song = songs[i]
      guard let data = FileManager.default.contents(atPath: song.path),
        let pcm = try? DecoderFactory.decodeAll(data)
      else {
        log("cannot decode \(song.path): left out")
        prints.set(i, nil)
        queries.set(i, [])
        recordingSeconds.set(i, [])
        seconds.set(i, 0)
        fingerprintTime.set(i, 0)
        return
      }
      let mono = pcm.withUnsafeBytes { Resampler.mono(pcm16: $0, channels: PCMFormat.channels) }
      let length = Double(mono.count) / 44_100
      seconds.set(i, length)
      if song.isCatalog, let dump {
        dump.write("song-\(i).f32", Resampler(decimation: 4).downsample(mono))
        for rate in [40, 60] {
          var dense = fingerprinter.parameters
          dense.peaksPerSecond = rate
          let peaks = Fingerprinter(parameters: dense).print(id: "", mono: mono).peaks
          dump.write("peaks\(rate)-\(i).i32", peaks.flatMap { [Int32($0.frame), Int32($0.bin)] })
        }
      }
      if song.isCatalog {
        let t0 = FingerprintBench.cpuNow()
        let print = fingerprinter.print(id: song.id, audioKey: song.id, mono: mono)
        fingerprintTime.set(i, FingerprintBench.cpuNow() - t0)
        prints.set(i, print)
      } else {
        prints.set(i, nil)
        fingerprintTime.set(i, 0)
      }
      var made: [Query] = []
      var recordingTimes: [Double] = []
      for (c, condition) in conditions.enumerated() {
        for n in 0..<options.queriesPerSong {
          let needed = condition.seconds * 1.06 + 1
          guard length > needed + 1 else { continue }
          // Each excerpt and its noise drawn by its own song, condition and number, so a run
          // of some conditions (`--only`) asks exactly what the whole run asks of them.
          var random = SeededRandom(
            seed: querySeed(options.seed, song: i, condition: condition.name, query: n))
          let start = random.unit() * (length - needed)
          var noiseRandom = SeededRandom(seed: random.next())
          do {
            let audio = try make(
              condition, from: mono, start: start, babble: babble, random: &noiseRandom,
              scratch: scratch, tag: counter.next())
            let t0 = FingerprintBench.cpuNow()
            let recording = fingerprinter.recording(mono: audio)
            if condition.seconds == 10 { recordingTimes.append(FingerprintBench.cpuNow() - t0) }
            made.append(Query(condition: c, song: i, start: start, recording: recording))
            if let dump {
              let name = "q-\(i)-\(c)-\(made.count).f32"
              dump.write(name, Resampler(decimation: 4).downsample(audio))
              dump.line("query\t\(name)\t\(i)\t\(c)\t\(start)")
              dump.write(
                "qpeaks-\(i)-\(c)-\(made.count).i32",
                recording.peaks.flatMap { [Int32($0.frame), Int32($0.bin)] })
            }
          } catch {
            log("\(condition.name) of \(song.path): \(error)")
          }
        }
      }
      queries.set(i, made)
      recordingSeconds.set(i, recordingTimes)
      log("  \(i + 1)/\(songs.count) \((song.path as NSString).lastPathComponent)")
    }

    let catalogPrints = prints.values.compactMap { $0 }
    let index = FingerprintIndex(songs: catalogPrints, parameters: fingerprinter.parameters)
    let catalogSeconds = catalogPrints.reduce(0) { $0 + $1.duration }
    let strangerCount = songs.indices.filter { !songs[$0].isCatalog && seconds.values[$0] > 0 }
      .count

    if let dump {
      for number in index.songIDs.indices {
        let peaks = index.peaks(ofSong: number)
        dump.write("peaks-\(number).i32", peaks.flatMap { [Int32($0.frame), Int32($0.bin)] })
        dump.write("bits-\(number).u32", index.bits(ofSong: number))
        dump.line("print\t\(number)\t\(index.songIDs[number])")
      }
      for query in queries.values.joined() {
        let found = index.alignments(peaks: query.recording.peaks, songs: 10, perSong: 8)
          .joined()
        let text = found.map { candidate in
          "\(candidate.songNumber):\(candidate.offsetFrames):\(candidate.speed):\(candidate.score):"
            + String(
              format: "%.2f:%.2f", index.agreement(of: candidate, with: query.recording),
              index.evidence(for: candidate, with: query.recording))
        }.joined(separator: " ")
        dump.line("candidates\t\(query.song)\t\(query.condition)\t\(query.start)\t\(text)")
      }
    }
    // Matching.
    var right = [Int](repeating: 0, count: conditions.count)
    var asked = [Int](repeating: 0, count: conditions.count)
    var placed = [Int](repeating: 0, count: conditions.count)
    var speedFound = [Int](repeating: 0, count: conditions.count)
    var falseMatches = [Int](repeating: 0, count: conditions.count)
    var strangerAsked = [Int](repeating: 0, count: conditions.count)
    var wrongSong = 0
    var namedWithTwin = [Int](repeating: 0, count: conditions.count)
    var matchTimes: [Double] = []
    // Queries nothing was named for: every search they had (the dense one, and a small
    // index's scan) was made.
    var unnamedTimes: [Double] = []
    let logScores = ProcessInfo.processInfo.environment["RIFFLE_BENCH_SCORES"] != nil
    for query in queries.values.joined() {
      let song = songs[query.song]
      // For tuning the rules: every query's candidates, however weak, with their scores and
      // how well their bits agree (`MatchRule` replayed over the log).
      if logScores {
        log(
          "score\t\(conditions[query.condition].name)\t"
            + "\(song.isCatalog ? "catalog" : "stranger")\t"
            + candidateLog(index, query.recording, right: song.id)
            + trueAlignmentLog(
              index, query.recording, song: song.id, start: query.start,
              speed: conditions[query.condition].speed))
      }
      let t0 = FingerprintBench.cpuNow()
      let match = index.match(query.recording)
      matchTimes.append(FingerprintBench.cpuNow() - t0)
      if match == nil { unnamedTimes.append(matchTimes[matchTimes.count - 1]) }
      if let match, match.fromScan {
        log(
          "found by the scan: \(conditions[query.condition].name), "
            + (match.songID == song.id ? "right" : song.isCatalog ? "wrong" : "stranger")
            + String(
              format: ", evidence %.2f, at %.2f s (cut at %.2f s)", match.evidence ?? 0,
              match.offset, query.start))
      }
      if song.isCatalog {
        asked[query.condition] += 1
        // A song held twice is named with its twin (`FingerprintMatch.sameAudio`).
        if let match, match.songID == song.id || match.sameAudio.contains(song.id) {
          if match.songID != song.id { namedWithTwin[query.condition] += 1 }
          right[query.condition] += 1
          if abs(match.offset - query.start) <= 0.1 {
            placed[query.condition] += 1
          } else if match.songID == song.id {
            log(
              "misplaced: \(conditions[query.condition].name) of \(song.path), "
                + String(
                  format: "at %.2f s (cut at %.2f s), speed %.3f, evidence %.2f, score %d",
                  match.offset, query.start, match.speed, match.evidence ?? 0, match.score)
                + (match.fromScan ? ", found by the scan" : ""))
          }
          if abs(match.speed - conditions[query.condition].speed) <= 0.0025 {
            speedFound[query.condition] += 1
          }
        } else if match == nil {
          log(
            "missed: \(conditions[query.condition].name) of \(song.path) at "
              + String(format: "%.1f s", query.start))
        } else if let match {
          wrongSong += 1
          log(
            "wrong song: \(conditions[query.condition].name) of \(song.path) at "
              + String(
                format: "%.1f s -> %@ at %.1f s, score %d, runner-up %d",
                query.start, match.songID, match.offset, match.score, match.runnerUp))
        }

      } else {
        strangerAsked[query.condition] += 1
        if let match {
          falseMatches[query.condition] += 1
          log(
            "false match: \(conditions[query.condition].name) of \(song.path) at "
              + String(
                format: "%.1f s -> %@ at %.1f s, score %d, runner-up %d, %d hashes",
                query.start, match.songID, match.offset, match.score, match.runnerUp,
                match.queryHashes) + (match.fromScan ? ", found by the scan" : ""))
        }
      }
    }

    print("| query | right | placed within 0.1 s | speed within 0.25% | false matches |")
    print("| --- | --- | --- | --- | --- |")
    for (c, condition) in conditions.enumerated() {
      let line = String(
        format: "| %@ | %.0f%% | %.0f%% | %.0f%% | %d of %d |", condition.name as NSString,
        100 * Double(right[c]) / Double(max(1, asked[c])),
        100 * Double(placed[c]) / Double(max(1, right[c])),
        100 * Double(speedFound[c]) / Double(max(1, right[c])), falseMatches[c],
        strangerAsked[c])
      print(line)
      log(line)
    }
    let allFalse = falseMatches.reduce(0, +)
    let allStrangers = strangerAsked.reduce(0, +)
    matchTimes.sort()
    print("")
    print("| figure | value |")
    print("| --- | --- |")
    print(
      "| catalog | \(catalogPrints.count) songs, \(Int(catalogSeconds)) s of audio; "
        + "\(strangerCount) strangers |")
    print(
      String(
        format: "| false matches | %d of %d stranger queries (%.2f%%) |", allFalse, allStrangers,
        100 * Double(allFalse) / Double(max(1, allStrangers))))
    print("| wrong song named for a catalog query | \(wrongSong) of \(asked.reduce(0, +)) |")
    print(
      "| right, named with a song that holds the same audio (counted right) | "
        + "\(namedWithTwin.reduce(0, +)) of \(asked.reduce(0, +)) |")
    print(
      String(
        format: "| fingerprinting the catalog (CPU, decoded audio in memory) | %.0fx real time |",
        catalogSeconds / max(1e-9, fingerprintTime.values.reduce(0, +))))
    print(
      String(
        format: "| hashes per second of audio | %.0f (%.2f KB/s at 8 bytes each) |",
        Double(index.postingCount) / catalogSeconds,
        Double(index.postingCount) * 8 / 1000 / catalogSeconds))
    if !matchTimes.isEmpty {
      print(
        String(
          format:
            "| matching one query against %d songs (CPU, recording fingerprinted) | median %.2f ms |",
          catalogPrints.count, 1000 * matchTimes[matchTimes.count / 2]))
    }
    unnamedTimes.sort()
    if !unnamedTimes.isEmpty {
      print(
        String(
          format: "| the same, queries nothing was named for (%d) | median %.2f ms, 95th %.2f ms |",
          unnamedTimes.count, 1000 * unnamedTimes[unnamedTimes.count / 2],
          1000 * unnamedTimes[unnamedTimes.count * 95 / 100]))
    }
    let recordingTimes = recordingSeconds.values.joined().sorted()
    if !recordingTimes.isEmpty {
      print(
        String(
          format:
            "| fingerprinting a 10 s recording: peaks, and bits at every speed (CPU) | median %.1f ms |",
          1000 * recordingTimes[recordingTimes.count / 2]))
    }
    if let alone = quietRecordingTime(songs.first { $0.isCatalog }, fingerprinter: fingerprinter) {
      print(
        String(
          format:
            "| the same, one thread alone (10 s of the first catalog song, 21 times) | median %.1f ms, fastest %.1f ms |",
          1000 * alone.median, 1000 * alone.fastest))
    }
    if let riffle = options.riffle {
      try indexThroughRiffle(
        riffle, songs: songs.filter(\.isCatalog), seconds: catalogSeconds, scratch: scratch)
    }
    for size in options.scaleSongs where size > 0 {
      scaleFigures(
        size: size, prints: catalogPrints,
        queries: queries.values.joined().filter {
          songs[$0.song].isCatalog && conditions[$0.condition].seconds == 10
            && conditions[$0.condition].name.contains("babble")
        },
        strangers: queries.values.joined().filter {
          !songs[$0.song].isCatalog && conditions[$0.condition].seconds == 10
        }, songs: songs, fingerprinter: fingerprinter, riffle: options.riffle, scratch: scratch)
    }
  }

  /// CPU time to fingerprint 10 s of `song` (from 30 s in) as a recording, 21 times one after
  /// the other with nothing else running: the figure above is taken while the other core
  /// fingerprints songs too, and moves with what it does.
  static func quietRecordingTime(_ song: Song?, fingerprinter: Fingerprinter) -> (
    median: Double, fastest: Double
  )? {
    guard let song, let data = FileManager.default.contents(atPath: song.path),
      let pcm = try? DecoderFactory.decodeAll(data)
    else { return nil }
    let mono = pcm.withUnsafeBytes { Resampler.mono(pcm16: $0, channels: PCMFormat.channels) }
    guard mono.count >= 40 * 44_100 else { return nil }
    let excerpt = Array(mono[(30 * 44_100)..<(40 * 44_100)])
    var times: [Double] = []
    for _ in 0..<21 {
      let t0 = FingerprintBench.cpuNow()
      let recording = fingerprinter.recording(mono: excerpt)
      times.append(FingerprintBench.cpuNow() - t0)
      withExtendedLifetime(recording) {}
    }
    times.sort()
    return (times[times.count / 2], times[0])
  }

  /// Splits the songs into catalog and strangers. Game soundtracks reuse their own material
  /// (a theme in two arrangements, a loop in two tracks): songs that share audio are found by
  /// matching 10 s pieces (every 5 s) of each song against all the others, and such a group goes wholly
  /// into the catalog or wholly into the strangers, or a stranger would "falsely" match the
  /// catalog song that really holds its audio. A piece joins a song's group when the margin
  /// rule names the other song, or when any of the other songs with 20 or more agreeing
  /// hashes also agrees bit for bit (`BandBits`, 10 deviations: a shared passage in clean
  /// audio agrees by 50 and more): a passage three songs share has no margin over either.
  static func split(_ paths: [String], fingerprinter: Fingerprinter) throws -> [Song] {
    log("looking for songs that share audio...")
    let prints = Slots<SongPrint>(paths.count)
    DispatchQueue.concurrentPerform(iterations: paths.count) { i in
      var peaks: [Peak] = []
      var bits: [UInt32] = []
      var seconds = 0.0
      if let data = FileManager.default.contents(atPath: paths[i]),
        let pcm = try? DecoderFactory.decodeAll(data)
      {
        let mono = pcm.withUnsafeBytes {
          Resampler.mono(pcm16: $0, channels: PCMFormat.channels)
        }
        seconds = Double(mono.count) / 44_100
        let print = fingerprinter.print(id: "\(i)", mono: mono)
        peaks = print.peaks
        bits = print.bits
      } else {
        log("cannot decode \(paths[i]): left out")
      }
      prints.set(
        i, SongPrint(id: "\(i)", audioKey: "", duration: seconds, peaks: peaks, bits: bits))
    }
    let all = prints.values
    var group = Array(all.indices)
    func root(_ i: Int) -> Int {
      var i = i
      while group[i] != i { i = group[i] }
      return i
    }
    let window = Int(10 / fingerprinter.parameters.frameSeconds)
    var still = fingerprinter.parameters
    still.maxSpeedChange = 0
    for (i, song) in all.enumerated() {
      let others = FingerprintIndex(songs: all.filter { $0.id != song.id }, parameters: still)
      var from = 0
      while let last = song.peaks.last, from < last.frame {
        let piece = song.peaks.filter { $0.frame >= from && $0.frame < from + window }.map {
          Peak(frame: $0.frame - from, bin: $0.bin, prominence: 0)
        }
        let landmarks = LandmarkHasher.landmarks(piece, parameters: fingerprinter.parameters)
        if let match = others.match(landmarks), let j = Int(match.songID) {
          group[root(i)] = root(j)
        }
        let pieceBits = Array(
          song.bits[min(from, song.bits.count)..<min(from + window, song.bits.count)])
        for candidate in others.candidates(peaks: piece, count: 3) where candidate.score >= 20 {
          let agreement = BandBits.agreement(
            song: others.bits(ofSong: candidate.songNumber), query: pieceBits,
            offsetFrames: candidate.offsetFrames, speed: 1, lag: still.bandLag)
          if agreement >= 10, let j = Int(candidate.songID) { group[root(i)] = root(j) }
        }
        from += window / 2
      }
    }
    var groups: [Int: [Int]] = [:]
    for i in all.indices where all[i].duration > 0 { groups[root(i), default: []].append(i) }
    var songs: [Song] = []
    var catalogCount = 0
    for members in groups.values.sorted(by: { $0[0] < $1[0] }) {
      let isCatalog = catalogCount * 2 <= songs.count
      if members.count > 1 {
        log("sharing audio: \(members.map { (paths[$0] as NSString).lastPathComponent })")
      }
      for i in members { songs.append(Song(path: paths[i], isCatalog: isCatalog)) }
      if isCatalog { catalogCount += members.count }
    }
    return songs
  }

  /// The seed of one query's draws: where in its song the excerpt starts, and its noise.
  /// From the condition's name (FNV-1a), not its place in the list, which `--only` changes.
  static func querySeed(_ seed: UInt64, song: Int, condition: String, query: Int) -> UInt64 {
    var name: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in condition.utf8 { name = (name ^ UInt64(byte)) &* 0x100_0000_01B3 }
    var mixed = SeededRandom(
      seed: seed &* 1_000_003 &+ UInt64(song) &* 7919 &+ UInt64(query) &* 104_729 ^ name)
    return mixed.next()
  }

  /// A query excerpt of `song` changed by the condition's `change`.
  static func make(
    _ condition: Condition, from song: [Float], start: Double, babble: [Float],
    random: inout SeededRandom, scratch: ScratchFolder, tag: Int
  ) throws -> [Float] {
    let count = Int(condition.seconds * 44_100)
    let first = Int(start * 44_100)
    func clip(_ n: Int) -> [Float] { Array(song[first..<min(song.count, first + n)]) }
    switch condition.change {
    case .clean: return clip(count)
    case .noise(let noise, let snr): return noise.add(to: clip(count), snr: snr, random: &random)
    case .babble(let snr):
      let from = Int(random.unit() * Double(babble.count - count))
      return mix(clip(count), Array(babble[from..<from + count]), snr: snr)
    case .room:
      let wet = try sox(
        clip(count), ["highpass", "150", "lowpass", "6000", "reverb", "60", "50", "70"],
        scratch: scratch, tag: tag)
      return Noise.pink.add(to: Array(wet.prefix(count)), snr: 10, random: &random)
    case .phone:
      let gsm = scratch.url.appendingPathComponent("q\(tag).gsm").path
      _ = try runSox(
        ["-t", "f32", "-r", "44100", "-c", "1", "-"] + ["-r", "8000", "-c", "1", gsm]
          + ["sinc", "300-3400"], input: clip(count))
      defer { try? FileManager.default.removeItem(atPath: gsm) }
      return try runSox([gsm, "-t", "f32", "-r", "44100", "-c", "1", "-"], input: nil)
    case .speed(let factor):
      let fast = try sox(
        clip(Int(Double(count) * factor) + 4_410), ["speed", String(factor)], scratch: scratch,
        tag: tag)
      return Array(fast.prefix(count))
    case .volume(let db):
      let gain = Float(pow(10, db / 20))
      return clip(count).map { $0 * gain }
    }
  }

  /// `signal` plus `noise` scaled so that signal power / noise power is `snr` dB.
  static func mix(_ signal: [Float], _ noise: [Float], snr: Double) -> [Float] {
    func power(_ x: [Float]) -> Double {
      x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, x.count))
    }
    let scale = Float((power(signal) / max(1e-12, power(noise) * pow(10, snr / 10))).squareRoot())
    return zip(signal, noise).map { $0 + scale * $1 }
  }

  /// Mono 44.1 kHz samples through sox's `effects`.
  static func sox(_ input: [Float], _ effects: [String], scratch: ScratchFolder, tag: Int) throws
    -> [Float]
  {
    try runSox(
      ["-t", "f32", "-r", "44100", "-c", "1", "-", "-t", "f32", "-r", "44100", "-c", "1", "-"]
        + effects, input: input)
  }

  /// Runs sox with raw 32-bit float samples on stdin (when given) and stdout.
  static func runSox(_ arguments: [String], input: [Float]?) throws -> [Float] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
    // `-R`: the same output for the same input (sox seeds its dither at random otherwise: a
    // phone line's excerpt, made 16-bit for the codec, differed from run to run).
    process.arguments = ["-V1", "-R"] + arguments
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    // Feed stdin from another thread so a full stdout pipe cannot stall both sides.
    let writer = Thread {
      if let input {
        input.withUnsafeBytes { stdin.fileHandleForWriting.write(Data($0)) }
      }
      try? stdin.fileHandleForWriting.close()
    }
    writer.start()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw BenchError("sox \(arguments.joined(separator: " ")) failed")
    }
    return output.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
  }

  /// A minute or so of several people talking at once: espeak-ng voices (other languages,
  /// speeds and pitches) speaking different texts, summed.
  static func makeBabble(_ scratch: ScratchFolder) throws -> [Float] {
    let voices = [
      ("en-us", 160, 40), ("en-gb", 175, 60), ("de", 150, 30), ("fr", 170, 70),
      ("es", 180, 50), ("it", 155, 45),
    ]
    var tracks: [[Float]] = []
    for (n, voice) in voices.enumerated() {
      let text = (0..<babbleTexts.count).map { babbleTexts[($0 + n) % babbleTexts.count] }
        .joined(separator: " ")
      let wav = scratch.url.appendingPathComponent("voice\(n).wav").path
      let espeak = Process()
      espeak.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
      espeak.arguments = [
        "-v", voice.0, "-s", String(voice.1), "-p", String(voice.2), "-w", wav, text,
      ]
      try espeak.run()
      espeak.waitUntilExit()
      guard espeak.terminationStatus == 0 else { throw BenchError("espeak-ng failed") }
      tracks.append(try runSox([wav, "-t", "f32", "-r", "44100", "-c", "1", "-"], input: nil))
    }
    let length = tracks.map(\.count).min() ?? 0
    guard length > 20 * 44_100 else { throw BenchError("babble too short") }
    return (0..<length).map { i in tracks.reduce(0) { $0 + $1[i] } }
  }

  /// What the talkers say (written for this benchmark).
  static let babbleTexts = [
    "The train was late again this morning, so I walked along the river and watched the boats"
      + " come in. There was a man selling coffee from a small cart, and the line was longer"
      + " than the one at the station. I think I will take the bus tomorrow.",
    "Did you see the match last night? They were two goals down at half time and nobody"
      + " believed they could come back, but the young striker scored twice in ten minutes and"
      + " the whole stadium stood up and sang until the final whistle.",
    "We need to buy bread, eggs, some tomatoes and a bottle of olive oil. If the market is"
      + " still open after work, I can stop there on the way home. Otherwise we will have soup"
      + " again, which is fine with me, honestly.",
    "My sister moved to a small town in the mountains last spring. She says the winters are"
      + " long and quiet, the neighbours bring her cake, and the only noise at night is the"
      + " wind in the pine trees and a dog barking far away.",
    "The meeting has been moved to Thursday afternoon because the projector in the large room"
      + " is broken. Please bring your notes and the figures from last quarter, and tell the"
      + " others that lunch will not be provided this time.",
    "When I was a child we spent every summer at my grandmother's house by the sea. We swam"
      + " before breakfast, built castles in the sand, and listened to the radio on the porch"
      + " while the sun went down behind the lighthouse.",
  ]

  /// Builds the catalog's index the way a user does, through `riffle identify` against a feed
  /// of the files, and reports its wall time, peak memory and size on disk; then a second
  /// identify against the built index.
  static func indexThroughRiffle(
    _ riffle: String, songs: [Song], seconds: Double, scratch: ScratchFolder
  ) throws {
    let feed = scratch.url.appendingPathComponent("feed.json")
    let entries = songs.enumerated().map { i, song -> [String: Any] in
      [
        "id": "song-\(i)", "title": (song.path as NSString).lastPathComponent,
        "handle": "", "display_name": "bench",
        "audio_url": URL(fileURLWithPath: song.path)
          .absoluteString,
      ]
    }
    try JSONSerialization.data(withJSONObject: ["songs": entries]).write(to: feed)
    // The query: 10 s from the middle of the first song, as a WAV file.
    guard let first = songs.first, let data = FileManager.default.contents(atPath: first.path)
    else { return }
    let pcm = try DecoderFactory.decodeAll(data)
    let mono = pcm.withUnsafeBytes { Resampler.mono(pcm16: $0, channels: PCMFormat.channels) }
    let from = mono.count / 2
    let wav = scratch.url.appendingPathComponent("query.wav")
    try WAVWriter.data(
      samples: WAVWriter.pcm16(Array(mono[from..<min(mono.count, from + 441_000)])), channels: 1,
      sampleRate: 44_100
    ).write(to: wav)
    let cache = scratch.url.appendingPathComponent("cache")
    for run in ["build", "reuse"] {
      let t0 = FingerprintBench.now()
      // Started from a small python3, which reports the riffle process's own peak: a child
      // spawned straight from this large process inherits its high-water mark in wait4's
      // accounting (the kernel records the parent's memory at the child's exec).
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
      process.arguments = ["-c", peakMemoryScript, riffle, "identify", wav.path, feed.path]
      var environment = ProcessInfo.processInfo.environment
      environment["XDG_CACHE_HOME"] = cache.path
      process.environment = environment
      let out = Pipe()
      process.standardOutput = out
      process.standardError = FileHandle.nullDevice
      try process.run()
      let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        .split(separator: "\n")
      process.waitUntilExit()
      let wall = FingerprintBench.now() - t0
      let peak = (lines.last.flatMap { Int($0) } ?? 0) * 1024
      let answer = lines.dropLast().joined(separator: " ")
      let files =
        (try? FileManager.default.contentsOfDirectory(
          at: cache.appendingPathComponent("riffle/fingerprints"),
          includingPropertiesForKeys: [.fileSizeKey])) ?? []
      let size = files.reduce(0) {
        $0 + ((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
      }
      print(
        String(
          format:
            "| riffle identify, %@ (%d songs, %.0f s) | %.1f s wall, peak memory %.0f MB, index %.2f MB (%.2f KB per second of audio); answer: %@ |",
          run as NSString, songs.count, seconds, wall, Double(peak) / 1_048_576,
          Double(size) / 1e6, Double(size) / 1000 / max(1, seconds),
          answer.trimmingCharacters(in: .whitespacesAndNewlines) as NSString))
    }
  }

  /// Runs argv[1...] and prints its output, then its peak resident memory in KB.
  static let peakMemoryScript = """
    import os, sys
    pid = os.fork()
    if pid == 0:
        os.execv(sys.argv[1], sys.argv[1:])
    _, status, usage = os.wait4(pid, 0)
    sys.stdout.flush()
    print(usage.ru_maxrss)
    """

  /// Query time against `size` songs: the real catalog plus copies of its prints whose peaks'
  /// bins are relabelled per copy (`relabelled`): the hash statistics of real music (as many
  /// postings per hash, as skewed), but other songs' hashes. The prints are written the way riffle keeps them (a prints file in a cache
  /// folder, beside a feed of as many songs whose files are not there, so every print is
  /// reused); `riffle identify` then builds the mapped table in its stream (time, peak memory,
  /// size) and maps it again; the query time is measured here on the mapped table.
  static func scaleFigures(
    size: Int, prints: [SongPrint], queries: [Query], strangers: [Query], songs: [Song],
    fingerprinter: Fingerprinter, riffle: String?, scratch: ScratchFolder
  ) {
    guard !prints.isEmpty, !queries.isEmpty else { return }
    let folder = scratch.url.appendingPathComponent("scale-\(size)")
    let feed = folder.appendingPathComponent("feed.json")
    let cache = folder.appendingPathComponent("cache")
    let store = FingerprintStore(
      folder: cache.appendingPathComponent("riffle/fingerprints"),
      parameters: fingerprinter.parameters)
    func url(_ n: Int) -> URL { folder.appendingPathComponent("missing/song-\(n).mp3") }
    var names: [String: String] = [:]
    var seconds = 0.0
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      var entries: [[String: Any]] = []
      // Each copy's relabelling, in a random order: above 300 Hz a shift of 32 bins or more
      // (more than a 5% speed change moves a bin), each way up; in the bass a shift of 4 to 21
      // of its 25 bins (a 5% speed change moves bin 27 by 1.4), each way up.
      let p = fingerprinter.parameters
      let bass = (bottom: p.minBin, top: max(p.minBin + 1, p.lowPeaksBelowBin))
      let bassWidth = bass.top - bass.bottom
      var relabellings = (32..<(512 - bass.top - 31)).flatMap { [($0, false), ($0, true)] }
      var bassRelabellings = (4..<max(5, bassWidth - 3)).flatMap { [($0, false), ($0, true)] }
      var random = SeededRandom(seed: 11)
      for i in stride(from: relabellings.count - 1, to: 0, by: -1) {
        relabellings.swapAt(i, random.int(0...i))
      }
      for i in stride(from: bassRelabellings.count - 1, to: 0, by: -1) {
        bassRelabellings.swapAt(i, random.int(0...i))
      }
      if size / prints.count > relabellings.count {
        log("more copies than relabellings: some copies repeat others' hashes")
      }
      try store.save(feed: feed) { add in
        var copy = 0
        for n in 0..<size {
          if n % prints.count == 0 && n > 0 { copy += 1 }
          let original = prints[n % prints.count]
          let relabelling = relabellings[(copy - 1 + relabellings.count) % relabellings.count]
          let bassRelabelling =
            bassRelabellings[(copy - 1 + bassRelabellings.count) % bassRelabellings.count]
          var print =
            copy == 0
            ? original
            : relabelled(
              original, copy: copy, shift: relabelling.0, flipped: relabelling.1,
              low: (bass.bottom, bass.top, bassRelabelling.0, bassRelabelling.1))
          print.id = "song-\(n)"
          print.audioKey = FingerprintStore.audioKey(for: url(n))
          if copy == 0 { names[print.id] = original.id }
          seconds += print.duration
          try add(print)
          entries.append([
            "id": print.id, "title": "song \(n)", "handle": "", "display_name": "bench",
            "audio_url": url(n).absoluteString,
          ])
        }
      }
      try JSONSerialization.data(withJSONObject: ["songs": entries]).write(to: feed)
    } catch {
      log("cannot write the \(size)-song prints: \(error)")
      return
    }
    if let riffle {
      // The query: the first catalog song's query, as a WAV file (any recording will do).
      let wav = folder.appendingPathComponent("query.wav")
      try? WAVWriter.data(
        samples: [Int16](repeating: 0, count: 441_000), channels: 1, sampleRate: 44_100
      )
      .write(to: wav)
      for run in ["build", "reuse"] {
        let t0 = FingerprintBench.now()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", peakMemoryScript, riffle, "identify", wav.path, feed.path]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = cache.path
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { break }
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
          .split(separator: "\n")
        process.waitUntilExit()
        let wall = FingerprintBench.now() - t0
        let peak = Double((lines.last.flatMap { Int($0) } ?? 0) * 1024)
        func fileSize(_ file: URL) -> Double {
          Double((try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
        }
        print(
          String(
            format:
              "| riffle identify against %d songs (%.0f h of audio), table %@ | %.1f s wall, peak memory %.0f MB; prints %.0f MB, table %.0f MB |",
            size, seconds / 3600, run == "build" ? "built" : "mapped", wall, peak / 1_048_576,
            fileSize(store.file(for: feed)) / 1e6, fileSize(store.tableFile(for: feed)) / 1e6))
      }
    }
    let index: FingerprintIndex
    let t0 = FingerprintBench.now()
    do {
      index = try store.storedIndex(for: feed)
    } catch {
      log("cannot open the \(size)-song index: \(error)")
      return
    }
    let openSeconds = FingerprintBench.now() - t0
    var times: [Double] = []
    var right = 0
    for query in queries {
      let start = FingerprintBench.cpuNow()
      let match = index.match(query.recording)
      times.append(FingerprintBench.cpuNow() - start)
      if let match, names[match.songID] == songs[query.song].id { right += 1 }
    }
    times.sort()
    print(
      String(
        format:
          "| 10 s babble query against %d songs (%d hashes; table opened in %.2f s), matching CPU | median %.1f ms, 95th %.1f ms; %d of %d right |",
        size, index.postingCount, openSeconds, 1000 * times[times.count / 2],
        1000 * times[min(times.count - 1, times.count * 95 / 100)], right, queries.count))
    // Songs not among them, 10 s of every condition: what a larger index does to chance, and
    // what a recording named by nothing costs (it is searched again at speed 1).
    var named = 0
    var strangerTimes: [Double] = []
    for query in strangers {
      let start = FingerprintBench.cpuNow()
      if index.match(query.recording) != nil { named += 1 }
      strangerTimes.append(FingerprintBench.cpuNow() - start)
    }
    strangerTimes.sort()
    guard !strangerTimes.isEmpty else { return }
    print(
      String(
        format:
          "| false matches against %d songs: 10 s stranger queries named | %d of %d (matching CPU median %.1f ms, 95th %.1f ms) |",
        size, named, strangers.count, 1000 * strangerTimes[strangerTimes.count / 2],
        1000 * strangerTimes[min(strangerTimes.count - 1, strangerTimes.count * 95 / 100)]))
  }

  /// A catalog query's song at the alignment it was cut from: its evidence, bits and peaks
  /// there, whether or not the hashes found it (T); and where the hashes put it among all the
  /// catalog's songs: its rank, its best score and its votes within 3 frames of that offset,
  /// by the recording's peaks (V) and by its dense peaks (D). "" for a stranger.
  static func trueAlignmentLog(
    _ index: FingerprintIndex, _ recording: Recording, song: String, start: Double,
    speed: Double
  ) -> String {
    guard let number = index.songNumber(of: song) else { return "" }
    var at = FingerprintMatch(songID: song, offset: start, score: 0, runnerUp: 0, queryHashes: 0)
    at.offsetFrames = Int((start / index.parameters.frameSeconds).rounded())
    at.songNumber = number
    at.speed = speed
    let bits = index.agreement(of: at, with: recording)
    let peaks =
      recording.probe.agreement(
        peaks: index.peaks(ofSong: number), offsetFrames: at.offsetFrames, speed: speed) ?? 0
    // Where the hashes put the song among all songs, and its votes near the true offset.
    func votes(_ peaks: [Peak]) -> String {
      let all = index.alignments(peaks: peaks, songs: index.songIDs.count, perSong: 16)
      guard let rank = all.firstIndex(where: { $0.first?.songNumber == number }) else {
        return "-:0:0"
      }
      let near =
        all[rank].filter { abs($0.offsetFrames - at.offsetFrames) <= 3 }
        .map(\.score).max() ?? 0
      return "\(rank + 1):\(all[rank][0].score):\(near)"
    }
    return String(
      format: "\tT:%.2f:%.2f:%.2f", index.evidence(for: at, with: recording), bits, peaks)
      + "\tV:" + votes(recording.peaks) + "\tD:" + votes(recording.densePeaks)
  }

  /// A query's candidates for replaying `MatchRule` over a log: each song as R (the right
  /// song) or W, its most agreeing hashes, and at its offset with the most evidence: the
  /// evidence, its bits' and its peaks' agreement, that offset in frames, and how far it
  /// holds the same audio as the song with the most evidence (`FingerprintIndex.sharedPeaks`
  /// around the recording, -1 for that song itself, -2 when too few peaks; and
  /// `FingerprintIndex.bitsAgreement`).
  static func candidateLog(_ index: FingerprintIndex, _ recording: Recording, right: String)
    -> String
  {
    let checked = index.checkedCandidates(recording)
    let lead = checked.max { ($0.best.evidence ?? 0) < ($1.best.evidence ?? 0) }?.best
    return checked.map { candidate in
      let best = candidate.best
      var shared = -1.0
      var sameBits = 0.0
      if let lead, lead.songNumber != best.songNumber {
        shared =
          FingerprintIndex.sharedPeaks(
            around: (index.peaks(ofSong: lead.songNumber), lead.offsetFrames, lead.speed),
            (index.peaks(ofSong: best.songNumber), best.offsetFrames, best.speed),
            frames: recording.probe.frames, parameters: index.parameters) ?? -2
        sameBits = FingerprintIndex.bitsAgreement(
          (index.bits(ofSong: lead.songNumber), lead.offsetFrames, lead.speed),
          (index.bits(ofSong: best.songNumber), best.offsetFrames, best.speed),
          frames: recording.probe.frames, parameters: index.parameters)
      }
      let bits = index.agreement(of: best, with: recording)
      let peaks =
        recording.probe.agreement(
          peaks: index.peaks(ofSong: best.songNumber), offsetFrames: best.offsetFrames,
          speed: best.speed) ?? 0
      return (best.songID == right ? "R" : "W") + ":\(candidate.score):"
        + String(
          format: "%.2f:%.2f:%.2f:%d:%.2f:%.1f:%.3f", best.evidence ?? 0, bits, peaks,
          best.offsetFrames, shared, sameBits, best.speed)
    }.joined(separator: " ")
  }

  /// A print whose peaks' bins are relabelled within their band: above `low.top` (300 Hz)
  /// moved `shift` bins up round the band and turned upside down when `flipped`; below it, in
  /// the bass (where a recording keeps more peaks, `queryLowPeaksPerSecond`, and a library's
  /// bass lines are alike), moved `low.shift` round the bass band and turned when
  /// `low.flipped`. The distances between peaks stay (but for pairs that cross a band's
  /// edge), so the copy has as many landmarks, spread over the hashes as unevenly, as many of
  /// them in the bass, but other hashes: a different song, which no speed search finds in the
  /// first. Its bits are scrambled (each word XORed with a pseudo-random one seeded by the
  /// copy), so they agree with the song's no more than another song's would.
  static func relabelled(
    _ print: SongPrint, copy: Int, shift: Int, flipped: Bool,
    low: (bottom: Int, top: Int, shift: Int, flipped: Bool)
  ) -> SongPrint {
    func within(_ bin: Int, from: Int, to: Int, shift: Int, flipped: Bool) -> Int {
      let width = to - from
      let moved = (bin - from + shift) % width
      return from + (flipped ? width - 1 - moved : moved)
    }
    let peaks = print.peaks.map { peak in
      let bin =
        peak.bin < low.top
        ? within(
          max(low.bottom, peak.bin), from: low.bottom, to: low.top, shift: low.shift,
          flipped: low.flipped)
        : within(peak.bin, from: low.top, to: 512, shift: shift, flipped: flipped)
      return Peak(frame: peak.frame, bin: bin, prominence: 0)
    }
    var random = SeededRandom(seed: UInt64(copy) &* 2_654_435_761 &+ 1)
    let bits = print.bits.map { $0 ^ UInt32(truncatingIfNeeded: random.next()) }
    let bass = print.bass.map { $0 ^ UInt8(truncatingIfNeeded: random.next()) }
    return SongPrint(
      id: "\(print.id)#\(copy)", audioKey: print.audioKey, duration: print.duration, peaks: peaks,
      bits: bits, bass: bass)
  }
}

/// Numbers for scratch file names, unique across threads.
final class AtomicCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0
  func next() -> Int {
    lock.withLock {
      value += 1
      return value
    }
  }
}

/// Writes what a tuning run looks at outside the bench (`RIFFLE_BENCH_DUMP=DIR`): the audio of
/// catalog songs and queries at the fingerprint rate, the prints, and each query's candidates.
final class BenchDump: @unchecked Sendable {
  let folder: URL
  private let lock = NSLock()
  private let manifest: FileHandle?

  init(_ path: String) {
    folder = URL(fileURLWithPath: path)
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent("manifest.tsv")
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    manifest = try? FileHandle(forWritingTo: url)
  }

  func write<T>(_ name: String, _ values: [T]) {
    let data = values.withUnsafeBytes { Data($0) }
    try? data.write(to: folder.appendingPathComponent(name))
  }

  func line(_ text: String) {
    lock.withLock { manifest?.write(Data((text + "\n").utf8)) }
  }
}
