import CCurl
import RiffleCore

/// The C libraries RiffleAPI runs with, for `riffle --version` and `riffle doctor`.
public enum NetworkLibraries {
  /// libcurl (loaded here if no transfer has needed it yet), with its TLS, zlib and nghttp2;
  /// when it cannot be loaded, why.
  public static var linked: [LinkedLibrary] {
    guard let table = riffle_curl() else {
      return [LinkedLibrary(name: "libcurl", version: "not loaded: \(curlFailure)", address: 0)]
    }
    let c = table.pointee
    guard let info = riffle_curl_version_info(table)?.pointee else {
      return [LinkedLibrary(name: "libcurl", version: nil, function: c.curl_version)]
    }
    let parts = [
      ("", info.ssl_version), ("zlib/", info.libz_version), ("nghttp2/", info.nghttp2_version),
    ]
    .compactMap { prefix, text in text.map { prefix + String(cString: $0) } }
    return [
      LinkedLibrary(
        name: "libcurl", version: info.version.map { String(cString: $0) },
        detail: parts.isEmpty ? nil : parts.joined(separator: ", "), function: c.curl_version)
    ]
  }

  /// The soname Riffle loads libcurl by ("libcurl.so.4").
  public static var curlSoname: String { String(cString: riffle_curl_soname()) }

  /// Whether libcurl loads and has every function Riffle calls, from `directory` or, when nil,
  /// the loader's usual search path: nil when it does, else why not.
  public static func curlProblem(loadingFrom directory: String? = nil) -> String? {
    LazyLibrary.probeProblem { riffle_curl_probe(directory, $0, $1) }
  }

  /// Why libcurl could not be loaded (loading it if no transfer has yet).
  static var curlFailure: String { LazyLibrary.failure(riffle_curl_error()) }
}
