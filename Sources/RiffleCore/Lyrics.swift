import Foundation

/// The words of a song as the lyrics view shows them.
public enum Lyrics: Equatable, Sendable {
  /// Lines with the moment each is sung (LRC).
  case synced(SyncedLyrics)
  /// Lines without times; they scroll with the keys.
  case plain([String])
  /// The song has no words.
  case instrumental
  /// Nobody has the words for this song.
  case notFound

  /// Lyrics from LRC text: synced when it has timed lines, plain when it has only text lines,
  /// nil when it has neither.
  public static func fromLRC(_ text: String) -> Lyrics? {
    let document = LRCParser.parse(text)
    if !document.lines.isEmpty { return .synced(SyncedLyrics(document.lines)) }
    if !document.untimedText.isEmpty { return .plain(document.untimedText) }
    return nil
  }

  /// Plain lyrics from text: one line per line, blank lines at either end dropped, blank lines
  /// between verses kept; nil when there is no text at all.
  public static func fromPlainText(_ text: String) -> Lyrics? {
    var lines = text.replacingOccurrences(of: "\r\n", with: "\n")
      .split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.trimmingCharacters(in: .whitespaces) }
    while lines.first?.isEmpty == true { lines.removeFirst() }
    while lines.last?.isEmpty == true { lines.removeLast() }
    return lines.isEmpty ? nil : .plain(lines)
  }
}

/// One timed line of lyrics: when it starts (seconds into the song) and its text, which may be
/// empty (a pause between verses).
public struct LyricLine: Equatable, Sendable {
  public var time: Double
  public var text: String

  public init(time: Double, text: String) {
    self.time = time
    self.text = text
  }
}

/// Timed lines in order of time, and the rule for which one is being sung.
public struct SyncedLyrics: Equatable, Sendable {
  /// Sorted by time; lines with the same time keep their order.
  public let lines: [LyricLine]

  public init(_ lines: [LyricLine]) {
    // `enumerated` keeps equal times in their original order (the sort is not stable).
    self.lines = lines.enumerated().sorted { a, b in
      a.element.time != b.element.time ? a.element.time < b.element.time : a.offset < b.offset
    }.map(\.element)
  }

  /// The line being sung at `time`: the last one that has started. Nil before the first line.
  public func currentIndex(at time: Double) -> Int? {
    // Binary search for the first line that starts after `time`.
    var low = 0
    var high = lines.count
    while low < high {
      let mid = (low + high) / 2
      if lines[mid].time <= time { low = mid + 1 } else { high = mid }
    }
    return low == 0 ? nil : low - 1
  }

  /// When the current line changes next after `time`: the start of the next line, if any.
  public func nextChange(after time: Double) -> Double? {
    let next = (currentIndex(at: time) ?? -1) + 1
    return lines.indices.contains(next) ? lines[next].time : nil
  }
}

/// What an LRC file holds once read.
public struct LRCDocument: Equatable, Sendable {
  /// Timed lines in the order of their times, with the file's offset applied.
  public var lines: [LyricLine]
  /// Text lines that carried no time tag (a file of plain lyrics saved as .lrc).
  public var untimedText: [String]
  /// Lines that looked like tags but could not be read.
  public var skipped: Int
  /// The `[offset:]` in seconds (positive: lines come sooner).
  public var offset: Double
}

/// Reads LRC: `[mm:ss.xx]text` lines.
///
/// - A time is `[mm:ss]`, `[mm:ss.x]`, `[mm:ss.xx]` or `[mm:ss.xxx]` (a `:` before the fraction
///   is read too); minutes may run past 59, seconds may not.
/// - A line may carry several times (`[00:12.00][01:40.00]Chorus`): the text is sung at each.
/// - `[offset:+/-ms]` moves every line; a positive offset makes lines come sooner.
/// - Other `[key:value]` tags (`ar`, `ti`, `al`, `by`, `length`, ...) are metadata and ignored.
/// - Word times of enhanced LRC (`<mm:ss.xx>`) are removed from the text.
/// - Blank lines are skipped; a line whose tag cannot be read is skipped without failing the
///   rest of the file.
public enum LRCParser {
  public static func parse(_ text: String) -> LRCDocument {
    var timed: [LyricLine] = []
    var untimed: [String] = []
    var skipped = 0
    var offsetMilliseconds = 0.0
    var body = Substring(text)
    if body.hasPrefix("\u{FEFF}") { body = body.dropFirst() }
    for rawLine in body.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
      let line = rawLine.trimmingCharacters(in: .whitespaces)
      if line.isEmpty { continue }
      guard line.hasPrefix("[") else {
        untimed.append(stripWordTimes(line))
        continue
      }
      switch readTags(line) {
      case .times(let times, let rest):
        let words = stripWordTimes(rest).trimmingCharacters(in: .whitespaces)
        timed += times.map { LyricLine(time: $0, text: words) }
      case .offset(let milliseconds):
        offsetMilliseconds = milliseconds
      case .metadata:
        break
      case .malformed:
        skipped += 1
      }
    }
    let shift = offsetMilliseconds / 1000
    let shifted = timed.map { LyricLine(time: max(0, $0.time - shift), text: $0.text) }
    return LRCDocument(
      lines: SyncedLyrics(shifted).lines, untimedText: untimed, skipped: skipped, offset: shift)
  }

  private enum Tags {
    case times([Double], rest: Substring)
    case offset(Double)
    case metadata
    case malformed
  }

  /// Reads the tags at the start of a line that begins with "[".
  private static func readTags(_ line: String) -> Tags {
    var rest = Substring(line)
    var times: [Double] = []
    while rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else { return .malformed }
      let tag = rest[rest.index(after: rest.startIndex)..<close]
      rest = rest[rest.index(after: close)...]
      if let time = parseTime(tag) {
        times.append(time)
        continue
      }
      // A tag that is not a time is metadata only when it stands alone on its line.
      guard times.isEmpty, let colon = tag.firstIndex(of: ":"),
        rest.trimmingCharacters(in: .whitespaces).isEmpty
      else { return .malformed }
      let key = tag[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
      let value = tag[tag.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0 == "#" }) else { return .malformed }
      if key == "offset" {
        guard let milliseconds = Double(value.hasPrefix("+") ? String(value.dropFirst()) : value),
          milliseconds.isFinite
        else { return .malformed }
        return .offset(milliseconds)
      }
      return .metadata
    }
    return times.isEmpty ? .malformed : .times(times, rest: rest)
  }

  /// "mm:ss", "mm:ss.x", "mm:ss.xx", "mm:ss.xxx" (or ":" before the fraction) in seconds.
  static func parseTime(_ tag: Substring) -> Double? {
    let parts = tag.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2 || parts.count == 3 else { return nil }
    var secondsPart = parts[1]
    var fraction: Substring = ""
    if parts.count == 3 {
      fraction = parts[2]
    } else if let dot = secondsPart.firstIndex(of: ".") {
      fraction = secondsPart[secondsPart.index(after: dot)...]
      secondsPart = secondsPart[..<dot]
      if fraction.isEmpty { return nil }
    }
    func digits(_ text: Substring) -> Bool { !text.isEmpty && text.allSatisfy(\.isASCIIDigit) }
    guard digits(parts[0]), parts[0].count <= 4, digits(secondsPart), secondsPart.count <= 2,
      fraction.isEmpty || (digits(fraction) && fraction.count <= 3),
      let minutes = Int(parts[0]), let seconds = Int(secondsPart), seconds < 60
    else { return nil }
    let fractionValue = fraction.isEmpty ? 0 : Double("0." + fraction)!
    return Double(minutes * 60 + seconds) + fractionValue
  }

  /// Removes enhanced LRC word times ("<00:12.34>") from text.
  private static func stripWordTimes<S: StringProtocol>(_ text: S) -> String {
    guard text.contains("<") else { return String(text) }
    var out = ""
    var rest = Substring(text)
    while let open = rest.firstIndex(of: "<") {
      out += rest[..<open]
      let after = rest[rest.index(after: open)...]
      if let close = after.firstIndex(of: ">"), parseTime(after[..<close]) != nil {
        rest = after[after.index(after: close)...]
      } else {
        out.append("<")
        rest = after
      }
    }
    out += rest
    return out.replacingOccurrences(of: "  ", with: " ")
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
