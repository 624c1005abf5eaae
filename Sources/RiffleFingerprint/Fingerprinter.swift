import Foundation

/// The whole pipeline for one recording: PCM -> mono at 11 kHz -> spectrogram -> peaks ->
/// landmarks.
public struct Fingerprinter: Sendable {
  public let parameters: FingerprintParameters
  private let resampler: Resampler

  public init(parameters: FingerprintParameters = FingerprintParameters()) {
    self.parameters = parameters
    self.resampler = Resampler(decimation: parameters.decimation)
  }

  /// Landmarks of interleaved signed 16-bit PCM at the input rate (44.1 kHz).
  public func landmarks(pcm16 pcm: Data, channels: Int) -> [Landmark] {
    let mono = pcm.withUnsafeBytes { Resampler.mono(pcm16: $0, channels: channels) }
    return landmarks(mono: mono)
  }

  /// Landmarks of mono samples at the input rate (44.1 kHz), in -1...1.
  public func landmarks(mono samples: [Float]) -> [Landmark] {
    LandmarkHasher.landmarks(peaks(mono: samples), parameters: parameters)
  }

  /// Spectrogram peaks of mono samples at the input rate (44.1 kHz), in -1...1, as a song's
  /// are indexed.
  public func peaks(mono samples: [Float]) -> [Peak] {
    let spectrogram = SpectrumAnalyzer.spectrogram(
      resampler.downsample(samples), parameters: parameters)
    return PeakPicker.peaks(in: spectrogram, parameters: parameters)
  }

  /// A song's print from mono samples at the input rate: its peaks and its bits, as the
  /// index build makes them a piece at a time (`PeakStream`).
  public func print(id: String, audioKey: String = "", mono samples: [Float]) -> SongPrint {
    let spectrogram = SpectrumAnalyzer.spectrogram(
      resampler.downsample(samples), parameters: parameters)
    return SongPrint(
      id: id, audioKey: audioKey, duration: Double(samples.count) / Double(parameters.inputRate),
      peaks: PeakPicker.peaks(in: spectrogram, parameters: parameters),
      bits: BandBits.bits(spectrogram, parameters: parameters),
      bass: BandBits.bassBits(spectrogram, parameters: parameters))
  }

  /// A recording to name, from mono samples at the input rate: its peaks (up to
  /// `queryPeaksPerSecond` a second, and beside them its bass's and its treble's,
  /// `queryLowPeaksPerSecond` and `queryHighPeaksPerSecond`), more of them for the search at
  /// speed 1 (`denseQueryPeaksPerSecond`), and what its bits are made from at any speed.
  public func recording(mono samples: [Float]) -> Recording {
    let spectrogram = SpectrumAnalyzer.spectrogram(
      resampler.downsample(samples), parameters: parameters)
    let peaks = PeakPicker.recordingPeaks(in: spectrogram, parameters: parameters)
    return Recording(
      peaks: peaks.peaks, densePeaks: peaks.dense, spectrogram: spectrogram,
      parameters: parameters)
  }
}
