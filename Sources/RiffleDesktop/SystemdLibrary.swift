import CSystemd

/// libsystemd's sd-bus as Riffle loads it: when a bus is first opened, not at start (see
/// CSystemd.h).
enum SystemdLibrary {
  /// Loads the library if need be: false when it cannot be loaded (no bus then).
  static var isLoaded: Bool { riffle_systemd() != nil }

  /// Why it cannot be loaded, if it cannot.
  static var problem: String? { riffle_systemd_error().map { String(cString: $0) } }

  /// The table, for code that holds a bus (which only opens once the library loaded).
  static var table: UnsafePointer<RiffleSystemd> {
    guard let table = riffle_systemd() else {
      preconditionFailure("a bus is open, so libsystemd is loaded")
    }
    return table
  }
}

/// sd-bus's functions, for code that holds a bus or a message.
var sd: RiffleSystemd { SystemdLibrary.table.pointee }
