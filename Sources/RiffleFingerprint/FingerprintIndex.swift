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
  public func peaks(ofSong number: Int) -> [Peak] {
    guard songIDs.indices.contains(number),
      let part = peakSources.last(where: { $0.firstSong <= number })
    else { return [] }
    switch part.source {
    case .memory(let songs): return songs.peaks(number - part.firstSong)
    case .file(let file): return file.peaks(number - part.firstSong)
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

  /// The song that best explains a recording's peaks at any speed within the parameters'
  /// range, if the evidence clears the thresholds.
  public func match(peaks: [Peak]) -> FingerprintMatch? {
    guard let candidate = bestCandidate(peaks: peaks),
      OffsetVotes.isConfident(candidate, parameters: parameters)
    else { return nil }
    return candidate
  }

  /// The best song over every speed tried: the peaks are moved back by each speed and hashed
  /// again (hashing is cheap; the peaks are found once). The runner-up is the best score of any
  /// other song at any speed, so trying more speeds raises the bar a chance agreement must
  /// clear as much as it raises the chance agreements themselves.
  public func bestCandidate(peaks: [Peak]) -> FingerprintMatch? {
    var tries: [(speed: Double, match: FingerprintMatch)] = []
    let buffer = VoteBuffer()
    for speed in parameters.speeds {
      let landmarks = LandmarkHasher.landmarks(peaks, parameters: parameters, speed: speed)
      if var match = bestCandidate(landmarks, buffer: buffer) {
        match.speed = speed
        tries.append((speed, match))
      }
    }
    guard var best = tries.max(by: { $0.match.score < $1.match.score })?.match else {
      return nil
    }
    best.runnerUp = tries.reduce(0) { runnerUp, attempt in
      max(
        runnerUp, attempt.match.songID == best.songID ? attempt.match.runnerUp : attempt.match.score
      )
    }
    // The speed between the steps: the top of a parabola through the best score and its
    // neighbours' scores for the same song.
    func score(at speed: Double) -> Double {
      guard let near = tries.first(where: { abs($0.speed - speed) < 1e-9 }),
        near.match.songID == best.songID
      else { return 0 }
      return Double(near.match.score)
    }
    let step = parameters.speedStep
    let below = score(at: best.speed - step)
    let above = score(at: best.speed + step)
    let curvature = below - 2 * Double(best.score) + above
    if step > 0, curvature < 0 {
      best.speed += step * max(-0.5, min(0.5, 0.5 * (below - above) / curvature))
    }
    return best
  }

  /// The song with the most agreeing hashes, however few (for tuning the thresholds).
  public func bestCandidate(_ query: [Landmark]) -> FingerprintMatch? {
    bestCandidate(query, buffer: VoteBuffer())
  }

  /// The same, gathering the votes into `buffer` (reused across the speeds of one query: no
  /// allocation per hash or per speed). Each row is read once, straight into place.
  func bestCandidate(_ query: [Landmark], buffer: VoteBuffer) -> FingerprintMatch? {
    var total = 0
    for part in parts {
      let cap = rowCap(part)
      for landmark in query where Int(landmark.hash) + 1 < part.offsets.count {
        let hash = Int(landmark.hash)
        let row = Int(part.offsets[hash + 1] &- part.offsets[hash])
        if row <= cap { total += row }
      }
    }
    buffer.reserve(total)
    var count = 0
    let votes = buffer.votes
    for part in parts {
      let offsets = part.offsets
      let postings = part.postings
      let firstSong = UInt64(part.firstSong)
      let cap = rowCap(part)
      for landmark in query {
        let hash = Int(landmark.hash)
        let queryFrame = Int64(landmark.frame)
        guard hash + 1 < offsets.count, OffsetVotes.fits(-queryFrame),
          Int(offsets[hash + 1] &- offsets[hash]) <= cap
        else { continue }
        // offset + bias = frame + (bias - queryFrame), never negative once `fits`.
        let shift = UInt64(OffsetVotes.bias - queryFrame)
        for slot in Int(offsets[hash])..<Int(offsets[hash + 1]) {
          let posting = postings[slot]
          votes[count] =
            (firstSong + UInt64(posting >> 16)) << UInt64(OffsetVotes.offsetBits)
            | (UInt64(posting & 0xFFFF) + shift)
          count += 1
        }
      }
    }
    let keyBits = OffsetVotes.offsetBits + max(1, Int.bitWidth - songIDs.count.leadingZeroBitCount)
    guard
      let best = OffsetVotes.best(
        UnsafeMutableBufferPointer(rebasing: votes[0..<count]),
        scratch: UnsafeMutableBufferPointer(rebasing: buffer.scratch[0..<count]), keyBits: keyBits)
    else { return nil }
    return FingerprintMatch(
      songID: best.song < songIDs.count ? songIDs[best.song] : "",
      offset: max(0, Double(best.offset) * parameters.frameSeconds),
      score: best.score, runnerUp: best.runnerUp, queryHashes: query.count)
  }
}

extension FingerprintIndex {
  /// The longest row a query reads in `part` (`FingerprintParameters.maxRowOverMean`).
  func rowCap(_ part: Part) -> Int {
    guard parameters.maxRowOverMean > 0 else { return .max }
    let mean = Double(part.postings.count) / Double(max(1, part.offsets.count - 1))
    return max(parameters.minRowCap, Int(mean * parameters.maxRowOverMean))
  }
}

/// Room for one query's votes and the radix sort's second copy, grown as needed.
final class VoteBuffer {
  private(set) var votes = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 0)
  private(set) var scratch = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 0)

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
  /// songs, so a radix sort orders them in three passes of 11 bits.
  @inline(__always)
  public static func vote(song: Int, offset: Int64) -> UInt64 {
    UInt64(song) << UInt64(offsetBits) | UInt64(offset + bias)
  }

  /// Sorts votes whose values are below 2^`keyBits` by a least-significant-digit radix sort
  /// (as few passes of up to 12 bits as cover the key; a pass whose digit is the same in every
  /// vote is skipped): linear in the votes, where a comparison sort of a 10,000-song index's
  /// votes was most of a query. The result ends in `votes`.
  static func radixSort(
    _ votes: UnsafeMutableBufferPointer<UInt64>, scratch: UnsafeMutableBufferPointer<UInt64>,
    keyBits: Int
  ) {
    let count = votes.count
    guard count > 256 else {
      var small = votes
      small.sort()
      return
    }
    let passes = max(1, (keyBits + 11) / 12)
    let digitBits = (keyBits + passes - 1) / passes
    let mask = (UInt64(1) << UInt64(digitBits)) - 1
    var histogram = [Int](repeating: 0, count: 1 << digitBits)
    var inScratch = false
    histogram.withUnsafeMutableBufferPointer { h in
      for pass in 0..<passes {
        let shift = UInt64(pass * digitBits)
        let from = inScratch ? scratch : votes
        let to = inScratch ? votes : scratch
        for i in 0..<h.count { h[i] = 0 }
        for v in from { h[Int((v >> shift) & mask)] += 1 }
        if h[Int((from[0] >> shift) & mask)] == count { continue }
        var sum = 0
        for i in 0..<h.count {
          let n = h[i]
          h[i] = sum
          sum += n
        }
        for v in from {
          let d = Int((v >> shift) & mask)
          to[h[d]] = v
          h[d] += 1
        }
        inScratch.toggle()
      }
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
  static func best(
    _ votes: UnsafeMutableBufferPointer<UInt64>, scratch: UnsafeMutableBufferPointer<UInt64>,
    keyBits: Int
  ) -> (song: Int, offset: Int64, score: Int, runnerUp: Int)? {
    guard !votes.isEmpty else { return nil }
    radixSort(votes, scratch: scratch, keyBits: keyBits)
    var best = (song: -1, offset: Int64(0), score: 0)
    var runnerUp = 0
    func finish(_ song: Int, _ offset: Int64, _ score: Int) {
      if score > best.score {
        runnerUp = max(runnerUp, best.score)
        best = (song, offset, score)
      } else {
        runnerUp = max(runnerUp, score)
      }
    }

    let mask: UInt64 = (1 << UInt64(offsetBits)) - 1
    var song = Int(votes[0] >> UInt64(offsetBits))
    var songBest = (offset: Int64(0), score: 0)
    var previous = (key: UInt64.max, count: 0)
    var i = 0
    while i < votes.count {
      let key = votes[i]
      var j = i + 1
      while j < votes.count && votes[j] == key { j += 1 }
      let count = j - i
      if Int(key >> UInt64(offsetBits)) != song {
        finish(song, songBest.offset, songBest.score)
        song = Int(key >> UInt64(offsetBits))
        songBest = (0, 0)
        previous = (.max, 0)
      }
      let offset = Int64(key & mask) - bias
      let adjacent = previous.key &+ 1 == key
      let together = count + (adjacent ? previous.count : 0)
      if together > songBest.score {
        songBest = (adjacent && previous.count > count ? offset - 1 : offset, together)
      }
      previous = (key, count)
      i = j
    }
    finish(song, songBest.offset, songBest.score)
    return (best.song, best.offset, best.score, runnerUp)
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
    packed = songs.map { ($0.peaks.count, IndexFile.pack($0.peaks)) }
  }

  func peaks(_ song: Int) -> [Peak] {
    guard packed.indices.contains(song) else { return [] }
    let song = packed[song]
    return (try? song.bytes.withUnsafeBytes { try IndexFile.unpack($0, count: song.count) }) ?? []
  }
}
