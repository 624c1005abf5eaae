import Foundation
import RiffleCore

extension FuzzTarget {
  /// The sanitizer every server string passes through, and display widths: nothing that
  /// reaches a cell may be a control, and truncation keeps to its width.
  static let textSanitizer = FuzzTarget(
    name: "sanitizer", summary: "TextSanitizer.sanitize, DisplayWidth.truncate"
  ) { data in
    let text = String(decoding: data, as: UTF8.self)
    let clean = TextSanitizer.sanitize(text)
    for scalar in clean.unicodeScalars {
      let v = scalar.value
      require(v >= 0x20 && !(0x7F...0x9F).contains(v), "control U+\(String(v, radix: 16)) left")
      require(
        !(0x202A...0x202E).contains(v) && !(0x2066...0x2069).contains(v),
        "bidi control U+\(String(v, radix: 16)) left")
    }
    require(TextSanitizer.sanitize(clean) == clean, "sanitizing twice changed the text")
    let width = data.first.map { Int($0 % 40) } ?? 0
    let cut = DisplayWidth.truncate(clean, to: width)
    require(DisplayWidth.of(cut) <= width, "truncated to \(width) but \(DisplayWidth.of(cut)) wide")
  }
}
