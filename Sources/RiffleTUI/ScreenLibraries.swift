import CChafa
import CNCurses
import CPNG
import CTurboJPEG
import CWebP
import RiffleCore

/// The C libraries RiffleTUI runs with, for `riffle --version`.
public enum ScreenLibraries {
  public static var linked: [LinkedLibrary] {
    // curses_version lives in libtinfo; initscr names the library that draws.
    let curses: @convention(c) () -> UnsafeMutablePointer<WINDOW>? = initscr
    let chafa: @convention(c) (OpaquePointer?) -> OpaquePointer? = chafa_canvas_new
    let turbo: @convention(c) () -> tjhandle? = tjInitDecompress
    let png: @convention(c) () -> png_uint_32 = png_access_version_number
    let webp: @convention(c) () -> Int32 = WebPGetDecoderVersion
    let pngVersion = png_access_version_number()
    let webpVersion = WebPGetDecoderVersion()
    return [
      LinkedLibrary(
        name: "ncursesw", version: curses_version().map { String(cString: $0) },
        function: curses),
      // chafa and libjpeg-turbo have no call that tells their version; the file name will.
      LinkedLibrary(name: "chafa", version: nil, function: chafa),
      LinkedLibrary(name: "libturbojpeg", version: nil, function: turbo),
      LinkedLibrary(
        name: "libpng",
        version: "\(pngVersion / 10000).\(pngVersion / 100 % 100).\(pngVersion % 100)",
        function: png),
      LinkedLibrary(
        name: "libwebp",
        version: "\(webpVersion >> 16).\(webpVersion >> 8 & 0xFF).\(webpVersion & 0xFF)",
        function: webp),
    ]
  }
}
