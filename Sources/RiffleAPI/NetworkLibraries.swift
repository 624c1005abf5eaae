import CCurl
import RiffleCore

/// The C libraries RiffleAPI runs with, for `riffle --version`.
public enum NetworkLibraries {
  public static var linked: [LinkedLibrary] {
    let function: @convention(c) () -> UnsafeMutablePointer<CChar>? = curl_version
    guard let info = riffle_curl_version_info()?.pointee else {
      return [LinkedLibrary(name: "libcurl", version: nil, function: function)]
    }
    let parts = [
      ("", info.ssl_version), ("zlib/", info.libz_version), ("nghttp2/", info.nghttp2_version),
    ]
    .compactMap { prefix, text in text.map { prefix + String(cString: $0) } }
    return [
      LinkedLibrary(
        name: "libcurl", version: info.version.map { String(cString: $0) },
        detail: parts.isEmpty ? nil : parts.joined(separator: ", "), function: function)
    ]
  }
}
