/// A C library Riffle loads on first use (see CLinux.h in Sources/CLinux), as Swift reads its
/// answers.
public enum LazyLibrary {
  /// Why the library could not be loaded, from its `..._error()` call.
  public static func failure(_ reason: UnsafePointer<CChar>?) -> String {
    reason.map { String(cString: $0) } ?? "unknown error"
  }

  /// What a `..._probe(directory, error, size)` call says: nil when the library loads and has
  /// every function, else why not.
  public static func probeProblem(_ probe: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> String? {
    var error = [CChar](repeating: 0, count: 512)
    let status = error.withUnsafeMutableBufferPointer { probe($0.baseAddress!, $0.count) }
    guard status != 0 else { return nil }
    return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
