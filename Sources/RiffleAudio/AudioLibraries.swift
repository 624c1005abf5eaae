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
    let avformat: @convention(c) () -> UInt32 = avformat_version
    let avcodec: @convention(c) () -> UInt32 = avcodec_version
    let swresample: @convention(c) () -> UInt32 = swresample_version
    let avutil: @convention(c) () -> UInt32 = avutil_version
    let pulse: @convention(c) () -> UnsafePointer<CChar>? = pa_get_library_version
    return [
      LinkedLibrary(name: "libmpg123", version: mpg123Version(), function: mpg123),
      // FFmpeg's release, and each library's own version (major.minor.micro packed).
      LinkedLibrary(
        name: "libavformat", version: packed(avformat_version()),
        detail: av_version_info().map { "FFmpeg " + String(cString: $0) }, function: avformat),
      LinkedLibrary(name: "libavcodec", version: packed(avcodec_version()), function: avcodec),
      LinkedLibrary(
        name: "libswresample", version: packed(swresample_version()), function: swresample),
      LinkedLibrary(name: "libavutil", version: packed(avutil_version()), function: avutil),
      // Recording for "name that song".
      LinkedLibrary(
        name: "libpulse", version: pa_get_library_version().map { String(cString: $0) },
        function: pulse),
      // libao has no call that tells its version; the file name will.
      LinkedLibrary(name: "libao", version: nil, function: ao),
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
