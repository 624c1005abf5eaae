/// One song's fingerprint: its peaks, and what they were made from. Its landmarks are made
/// from the peaks when wanted (`landmarks(parameters:)`): a song has about 20 peaks a second
/// against some 180 landmarks, so the peaks are what is stored.
public struct SongPrint: Equatable, Sendable {
  /// The song's id in its feed.
  public var id: String
  /// What the audio was when fingerprinted (its URL and, for files, size and time); a
  /// different value means the audio changed and the song is fingerprinted again.
  public var audioKey: String
  /// Seconds of audio fingerprinted.
  public var duration: Double
  /// The peaks at their whole positions, sorted by (frame, bin), prominence 0
  /// (`wholePeaks`): exactly what the prints file keeps.
  public private(set) var peaks: [Peak]
  /// Its dense bits, one word a frame (`BandBits`), to check a candidate with.
  public var bits: [UInt32]
  /// Its bass's bits, a byte a frame (`BandBits.bassBits`).
  public var bass: [UInt8]

  /// A print of `peaks` as picked (fine positions are rounded to whole ones, as
  /// `LandmarkHasher.landmarks` rounds them at speed 1, so the landmarks are the same).
  public init(
    id: String, audioKey: String, duration: Double, peaks: [Peak], bits: [UInt32] = [],
    bass: [UInt8] = []
  ) {
    self.id = id
    self.audioKey = audioKey
    self.duration = duration
    self.peaks = Self.wholePeaks(peaks)
    self.bits = bits
    self.bass = bass
  }

  /// The song's landmarks, as `LandmarkHasher.landmarks(peaks, parameters:)` makes them from
  /// the peaks it was made from.
  public func landmarks(parameters: FingerprintParameters) -> [Landmark] {
    LandmarkHasher.pairs(peaks, parameters: parameters)
  }

  /// Peaks at the whole positions their fine ones round to (frames below 0 at 0), sorted by
  /// (frame, bin), prominence 0: what is stored of them, and all the landmarks are made from.
  /// A peak whose bin no landmark can hold (below 0, or above the highest anchor bin and
  /// the widest bin difference) is left out: it changes no landmark.
  public static func wholePeaks(_ peaks: [Peak]) -> [Peak] {
    var whole: [Peak] = []
    whole.reserveCapacity(peaks.count)
    for peak in peaks {
      let bin = Int(peak.fineBin.rounded())
      guard binRange.contains(bin) else { continue }
      whole.append(Peak(frame: max(0, Int(peak.fineFrame.rounded())), bin: bin, prominence: 0))
    }
    whole.sort { ($0.frame, $0.bin) < ($1.frame, $1.bin) }
    return whole
  }

  /// The bins a landmark can hold: anchors below 512 (9 bits of hash), targets up to 63 bins
  /// above them.
  static let binRange = 0..<(512 + 63)
}

/// What a song's record holds to check a candidate with: its peaks, its bits and its bass's
/// bits (`FingerprintIndex.evidence`).
struct StoredPrint {
  var peaks: [Peak]
  var bits: [UInt32]
  var bass: [UInt8]

  /// A packed print (`IndexFile.pack`) of `count` peaks, read back.
  init(packed: UnsafeRawBufferPointer, count: Int) throws {
    peaks = try IndexFile.unpack(packed, count: count)
    bits = try IndexFile.unpackBits(packed)
    bass = try IndexFile.unpackBass(packed)
  }
}
