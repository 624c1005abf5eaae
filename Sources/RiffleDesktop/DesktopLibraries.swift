import CSystemd
import RiffleCore

/// The C library RiffleDesktop runs with, for `riffle --version`.
public enum DesktopLibraries {
  public static var linked: [LinkedLibrary] {
    // libsystemd has no call that tells its version; its package note and file name will.
    let open: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Int32 = sd_bus_open_user
    return [LinkedLibrary(name: "libsystemd", version: nil, function: open)]
  }
}
