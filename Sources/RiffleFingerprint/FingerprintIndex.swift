import CLinux
import Foundation

/// The answer to a query: which song, where in it, and how sure.
public struct FingerprintMatch: Equatable, Sendable {
  public var songID: String
  /// Where in the song the query starts, in seconds (0 when it starts before the song).
  public var offset: Double
  /// Query hashes that agree on this song and offset.
  public var score: Int
  /// The best score of any other song.
  public var runnerUp: Int
  /// Hashes in the query.
  public var queryHashes: Int
  /// How fast the recording plays the song: 1.03 is 3% fast (pitch and tempo together).
  public var speed: Double = 1
  /// The song frame where the query's first frame falls (at `speed`), before clamping at 0:
  /// what a verification of peaks lines the recording up with.
  public var offsetFrames: Int = 0
  /// The song's number in its index (as `FingerprintIndex.songIDs` numbers it).
  public var songNumber: Int = 0
  /// How far the song's bits and peaks agree with the recording's beyond chance, in standard
  /// deviations (`FingerprintIndex.evidence(for:with:)`), when it was checked.
  public var evidence: Double?
  /// Its evidence without the bass's bits (`MatchRule.Candidate.evidenceUnderHashes`).
  var evidenceWithoutBass: Double?
  /// The speed between the steps tried (`speed` is the step whose hashes voted).
  var refinedSpeed: Double?
  /// Found by searching the whole of a small index (`FingerprintIndex.scanned`), not by hashes.
  public internal(set) var fromScan = false
  /// Other songs of the index that hold the same audio where the recording is (a song held
  /// twice: an album's and a compilation's copy, a remaster), named beside this one, which
  /// agrees the most (`FingerprintIndex.holdSameAudio`).
  public var sameAudio: [String] = []

  /// Whether this answer is better supported than `other`, an answer from another index:
  /// more evidence, then more agreeing hashes.
  public func outranks(_ other: FingerprintMatch) -> Bool {
    (evidence ?? 0, score) > (other.evidence ?? 0, other.score)
  }

  public init(
    songID: String, offset: Double, score: Int, runnerUp: Int, queryHashes: Int,
    speed: Double = 1
  ) {
    self.songID = songID
    self.offset = offset
    self.score = score
    self.runnerUp = runnerUp
    self.queryHashes = queryHashes
    self.speed = speed
  }
}

/// The inverted index: every hash points at the (song, frame) pairs that have it, in a flat
/// table over the whole hash space (compressed-row layout: `offsets` then `postings`). A table
/// is built in memory from prints (`init(songs:)`) or mapped from a file (`TableFile`), and an
/// index may hold a mapped table and a small one in memory for songs added since it was built.
public final class FingerprintIndex: @unchecked Sendable {
  public let parameters: FingerprintParameters
  /// The songs' ids, in the order postings number them.
  public let songIDs: [String]
  /// One table: its rows, and the number of its first song among `songIDs`.
  struct Part {
    var offsets: UnsafeBufferPointer<UInt32>
    /// song index << 16 | anchor frame.
    var postings: UnsafeBufferPointer<UInt32>
    var firstSong: Int
  }
  private let parts: [Part]
  /// What keeps the parts' memory: arrays, or a mapped file.
  private let owners: [AnyObject]
  /// Where the songs' peaks are read from, each from its first song on (`peaks(ofSong:)`).
  private let peakSources: [(firstSong: Int, source: PeakSource)]
  /// Song numbers by id (the first, should two share one).
  private let songNumbers: [String: Int]

  /// Songs beyond this count cannot be indexed (16 bits of song number in a posting).
  public static let maxSongs = 1 << 16
  /// Anchors beyond this frame (~25 minutes) are left out (16 bits of frame).
  public static let maxFrame = (1 << 16) - 1

  public convenience init(
    songs: [SongPrint], parameters: FingerprintParameters = FingerprintParameters()
  ) {
    let table = MemoryTable(songs: songs.prefix(Self.maxSongs), parameters: parameters)
    self.init(
      parameters: parameters, songIDs: songs.prefix(Self.maxSongs).map(\.id),
      parts: [table.part(firstSong: 0)], owners: [table],
      peakSources: [(0, .memory(MemoryPeaks(songs.prefix(Self.maxSongs))))])
  }

  init(
    parameters: FingerprintParameters, songIDs: [String], parts: [Part], owners: [AnyObject],
    peakSources: [(firstSong: Int, source: PeakSource)]
  ) {
    self.parameters = parameters
    self.songIDs = songIDs
    self.parts = parts
    self.owners = owners
    self.peakSources = peakSources
    var numbers: [String: Int] = [:]
    numbers.reserveCapacity(songIDs.count)
    for (number, id) in songIDs.enumerated() where numbers[id] == nil { numbers[id] = number }
    songNumbers = numbers
  }

  /// A mapped table, and the songs added after it was built in a table in memory; the songs'
  /// peaks are read from `prints` (the file the table was built from) when asked for.
  convenience init(
    table: TableFile.Opened, added: [SongPrint], parameters: FingerprintParameters,
    prints: URL? = nil
  ) {
    var parts = [
      Part(offsets: table.offsets, postings: table.postings, firstSong: 0)
    ]
    var owners: [AnyObject] = [table.file]
    var peakSources: [(firstSong: Int, source: PeakSource)] = []
    if let prints,
      let file = PrintFilePeaks(
        url: prints, records: table.records, ids: table.entries.map(\.id),
        parameters: parameters)
    {
      peakSources.append((0, .file(file)))
    }
    let room = max(0, Self.maxSongs - table.entries.count)
    if !added.isEmpty && room > 0 {
      let memory = MemoryTable(songs: added.prefix(room), parameters: parameters)
      parts.append(memory.part(firstSong: table.entries.count))
      owners.append(memory)
      peakSources.append((table.entries.count, .memory(MemoryPeaks(added.prefix(room)))))
    }
    self.init(
      parameters: parameters,
      songIDs: table.entries.map(\.id) + added.prefix(room).map(\.id), parts: parts,
      owners: owners, peakSources: peakSources)
  }

  /// The peaks of song `number` (as `songIDs` numbers them) at their whole positions, sorted
  /// by (frame, bin), as its print holds them: for a second look at a candidate. From memory,
  /// or read from the prints file where the table says the song's record lies (a few
  /// kilobytes). None when the song is not there, or its record is not as the table says (a
  /// file damaged or changed). Safe from any thread.
  public func peaks(ofSong number: Int) -> [Peak] { stored(ofSong: number)?.peaks ?? [] }

  /// The bits of song `number` (`BandBits`, a word a frame), from the same record as its
  /// peaks: what a candidate is checked with. Empty when the record is not there.
  public func bits(ofSong number: Int) -> [UInt32] { stored(ofSong: number)?.bits ?? [] }

  func stored(ofSong number: Int) -> StoredPrint? {
    guard songIDs.indices.contains(number),
      let part = peakSources.last(where: { $0.firstSong <= number })
    else { return nil }
    switch part.source {
    case .memory(let songs): return songs.stored(number - part.firstSong)
    case .file(let file): return file.stored(number - part.firstSong)
    }
  }

  /// The number of the song with this id (its first, should two share it), as `songIDs`
  /// numbers them.
  public func songNumber(of id: String) -> Int? {
    songNumbers[id]
  }

  /// Hashes stored in all.
  public var postingCount: Int { parts.reduce(0) { $0 + $1.postings.count } }

  /// The song that best explains the query's landmarks, if the evidence clears the thresholds.
  public func match(_ query: [Landmark]) -> FingerprintMatch? {
    guard let candidate = bestCandidate(query),
      OffsetVotes.isConfident(candidate, parameters: parameters)
    else { return nil }
    return candidate
  }

  /// The song that best explains a recording, if the evidence is enough
  /// (docs/fingerprinting.md, "Checking a candidate"): the songs with the most agreeing
  /// hashes at any speed are the candidates, each at its few best offsets; at each, the
  /// song's bits and peaks are compared with the recording's (`evidence(for:with:)`), and
  /// `MatchRule` chooses among the songs, each at its offset with the most evidence. When it
  /// names none, the recording is searched again at speed 1 with its denser peaks
  /// (`addingDense`: more alignments for the songs found, and a few songs more) and the rule
  /// chooses again ("Denser at speed 1"). A song the hashes named is then placed where it
  /// agrees the most (`placed`).
  public func match(_ recording: Recording) -> FingerprintMatch? {
    let songs = max(2, parameters.checkedCandidates)
    let perSong = max(1, parameters.alignmentsPerSong)
    var found = alignments(peaks: recording.peaks, songs: songs, perSong: perSong)
    var denseFrom = found.count
    var known = EvidenceMemo()
    if let answer = chosen(
      checked(found, denseFrom: denseFrom, recording, memo: &known), recording)
    {
      return placed(answer, recording)
    }
    if recording.densePeaks != recording.peaks {
      let more = addingDense(recording.densePeaks, to: found, songs: songs, perSong: perSong)
      if more.songs.joined().count > found.joined().count {
        if let answer = chosen(
          checked(more.songs, denseFrom: more.denseFrom, recording, memo: &known), recording)
        {
          return placed(answer, recording)
        }
        (found, denseFrom) = more
      }
    }
    let scanned = addingScanned(recording, to: found)
    guard scanned.joined().count > found.joined().count else { return nil }
    return chosen(checked(scanned, denseFrom: denseFrom, recording, memo: &known), recording)
  }

  /// `found` with each song's best alignments at speed 1 by a search of the whole index
  /// (`scanned`) added: after a song's own where the hashes found it, else as a song of its
  /// own after the rest (counting no hashes).
  func addingScanned(_ recording: Recording, to found: [[FingerprintMatch]])
    -> [[FingerprintMatch]]
  {
    var found = found
    for alignments in scanned(recording) where !alignments.isEmpty {
      if let at = found.firstIndex(where: { $0[0].songNumber == alignments[0].songNumber }) {
        found[at] += alignments.filter { new in
          !found[at].contains {
            abs($0.offsetFrames - new.offsetFrames) < Int(OffsetVotes.minSeparation)
          }
        }
      } else {
        found.append(alignments)
      }
    }
    return found
  }

  /// Each song's `scanAlignmentsPerSong` best offsets at speed 1 (at least
  /// `OffsetVotes.minSeparation` frames apart) by how far its bits agree with every
  /// `scanQueryStep`th frame of the recording's (`scanLargeQueryStep`th in an index of over
  /// `scanLargeSeconds`), tried every `scanStep` frames where the recording lies within the
  /// song, then placed to the frame by all of the recording's; none when the index is larger
  /// than a scan allows (`scanSongs`) or the recording longer than
  /// `scanMaxRecordingSeconds`.
  func scanned(_ recording: Recording) -> [[FingerprintMatch]] {
    let p = parameters
    guard seconds(of: recording) <= p.scanMaxRecordingSeconds,
      let query = recording.bits(speed: 1, parameters: p), let songs = scanSongs()
    else { return [] }
    let step = max(1, p.scanStep)
    let queryStep = p.scanQueryStep(
      indexSeconds: Double(songs.reduce(0) { $0 + $1.bits.count }) * p.frameSeconds)
    guard
      let frames = ScanFrames(
        query, from: p.bandLag, every: queryStep, step: step, atLeast: Self.scanMinFrames)
    else { return [] }
    var differing: [Int32] = []
    var out: [[FingerprintMatch]] = []
    for (number, song) in songs.enumerated() where song.bits.count >= query.count {
      out.append(
        scanOffsets(song, frames, keep: max(1, p.scanAlignmentsPerSong), work: &differing).map {
          offset in
          var one = match(
            song: number, offset: Int64(offset), score: 0, runnerUp: 0, queryHashes: 0)
          one.speed = 1
          one.fromScan = true
          return one
        })
    }
    return out
  }

  /// The recording's frames a scan compares: its bits at speed 1 (`query`), and the frames
  /// sampled (`at`, every query step from `bandLag`, those with something in them) with
  /// their words; the song's offsets are tried every `step` frames.
  struct ScanFrames {
    let query: [UInt32]
    let at: [Int]
    let words: [UInt32]
    let step: Int

    /// Every `queryStep`th frame of `query` from `lag` with something in it; nil when
    /// fewer than `minimum`.
    init?(_ query: [UInt32], from lag: Int, every queryStep: Int, step: Int, atLeast minimum: Int) {
      var at: [Int] = []
      var words: [UInt32] = []
      for i in stride(from: lag, to: query.count, by: max(1, queryStep)) where query[i] != 0 {
        at.append(i)
        words.append(query[i])
      }
      guard at.count >= minimum else { return nil }
      (self.query, self.at, self.words, self.step) = (query, at, words, max(1, step))
    }
  }

  /// A song's `keep` best offsets at speed 1 by how far its bits agree with the sampled
  /// frames of the recording's, tried every `step` frames where the recording lies within
  /// the song and at least `OffsetVotes.minSeparation` apart, then placed to the frame by
  /// all of the recording's; only those agreeing beyond half the bits compared. `work` is
  /// scratch space, kept between songs.
  func scanOffsets(_ song: ScanSong, _ frames: ScanFrames, keep: Int, work differing: inout [Int32])
    -> [Int]
  {
    let (at, words, step) = (frames.at, frames.words, frames.step)
    guard song.bits.count >= frames.query.count, !at.isEmpty else { return [] }
    // Each frame compared counts 32 bits (a song's silent frame, all 0, agrees by chance).
    let compared = Double(32 * at.count)
    let offsets = (song.bits.count - frames.query.count) / step + 1
    differing.removeAll(keepingCapacity: true)
    differing.append(contentsOf: repeatElement(0, count: offsets))
    // Offset `slot * step` puts the recording's frame `at[k]` on the song's frame
    // `slot * step + at[k]`: phase `at[k] % step`, element `slot + at[k] / step`, so each
    // of the recording's words is compared with a run of one phase, in a loop the compiler
    // can vectorize.
    differing.withUnsafeMutableBufferPointer { differing in
      for k in 0..<at.count {
        let word = words[k]
        let from = at[k] / step
        song.phases[at[k] % step].withUnsafeBufferPointer { phase in
          let run = UnsafeBufferPointer(rebasing: phase[from..<(from + offsets)])
          for slot in 0..<offsets {
            differing[slot] &+= Int32(truncatingIfNeeded: (run[slot] ^ word).nonzeroBitCount)
          }
        }
      }
    }
    // The best offsets (the fewest bits differing), each at least `minSeparation` from
    // those taken before it.
    var taken: [Int] = []
    for _ in 0..<keep {
      var best = -1
      for slot in differing.indices where best < 0 || differing[slot] < differing[best] {
        if taken.allSatisfy({ abs($0 - slot * step) >= Int(OffsetVotes.minSeparation) }) {
          best = slot
        }
      }
      guard best >= 0, compared / 2 > Double(differing[best]) else { break }
      taken.append(best * step)
    }
    // Each placed to the frame, by every frame of the recording.
    let reach = step / 2 + 1
    return taken.map { offset in
      let near = (max(0, offset - reach)...(offset + reach)).map { frame in
        (
          frame,
          BandBits.agreement(
            song: song.bits, query: frames.query, offsetFrames: frame, speed: 1,
            lag: parameters.bandLag)
        )
      }
      return near.max { $0.1 < $1.1 }?.0 ?? offset
    }
  }

  /// `answer`, a song the hashes named, placed where the song agrees the most with the
  /// recording: its song is scanned as a small index is (`scanOffsets`, every offset at speed
  /// 1), and of its `scanAlignmentsPerSong` best offsets the one that agrees the most
  /// (`placing`), counted `scanPenalty` less, takes the answer's place when it agrees by more
  /// than `evidenceTie` over it, with the evidence there. The hashes of a song that repeats
  /// can agree most at a repeat (a chorus, a loop, part of the recording lined up with the
  /// song's first seconds) whose bits and peaks agree far less than at the passage itself
  /// ("Placed where it agrees most"). Not for an answer found away from speed 1 (beyond
  /// `speedOneWithin`), one the scan found, a recording longer than
  /// `scanMaxRecordingSeconds` or a song longer than `scanSeconds`, or when `placesByScan` is
  /// off.
  func placed(_ answer: FingerprintMatch, _ recording: Recording) -> FingerprintMatch {
    let p = parameters
    guard p.placesByScan, !answer.fromScan, abs(answer.speed - 1) <= p.speedOneWithin + 1e-9,
      seconds(of: recording) <= p.scanMaxRecordingSeconds,
      let query = recording.bits(speed: 1, parameters: p),
      let stored = stored(ofSong: answer.songNumber),
      Double(stored.bits.count) * p.frameSeconds <= p.scanSeconds
    else { return answer }
    let step = max(1, p.scanStep)
    guard
      let frames = ScanFrames(
        query, from: p.bandLag, every: max(1, p.scanQueryStep), step: step,
        atLeast: Self.scanMinFrames)
    else { return answer }
    var work: [Int32] = []
    let offsets = scanOffsets(
      ScanSong(bits: stored.bits, step: step), frames, keep: max(1, p.scanAlignmentsPerSong),
      work: &work)
    var best: (alignment: FingerprintMatch, agreement: Double)?
    for offset in offsets {
      var alignment = answer
      alignment.offsetFrames = offset
      alignment.offset = max(0, Double(offset) * p.frameSeconds)
      alignment.speed = 1
      alignment.refinedSpeed = nil
      let agreement = placing(alignment, recording, stored) - p.scanPenalty
      if agreement > best?.agreement ?? -.infinity { best = (alignment, agreement) }
    }
    guard var best, best.agreement > placing(answer, recording, stored) + Self.evidenceTie
    else { return answer }
    let there = measures(for: best.alignment, with: recording, stored: stored)
    best.alignment.evidence = there.evidence
    return best.alignment
  }

  /// How far a song agrees with the recording at an alignment, for choosing where in it the
  /// recording is: its peaks', bits' and bass's agreement (`measures`) summed over the
  /// square root of their number, none capped. The caps of the evidence keep a song of the
  /// recording's make from being named (`bitsOverPeaks`, `bitsInFull`); within one song
  /// they only make two places that agree alike differ by a jump (bits just over
  /// `bitsInFull` at one, just under at the other).
  func placing(_ alignment: FingerprintMatch, _ recording: Recording, _ stored: StoredPrint)
    -> Double
  {
    var parts = [
      agreement(of: alignment, with: recording, songBits: stored.bits),
      recording.probe.agreement(
        peaks: stored.peaks, offsetFrames: alignment.offsetFrames, speed: alignment.speed) ?? 0,
    ]
    if !stored.bass.isEmpty {
      parts.append(bassAgreement(of: alignment, with: recording, songBass: stored.bass))
    }
    return parts.reduce(0, +) / Double(parts.count).squareRoot()
  }

  /// Sampled frames with something in them a recording needs for a scan.
  static let scanMinFrames = 20

  /// A song's bits as a scan reads them: whole, and split into `scanStep` phases (phase r
  /// holds frames r, r + step, r + 2 step...).
  struct ScanSong {
    let bits: [UInt32]
    let phases: [[UInt32]]

    init(bits: [UInt32], step: Int) {
      self.bits = bits
      phases = (0..<max(1, step)).map { r in
        Array(stride(from: r, to: bits.count, by: max(1, step)).lazy.map { bits[$0] })
      }
    }
  }

  /// Every song's bits, read once for `scanned`; nil when the index holds more than
  /// `scanMaxSongs` songs or `scanSeconds` of audio (found out once, reading no more of it
  /// than that).
  func scanSongs() -> [ScanSong]? {
    scanLock.withLock {
      if let known = scanCache { return known }
      let step = max(1, parameters.scanStep)
      var all: [ScanSong]? = []
      if songIDs.count <= parameters.scanMaxSongs {
        let limit = Int(parameters.scanSeconds / parameters.frameSeconds)
        var frames = 0
        for number in songIDs.indices {
          let bits = bits(ofSong: number)
          frames += bits.count
          if frames > limit {
            all = nil
            break
          }
          all?.append(ScanSong(bits: bits, step: step))
        }
      } else {
        all = nil
      }
      scanCache = .some(all)
      return all
    }
  }
  private let scanLock = NSLock()
  private var scanCache: [ScanSong]??

  /// `MatchRule`'s answer among checked candidates, songs held twice taken as one and songs
  /// that share only a backing weighed by their peaks (`weighed`).
  func chosen(_ candidates: [(score: Int, best: FingerprintMatch)], _ recording: Recording)
    -> FingerprintMatch?
  {
    let checked = weighed(candidates, recording)
    guard
      let chosen = MatchRule.choose(
        checked.map { candidate in
          MatchRule.Candidate(
            score: candidate.score, evidence: candidate.best.evidence ?? 0,
            queryHashes: candidate.best.queryHashes,
            evidenceUnderHashes: parameters.bassUnderHashes
              ? nil : (candidate.best.evidenceWithoutBass ?? candidate.best.evidence ?? 0),
            rivalEvidence: candidate.rival)
        }, seconds: seconds(of: recording), parameters: parameters)
    else { return nil }
    var answer = checked[chosen].best
    // A song only the dense search found counts the hashes of its own alignment.
    answer.score = max(checked[chosen].score, answer.score)
    answer.runnerUp =
      checked.indices.filter { $0 != chosen }.map { checked[$0].score }.max() ?? 0
    answer.speed = answer.refinedSpeed ?? answer.speed
    return answer
  }

  /// The candidates as `MatchRule` weighs them, each near the one with the most evidence (the
  /// leader) compared with it once, both prints read once, where their bits agree by
  /// `sameAudioBits` around the recording:
  /// - a song that also holds the same audio (`holdSameAudio`), with evidence within
  ///   `minEvidenceMargin` of the leader's or within `sameAudioEvidenceShare` of it, is taken
  ///   out (a clear recording's evidence is tens of deviations, and one copy's bits may count
  ///   in full where the other's, a codec apart, are capped): a song the library holds twice
  ///   agrees with the recording as well as itself, and would keep either from being named,
  ///   or be named without its twin. The leader carries their ids (`sameAudio`) and counts
  ///   the most hashes of them;
  /// - a song within `wideEvidenceMargin` whose peaks do not agree shares only a backing with
  ///   it (the same drums and chords: a loop two tracks are built on, a song and its remix).
  ///   Such songs agree with the recording alike in their bands and their bass whichever of
  ///   them it holds, and only the notes over the backing tell them apart: its `rival`
  ///   evidence (`MatchRule.Candidate.rivalEvidence`) stands as far under the leader's as its
  ///   peaks agree less, never over its own ("A backing two songs share"; none when
  ///   `sharedBackingByPeaks` is off).
  /// The candidates stay ordered by hashes; `rival` nil is the candidate's own evidence.
  func weighed(_ checked: [(score: Int, best: FingerprintMatch)], _ recording: Recording)
    -> [(score: Int, best: FingerprintMatch, rival: Double?)]
  {
    var out = checked.map { (score: $0.score, best: $0.best, rival: Double?.none) }
    guard
      let lead = checked.indices.max(by: {
        (checked[$0].best.evidence ?? 0) < (checked[$1].best.evidence ?? 0)
      })
    else { return out }
    let p = parameters
    let frames = recording.probe.frames
    let leader = checked[lead].best
    let most = leader.evidence ?? 0
    let twinAbove = most - max(p.minEvidenceMargin, most * p.sameAudioEvidenceShare)
    let rivalWithin = p.sharedBackingByPeaks ? max(p.minEvidenceMargin, p.wideEvidenceMargin) : 0
    let near = checked.indices.filter { i in
      let evidence = checked[i].best.evidence ?? 0
      return i != lead && (evidence > twinAbove || most - evidence < rivalWithin)
    }
    // The leader's print is read once, and another's only when it is near.
    guard !near.isEmpty, let leaderPrint = stored(ofSong: leader.songNumber) else { return out }
    let leaderAt = (leaderPrint.peaks, leader.offsetFrames, leader.speed)
    let leaderPeaks =
      rivalWithin > 0
      ? recording.probe.agreement(
        peaks: leaderPrint.peaks, offsetFrames: leader.offsetFrames, speed: leader.speed) : nil
    var twins: [Int] = []
    for i in near {
      let other = checked[i].best
      guard let print = stored(ofSong: other.songNumber) else { continue }
      let evidence = other.evidence ?? 0
      let twin =
        evidence > twinAbove
        && Self.holdSameAudio(
          leaderAt, (print.peaks, other.offsetFrames, other.speed), frames: frames,
          parameters: p)
      guard twin || most - evidence < rivalWithin,
        Self.bitsAgreement(
          (leaderPrint.bits, leader.offsetFrames, leader.speed),
          (print.bits, other.offsetFrames, other.speed), frames: frames, parameters: p)
          >= p.sameAudioBits
      else { continue }
      if twin {
        twins.append(i)
        continue
      }
      guard let leaderPeaks else { continue }
      let peaks =
        recording.probe.agreement(
          peaks: print.peaks, offsetFrames: other.offsetFrames, speed: other.speed) ?? 0
      out[i].rival = min(evidence, most - (leaderPeaks - peaks))
    }
    guard !twins.isEmpty else { return out }
    var kept = out.indices.filter { !twins.contains($0) }.map { ($0, out[$0]) }
    if let at = kept.firstIndex(where: { $0.0 == lead }) {
      kept[at].1.score = max(kept[at].1.score, twins.map { checked[$0].score }.max() ?? 0)
      kept[at].1.best.sameAudio = twins.map { checked[$0].best.songID }
    }
    kept.sort { ($0.1.score, -$0.0) > ($1.1.score, -$1.0) }
    return kept.map(\.1)
  }

  /// Each candidate song (best by hashes first) with its most agreeing hashes and its
  /// evidence, that of its offset with the most (`evidence` set), at that offset; or at the
  /// offset with the most hashes, when its evidence is within `evidenceTie` of it (the repeats
  /// of a loop agree nearly alike: the hashes choose among them). The candidates of the
  /// search at every speed, as `match` first checks them.
  public func checkedCandidates(_ recording: Recording) -> [(
    score: Int, best: FingerprintMatch
  )] {
    let found = alignments(
      peaks: recording.peaks, songs: max(2, parameters.checkedCandidates),
      perSong: max(1, parameters.alignmentsPerSong))
    var memo = EvidenceMemo()
    return checked(found, denseFrom: found.count, recording, memo: &memo)
  }

  /// Evidence already measured, by song, offset and speed: the search again at speed 1
  /// checks the first search's alignments once.
  typealias EvidenceMemo = [AlignmentKey: Measures]

  /// What an alignment's check measured: its evidence without the bass's bits and, where
  /// they were asked (`bassWhereBitsUnder`), with them.
  struct Measures {
    var without: Double
    var withBass: Double?

    /// The evidence: the better of the two.
    var evidence: Double { max(without, withBass ?? without) }

    /// Both `amount` less.
    func less(_ amount: Double) -> Measures {
      Measures(without: without - amount, withBass: withBass.map { $0 - amount })
    }
  }

  struct AlignmentKey: Hashable {
    let song: Int
    let offset: Int
    let speed: Double
  }

  /// `checkedCandidates` of songs found by a search; those from `denseFrom` on, which only
  /// the dense search found, count no hashes (theirs are of another search).
  func checked(
    _ songs: [[FingerprintMatch]], denseFrom: Int, _ recording: Recording,
    memo: inout EvidenceMemo
  ) -> [(score: Int, best: FingerprintMatch)] {
    let frames = recording.probe.frames
    return songs.enumerated().map { number, offsets in
      // The song's print is read once, and only when an alignment is new.
      var print: StoredPrint?
      var read = false
      func measured(_ alignment: FingerprintMatch) -> Measures {
        let key = AlignmentKey(
          song: alignment.songNumber, offset: alignment.offsetFrames, speed: alignment.speed)
        if let known = memo[key] { return known }
        if !read {
          print = stored(ofSong: offsets[0].songNumber)
          read = true
        }
        let value = measures(for: alignment, with: recording, stored: print)
        memo[key] = value
        return value
      }
      // Each alignment as the hashes placed it and, unless they found it at speed 1, at speed
      // 1 through the same moment: placed where it agrees more, its evidence there counted
      // `speedOnePenalty` less ("Checked at speed 1 too"). The same for the evidence without
      // the bass's bits, which the rule asks of a song first by hashes: of the alignments the
      // hashes found (a scan's best of thousands of offsets is no backing for its hashes).
      var withoutBass = -Double.infinity
      let checked = offsets.map { alignment in
        let found = measured(alignment).less(alignment.fromScan ? parameters.scanPenalty : 0)
        let atOne =
          parameters.checksAtSpeedOne
          ? atSpeedOne(alignment, frames: frames).map { ($0, measured($0)) } : nil
        if !alignment.fromScan {
          withoutBass = max(
            withoutBass, Self.better(found.without, atSpeedOne: atOne?.1.without, parameters))
        }
        guard let atOne, atOne.1.evidence > found.evidence else {
          return (alignment: alignment, evidence: found.evidence)
        }
        return (atOne.0, Self.better(found.evidence, atSpeedOne: atOne.1.evidence, parameters))
      }
      let most = checked.indices.max { checked[$0].evidence < checked[$1].evidence } ?? 0
      var best =
        checked[0].evidence >= checked[most].evidence - Self.evidenceTie
        ? checked[0].alignment : checked[most].alignment
      best.evidence = checked[most].evidence
      best.evidenceWithoutBass = withoutBass.isFinite ? withoutBass : 0
      return (number < denseFrom ? offsets[0].score : 0, best)
    }
  }

  /// An alignment's evidence as found, or at speed 1 less `speedOnePenalty` when that is
  /// more.
  static func better(_ found: Double, atSpeedOne: Double?, _ p: FingerprintParameters) -> Double {
    guard let atSpeedOne, atSpeedOne > found else { return found }
    return max(found, atSpeedOne - p.speedOnePenalty)
  }

  /// `alignment` at speed 1, lined up on the same song frame at the middle of a recording of
  /// `frames`; nil when it is at speed 1 already or further from it than `speedOneWithin`.
  /// A recording made in a room plays at speed 1, but its bass, often all the voices over it
  /// leave, agrees nearly as well a step or three off (a bin of 30 moved by 1.5% is still bin
  /// 30; 5 s drift by 3 frames): the hashes then pick a speed by chance, at which the song's
  /// higher peaks and bands miss the recording's.
  func atSpeedOne(_ alignment: FingerprintMatch, frames: Int) -> FingerprintMatch? {
    guard alignment.speed != 1, abs(alignment.speed - 1) <= parameters.speedOneWithin + 1e-9
    else { return nil }
    var atOne = alignment
    atOne.offsetFrames =
      alignment.offsetFrames + Int((Double(frames) / 2 * (alignment.speed - 1)).rounded())
    atOne.offset = max(0, Double(atOne.offsetFrames) * parameters.frameSeconds)
    atOne.speed = 1
    atOne.refinedSpeed = nil
    return atOne
  }

  /// Evidence within this of a song's most is as good, for choosing where in it the
  /// recording is.
  static let evidenceTie = 2.0

  /// Whether two songs hold the same audio where a recording lines up with each (a song a
  /// library holds twice: an album's and a compilation's copy, a remaster): of the peaks
  /// each has around the recording (`sameAudioSeconds`, centred on it, or the recording if
  /// longer), at least `sameAudioShare` lie on the other's, a frame and a bin either side, and
  /// each has at least `sameAudioPeaks` there. Songs that merely agree with the recording
  /// alike (one make, one tempo) share few: their notes differ, and what they share for a
  /// few seconds (a drum pattern at one tempo) they do not share for twenty
  /// (docs/fingerprinting.md, "A song held twice").
  public static func holdSameAudio(
    _ a: (peaks: [Peak], offsetFrames: Int, speed: Double),
    _ b: (peaks: [Peak], offsetFrames: Int, speed: Double), frames: Int,
    parameters p: FingerprintParameters
  ) -> Bool {
    (sharedPeaks(around: a, b, frames: frames, parameters: p) ?? 0) >= p.sameAudioShare
  }

  /// `sharedPeaks` over `sameAudioSeconds` centred on the recording (or the recording, if
  /// longer): what `holdSameAudio` measures.
  public static func sharedPeaks(
    around a: (peaks: [Peak], offsetFrames: Int, speed: Double),
    _ b: (peaks: [Peak], offsetFrames: Int, speed: Double), frames: Int,
    parameters p: FingerprintParameters
  ) -> Double? {
    let pad = sameAudioPad(frames: frames, parameters: p)
    func widened(_ song: (peaks: [Peak], offsetFrames: Int, speed: Double)) -> (
      peaks: [Peak], offsetFrames: Int, speed: Double
    ) {
      (song.peaks, song.offsetFrames - Int((Double(pad) * song.speed).rounded()), song.speed)
    }
    return sharedPeaks(widened(a), widened(b), frames: frames + 2 * pad)
  }

  /// Frames added either side of a recording of `frames` so that two songs are compared
  /// over `sameAudioSeconds` (none when the recording is longer).
  static func sameAudioPad(frames: Int, parameters p: FingerprintParameters) -> Int {
    max(0, Int((p.sameAudioSeconds / p.frameSeconds).rounded()) - frames) / 2
  }

  /// How far two songs' bits agree (`BandBits.agreement`, in deviations, the best of the
  /// frames 2 either side) over `sameAudioSeconds` centred on where a recording lines up
  /// with each, when the recording plays both at one speed, give or take a step (0
  /// otherwise): two copies of one recording move their bands as one.
  public static func bitsAgreement(
    _ a: (bits: [UInt32], offsetFrames: Int, speed: Double),
    _ b: (bits: [UInt32], offsetFrames: Int, speed: Double), frames: Int,
    parameters p: FingerprintParameters
  ) -> Double {
    guard abs(a.speed - b.speed) < p.speedStep * 1.5, !a.bits.isEmpty else { return 0 }
    let pad = sameAudioPad(frames: frames, parameters: p)
    let startA = a.offsetFrames - Int((Double(pad) * a.speed).rounded())
    let startB = b.offsetFrames - Int((Double(pad) * b.speed).rounded())
    let from = max(0, startB)
    let to = min(b.bits.count, startB + Int((Double(frames + 2 * pad) * b.speed).rounded()))
    guard from < to else { return 0 }
    return BandBits.bestAgreement(
      song: a.bits, query: Array(b.bits[from..<to]), offsetFrames: startA + (from - startB),
      shifts: -2...2, speed: 1, lag: p.bandLag)
  }

  /// The smaller of the shares of each song's peaks within the recording that lie on the
  /// other's; nil when either has fewer than `sameAudioPeaks` there.
  public static func sharedPeaks(
    _ a: (peaks: [Peak], offsetFrames: Int, speed: Double),
    _ b: (peaks: [Peak], offsetFrames: Int, speed: Double), frames: Int
  ) -> Double? {
    /// A song's peaks within the recording, in its frames and bins, packed as frame << 16 | bin.
    func points(_ song: (peaks: [Peak], offsetFrames: Int, speed: Double)) -> Set<Int> {
      var out = Set<Int>()
      let last = Double(song.offsetFrames) + Double(frames) * song.speed
      for peak in song.peaks where peak.frame >= song.offsetFrames {
        if Double(peak.frame) >= last { break }
        let frame = Int((Double(peak.frame - song.offsetFrames) / song.speed).rounded())
        let bin = Int((Double(peak.bin) * song.speed).rounded())
        guard frame >= 0, frame < frames, bin >= 0, bin < 1 << 16 else { continue }
        out.insert(frame << 16 | bin)
      }
      return out
    }
    func share(_ x: Set<Int>, on y: Set<Int>) -> Double {
      var on = 0
      for point in x {
        let frame = point >> 16
        let bin = point & 0xFFFF
        if (-1...1).contains(where: { df in
          (-1...1).contains { db in y.contains((frame + df) << 16 | (bin + db)) }
        }) {
          on += 1
        }
      }
      return Double(on) / Double(max(1, x.count))
    }
    let x = points(a)
    let y = points(b)
    guard x.count >= sameAudioPeaks, y.count >= sameAudioPeaks else { return nil }
    return min(share(x, on: y), share(y, on: x))
  }

  /// Peaks each song needs within the recording for two songs to hold the same audio there
  /// (`holdSameAudio`): a second of a print's.
  static let sameAudioPeaks = 20

  /// How far a song agrees with the recording at an alignment (offset and speed), beyond
  /// chance, in standard deviations: its peaks (`PeakProbe.agreement`) and its bits
  /// (`agreement(of:with:)`) together, (peaks + bits) / sqrt 2, the bits counting at most
  /// `bitsOverPeaks` more than the peaks. Each alone stays within a few deviations of 0 by
  /// chance. Heard through voices, a song often agrees clearly on one and weakly on the other
  /// (a bass line keeps its peaks, a bright passage its bits); a song of the same make moves
  /// its bands like the recording's (its bits agree) without sharing its notes (its peaks do
  /// not). 0 when the song's print cannot be read.
  public func evidence(for alignment: FingerprintMatch, with recording: Recording) -> Double {
    evidence(for: alignment, with: recording, stored: stored(ofSong: alignment.songNumber))
  }

  func evidence(
    for alignment: FingerprintMatch, with recording: Recording,
    stored: StoredPrint?
  ) -> Double {
    measures(for: alignment, with: recording, stored: stored).evidence
  }

  func measures(
    for alignment: FingerprintMatch, with recording: Recording,
    stored: StoredPrint?
  ) -> Measures {
    guard let stored else { return Measures(without: 0) }
    let bits = agreement(of: alignment, with: recording, songBits: stored.bits)
    let peaks =
      recording.probe.agreement(
        peaks: stored.peaks, offsetFrames: alignment.offsetFrames, speed: alignment.speed) ?? 0
    let seconds = seconds(of: recording)
    let without = Self.evidence(
      peaks: peaks, bits: bits, seconds: seconds, parameters: parameters)
    guard !stored.bass.isEmpty, bits < parameters.bassWhereBitsUnder else {
      return Measures(without: without)
    }
    let bass = bassAgreement(of: alignment, with: recording, songBass: stored.bass)
    return Measures(
      without: without,
      withBass: Self.evidence(
        peaks: peaks, bits: bits, bass: bass, seconds: seconds, parameters: parameters))
  }

  /// How long a recording is, in seconds of its frames.
  func seconds(of recording: Recording) -> Double {
    Double(recording.probe.frames) * parameters.frameSeconds
  }

  /// The evidence of the peaks' and the bits' agreement: (peaks + bits) / sqrt 2, the bits
  /// counting at most `bitsOverPeaks` more than the peaks (songs of one make move their bands
  /// alike where their notes differ), unless they agree by `bitsInFull` or more (growing with
  /// the square root of a recording longer than `evidenceSeconds`): no song of one make
  /// agrees so, only the song itself, whose peaks a phone line may have taken (its bass).
  static func evidence(
    peaks: Double, bits: Double, seconds: Double, parameters p: FingerprintParameters
  ) -> Double {
    let full = p.bitsInFull * p.evidenceGrowth(seconds: seconds)
    let counted = bits >= full ? bits : min(bits, max(0, peaks) + p.bitsOverPeaks)
    return (peaks + counted) / 2.0.squareRoot()
  }

  /// The evidence with the bass's bits beside the peaks and the bits (asked where the bits
  /// agree by under `bassWhereBitsUnder`): (peaks + bits + bass) / sqrt 3, less
  /// `bassPenalty`, the bits counted as without the bass and the bass at most `bassOverPeaks`
  /// over the peaks (songs of one make share a bass sound and a drum pattern).
  static func evidence(
    peaks: Double, bits: Double, bass: Double, seconds: Double,
    parameters p: FingerprintParameters
  ) -> Double {
    let full = p.bitsInFull * p.evidenceGrowth(seconds: seconds)
    let counted = bits >= full ? bits : min(bits, max(0, peaks) + p.bitsOverPeaks)
    let bassCounted = min(bass, max(0, peaks) + p.bassOverPeaks)
    return (peaks + counted + bassCounted) / 3.0.squareRoot() - p.bassPenalty
  }

  /// How far a candidate's bass's bits agree with the recording's, as `agreement` measures
  /// the bits. 0 when the song has none.
  func bassAgreement(
    of candidate: FingerprintMatch, with recording: Recording, songBass song: [UInt8]
  ) -> Double {
    bestAgreement(
      of: candidate, song: song, bitsPerWord: parameters.bassBandEdges.count - 2
    ) { recording.bassBits(speed: $0, parameters: parameters) }
  }

  /// How far a candidate's bits agree with the recording's (`BandBits.agreement`), lined up
  /// at its offset and speed: the best over the frames 2 either side and the speed steps
  /// either side (the hashes place a weak candidate a frame or a step off). 0 when the song's
  /// bits cannot be read.
  public func agreement(of candidate: FingerprintMatch, with recording: Recording) -> Double {
    agreement(of: candidate, with: recording, songBits: bits(ofSong: candidate.songNumber))
  }

  func agreement(of candidate: FingerprintMatch, with recording: Recording, songBits song: [UInt32])
    -> Double
  {
    bestAgreement(of: candidate, song: song, bitsPerWord: 32) {
      recording.bits(speed: $0, parameters: parameters)
    }
  }

  /// The best `BandBits` agreement of a song's words with the recording's (`query(speed)`)
  /// over the frames 2 either side of the candidate's offset and the speed steps either side
  /// of its speed; 0 when the song has none.
  private func bestAgreement<Word: FixedWidthInteger>(
    of candidate: FingerprintMatch, song: [Word], bitsPerWord: Int,
    query: (Double) -> [Word]?
  ) -> Double {
    guard !song.isEmpty else { return 0 }
    var best = -Double.infinity
    let step = parameters.speedStep
    for speed in [candidate.speed - step, candidate.speed, candidate.speed + step] {
      guard let words = query(speed) else { continue }
      best = max(
        best,
        BandBits.bestAgreement(
          song: song, query: words, offsetFrames: candidate.offsetFrames, shifts: -2...2,
          speed: speed, lag: parameters.bandLag, bitsPerWord: bitsPerWord))
    }
    return best.isFinite ? best : 0
  }

  /// The best song over every speed tried, however weak (for tuning the thresholds), with the
  /// best score of any other song at any speed as its runner-up.
  public func bestCandidate(peaks: [Peak]) -> FingerprintMatch? {
    let two = candidates(peaks: peaks, count: 2)
    guard var best = two.first else { return nil }
    best.runnerUp = two.count > 1 ? two[1].score : 0
    best.speed = best.refinedSpeed ?? best.speed
    return best
  }

  /// The `count` songs with the most agreeing hashes, best first, each at its best speed and
  /// offset. The recording's peaks (found once) are moved back by each speed and hashed
  /// again (hashing is cheap); each speed's hashes vote like a query. A song's speed is then
  /// refined between the steps: the top of a parabola through its best score and its scores
  /// at the speeds either side.
  public func candidates(peaks: [Peak], count: Int) -> [FingerprintMatch] {
    alignments(peaks: peaks, songs: count, perSong: 1).map { $0[0] }
  }

  /// The `songs` songs with the most agreeing hashes, best first, each with its `perSong`
  /// best alignments (offset and speed; offsets at least `OffsetVotes.minSeparation` frames
  /// apart, whatever the speed), best first: a song that repeats, or whose hashes the noise
  /// drowned at the right offset, may hold the recording at another than its best. The
  /// first alignment's speed is refined as `candidates` says.
  public func alignments(peaks: [Peak], songs count: Int, perSong: Int) -> [[FingerprintMatch]] {
    // Votes of 32 bits while song and offset fit (up to 32,768 songs): half the memory to
    // write, sort and scan of 64.
    voteKeyBits <= 32
      ? alignments(peaks: peaks, songs: count, perSong: perSong, buffer: VoteBuffer<UInt32>())
      : alignments(peaks: peaks, songs: count, perSong: perSong, buffer: VoteBuffer<UInt64>())
  }

  /// The recording searched again at speed 1 with `densePeaks` (`denseQueryFanOut` each), its
  /// best alignments added to `found`: where a song found has alignments at speed 1 it did
  /// not keep, after its own; and up to `denseCandidates` songs it did not find, after the
  /// rest (a recording made in a room plays at speed 1, and voices as loud as the music leave
  /// its song few hashes among 20 peaks a second). Their hashes are of another search: they
  /// stand after the others whatever their number. `denseFrom`: where those songs begin.
  func addingDense(
    _ densePeaks: [Peak], to found: [[FingerprintMatch]], songs count: Int,
    perSong: Int
  ) -> (songs: [[FingerprintMatch]], denseFrom: Int) {
    var found = found
    let denseFrom = found.count
    guard !densePeaks.isEmpty else { return (found, denseFrom) }
    var hashing = parameters
    hashing.fanOut = parameters.denseQueryFanOut
    let landmarks = LandmarkHasher.landmarks(densePeaks, parameters: hashing, speed: 1)
    let wanted = count + parameters.denseCandidates
    let top =
      voteKeyBits <= 32
      ? topVotes(landmarks, count: wanted, perSong: perSong, buffer: VoteBuffer<UInt32>())
      : topVotes(landmarks, count: wanted, perSong: perSong, buffer: VoteBuffer<UInt64>())
    var added = 0
    for entry in top {
      let alignments = entry.alignments.map { alignment in
        var one = match(
          song: entry.song, offset: alignment.offset, score: alignment.score, runnerUp: 0,
          queryHashes: landmarks.count)
        one.speed = 1
        return one
      }
      if let at = found.firstIndex(where: { $0[0].songNumber == entry.song }) {
        found[at] += alignments.filter { new in
          !found[at].contains {
            abs($0.offsetFrames - new.offsetFrames) < Int(OffsetVotes.minSeparation)
          }
        }
      } else if added < parameters.denseCandidates {
        found.append(alignments)
        added += 1
      }
    }
    return (found, denseFrom)
  }

  /// The `count` songs with the most votes of `landmarks`, each with its `perSong` best
  /// alignments (`OffsetVotes.topAlignments`): one search at one speed.
  func topVotes<Vote: FixedWidthInteger & UnsignedInteger>(
    _ landmarks: [Landmark], count: Int, perSong: Int, buffer: VoteBuffer<Vote>
  ) -> [(song: Int, alignments: [OffsetVotes.Alignment])] {
    let n = gatherVotes(landmarks, into: buffer)
    let votes = UnsafeMutableBufferPointer(rebasing: buffer.votes[0..<n])
    let scratch = UnsafeMutableBufferPointer(rebasing: buffer.scratch[0..<n])
    if n >= OffsetVotes.pruneMinVotes,
      let pruned = OffsetVotes.prunedTopAlignments(
        votes, scratch: scratch, keyBits: voteKeyBits, count: count, perSong: perSong,
        counts: buffer.counts(of: UnsafeBufferPointer(votes)), from: buffer.threshold)
    {
      buffer.threshold = pruned.threshold
      return pruned.top
    }
    return OffsetVotes.topAlignments(
      votes, scratch: scratch, keyBits: voteKeyBits, count: count, perSong: perSong)
  }

  func alignments<Vote: FixedWidthInteger & UnsignedInteger>(
    peaks: [Peak], songs count: Int, perSong: Int, buffer: VoteBuffer<Vote>
  ) -> [[FingerprintMatch]] {
    var bySong: [Int: [FingerprintMatch]] = [:]
    var scores: [Int: [Int: Int]] = [:]  // song -> speed step -> best score
    let step = parameters.speedStep
    func stepNumber(_ speed: Double) -> Int { parameters.speedStepNumber(speed) }
    var hashing = parameters
    hashing.fanOut = parameters.queryFanOut
    for speed in parameters.speeds {
      let landmarks = LandmarkHasher.landmarks(peaks, parameters: hashing, speed: speed)
      for entry in topVotes(landmarks, count: count, perSong: perSong, buffer: buffer) {
        scores[entry.song, default: [:]][stepNumber(speed)] = entry.alignments[0].score
        var kept = bySong[entry.song] ?? []
        for alignment in entry.alignments {
          if kept.contains(where: {
            abs(Int64($0.offsetFrames) - alignment.offset) < OffsetVotes.minSeparation
              && $0.score >= alignment.score
          }) {
            continue
          }
          kept.removeAll {
            abs(Int64($0.offsetFrames) - alignment.offset) < OffsetVotes.minSeparation
          }
          var found = match(
            song: entry.song, offset: alignment.offset, score: alignment.score, runnerUp: 0,
            queryHashes: landmarks.count)
          found.speed = speed
          kept.append(found)
        }
        // Stable: of two with one score, the one found first (nearer speed 1) stays first.
        kept.sort { $0.score > $1.score }
        bySong[entry.song] = Array(kept.prefix(perSong))
      }
    }
    let best = bySong.values.sorted {
      ($0[0].score, $1[0].songNumber) > ($1[0].score, $0[0].songNumber)
    }.prefix(count)
    return best.map { song in
      var song = song
      let at = stepNumber(song[0].speed)
      let below = Double(scores[song[0].songNumber]?[at - 1] ?? 0)
      let above = Double(scores[song[0].songNumber]?[at + 1] ?? 0)
      let curvature = below - 2 * Double(song[0].score) + above
      if step > 0, curvature < 0 {
        song[0].refinedSpeed =
          song[0].speed + step * max(-0.5, min(0.5, 0.5 * (below - above) / curvature))
      }
      return song
    }
  }

  /// The song with the most agreeing hashes, however few (for tuning the thresholds).
  public func bestCandidate(_ query: [Landmark]) -> FingerprintMatch? {
    bestCandidate(query, buffer: VoteBuffer<UInt64>())
  }

  /// The same, gathering the votes into `buffer` (reused across the speeds of one query: no
  /// allocation per hash or per speed).
  func bestCandidate(_ query: [Landmark], buffer: VoteBuffer<UInt64>) -> FingerprintMatch? {
    let count = gatherVotes(query, into: buffer)
    guard
      let best = OffsetVotes.best(
        UnsafeMutableBufferPointer(rebasing: buffer.votes[0..<count]),
        scratch: UnsafeMutableBufferPointer(rebasing: buffer.scratch[0..<count]),
        keyBits: voteKeyBits)
    else { return nil }
    return match(
      song: best.song, offset: best.offset, score: best.score, runnerUp: best.runnerUp,
      queryHashes: query.count)
  }

  func match(song: Int, offset: Int64, score: Int, runnerUp: Int, queryHashes: Int)
    -> FingerprintMatch
  {
    var found = FingerprintMatch(
      songID: song < songIDs.count ? songIDs[song] : "",
      offset: max(0, Double(offset) * parameters.frameSeconds),
      score: score, runnerUp: runnerUp, queryHashes: queryHashes)
    found.offsetFrames = Int(offset)
    found.songNumber = song
    return found
  }

  /// Bits of a vote: the offset's and enough for every song number.
  var voteKeyBits: Int {
    OffsetVotes.offsetBits + max(1, Int.bitWidth - songIDs.count.leadingZeroBitCount)
  }

  /// Writes the query's votes into `buffer`, each row read once, straight into place; returns
  /// how many. The votes must fit `Vote` (`voteKeyBits`).
  func gatherVotes<Vote: FixedWidthInteger & UnsignedInteger>(
    _ query: [Landmark], into buffer: VoteBuffer<Vote>
  ) -> Int {
    // The rows are scattered over a table of hundreds of megabytes: each is a cache miss (two,
    // with its offsets). Each landmark's offsets are asked for `ahead` landmarks before they
    // are read, and each row before its votes are written, so the misses overlap.
    let ahead = 8
    buffer.reserveRows(query.count * parts.count)
    let rows = buffer.rows
    var total = 0
    var kept = 0
    for (partNumber, part) in parts.enumerated() {
      let cap = rowCap(part)
      let offsets = part.offsets
      for (i, landmark) in query.enumerated() {
        if i + ahead < query.count {
          let next = Int(query[i + ahead].hash)
          if next + 1 < offsets.count { riffle_prefetch(offsets.baseAddress! + next) }
        }
        let hash = Int(landmark.hash)
        let queryFrame = Int64(landmark.frame)
        guard hash + 1 < offsets.count, OffsetVotes.fits(-queryFrame) else { continue }
        let start = Int(offsets[hash])
        let row = Int(offsets[hash + 1] &- offsets[hash])
        guard row > 0, row <= cap else { continue }
        rows[kept] = VoteRow(start: start, count: row, queryFrame: queryFrame, part: partNumber)
        kept += 1
        total += row
      }
    }
    buffer.reserve(total)
    var count = 0
    let votes = buffer.votes
    for r in 0..<kept {
      if r + ahead < kept {
        let next = rows[r + ahead]
        let postings = parts[next.part].postings.baseAddress! + next.start
        riffle_prefetch(postings)
        // A row is some 30 postings: its second line too.
        if next.count > 16 { riffle_prefetch(postings + 16) }
      }
      let row = rows[r]
      let part = parts[row.part]
      let postings = part.postings
      let firstSong = UInt64(part.firstSong)
      // offset + bias = frame + (bias - queryFrame), never negative once `fits`.
      let shift = UInt64(OffsetVotes.bias - row.queryFrame)
      for slot in row.start..<(row.start + row.count) {
        let posting = postings[slot]
        votes[count] = Vote(
          truncatingIfNeeded: (firstSong + UInt64(posting >> 16))
            << UInt64(OffsetVotes.offsetBits)
            | (UInt64(posting & 0xFFFF) + shift))
        count += 1
      }
    }
    return count
  }
}

/// A row of the table a query's landmark reads: where, how long, and the landmark's frame.
struct VoteRow {
  var start: Int
  var count: Int
  var queryFrame: Int64
  var part: Int
}

extension FingerprintIndex {
  /// The longest row a query reads in `part` (`FingerprintParameters.maxRowOverMean`).
  func rowCap(_ part: Part) -> Int {
    guard parameters.maxRowOverMean > 0 else { return .max }
    let mean = Double(part.postings.count) / Double(max(1, part.offsets.count - 1))
    return max(parameters.minRowCap, Int(mean * parameters.maxRowOverMean))
  }
}

/// Votes counted by song and 8 frames of offset (the vote's key without its low 3 bits),
/// hashed into cells of a byte (stopping at 255), for `OffsetVotes.prunedTopAlignments`. The
/// cell a vote falls in counts at least every vote of each alignment (two adjacent offsets,
/// `OffsetVotes.topAlignments`) the vote is part of, since a vote on the edge of its 8 frames
/// is counted in the next 8 too. Two songs' votes that share a cell by chance only make it
/// count more: never fewer than an alignment's.
struct CoarseCounts {
  let cells: UnsafeMutableBufferPointer<UInt8>
  private let shift: UInt64

  /// Zeroes `cells`, a power of two of them.
  init(cells: UnsafeMutableBufferPointer<UInt8>) {
    precondition(cells.count.nonzeroBitCount == 1, "cells must be a power of two")
    cells.initialize(repeating: 0)
    self.cells = cells
    shift = UInt64(UInt64.bitWidth - cells.count.trailingZeroBitCount)
  }

  static let coarseBits: UInt64 = 3
  private static let edge: UInt64 = 1 << coarseBits - 1

  @inline(__always) private func cell(_ coarse: UInt64) -> Int {
    Int(truncatingIfNeeded: (coarse &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  @inline(__always) private func bump(_ at: Int) {
    let c = cells.baseAddress! + at
    c.pointee &+= c.pointee == .max ? 0 : 1
  }

  /// Counts the vote with this key.
  @inline(__always) func add(_ key: UInt64) {
    let coarse = key >> Self.coarseBits
    bump(cell(coarse))
    let low = key & Self.edge
    if low == 0 { bump(cell(coarse &- 1)) } else if low == Self.edge { bump(cell(coarse &+ 1)) }
  }

  /// The count of the cell the vote with this key falls in.
  @inline(__always) subscript(key: UInt64) -> UInt8 {
    cells[cell(key >> Self.coarseBits)]
  }
}

/// Room for one query's votes and the radix sort's second copy, grown as needed.
final class VoteBuffer<Vote: FixedWidthInteger & UnsignedInteger> {
  private(set) var votes = UnsafeMutableBufferPointer<Vote>.allocate(capacity: 0)
  private(set) var scratch = UnsafeMutableBufferPointer<Vote>.allocate(capacity: 0)
  /// The rows the query's landmarks read (`gatherVotes`).
  private(set) var rows = UnsafeMutableBufferPointer<VoteRow>.allocate(capacity: 0)
  /// Cells of the votes' `CoarseCounts`.
  private var counted = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 0)
  /// Where the last search's pruning found the songs kept to begin (the next speed's search
  /// starts from it: one query's searches have much the same).
  var threshold = OffsetVotes.pruneFirstThreshold

  /// `votes` counted (`CoarseCounts`), in cells kept from search to search: a power of two
  /// of them, at least one for every vote, from 2^16 to 2^20: 256 KB for the 217,000 votes
  /// of a search of 10,000 songs, which the core's own cache holds (a megabyte there was no
  /// faster, half as many cells shared too many); more for more votes, whose cells would
  /// otherwise fill with chance and keep too many.
  func counts(of votes: UnsafeBufferPointer<Vote>) -> CoarseCounts {
    let wanted = 1 << max(16, min(20, Int.bitWidth - (votes.count - 1).leadingZeroBitCount))
    if counted.count != wanted {
      counted.deallocate()
      counted = .allocate(capacity: wanted)
    }
    let counts = CoarseCounts(cells: counted)
    for v in votes { counts.add(UInt64(v)) }
    return counts
  }

  func reserveRows(_ count: Int) {
    guard count > rows.count else { return }
    rows.deallocate()
    rows = .allocate(capacity: max(count, rows.count * 3 / 2))
  }

  func reserve(_ count: Int) {
    guard count > votes.count else { return }
    votes.deallocate()
    scratch.deallocate()
    let capacity = max(count, votes.count * 3 / 2)
    votes = .allocate(capacity: capacity)
    scratch = .allocate(capacity: capacity)
  }

  deinit {
    votes.deallocate()
    scratch.deallocate()
    rows.deallocate()
    counted.deallocate()
  }
}

/// Counting votes for (song, time offset): the pure heart of matching.
public enum OffsetVotes {
  /// Bits of a vote that hold the offset; the song sits above them.
  static let offsetBits = 17
  static let bias: Int64 = 1 << 16

  /// True when `offset` fits a vote: song frames are below 2^16, and a query frame must be
  /// too (25 minutes; a query is at most a minute).
  @inline(__always)
  public static func fits(_ offset: Int64) -> Bool { offset >= -bias && offset < bias }

  /// One vote packed for sorting: song above the biased offset (17 bits); 31 bits for 10,000
  /// songs, so a radix sort orders them in two passes of 16 bits (`radixSort`).
  @inline(__always)
  public static func vote(song: Int, offset: Int64) -> UInt64 {
    UInt64(song) << UInt64(offsetBits) | UInt64(offset + bias)
  }

  /// Sorts votes whose values are below 2^`keyBits` by a least-significant-digit radix sort
  /// (as few passes of up to 12 bits as cover the key, or of up to 16 for 65,536 votes or
  /// more; a pass whose digit is the same in every vote is skipped): linear in the votes,
  /// where a comparison sort of a 10,000-song index's votes was most of a query. The result
  /// ends in `votes`.
  static func radixSort<Vote: FixedWidthInteger & UnsignedInteger>(
    _ votes: UnsafeMutableBufferPointer<Vote>, scratch: UnsafeMutableBufferPointer<Vote>,
    keyBits: Int
  ) {
    let count = votes.count
    guard count > 256, count < Int(UInt32.max) else {
      var small = votes
      small.sort()
      return
    }
    // Digits of up to 16 bits once the votes outnumber a 16-bit digit's counts (two passes
    // over a 10,000-song index's 31-bit votes), else of up to 12.
    let widest = count >= 1 << 16 ? 16 : 12
    let passes = max(1, (keyBits + widest - 1) / widest)
    let digitBits = (keyBits + passes - 1) / passes
    let size = 1 << digitBits
    let mask = Vote(size - 1)
    // Every pass's digits counted in one reading of the votes, in counts of 32 bits (a
    // 16-bit digit's are then 256 KB, not 512: the scatter's other cache misses are enough).
    let histograms = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: passes * size)
    defer { histograms.deallocate() }
    histograms.initialize(repeating: 0)
    let h = histograms.baseAddress!
    if passes == 2 {
      let shift = Vote(digitBits)
      for v in votes {
        h[Int(v & mask)] &+= 1
        h[size + Int((v >> shift) & mask)] &+= 1
      }
    } else {
      for v in votes {
        for pass in 0..<passes { h[pass * size + Int((v >> Vote(pass * digitBits)) & mask)] &+= 1 }
      }
    }
    var inScratch = false
    for pass in 0..<passes {
      let shift = Vote(pass * digitBits)
      let counts = h + pass * size
      // A pass whose digit is the same in every vote changes nothing.
      if Int(counts[Int((votes[0] >> shift) & mask)]) == count { continue }
      var sum: UInt32 = 0
      for i in 0..<size {
        let n = counts[i]
        counts[i] = sum
        sum &+= n
      }
      let from = inScratch ? scratch : votes
      let to = inScratch ? votes : scratch
      for v in from {
        let d = Int((v >> shift) & mask)
        to[Int(counts[d])] = v
        counts[d] &+= 1
      }
      inScratch.toggle()
    }
    if inScratch { _ = votes.update(fromContentsOf: scratch) }
  }

  /// The same for an array of votes (tests, tuning).
  public static func best(_ votes: inout [UInt64]) -> (
    song: Int, offset: Int64, score: Int, runnerUp: Int
  )? {
    var scratch = [UInt64](repeating: 0, count: votes.count)
    return votes.withUnsafeMutableBufferPointer { votes in
      scratch.withUnsafeMutableBufferPointer { scratch in
        best(votes, scratch: scratch, keyBits: 64 - (votes.max() ?? 0).leadingZeroBitCount)
      }
    }
  }

  /// The best (song, offset) by votes, counting a vote one frame off as agreeing (a query
  /// rarely starts on a frame boundary of the song), and the best score of any other song.
  static func best<Vote: FixedWidthInteger & UnsignedInteger>(
    _ votes: UnsafeMutableBufferPointer<Vote>, scratch: UnsafeMutableBufferPointer<Vote>,
    keyBits: Int
  ) -> (song: Int, offset: Int64, score: Int, runnerUp: Int)? {
    let two = top(votes, scratch: scratch, keyBits: keyBits, count: 2)
    guard let first = two.first else { return nil }
    return (first.song, first.offset, first.score, two.count > 1 ? two[1].score : 0)
  }

  /// The `count` songs with the best (offset, score) by votes, best first, counting a vote
  /// one frame off as agreeing.
  static func top<Vote: FixedWidthInteger & UnsignedInteger>(
    _ votes: UnsafeMutableBufferPointer<Vote>, scratch: UnsafeMutableBufferPointer<Vote>,
    keyBits: Int, count wanted: Int
  ) -> [(song: Int, offset: Int64, score: Int)] {
    topAlignments(votes, scratch: scratch, keyBits: keyBits, count: wanted, perSong: 1).map {
      ($0.song, $0.alignments[0].offset, $0.alignments[0].score)
    }
  }

  /// An offset of a song and the votes for it (with the frame beside it).
  public struct Alignment: Equatable, Sendable {
    public var offset: Int64
    public var score: Int
  }

  /// The `count` songs with the most votes at one offset, best first, each with its
  /// `perSong` best offsets (at least `minSeparation` frames apart; a vote one frame off
  /// counts as agreeing): a song that repeats, or whose hashes were drowned at the right
  /// offset, may hold the recording at an offset other than its best.
  static func topAlignments<Vote: FixedWidthInteger & UnsignedInteger>(
    _ votes: UnsafeMutableBufferPointer<Vote>, scratch: UnsafeMutableBufferPointer<Vote>,
    keyBits: Int, count wanted: Int, perSong: Int
  ) -> [(song: Int, alignments: [Alignment])] {
    guard !votes.isEmpty, wanted > 0, perSong > 0 else { return [] }
    radixSort(votes, scratch: scratch, keyBits: keyBits)
    return alignments(sorted: UnsafeBufferPointer(votes), count: wanted, perSong: perSong)
  }

  /// `topAlignments` of votes already sorted.
  static func alignments<Vote: FixedWidthInteger & UnsignedInteger>(
    sorted votes: UnsafeBufferPointer<Vote>, count wanted: Int, perSong: Int
  ) -> [(song: Int, alignments: [Alignment])] {
    guard !votes.isEmpty, wanted > 0, perSong > 0 else { return [] }
    var kept: [(song: Int, alignments: [Alignment])] = []
    kept.reserveCapacity(wanted + 1)
    let slots = UnsafeMutableBufferPointer<Alignment>.allocate(capacity: perSong)
    defer { slots.deallocate() }
    var songBest = SongAlignments(slots: slots)
    // A song's alignments become an array only when it makes the list (a few songs of the
    // thousands voted for).
    func finish(_ song: Int) {
      let best = songBest.best
      guard best > 0, kept.count < wanted || best > kept[kept.count - 1].alignments[0].score
      else { return }
      var at = kept.count
      while at > 0 && kept[at - 1].alignments[0].score < best { at -= 1 }
      kept.insert((song, songBest.alignments), at: at)
      if kept.count > wanted { kept.removeLast() }
    }

    let mask: Vote = (1 << Vote(offsetBits)) - 1
    var song = Int(votes[0] >> Vote(offsetBits))
    var previous = (key: Vote.max, count: 0)
    var i = 0
    while i < votes.count {
      let key = votes[i]
      var j = i + 1
      while j < votes.count && votes[j] == key { j += 1 }
      let count = j - i
      if Int(key >> Vote(offsetBits)) != song {
        finish(song)
        song = Int(key >> Vote(offsetBits))
        songBest.reset()
        previous = (.max, 0)
      }
      let offset = Int64(key & mask) - bias
      let adjacent = previous.key &+ 1 == key
      let together = count + (adjacent ? previous.count : 0)
      songBest.offer(
        Alignment(
          offset: adjacent && previous.count > count ? offset - 1 : offset, score: together))
      previous = (key, count)
      i = j
    }
    finish(song)
    return kept
  }

  /// Frames two alignments of one song must be apart to count as two.
  public static let minSeparation: Int64 = 3

  /// Fewer votes than this are sorted whole: pruning them would save little.
  static let pruneMinVotes = 1 << 15
  /// The least votes at one alignment the first search's pruning keeps
  /// (`prunedTopAlignments`); later searches start from what the last one found.
  static let pruneFirstThreshold = 4

  /// `topAlignments`, the same answer, without sorting every vote (docs/fingerprinting.md,
  /// "Pruning the votes"): of the 200,000 votes a search of a 10,000-song index gathers, all
  /// but a few hundred are chance, one or two at an offset of a song, while the `count`th
  /// song kept has some 5 at one. So the votes are first counted by song and 8 frames of
  /// offset (`counts`: the cell a vote falls in counts at least every vote of each alignment
  /// it is part of); only votes whose cell has at least `threshold` are sorted, the top songs
  /// found among them, and each of those songs' alignments then found again from all its
  /// votes. A song with an alignment of `threshold` votes or more keeps every vote of it, so
  /// when the `count`th song found has `threshold` or more, the songs are those, in the order,
  /// `topAlignments` finds. When it has fewer, at least `count` songs have that many (a true
  /// lower bound), so the threshold is lowered to it and the votes filtered again; when fewer
  /// than `count` songs are found, it is halved. Nil when pruning would not pay (half the
  /// votes kept, or fewer than `count` songs at 2): then sort them all.
  /// `votes` are left as they were; `threshold` comes back as the `count`th song's votes.
  static func prunedTopAlignments<Vote: FixedWidthInteger & UnsignedInteger>(
    _ votes: UnsafeMutableBufferPointer<Vote>, scratch: UnsafeMutableBufferPointer<Vote>,
    keyBits: Int, count wanted: Int, perSong: Int, counts: CoarseCounts, from threshold: Int
  ) -> (top: [(song: Int, alignments: [Alignment])], threshold: Int)? {
    let n = votes.count
    guard n > 0, wanted > 0, perSong > 0, scratch.count >= n else { return nil }
    var threshold = max(2, min(Int(UInt8.max), threshold))
    var songs: [(song: Int, alignments: [Alignment])] = []
    while true {
      // The votes whose cells reach the threshold, sorted, in the first half of `scratch`.
      let least = UInt8(threshold)
      guard
        let found = sorted(votes, where: { counts[UInt64($0)] >= least }, in: scratch, keyBits)
      else { return nil }
      songs = alignments(sorted: found, count: wanted, perSong: 1)
      guard songs.count == wanted else {
        // Fewer songs than wanted have that many: the threshold (the last search's) was too
        // high for this one.
        guard threshold > 2 else { return nil }
        threshold = max(2, threshold / 2)
        continue
      }
      let last = songs[wanted - 1].alignments[0].score
      if last >= threshold { break }
      guard last >= 2 else { return nil }
      threshold = last
    }
    // Every vote of the songs found, their alignments counted again from all of them.
    let chosen = songs.map(\.song)
    let highest = chosen.max()!
    var marked = [UInt64](repeating: 0, count: highest / 64 + 1)
    for song in chosen { marked[song / 64] |= 1 << UInt64(song % 64) }
    let theirs = marked.withUnsafeBufferPointer { marked in
      sorted(
        votes,
        where: {
          let song = Int(truncatingIfNeeded: UInt64($0) >> UInt64(offsetBits))
          return song <= highest && marked[song / 64] & (1 << UInt64(song % 64)) != 0
        }, in: scratch, keyBits)
    }
    guard let theirs else { return nil }
    let top = alignments(sorted: theirs, count: wanted, perSong: perSong)
    return (top, top.last?.alignments[0].score ?? threshold)
  }

  /// The votes `keep` is true of, copied in order to the start of `scratch` and sorted there
  /// (the radix sort's second copy just after them); nil when they are over half of `votes`
  /// (sorting them would cost what sorting all does, and `scratch` would not hold both).
  @inline(__always)
  static func sorted<Vote: FixedWidthInteger & UnsignedInteger>(
    _ votes: UnsafeMutableBufferPointer<Vote>, where keep: (Vote) -> Bool,
    in scratch: UnsafeMutableBufferPointer<Vote>, _ keyBits: Int
  ) -> UnsafeBufferPointer<Vote>? {
    var kept = 0
    for v in votes where keep(v) {
      scratch[kept] = v
      kept += 1
    }
    guard 2 * kept <= votes.count else { return nil }
    let found = UnsafeMutableBufferPointer(rebasing: scratch[0..<kept])
    radixSort(
      found, scratch: UnsafeMutableBufferPointer(rebasing: scratch[kept..<2 * kept]),
      keyBits: keyBits)
    return UnsafeBufferPointer(found)
  }

  /// A song's best few alignments, kept as its offsets go by in order, in slots reused from
  /// song to song: an offer within `minSeparation` of a kept one replaces it only when it has
  /// more votes.
  struct SongAlignments {
    let slots: UnsafeMutableBufferPointer<Alignment>
    /// Slots in use, best first.
    private(set) var count = 0

    init(slots: UnsafeMutableBufferPointer<Alignment>) { self.slots = slots }

    var best: Int { count > 0 ? slots[0].score : 0 }
    var alignments: [Alignment] { Array(slots[0..<count]) }

    mutating func reset() { count = 0 }

    mutating func offer(_ new: Alignment) {
      // Most offers (a vote or two at an offset) fall here; a lone vote is worth keeping only
      // as a song's best, when it has nothing better.
      if count == slots.count && new.score <= slots[count - 1].score { return }
      if new.score < 2 && count > 0 { return }
      for i in 0..<count
      where abs(slots[i].offset - new.offset) < minSeparation && slots[i].score >= new.score {
        return
      }
      var kept = 0
      for i in 0..<count where abs(slots[i].offset - new.offset) >= minSeparation {
        slots[kept] = slots[i]
        kept += 1
      }
      count = kept
      if count == slots.count {
        guard new.score > slots[count - 1].score else { return }
        count -= 1
      }
      var at = count
      while at > 0 && slots[at - 1].score < new.score {
        slots[at] = slots[at - 1]
        at -= 1
      }
      slots[at] = new
      count += 1
    }
  }

  /// True when a candidate's evidence clears every threshold of `parameters`.
  public static func isConfident(_ match: FingerprintMatch, parameters p: FingerprintParameters)
    -> Bool
  {
    match.score >= p.minScore
      && Double(match.score) >= p.minMarginOverRunnerUp * Double(match.runnerUp)
      && Double(match.score) >= p.minShareOfQuery * Double(match.queryHashes)
  }
}

/// A table built in memory from prints by counting sort, in two passes (the landmarks made
/// from each song's peaks in each).
final class MemoryTable {
  let offsets: UnsafeMutableBufferPointer<UInt32>
  let postings: UnsafeMutableBufferPointer<UInt32>

  init<S: Collection>(songs: S, parameters: FingerprintParameters) where S.Element == SongPrint {
    let buckets = 1 << LandmarkHasher.hashBits
    offsets = .allocate(capacity: buckets + 1)
    offsets.initialize(repeating: 0)
    for song in songs {
      for landmark in song.landmarks(parameters: parameters)
      where landmark.frame <= FingerprintIndex.maxFrame {
        offsets[Int(landmark.hash) + 1] += 1
      }
    }
    for i in 0..<buckets { offsets[i + 1] += offsets[i] }
    var fill = Array(offsets)
    postings = .allocate(capacity: Int(offsets[buckets]))
    postings.initialize(repeating: 0)
    for (songIndex, song) in songs.enumerated() {
      for landmark in song.landmarks(parameters: parameters)
      where landmark.frame <= FingerprintIndex.maxFrame {
        let slot = Int(fill[Int(landmark.hash)])
        postings[slot] = UInt32(songIndex) << 16 | landmark.frame
        fill[Int(landmark.hash)] += 1
      }
    }
  }

  deinit {
    offsets.deallocate()
    postings.deallocate()
  }

  func part(firstSong: Int) -> FingerprintIndex.Part {
    FingerprintIndex.Part(
      offsets: UnsafeBufferPointer(offsets), postings: UnsafeBufferPointer(postings),
      firstSong: firstSong)
  }
}

/// Where an index reads its songs' peaks from.
enum PeakSource {
  case memory(MemoryPeaks)
  case file(PrintFilePeaks)
}

/// Songs' peaks kept in memory packed as the prints file packs them (two bytes or so a peak,
/// not a `Peak`'s 32), unpacked when asked for.
final class MemoryPeaks: @unchecked Sendable {
  private let packed: [(count: Int, bytes: [UInt8])]

  init<S: Collection>(_ songs: S) where S.Element == SongPrint {
    packed = songs.map {
      ($0.peaks.count, IndexFile.pack($0.peaks, bits: $0.bits, bass: $0.bass))
    }
  }

  func peaks(_ song: Int) -> [Peak] { stored(song)?.peaks ?? [] }

  func stored(_ song: Int) -> StoredPrint? {
    guard packed.indices.contains(song) else { return nil }
    let song = packed[song]
    return try? song.bytes.withUnsafeBytes { try StoredPrint(packed: $0, count: song.count) }
  }
}
