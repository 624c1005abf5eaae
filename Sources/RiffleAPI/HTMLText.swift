import Foundation
import RiffleCore

/// Turns the HTML of a feed's description into plain lines for the lyrics view: tags dropped
/// (block tags end a line, list items get a bullet), `script` and `style` dropped with their
/// content, character references decoded, white space folded, every line sanitized.
///
/// Not an HTML parser: the text is only ever shown, never interpreted, so anything this misreads
/// shows as text.
public enum HTMLText {
  public static func plain(_ html: String) -> String {
    var out = ""
    var skipping: String?
    var index = html.startIndex
    while index < html.endIndex {
      let character = html[index]
      guard character == "<" else {
        if skipping == nil { out.append(character) }
        index = html.index(after: index)
        continue
      }
      guard let close = html[index...].firstIndex(of: ">") else {
        if skipping == nil { out += html[index...] }
        break
      }
      let tag = html[html.index(after: index)..<close]
      index = html.index(after: close)
      let name = tagName(tag)
      if let open = skipping {
        if name == "/" + open { skipping = nil }
        continue
      }
      switch name {
      case "script", "style": skipping = name
      case "br", "br/": out += "\n"
      case "li": out += "\n\u{2022} "
      case "p", "/p", "div", "/div", "h1", "h2", "h3", "h4", "h5", "h6", "/h1", "/h2", "/h3",
        "/h4", "/h5", "/h6", "ul", "/ul", "ol", "/ol", "blockquote", "/blockquote", "tr":
        out += "\n\n"
      default: break
      }
    }
    return fold(decodeReferences(out))
  }

  /// The width notes are wrapped to for the lyrics view: a comfortable measure for reading,
  /// narrower than most terminals (a narrower one cuts the lines' ends).
  public static let measure = 72

  /// Plain text as lines of at most `width` columns, broken at spaces (a longer word stays
  /// whole); empty lines kept.
  public static func lines(_ text: String, width: Int) -> [String] {
    var out: [String] = []
    for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var line = ""
      var used = 0
      for word in paragraph.split(separator: " ") {
        let size = DisplayWidth.of(String(word))
        if used > 0 && used + 1 + size > width {
          out.append(line)
          line = ""
          used = 0
        }
        if used > 0 {
          line += " "
          used += 1
        }
        line += word
        used += size
      }
      out.append(line)
    }
    return out
  }

  /// The lowercased name of a tag's text ("p" for `p class=x`, "/p" for `/p`).
  private static func tagName(_ tag: Substring) -> String {
    let name = tag.prefix { !$0.isWhitespace && $0 != ">" }
    let lowered = name.lowercased()
    return lowered.hasSuffix("/") && lowered.count > 1 && lowered != "br/"
      ? String(lowered.dropLast()) : lowered
  }

  private static let named: [String: String] = [
    "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "ndash": "\u{2013}",
    "mdash": "\u{2014}", "hellip": "\u{2026}", "lsquo": "\u{2018}", "rsquo": "\u{2019}",
    "ldquo": "\u{201C}", "rdquo": "\u{201D}", "copy": "\u{00A9}", "reg": "\u{00AE}",
    "trade": "\u{2122}", "bull": "\u{2022}", "middot": "\u{00B7}", "eacute": "\u{00E9}",
    "egrave": "\u{00E8}", "aacute": "\u{00E1}", "agrave": "\u{00E0}", "ouml": "\u{00F6}",
    "uuml": "\u{00FC}", "auml": "\u{00E4}", "szlig": "\u{00DF}", "ccedil": "\u{00E7}",
    "euro": "\u{20AC}", "pound": "\u{00A3}", "deg": "\u{00B0}", "times": "\u{00D7}",
  ]

  /// `&amp;`, `&#8217;` and `&#x2019;`: decoded once (what they decode to is not read again).
  static func decodeReferences(_ text: String) -> String {
    guard text.contains("&") else { return text }
    var out = ""
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      guard character == "&",
        let semicolon = text[index...].prefix(12).firstIndex(of: ";")
      else {
        out.append(character)
        index = text.index(after: index)
        continue
      }
      let body = text[text.index(after: index)..<semicolon]
      if let decoded = decode(body) {
        out += decoded
        index = text.index(after: semicolon)
      } else {
        out.append(character)
        index = text.index(after: index)
      }
    }
    return out
  }

  private static func decode(_ body: Substring) -> String? {
    if body.hasPrefix("#") {
      let digits = body.dropFirst()
      let value =
        digits.first == "x" || digits.first == "X"
        ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
      guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
      return String(Character(scalar))
    }
    return named[String(body)]
  }

  /// Runs of spaces become one, lines are trimmed and sanitized, at most one empty line in a
  /// row, none at either end.
  private static func fold(_ text: String) -> String {
    var lines: [String] = []
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let words = TextSanitizer.sanitize(String(raw)).split(whereSeparator: \.isWhitespace)
      let line = words.joined(separator: " ")
      if line.isEmpty && (lines.last?.isEmpty ?? true) { continue }
      lines.append(line)
    }
    while lines.last?.isEmpty == true { lines.removeLast() }
    return lines.joined(separator: "\n")
  }
}
