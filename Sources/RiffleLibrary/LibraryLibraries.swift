import CEBUR128
import CSQLite
import CTagLyrics
import RiffleCore

/// The C libraries RiffleLibrary runs with, for `riffle --version`.
public enum LibraryLibraries {
  public static var linked: [LinkedLibrary] {
    let version: @convention(c) () -> UnsafePointer<CChar>? = sqlite3_libversion
    let fts5 = sqlite3_compileoption_used("ENABLE_FTS5") == 1 ? "FTS5" : "no FTS5"
    var major: Int32 = 0
    var minor: Int32 = 0
    var patch: Int32 = 0
    ebur128_get_version(&major, &minor, &patch)
    let loudness:
      @convention(c) (
        UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?
      ) -> Void = ebur128_get_version
    return [
      LinkedLibrary(
        name: "libsqlite3", version: version().map { String(cString: $0) }, detail: fts5,
        function: version),
      LinkedLibrary(name: "libebur128", version: "\(major).\(minor).\(patch)", function: loudness),
      LinkedLibrary(
        name: "libtag", version: String(cString: riffle_taglib_version()), detail: "SYLT lyrics",
        address: UInt(riffle_taglib_address())),
    ]
  }
}
