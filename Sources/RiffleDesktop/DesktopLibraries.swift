import CSystemd
import RiffleCore

/// The C library RiffleDesktop runs with, for `riffle --version`.
public enum DesktopLibraries {
  /// libsystemd (loaded here if no bus has needed it yet); when it cannot be loaded, why.
  public static var linked: [LinkedLibrary] {
    guard let table = riffle_systemd() else {
      let reason = LazyLibrary.failure(riffle_systemd_error())
      return [LinkedLibrary(name: "libsystemd", version: "not loaded: \(reason)", address: 0)]
    }
    // libsystemd has no call that tells its version; its package note and file name will.
    return [
      LinkedLibrary(name: "libsystemd", version: nil, function: table.pointee.sd_bus_open_user)
    ]
  }
}
