/// The numbers that shape a fingerprint. They are part of the index format: changing one
/// changes `signature`, and an index written with other numbers is rebuilt.
/// docs/fingerprinting.md says why each has its value.
public struct FingerprintParameters: Equatable, Sendable {
  /// Samples per second after resampling (44.1 kHz / 4).
  public var sampleRate = 11_025
  /// The input rate the resampler expects (what every decoder gives).
  public var inputRate = 44_100
  /// FFT length in samples (93 ms at 11 kHz: 10.8 Hz per bin).
  public var windowSize = 1024
  /// Samples between frames (23 ms).
  public var hop = 256
  /// Lowest frequency bin a peak may sit in (32 Hz: a bass line is what voices in a room
  /// leave of much music; below, the window cannot tell a note from the DC).
  public var minBin = 3
  /// One past the highest bin a peak may sit in (hash bits allow 512).
  public var maxBin = 512
  /// A peak is the largest value within this many bins above and below it...
  public var peakBinRadius = 8
  /// ...and this many frames before and after it.
  public var peakFrameRadius = 4
  /// A peak must stand this far (natural-log power) above the mean level of the bins around it
  /// in its frame...
  public var peakAboveMean: Float = 2.5
  /// ...within this many bins either side (0: the whole frame).
  public var levelBinRadius = 32
  /// Power (natural log) below which nothing counts as a peak (digital silence).
  public var peakFloor: Float = -6
  /// A peak's rank for the cap below is raised by how long its bin holds: up to
  /// `peakHoldWeight` when the same bin (or one beside it) stays above half the threshold in
  /// every frame within this many either side (0: not at all). Music holds notes; voices over
  /// it glide and stop.
  public var peakHoldFrames = 12
  public var peakHoldWeight: Float = 2
  /// At most this many peaks per second, the most prominent kept...
  public var peaksPerSecond = 20
  /// ...and in a recording to name, this many: voices or noise over the music take many of
  /// the most prominent places, and a recording's hashes cost nothing to store.
  public var queryPeaksPerSecond = 20
  /// Beside them, up to this many more a second below `lowPeaksBelowBin` (300 Hz), the most
  /// prominent of the rest: none in a song's print (at 10,000 songs the bass's common pairs
  /// cost matching time and chance agreement, docs/fingerprinting.md, "The bass kept")...
  public var lowPeaksPerSecond = 0
  public var lowPeaksBelowBin = 28
  /// ...and in a recording to name, this many: voices as loud as the music take the places
  /// above 300 Hz, and the bass line under them is what survives.
  public var queryLowPeaksPerSecond = 8
  /// Likewise, up to this many more a second from `highPeaksFromBin` (3 kHz) up: none in a
  /// song's print...
  public var highPeaksPerSecond = 0
  public var highPeaksFromBin = 280
  /// ...and none in a recording to name either, as measured: voices fade above 3 kHz, and 12
  /// a second there named 1 to 3 more of 72 held-out babble queries, but took 45% more
  /// matching time at 10,000 songs (the pairs of a song's treble are as common as the rest);
  /// 8 from 4 kHz or 6 from 3 kHz, 20 to 25% more (docs/fingerprinting.md, "The treble
  /// tried, and a song held twice").
  public var queryHighPeaksPerSecond = 0
  /// Each anchor pairs with up to this many later peaks in its target zone...
  public var fanOut = 15
  /// ...and in a recording to name, this many: with more peaks a second than the song's, a
  /// pair of the song's may lie further apart among the recording's.
  public var queryFanOut = 15
  /// When nothing is named, the recording is searched again at speed 1 (where a recording
  /// made in a room plays the song) with more of its peaks: up to `denseQueryPeaksPerSecond`
  /// a second, beside them up to `denseQueryLowPeaksPerSecond` of the rest below
  /// `lowPeaksBelowBin`, each paired with up to `denseQueryFanOut` later ones. Voices as loud
  /// as the music take most of the first 20 places a second; the song's peaks are among the
  /// next. Searched so at every speed, or in place of the search at speed 1, these named more
  /// held-out babble but fewer of the benchmark's (their hashes agree by chance more often:
  /// docs/fingerprinting.md, "Denser at speed 1").
  public var denseQueryPeaksPerSecond = 40
  public var denseQueryLowPeaksPerSecond = 8
  public var denseQueryFanOut = 20
  /// The dense search adds alignments at speed 1 to the songs the first search found, and up
  /// to this many songs it did not (0: alignments only), checked by their evidence alone.
  /// There is no second search when the dense peaks are no more than the first search's
  /// (`denseQueryPeaksPerSecond` and `denseQueryLowPeaksPerSecond` no higher than theirs).
  public var denseCandidates = 2
  /// When neither search names a song, a small index is searched in full: every song at every
  /// offset (`scanStep` frames apart) at speed 1, by its bits against every `scanQueryStep`th
  /// frame of the recording's (every `scanLargeQueryStep`th in an index of over
  /// `scanLargeSeconds`); each song's `scanAlignmentsPerSong` best offsets are checked as the
  /// hashes' alignments are, and the rule chooses again. Voices as loud as the music can
  /// leave a song no pair of peaks the recording picks, while its peaks and bands, looked up,
  /// agree by 12 to 17 deviations (docs/fingerprinting.md, "The whole of a small index").
  /// Only for an index of at most `scanSeconds` of audio and `scanMaxSongs` songs (a feed,
  /// up next, an album or a few: about 10 ms per hour of songs for a 5 to 10 s recording up
  /// to 5 hours, 5 ms above)...
  public var scanSeconds: Double = 8 * 3600
  public var scanMaxSongs = 200
  /// ...and a recording of at most this long.
  public var scanMaxRecordingSeconds: Double = 30
  /// Offsets 3 frames apart placed a song that repeats at a repeat rather than the passage
  /// itself (a frame off, the bits agree far less), and every second frame of a 5 s recording
  /// missed a song whose bits agree by under 6 (docs/fingerprinting.md, "A finer scan").
  public var scanStep = 2
  public var scanQueryStep = 1
  public var scanLargeSeconds: Double = 5 * 3600
  public var scanLargeQueryStep = 2
  public var scanAlignmentsPerSong = 4
  /// The evidence of an offset the scan found counts this much less: the best of thousands of
  /// offsets agrees more by chance than the best of the few the hashes point at (strangers'
  /// best scanned offsets reach 6; 1 less left a song at 12.1 unnamed, 11.3 asked).
  public var scanPenalty: Double = 0.5
  /// A song the hashes named is scanned alone, every offset at speed 1, and placed where it
  /// agrees the most when that is clearly more than where the hashes placed it
  /// (`FingerprintIndex.placed`: a song that repeats can gather its hashes at a repeat).
  public var placesByScan = true
  /// The target zone: frames after the anchor (dt in minDelta...maxDelta)...
  public var minFrameDelta = 1
  public var maxFrameDelta = 63
  /// ...and bins above or below it.
  public var maxBinDelta = 63
  /// A match needs at least this many hashes agreeing on one time offset...
  public var minScore = 10
  /// ...this many times the best other song's count...
  public var minMarginOverRunnerUp: Double = 3
  /// ...and this share of the query's hashes.
  public var minShareOfQuery: Double = 0.005

  /// The dense bits kept per frame beside the peaks (`BandBits`): bands from this...
  public var bandLowHz: Double = 250
  /// ...to this (the voices of a room are loudest below; the bands above still vary)...
  public var bandHighHz: Double = 4000
  /// ...and the frames between the two band differences each bit compares (93 ms).
  public var bandLag = 4
  /// The bass's bits, a byte a frame beside them (`BandBits.bassBits`): the same differences
  /// over bands between these bins (32 to 300 Hz, about a third of an octave each above 60
  /// Hz), where voices as loud as the music leave it (docs/fingerprinting.md, "Bits of the
  /// bass"). Empty: none kept.
  public var bassBandEdges = [3, 4, 5, 6, 8, 10, 13, 17, 22, 28]

  /// How candidates are checked (docs/fingerprinting.md, "Checking a candidate"): the songs
  /// with the most agreeing hashes, this many...
  public var checkedCandidates = 10
  /// ...each at its this many best offsets (a song that repeats, or whose hashes the voices
  /// drowned where the recording really is), have their bits and peaks compared with the
  /// recording's. The evidence is how far both agree beyond chance, in standard deviations:
  /// (peaks + bits) / sqrt 2, the bits counting at most this much more than the peaks (songs
  /// of one make, the same sounds at the same tempo, move their bands alike where their notes
  /// differ)...
  public var bitsOverPeaks: Double = 3
  /// ...unless they agree by at least this much (for a recording of `evidenceSeconds`, growing
  /// with the square root of a longer one's length): then in full. The synthesized strangers'
  /// songs of one make agree by up to 29 at 5 s and 34.5 at 10 s; a song heard through a phone
  /// line, its bass gone, by 41 with its peaks at 7.9 (docs/fingerprinting.md, "Bits in full").
  public var bitsInFull: Double = 35
  /// The bass's bits are asked at an alignment only where the bits above agree by under this
  /// (voices cover the bands above; a song of the recording's make agrees by both)...
  public var bassWhereBitsUnder: Double = 6
  /// ...counted at most this much over the peaks (a bass sound and a drum pattern are shared
  /// by songs of one make)...
  public var bassOverPeaks: Double = 3
  /// ...and the evidence with them, (peaks + bits + bass) / sqrt 3, this much less: the
  /// better of two measures is higher than either by chance, and songs of one make agree in
  /// the bass (the synthesized strangers named: 15 of 3,000 with 1 less, 12 with 2; no bass,
  /// 14)...
  public var bassPenalty: Double = 2
  /// ...and, when false, not in the evidence asked of a song first by hashes
  /// (`minEvidenceWithHashes`): two songs of one band that share a drum loop share its hashes
  /// and agree in the bass alike (docs/fingerprinting.md, "Bits of the bass").
  public var bassUnderHashes = false
  /// Each alignment the hashes found at another speed is checked at speed 1 too, through the
  /// same moment, and placed where it agrees more (docs/fingerprinting.md, "Checked at speed
  /// 1 too")...
  public var checksAtSpeedOne = true
  /// ...when it was found within this of speed 1: there a bass line's pairs agree nearly
  /// alike (a bin of 28 moved by 2% is still within its rounding), further off the song's
  /// higher peaks, which move by bins, tell the speed themselves.
  public var speedOneWithin: Double = 0.02
  /// ...its evidence there counted this much less, never less than at the speed found: the
  /// better of two tries is higher than either by chance (a stranger of the synthesized songs
  /// rose from 10.4 to 11.3, over the floor of 10.5).
  public var speedOnePenalty: Double = 1
  public var alignmentsPerSong = 8
  /// ...and the song with the most evidence at its best offset is the answer when it has at
  /// least this much...
  public var minEvidence: Double = 10.5
  /// ...and this much more than any other song (songs that share a passage agree alike: then
  /// the recording names neither), or at least `minEvidenceAlone` with `wideEvidenceMargin`
  /// more than any other (the less a song agrees, the further it must stand from the rest)...
  public var minEvidenceMargin: Double = 3
  public var minEvidenceAlone: Double = 8
  public var wideEvidenceMargin: Double = 4.5
  /// ...else the first by hashes, when its hashes clear the thresholds above and it has at
  /// least this much evidence (a held bass note repeats one pair of peaks all through a song,
  /// which can gather many hashes by chance).
  public var minEvidenceWithHashes: Double = 6
  /// ...or at least this much when its hashes lead by far: at least `strongHashes` and
  /// `strongHashesOverRunnerUp` times the second song's. Voices as loud as the music leave a
  /// song its bass line, whose pairs still agree by the dozen at one offset, while the song's
  /// peaks above, looked up in the recording, are mostly under the voices: strong hashes,
  /// weak evidence. No stranger query of the benchmarks led by 3.3 times or more with 20
  /// hashes (docs/fingerprinting.md, "Hashes far ahead").
  public var minEvidenceWithStrongHashes: Double = 4
  public var strongHashes = 20
  public var strongHashesOverRunnerUp: Double = 4
  /// Two songs hold the same audio where a recording lines up with each when at least this
  /// share of the peaks each has there lie on the other's (`FingerprintIndex.holdSameAudio`):
  /// a song held twice is then named with its twin rather than not at all. Songs that are
  /// not the same recording share under a fifth, most under a twentieth.
  public var sameAudioShare = 1.0 / 3
  /// ...over this many seconds centred on the recording (or the recording, if longer): what
  /// two songs of one make share for a few seconds, they do not share for twenty.
  public var sameAudioSeconds: Double = 20
  /// ...and their bits agree there by at least this many deviations (copies of one
  /// recording by 45 and more; songs of one synthesizer, alike beyond any real music, by
  /// under 30).
  public var sameAudioBits: Double = 35
  /// Candidates are compared with the one with the most evidence when theirs is within
  /// `minEvidenceMargin` of its, or within this share of it: a clear recording agrees with
  /// two copies by tens of deviations, and a codec that moves one copy's bits under
  /// `bitsInFull` leaves its evidence far under the other's.
  public var sameAudioEvidenceShare = 0.5
  /// A candidate near the one with the most evidence whose bits agree with that one's by
  /// `sameAudioBits` where their peaks do not (a backing two songs share) counts, in the
  /// margin the answer must stand clear by, as far under it as its peaks agree less
  /// (`FingerprintIndex.weighed`, "A backing two songs share").
  public var sharedBackingByPeaks = true
  /// The evidence thresholds on the evidence alone hold for recordings of this many seconds
  /// or less, and grow with the square root of a longer one's length: a likeness short of the
  /// song itself (one make, one tempo) agrees by more deviations the longer it is heard. The
  /// floor under hashes that clear their thresholds (`minEvidenceWithHashes`) does not grow.
  public var evidenceSeconds: Double = 5

  /// How much the evidence thresholds (and `bitsInFull`) grow for a recording of `seconds`:
  /// the square root of its length beyond `evidenceSeconds`, 1 for a shorter one.
  public func evidenceGrowth(seconds: Double) -> Double {
    (max(seconds, evidenceSeconds) / max(1e-9, evidenceSeconds)).squareRoot()
  }

  /// At query time, a hash whose row holds more than this many times the mean row length (and
  /// more than `minRowCap`) is not looked up: such a common pair says little about which song
  /// it is, and costs most of the votes of a large index (0: every row is read).
  public var maxRowOverMean: Double = 10
  public var minRowCap = 200

  /// A recording is searched as played at speeds from 1 - this to 1 + this (pitch and tempo
  /// together, as a record played fast or a radio speed-up)...
  public var maxSpeedChange: Double = 0.05
  /// ...in steps of this.
  public var speedStep: Double = 0.005

  public init() {}

  /// The speeds a recording is searched at: 1 first, then outwards.
  public var speeds: [Double] {
    let steps = speedStep > 0 ? Int((maxSpeedChange / speedStep).rounded(.down)) : 0
    var out = [1.0]
    for step in stride(from: 1, through: steps, by: 1) {
      out += [1 + Double(step) * speedStep, 1 - Double(step) * speedStep]
    }
    return out
  }

  /// Which step of `speeds` a speed is: 0 for 1, 1 for 1 + speedStep, -1 for 1 - speedStep.
  public func speedStepNumber(_ speed: Double) -> Int {
    speedStep > 0 ? Int(((speed - 1) / speedStep).rounded()) : 0
  }

  /// Every how many of a recording's frames a scan compares in an index of `indexSeconds`
  /// of audio: `scanQueryStep`, or `scanLargeQueryStep` over `scanLargeSeconds` (the scan's
  /// time grows with both).
  public func scanQueryStep(indexSeconds: Double) -> Int {
    max(1, indexSeconds > scanLargeSeconds ? scanLargeQueryStep : scanQueryStep)
  }

  /// The resampling factor from the input rate.
  public var decimation: Int { inputRate / sampleRate }
  /// Seconds per frame.
  public var frameSeconds: Double { Double(hop) / Double(sampleRate) }

  /// A number that changes whenever a parameter that shapes stored hashes changes.
  public var signature: UInt32 {
    var hash: UInt32 = 2_166_136_261
    for value in [
      sampleRate, inputRate, windowSize, hop, minBin, maxBin, peakBinRadius, peakFrameRadius,
      Int(peakAboveMean * 100), levelBinRadius, Int(peakFloor * 100), peaksPerSecond, fanOut,
      minFrameDelta,
      maxFrameDelta, maxBinDelta,
    ] {
      hash = (hash ^ UInt32(truncatingIfNeeded: value)) &* 16_777_619
    }
    // Added after the format was fixed: mixed in only when set.
    if peakHoldFrames > 0 {
      for value in [peakHoldFrames, Int(peakHoldWeight * 100)] {
        hash = (hash ^ UInt32(truncatingIfNeeded: value)) &* 16_777_619
      }
    }
    if lowPeaksPerSecond > 0 {
      for value in [lowPeaksPerSecond, lowPeaksBelowBin] {
        hash = (hash ^ UInt32(truncatingIfNeeded: value)) &* 16_777_619
      }
    }
    if highPeaksPerSecond > 0 {
      for value in [highPeaksPerSecond, highPeaksFromBin] {
        hash = (hash ^ UInt32(truncatingIfNeeded: value)) &* 16_777_619
      }
    }
    for value in [Int(bandLowHz), Int(bandHighHz), bandLag, BandBits.bandCount] {
      hash = (hash ^ UInt32(truncatingIfNeeded: value)) &* 16_777_619
    }
    for value in bassBandEdges {
      hash = (hash ^ UInt32(truncatingIfNeeded: value)) &* 16_777_619
    }
    return hash
  }
}
