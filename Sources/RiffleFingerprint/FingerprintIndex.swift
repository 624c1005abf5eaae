/// One song's fingerprint: its landmarks and what they were made from.
public struct SongPrint: Equatable, Sendable {
  /// The song's id in its feed.
  public var id: String
  /// What the audio was when fingerprinted (its URL and, for files, size and time); a
  /// different value means the audio changed and the song is fingerprinted again.
  public var audioKey: String
  /// Seconds of audio fingerprinted.
  public var duration: Double
  public var landmarks: [Landmark]

  public init(id: String, audioKey: String, duration: Double, landmarks: [Landmark]) {
    self.id = id
    self.audioKey = audioKey
    self.duration = duration
    self.landmarks = landmarks
  }
}

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
/// table over the whole hash space (compressed-row layout: `offsets` then `postings`).
public final class FingerprintIndex: Sendable {
  public let parameters: FingerprintParameters
  public let songs: [SongPrint]
  private let offsets: [UInt32]
  /// song index << 16 | anchor frame.
  private let postings: [UInt32]

  /// Songs beyond this count cannot be indexed (16 bits of song number in a posting).
  public static let maxSongs = 1 << 16
  /// Anchors beyond this frame (~25 minutes) are left out (16 bits of frame).
  public static let maxFrame = (1 << 16) - 1

  public init(songs: [SongPrint], parameters: FingerprintParameters = FingerprintParameters()) {
    self.parameters = parameters
    self.songs = Array(songs.prefix(Self.maxSongs))
    let buckets = 1 << LandmarkHasher.hashBits
    var counts = [UInt32](repeating: 0, count: buckets + 1)
    for song in self.songs {
      for landmark in song.landmarks where landmark.frame <= Self.maxFrame {
        counts[Int(landmark.hash) + 1] += 1
      }
    }
    for i in 0..<buckets { counts[i + 1] += counts[i] }
    var fill = counts
    var postings = [UInt32](repeating: 0, count: Int(counts[buckets]))
    for (songIndex, song) in self.songs.enumerated() {
      for landmark in song.landmarks where landmark.frame <= Self.maxFrame {
        let slot = Int(fill[Int(landmark.hash)])
        postings[slot] = UInt32(songIndex) << 16 | landmark.frame
        fill[Int(landmark.hash)] += 1
      }
    }
    self.offsets = counts
    self.postings = postings
  }

  /// Hashes stored in all.
  public var postingCount: Int { postings.count }

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
    for speed in parameters.speeds {
      let landmarks = LandmarkHasher.landmarks(peaks, parameters: parameters, speed: speed)
      if var match = bestCandidate(landmarks) {
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
    var votes: [UInt64] = []
    votes.reserveCapacity(query.count * 8)
    offsets.withUnsafeBufferPointer { offsets in
      postings.withUnsafeBufferPointer { postings in
        for landmark in query {
          let hash = Int(landmark.hash)
          let queryFrame = Int64(landmark.frame)
          for slot in Int(offsets[hash])..<Int(offsets[hash + 1]) {
            let posting = postings[slot]
            votes.append(
              OffsetVotes.vote(
                song: Int(posting >> 16), offset: Int64(posting & 0xFFFF) - queryFrame))
          }
        }
      }
    }
    guard let best = OffsetVotes.best(&votes) else { return nil }
    return FingerprintMatch(
      songID: songs[best.song].id,
      offset: max(0, Double(best.offset) * parameters.frameSeconds),
      score: best.score, runnerUp: best.runnerUp, queryHashes: query.count)
  }
}

/// Counting votes for (song, time offset): the pure heart of matching.
public enum OffsetVotes {
  static let bias: Int64 = 1 << 31

  /// One vote packed for sorting: song in the high half, biased offset in the low half.
  public static func vote(song: Int, offset: Int64) -> UInt64 {
    UInt64(song) << 32 | UInt64(offset + bias)
  }

  /// The best (song, offset) by votes, counting a vote one frame off as agreeing (a query
  /// rarely starts on a frame boundary of the song), and the best score of any other song.
  public static func best(_ votes: inout [UInt64]) -> (
    song: Int, offset: Int64, score: Int, runnerUp: Int
  )? {
    guard !votes.isEmpty else { return nil }
    votes.sort()
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

    var song = Int(votes[0] >> 32)
    var songBest = (offset: Int64(0), score: 0)
    var previous = (key: UInt64.max, count: 0)
    var i = 0
    while i < votes.count {
      let key = votes[i]
      var j = i + 1
      while j < votes.count && votes[j] == key { j += 1 }
      let count = j - i
      if Int(key >> 32) != song {
        finish(song, songBest.offset, songBest.score)
        song = Int(key >> 32)
        songBest = (0, 0)
        previous = (.max, 0)
      }
      let offset = Int64(key & 0xFFFF_FFFF) - bias
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
