/// The peaks of a recording fed a piece at a time, as a decoder gives it: what the index build
/// uses, so a song is never held whole, decoded or as a spectrogram. It keeps only the
/// resampler's last few samples, the low-rate samples of the frames not yet picked, and the
/// peaks; the spectrogram is made and picked ten seconds at a time, each block with the few
/// frames either side that a peak's neighbourhood reaches. The blocks start on the peak cap's
/// one-second boundaries, so the peaks are exactly those of `Fingerprinter.peaks(mono:)` on
/// the whole recording (a unit test holds it to that).
public struct PeakStream: Sendable {
  public let parameters: FingerprintParameters
  private let resampler: Resampler
  /// Input not yet used by the resampler (at first preceded by its padding of zeros).
  private var pending: [Float]
  private var inputCount = 0
  private var outputCount = 0
  /// Low-rate samples from `lowStart` on.
  private var low: [Float] = []
  private var lowStart = 0
  /// The first frame whose peaks are not yet picked.
  private var nextFrame = 0
  public private(set) var peaks: [Peak] = []
  /// The bits of the frames picked so far (`BandBits`), one word a frame.
  public private(set) var bits: [UInt32] = []
  /// The bass's bits of the frames picked so far (`BandBits.bassBits`), a byte a frame.
  public private(set) var bass: [UInt8] = []

  public init(parameters: FingerprintParameters = FingerprintParameters()) {
    self.parameters = parameters
    resampler = Resampler(decimation: parameters.decimation)
    pending = [Float](repeating: 0, count: resampler.frontPadding)
  }

  /// Seconds of input so far.
  public var seconds: Double { Double(inputCount) / Double(parameters.inputRate) }

  /// Frames picked per block: ten of the cap's one-second blocks.
  var blockFrames: Int { PeakPicker.framesPerSecond(parameters) * 10 }
  /// Frames of context either side of a block: a peak's neighbourhood, one frame for the
  /// parabola through its neighbours, and the frames its hold is measured over.
  var contextFrames: Int {
    max(1, parameters.peakFrameRadius, parameters.peakHoldFrames, parameters.bandLag)
  }

  /// Interleaved signed 16-bit PCM at the input rate.
  public mutating func append(pcm16 bytes: UnsafeRawBufferPointer, channels: Int) {
    append(mono: Resampler.mono(pcm16: bytes, channels: channels))
  }

  /// Mono samples at the input rate, in -1...1.
  public mutating func append(mono samples: [Float]) {
    pending += samples
    inputCount += samples.count
    resample(final: false)
    pick(final: false)
  }

  /// Picks the last frames and returns every peak.
  public mutating func finish() -> [Peak] {
    pending += [Float](repeating: 0, count: resampler.paddedTapCount)
    resample(final: true)
    pick(final: true)
    return peaks
  }

  private mutating func resample(final: Bool) {
    let d = resampler.decimation
    let padded = resampler.paddedTapCount
    var outputs = pending.count >= padded ? (pending.count - padded) / d + 1 : 0
    if final { outputs = min(outputs, inputCount / d - outputCount) }
    guard outputs > 0 else { return }
    low += pending.withUnsafeBufferPointer { resampler.filter($0, outputs: outputs) }
    pending.removeFirst(outputs * d)
    outputCount += outputs
  }

  private mutating func pick(final: Bool) {
    let window = parameters.windowSize
    let hop = parameters.hop
    let available = outputCount >= window ? 1 + (outputCount - window) / hop : 0
    while nextFrame < available {
      var end = nextFrame + blockFrames
      if !final {
        guard end + contextFrames <= available else { return }
      } else {
        end = min(end, available)
      }
      pickBlock(from: nextFrame, to: end, last: min(end + contextFrames, available))
      nextFrame = end
      let keep = max(0, (nextFrame - contextFrames) * hop)
      if keep > lowStart {
        low.removeFirst(keep - lowStart)
        lowStart = keep
      }
    }
  }

  /// Peaks of frames `from..<to`, from the spectrogram of frames `from - context..<last`.
  private mutating func pickBlock(from: Int, to: Int, last: Int) {
    let first = max(0, from - contextFrames)
    let start = first * parameters.hop - lowStart
    let stop = (last - 1) * parameters.hop + parameters.windowSize - lowStart
    let spectrogram = SpectrumAnalyzer.spectrogram(
      Array(low[start..<stop]), parameters: parameters)
    let found = PeakPicker.candidates(
      in: spectrogram, parameters: parameters, firstFrame: first
    ).filter { $0.frame >= from && $0.frame < to }
    peaks += PeakPicker.capped(found, parameters: parameters)
    // The bits of the block's frames, each compared with the frame `bandLag` before it (in
    // the block's context: `contextFrames` covers it).
    let width = min(BandBits.topBin(parameters, maxSpeed: 1), spectrogram.bins)
    let sums = BandBits.powerSums(spectrogram, upTo: width)
    bits += BandBits.bits(
      sums: sums, width: width, sumsFirst: first, from: from, to: to,
      edges: BandBits.edges(parameters, speed: 1), parameters: parameters)
    bass += BandBits.bassBits(
      sums: sums, width: width, sumsFirst: first, from: from, to: to, speed: 1,
      parameters: parameters)
  }
}
