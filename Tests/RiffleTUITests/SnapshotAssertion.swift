import Foundation
import RiffleCore
import RiffleTUI
import Testing

/// Compares a screen with its snapshot file, `__Snapshots__/<name>.txt` beside this file.
///
/// The file has three sections, so that both a moved character and a changed colour show:
///
/// - `[text WxH]`: the screen as plain text, one line per row, trailing spaces trimmed;
/// - `[style]`: one character per cell (a wide character's two cells get two) naming the cell's
///   style class, so the layer lines up with the text in a monospaced editor;
/// - `[legend]`: what each character of the style layer stands for, in full.
///
/// Record or re-record with:
///
///     RIFFLE_RECORD_SNAPSHOTS=1 swift test --filter RiffleTUITests
///
/// A missing snapshot is recorded as well. Either way the test fails once, saying it recorded,
/// so that a fresh recording is read by a person before it counts as a pass.
func assertSnapshot(
  _ screen: Screen, named name: String, theme: Theme = .standard,
  filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation
) {
  let folder = URL(fileURLWithPath: filePath).deletingLastPathComponent()
    .appendingPathComponent("__Snapshots__", isDirectory: true)
  let file = folder.appendingPathComponent("\(name).txt")
  let actual = SnapshotText.render(screen, theme: theme)
  let recording = ProcessInfo.processInfo.environment["RIFFLE_RECORD_SNAPSHOTS"] == "1"
  let expected = try? String(contentsOf: file, encoding: .utf8)

  if recording || expected == nil {
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try actual.write(to: file, atomically: true, encoding: .utf8)
      let why = recording ? "RIFFLE_RECORD_SNAPSHOTS=1" : "there was no snapshot"
      Issue.record(
        "Recorded snapshot \(name) (\(why)); read \(file.path), then run again.",
        sourceLocation: sourceLocation)
    } catch {
      Issue.record(
        "Cannot record snapshot \(name) at \(file.path): \(error)", sourceLocation: sourceLocation)
    }
    return
  }
  guard let expected, expected != actual else { return }
  Issue.record(
    """
    Snapshot \(name) does not match \(file.path)
    (- snapshot, + now; re-record with RIFFLE_RECORD_SNAPSHOTS=1 if the change is intended):
    \(SnapshotText.diff(expected: expected, actual: actual))
    """,
    sourceLocation: sourceLocation)
}

/// The text form of a screen that snapshots store, and a line diff between two of them.
enum SnapshotText {
  static func render(_ screen: Screen, theme: Theme = .standard) -> String {
    let classes = (0..<screen.height).flatMap { y in
      (0..<screen.width).map { x in StyleClass(screen[x, y].style, theme: theme) }
    }
    let symbols = assignSymbols(classes)
    var out = ["[text \(screen.width)x\(screen.height)]"]
    // `text` of a zero-row screen is "", which is no line at all, not one empty line.
    out += screen.height == 0 ? [] : screen.text.components(separatedBy: "\n")
    out.append("[style]")
    for y in 0..<screen.height {
      let row = classes[(y * screen.width)..<((y + 1) * screen.width)]
      out.append(String(row.map { symbols[$0]! }))
    }
    out.append("[legend]")
    var listed: Set<StyleClass> = []
    for styleClass in classes where listed.insert(styleClass).inserted {
      out.append("\(symbols[styleClass]!) \(styleClass)")
    }
    return out.joined(separator: "\n") + "\n"
  }

  /// Gives every class on the screen its own symbol: the class's preferred one when no class
  /// seen earlier (top-left first) took it, else the next unused one from a fixed pool.
  private static func assignSymbols(_ classes: [StyleClass]) -> [StyleClass: Character] {
    var symbols: [StyleClass: Character] = [:]
    var used: Set<Character> = []
    var ordered: [StyleClass] = []
    for styleClass in classes where symbols[styleClass] == nil {
      ordered.append(styleClass)
      if let preferred = styleClass.preferredSymbol, used.insert(preferred).inserted {
        symbols[styleClass] = preferred
      } else {
        symbols[styleClass] = "?"  // placeholder until the second pass
      }
    }
    var pool = fallbackPool.makeIterator()
    for styleClass in ordered where symbols[styleClass] == "?" {
      var next = pool.next()
      while let candidate = next, used.contains(candidate) { next = pool.next() }
      let symbol = next ?? "?"
      used.insert(symbol)
      symbols[styleClass] = symbol
    }
    return symbols
  }

  private static let fallbackPool = Array("0123456789#$%&*+<=>@^~/\\|!;'\"`()[]{}")

  /// The lines that differ, with a line of context either side, marked "-" (snapshot) and
  /// "+" (now), each labelled with its section and row ("style 17"): removed lines with their
  /// row in the snapshot, added and unchanged lines with their row on the screen now.
  static func diff(expected: String, actual: String) -> String {
    let old = expected.components(separatedBy: "\n")
    let new = actual.components(separatedBy: "\n")
    let oldLabels = labels(old)
    let newLabels = labels(new)
    // Longest common subsequence table, from the end.
    var lcs = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
    for i in stride(from: old.count - 1, through: 0, by: -1) {
      for j in stride(from: new.count - 1, through: 0, by: -1) {
        lcs[i][j] = old[i] == new[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
      }
    }
    enum Edit {
      case same(String, String)
      case removed(String, String)
      case added(String, String)
    }
    var edits: [Edit] = []
    var (i, j) = (0, 0)
    while i < old.count || j < new.count {
      if i < old.count, j < new.count, old[i] == new[j] {
        edits.append(.same(newLabels[j], new[j]))
        i += 1
        j += 1
      } else if i < old.count, j == new.count || lcs[i + 1][j] >= lcs[i][j + 1] {
        edits.append(.removed(oldLabels[i], old[i]))
        i += 1
      } else {
        edits.append(.added(newLabels[j], new[j]))
        j += 1
      }
    }
    let changed = edits.indices.filter {
      if case .same = edits[$0] { return false } else { return true }
    }
    let shown = Set(changed.flatMap { [$0 - 1, $0, $0 + 1] })
    var out: [String] = []
    var last = -2
    for index in edits.indices where shown.contains(index) {
      if index != last + 1 { out.append("…") }
      last = index
      switch edits[index] {
      case .same(let label, let line): out.append("  \(pad(label)) |\(line)")
      case .removed(let label, let line): out.append("- \(pad(label)) |\(line)")
      case .added(let label, let line): out.append("+ \(pad(label)) |\(line)")
      }
    }
    return out.joined(separator: "\n")
  }

  private static func pad(_ label: String) -> String {
    label.count >= 10 ? label : label + String(repeating: " ", count: 10 - label.count)
  }

  /// "text 3", "style 3", "legend 1" or the header's own name, for each line of a file.
  private static func labels(_ lines: [String]) -> [String] {
    var section = ""
    var row = 0
    return lines.map { line in
      if line.hasPrefix("[text ") || line == "[style]" || line == "[legend]" {
        section = line.hasPrefix("[text") ? "text" : String(line.dropFirst().dropLast())
        row = 0
        return line
      }
      defer { row += 1 }
      return "\(section) \(row)"
    }
  }
}

/// A cell's style reduced to names, which is what the style layer and its legend show.
///
/// Colours that are the theme's roles are named after them ("fg=text bg=band bold"), the help
/// box's panel colour is "panel", other foregrounds are given exactly. A background that has no
/// name is the stand-in for cover art, a gradient that changes every row: it is "cover", so the
/// layer shows where the cover is without pinning each row's exact shade.
struct StyleClass: Hashable, CustomStringConvertible {
  var foreground: String
  var background: String
  var bold: Bool
  var dim: Bool
  var reverse: Bool
  var underline: Bool

  init(_ style: CellStyle, theme: Theme) {
    let names: [(Color, String)] = [
      (theme.text, "text"), (theme.muted, "muted"), (theme.accent, "accent"),
      (theme.band, "band"), (theme.error, "error"), (theme.progress, "progress"),
      (theme.progressTrack, "track"), (.rgb(30, 30, 40), "panel"),
    ]
    func name(_ color: Color, unnamedRGB: String?) -> String {
      if let named = names.first(where: { $0.0 == color }) { return named.1 }
      switch color {
      case .default: return "default"
      case .palette(let index): return "palette(\(index))"
      case .rgb(let r, let g, let b):
        return unnamedRGB ?? "#" + [r, g, b].map(Self.hex).joined()
      }
    }
    foreground = name(style.foreground, unnamedRGB: nil)
    background = name(style.background, unnamedRGB: "cover")
    bold = style.bold
    dim = style.dim
    reverse = style.reverse
    underline = style.underline
  }

  var description: String {
    var parts = ["fg=\(foreground)", "bg=\(background)"]
    if bold { parts.append("bold") }
    if dim { parts.append("dim") }
    if reverse { parts.append("reverse") }
    if underline { parts.append("underline") }
    return parts.joined(separator: " ")
  }

  /// A symbol that says what the class is at a glance, when it has one: blank backgrounds are
  /// "." (default), "B" (band), ":" (cover), "P" (panel); text on the band or the default
  /// background is the role's initial (t text, m muted, a accent, e error, p progress,
  /// k track), upper case when bold, and "d"/"D" when dim. Anything else takes a pool symbol.
  var preferredSymbol: Character? {
    if reverse || underline { return nil }
    if foreground == "default" && !bold && !dim {
      switch background {
      case "default": return "."
      case "band": return "B"
      case "cover": return ":"
      case "panel": return "P"
      default: return nil
      }
    }
    guard background == "band" || background == "default" else { return nil }
    if dim { return bold ? "D" : "d" }
    let initials: [String: Character] = [
      "text": "t", "muted": "m", "accent": "a", "error": "e", "progress": "p", "track": "k",
    ]
    guard let initial = initials[foreground] else { return nil }
    return bold ? Character(initial.uppercased()) : initial
  }

  private static func hex(_ value: UInt8) -> String {
    let digits = String(value, radix: 16)
    return digits.count == 1 ? "0" + digits : digits
  }
}

@Suite("Snapshot text")
struct SnapshotTextTests {
  @Test("Text rows are trimmed; the style layer has one symbol per cell and a legend")
  func layout() {
    var screen = Screen(width: 6, height: 2)
    screen.put("日x", x: 1, y: 0, style: CellStyle(foreground: Theme.standard.text, bold: true))
    let text = SnapshotText.render(screen)
    #expect(
      text == """
        [text 6x2]
         日x

        [style]
        .TTT..
        ......
        [legend]
        . fg=default bg=default
        T fg=text bg=default bold

        """)
  }

  @Test("A colour or attribute change alone changes the snapshot text")
  func styleChangesShow() {
    let theme = Theme.standard
    let base = CellStyle(foreground: theme.text, background: theme.band)
    var variants = [base]
    variants.append(CellStyle(foreground: theme.muted, background: theme.band))
    variants.append(CellStyle(foreground: theme.text, background: .rgb(1, 2, 3)))
    variants.append(CellStyle(foreground: .rgb(1, 2, 3), background: theme.band))
    variants.append(CellStyle(foreground: theme.text, background: theme.band, bold: true))
    variants.append(CellStyle(foreground: theme.text, background: theme.band, dim: true))
    variants.append(CellStyle(foreground: theme.text, background: theme.band, reverse: true))
    variants.append(CellStyle(foreground: theme.text, background: theme.band, underline: true))
    let rendered = variants.map { style in
      var screen = Screen(width: 3, height: 1, fill: CellStyle(background: theme.band))
      screen.put("a", x: 1, y: 0, style: style)
      return SnapshotText.render(screen)
    }
    #expect(Set(rendered).count == variants.count)
  }

  @Test("Two classes that prefer the same symbol still get different symbols")
  func collisionsGetPoolSymbols() {
    let theme = Theme.standard
    var screen = Screen(width: 2, height: 1)
    screen.put("a", x: 0, y: 0, style: CellStyle(foreground: theme.text, background: theme.band))
    screen.put("b", x: 1, y: 0, style: CellStyle(foreground: theme.text))
    let style = SnapshotText.render(screen).components(separatedBy: "\n")[3]
    #expect(style == "t0")
  }

  @Test("The diff names the section and row of each changed line")
  func diffLabels() {
    let diff = SnapshotText.diff(
      expected: "[text 2x2]\nab\ncd\n[style]\n..\n..\n",
      actual: "[text 2x2]\nab\nce\n[style]\n..\n..\n")
    #expect(diff.contains("- text 1     |cd"))
    #expect(diff.contains("+ text 1     |ce"))
    #expect(!diff.contains("style 0"))
  }
}
