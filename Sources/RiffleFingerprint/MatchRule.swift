/// Which candidate, if any, is the answer: the pure rule over what the landmarks, the bits and
/// the peaks said of each song (docs/fingerprinting.md, "Checking a candidate").
public enum MatchRule {
  /// What is known of one candidate song.
  public struct Candidate: Equatable, Sendable {
    /// Query hashes that agree on it at its best offset.
    public var score: Int
    /// How far its bits and peaks agree with the recording's beyond chance, at the best of
    /// its offsets, in standard deviations.
    public var evidence: Double
    /// Hashes in the query.
    public var queryHashes: Int
    /// Its evidence for the second tier, under hashes: without the bass's bits (a drum loop
    /// two songs of one band share gathers hashes and agrees in the bass alike).
    public var evidenceUnderHashes: Double
    /// Its evidence as a rival of the candidate with the most, which must stand clear of it:
    /// less than its evidence when the two share only a backing (`FingerprintIndex.weighed`).
    public var rivalEvidence: Double

    public init(
      score: Int, evidence: Double, queryHashes: Int, evidenceUnderHashes: Double? = nil,
      rivalEvidence: Double? = nil
    ) {
      self.score = score
      self.evidence = evidence
      self.queryHashes = queryHashes
      self.evidenceUnderHashes = evidenceUnderHashes ?? evidence
      self.rivalEvidence = rivalEvidence ?? evidence
    }
  }

  /// The index of the answer among `candidates` (sorted by score, best first) for a
  /// recording of `seconds`, or nil:
  /// 1. the candidate with the most evidence, when it has `minEvidence` and
  ///    `minEvidenceMargin` more than any other's `rivalEvidence`, or `minEvidenceAlone` and
  ///    `wideEvidenceMargin` more (a chance alignment stays near 0 however many hashes it
  ///    gathered; songs that share a passage agree alike, and then neither is named);
  /// 2. else the first, when its hashes alone clear `OffsetVotes.isConfident`'s thresholds
  ///    (score, margin over the second, share of the query) and it has
  ///    `minEvidenceWithHashes`, or only `minEvidenceWithStrongHashes` when its hashes lead
  ///    by far (`strongHashes`, `strongHashesOverRunnerUp`).
  /// The thresholds of 1 grow with the square root of the length beyond `evidenceSeconds`
  /// (a song of the same make as the recording agrees more the longer it is heard); that of
  /// 2 does not (such a song does not also lead the rest by three times the hashes).
  public static func choose(
    _ candidates: [Candidate], seconds: Double, parameters p: FingerprintParameters
  ) -> Int? {
    guard let first = candidates.first else { return nil }
    let growth = p.evidenceGrowth(seconds: seconds)
    if let best = candidates.indices.max(by: { candidates[$0].evidence < candidates[$1].evidence }
    ) {
      let next = candidates.indices.filter { $0 != best }.map {
        min(candidates[$0].evidence, candidates[$0].rivalEvidence)
      }.max()
      let evidence = candidates[best].evidence
      let margin = evidence - max(0, next ?? 0)
      if (evidence >= p.minEvidence * growth && margin >= p.minEvidenceMargin)
        || (evidence >= p.minEvidenceAlone * growth && margin >= p.wideEvidenceMargin)
      {
        return best
      }
    }
    let second = candidates.count > 1 ? candidates[1].score : 0
    let hashes = FingerprintMatch(
      songID: "", offset: 0, score: first.score, runnerUp: second,
      queryHashes: first.queryHashes)
    guard OffsetVotes.isConfident(hashes, parameters: p) else { return nil }
    let farAhead =
      first.score >= p.strongHashes
      && Double(first.score) >= p.strongHashesOverRunnerUp * Double(second)
    let floor = farAhead ? p.minEvidenceWithStrongHashes : p.minEvidenceWithHashes
    return first.evidenceUnderHashes >= floor ? 0 : nil
  }
}
