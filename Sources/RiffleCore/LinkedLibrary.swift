/// A C library as the module that owns it sees it at run time: the version the library reports
/// about itself (when it has a call for that), and an address inside it, by which the
/// executable finds the file it was loaded from (`riffle --version`).
public struct LinkedLibrary: Equatable, Sendable {
  public var name: String
  /// What the library says, e.g. "7.88.1"; nil when it has no version call.
  public var version: String?
  /// More it says about itself (TLS and compression libraries for libcurl).
  public var detail: String?
  /// The address of one of its functions, as a number.
  public var address: UInt

  public init(name: String, version: String?, detail: String? = nil, address: UInt) {
    self.name = name
    self.version = version
    self.detail = detail
    self.address = address
  }

  /// `function` is a C function of the library (`@convention(c)`), whose address is kept.
  public init<F>(name: String, version: String?, detail: String? = nil, function: F) {
    precondition(MemoryLayout<F>.size == MemoryLayout<UInt>.size, "a C function pointer")
    self.init(
      name: name, version: version, detail: detail, address: unsafeBitCast(function, to: UInt.self))
  }
}
