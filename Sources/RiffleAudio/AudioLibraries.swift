import CAO
import CFFmpeg
import CMPG123
import CPulseSimple
import Foundation
import RiffleCore

#if canImport(Glibc)
  import Glibc
#endif

/// The C libraries RiffleAudio runs with, for `riffle --version`.
public enum AudioLibraries {
  public static var linked: [LinkedLibrary] {
    let mpg123: @convention(c) () -> Int32 = mpg123_init
    let ao: @convention(c) () -> Void = ao_initialize
    return [LinkedLibrary(name: "libmpg123", version: mpg123Version(), function: mpg123)]
      + ffmpeg + [
        pulse,
        // libao has no call that tells its version; the file name will.
        LinkedLibrary(name: "libao", version: nil, function: ao),
      ]
  }

  /// libpulse (loaded here if no stream has needed it yet): playback and recording.
  private static var pulse: LinkedLibrary {
    guard let table = riffle_pulse() else {
      let reason = LazyLibrary.failure(riffle_pulse_error())
      return LinkedLibrary(name: "libpulse", version: "not loaded: \(reason)", address: 0)
    }
    let version = table.pointee.pa_get_library_version
    return LinkedLibrary(
      name: "libpulse", version: version().map { String(cString: $0) }, function: version)
  }

  /// FFmpeg's libraries (loaded here if no song has needed them yet), each with its own version
  /// and FFmpeg's release; when they cannot be loaded, why.
  private static var ffmpeg: [LinkedLibrary] {
    guard let table = riffle_ffmpeg() else {
      let reason = LazyLibrary.failure(riffle_ffmpeg_error())
      return [LinkedLibrary(name: "FFmpeg", version: "not loaded: \(reason)", address: 0)]
    }
    let ff = table.pointee
    return [
      LinkedLibrary(
        name: "libavformat", version: packed(ff.avformat_version()),
        detail: ff.av_version_info().map { "FFmpeg " + String(cString: $0) },
        function: ff.avformat_version),
      LinkedLibrary(
        name: "libavcodec", version: packed(ff.avcodec_version()), function: ff.avcodec_version),
      LinkedLibrary(
        name: "libswresample", version: packed(ff.swresample_version()),
        function: ff.swresample_version),
      LinkedLibrary(
        name: "libavutil", version: packed(ff.avutil_version()), function: ff.avutil_version),
    ]
  }

  private static func packed(_ version: UInt32) -> String {
    "\(version >> 16).\(version >> 8 & 0xFF).\(version & 0xFF)"
  }

  /// `mpg123_distversion` exists from mpg123 1.32 on; looked up at run time so an older
  /// library (Debian 12 has 1.31) still loads.
  private static func mpg123Version() -> String? {
    typealias DistVersion =
      @convention(c) (
        UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<UInt32>?
      ) -> UnsafePointer<CChar>?
    guard let symbol = dlsym(dlopen(nil, RTLD_LAZY), "mpg123_distversion") else { return nil }
    return unsafeBitCast(symbol, to: DistVersion.self)(nil, nil, nil).map { String(cString: $0) }
  }
}
