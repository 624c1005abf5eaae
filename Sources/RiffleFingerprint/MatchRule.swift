/// Which candidate, if any, is the answer: the pure rule over what the landmarks and the bits
/// said of each (docs/fingerprinting.md, "Checking a candidate").
public enum MatchRule {
  /// What is known of one candidate song.
  public struct Candidate: Equatable, Sendable {
    /// Query hashes that agree on it at one offset.
    public var score: Int
    /// How far its bits agree with the recording's beyond chance (`BandBits.agreement`).
    public var agreement: Double
    /// Hashes in the query.
    public var queryHashes: Int

    public init(score: Int, agreement: Double, queryHashes: Int) {
      self.score = score
      self.agreement = agreement
      self.queryHashes = queryHashes
    }
  }

  /// The index of the answer among `candidates` (sorted by score, best first), or nil:
  /// 1. of the first `agreementRank` candidates with `agreementMinScore` hashes or more, the
  ///    one whose bits agree best, when they agree by `minAgreement`, by `minAgreementMargin`
  ///    more than any other candidate's and `minAgreementRatio` times as much (a chance
  ///    alignment stays near 0 however many hashes it gathered, but songs of one make, the
  ///    same sounds at the same tempo, all agree somewhat; a song far down the ranking whose
  ///    bits happen to agree is not taken: the null's tail is wider than a normal one's);
  /// 2. else the first, when its hashes alone clear `OffsetVotes.isConfident`'s thresholds
  ///    (score, margin over the second, share of the query).
  public static func choose(_ candidates: [Candidate], parameters p: FingerprintParameters)
    -> Int?
  {
    guard let first = candidates.first else { return nil }
    let eligible = candidates.indices.prefix(p.agreementRank).filter {
      candidates[$0].score >= p.agreementMinScore
    }
    if let best = eligible.max(by: { candidates[$0].agreement < candidates[$1].agreement }) {
      let others = candidates.indices.filter { $0 != best }.map { candidates[$0].agreement }
      let next = max(0, others.max() ?? 0)
      if candidates[best].agreement >= p.minAgreement
        && candidates[best].agreement >= next + p.minAgreementMargin
        && candidates[best].agreement >= next * p.minAgreementRatio
      {
        return best
      }
    }
    let second = candidates.count > 1 ? candidates[1].score : 0
    let hashes = FingerprintMatch(
      songID: "", offset: 0, score: first.score, runnerUp: second,
      queryHashes: first.queryHashes)
    return OffsetVotes.isConfident(hashes, parameters: p) ? 0 : nil
  }
}
