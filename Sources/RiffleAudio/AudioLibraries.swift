import CAO
import CMPG123
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
    return [
      LinkedLibrary(name: "libmpg123", version: mpg123Version(), function: mpg123),
      // libao has no call that tells its version; the file name will.
      LinkedLibrary(name: "libao", version: nil, function: ao),
    ]
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
