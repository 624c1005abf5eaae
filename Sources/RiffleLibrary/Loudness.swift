import CEBUR128
import Foundation
import RiffleAudio

/// EBU R128 integrated loudness (libebur128), for songs that carry no ReplayGain: measured
/// once at scan from the decoded audio and kept in the index.
public enum Loudness {
  /// Files larger than this are not measured: FFmpeg's decoder keeps what it was fed (a
  /// 2-hour FLAC mix is about a gigabyte).
  public static let largestFile = 512 << 20

  /// The song's integrated loudness in LUFS; nil for silence.
  public static func integrated(of url: URL) throws -> Double? {
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    if size > largestFile { throw LoudnessError.tooLarge }
    guard
      let state = ebur128_init(
        UInt32(PCMFormat.channels), UInt(PCMFormat.sampleRate), Int32(EBUR128_MODE_I.rawValue))
    else { throw LoudnessError.outOfMemory }
    var handle: UnsafeMutablePointer<ebur128_state>? = state
    defer { ebur128_destroy(&handle) }
    var failed = false
    try DecoderFactory.decodeFile(url) { pcm in
      let samples = pcm.bindMemory(to: Int16.self)
      let frames = samples.count / PCMFormat.channels
      failed =
        ebur128_add_frames_short(state, samples.baseAddress, frames) != EBUR128_SUCCESS.rawValue
      return !failed
    }
    if failed { throw LoudnessError.outOfMemory }
    var loudness = 0.0
    guard ebur128_loudness_global(state, &loudness) == EBUR128_SUCCESS.rawValue,
      loudness.isFinite
    else { return nil }
    return loudness
  }
}

enum LoudnessError: Error {
  case outOfMemory
  case tooLarge
}
