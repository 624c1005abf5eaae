import CFFTW
import RiffleCore

/// The C library RiffleFingerprint runs with, for `riffle --version`.
public enum FingerprintLibraries {
  public static var linked: [LinkedLibrary] {
    let execute: @convention(c) (fftwf_plan?) -> Void = fftwf_execute
    return [
      LinkedLibrary(
        name: "libfftw3f", version: riffle_fftwf_version().map { String(cString: $0) },
        function: execute)
    ]
  }
}
