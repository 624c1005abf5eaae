import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The colour depth a user asks for (`[display] color` in config.toml): `auto` follows what the
/// terminal says; the others force a mode whatever it says.
public enum ColorSetting: String, Hashable, Sendable, CaseIterable {
  case auto
  case trueColor = "truecolor"
  case palette256 = "256"
  case basic16 = "16"
  case basic8 = "8"

  /// The art mode a forced setting stands for; nil for `auto`.
  public var forcedMode: ColorMode? {
    switch self {
    case .auto: return nil
    case .trueColor: return .trueColor
    case .palette256: return .palette256
    case .basic16: return .basic16
    case .basic8: return .basic8
    }
  }
}

/// Which terminfo entry the screen is started with, and why: the colour decision `riffle doctor`
/// reports and `NCursesTerminal` follows, made in one place.
///
/// ncurses takes true colour only from a direct-colour entry (`colors#0x1000000`, e.g.
/// `xterm-direct`), while the terminals people use announce it in `COLORTERM` under a
/// 256-colour `TERM`. So when the terminal promises true colour, the screen is started with the
/// direct variant of its entry (ncurses-term ships `xterm-direct`, `kitty-direct`,
/// `tmux-direct`, ...): ncurses still knows every cell it drew, keys are read as the entry they
/// come from describes (a direct variant is its base entry with other colour strings).
public struct ColorChoice: Equatable, Sendable {
  /// The terminfo entry to start the screen with.
  public var entry: String
  /// Whether that entry gives true colour.
  public var trueColor: Bool
  /// The colours for cover art: the entry's, or the forced setting's.
  public var artMode: ColorMode
  /// Why, in words for `riffle doctor` and the log.
  public var reason: String

  /// What tmux says about the terminal outside it.
  public struct TmuxReport: Equatable, Sendable {
    /// The outer terminal gets RGB colour from tmux (`RGB` in `client_termfeatures`, or a `Tc`
    /// or `RGB` override matching the client's terminal).
    public var passesRGB: Bool
    /// What tmux answered, for the reason shown.
    public var detail: String

    public init(passesRGB: Bool, detail: String) {
      self.passesRGB = passesRGB
      self.detail = detail
    }
  }

  public init(entry: String, trueColor: Bool, artMode: ColorMode, reason: String) {
    self.entry = entry
    self.trueColor = trueColor
    self.artMode = artMode
    self.reason = reason
  }

  /// Decides. `colors` looks up an entry's colour count (nil when the entry does not exist);
  /// `tmux` is asked only inside tmux (`TMUX` set), and only when it matters.
  public static func choose(
    term: String, environment: [String: String], setting: ColorSetting,
    colors: (String) -> Int?, tmux: () -> TmuxReport
  ) -> ColorChoice {
    let ownColors = colors(term) ?? 8
    func mode(_ count: Int) -> ColorMode {
      count >= 1 << 24 ? .trueColor : count >= 256 ? .palette256 : count >= 16 ? .basic16 : .basic8
    }
    func direct() -> String? {
      directVariants(of: term, insideTmux: insideTmux(environment))
        .first { (colors($0) ?? 0) >= 1 << 24 }
    }
    func stay(_ why: String) -> ColorChoice {
      ColorChoice(
        entry: term, trueColor: ownColors >= 1 << 24, artMode: mode(ownColors), reason: why)
    }
    func upgrade(_ why: String) -> ColorChoice? {
      guard let variant = direct() else { return nil }
      return ColorChoice(
        entry: variant, trueColor: true, artMode: .trueColor,
        reason: "true colour through \(variant) (\(why))")
    }

    if let forced = setting.forcedMode {
      if forced == .trueColor {
        if ownColors >= 1 << 24 { return stay("true colour (color = \"truecolor\")") }
        return upgrade("color = \"truecolor\" in config.toml")
          ?? stay(
            "color = \"truecolor\" asked for, but \(term) has no direct-colour variant: "
              + "\(ownColors) colours")
      }
      var choice = stay("\(forced.colourCount) colours (color = \"\(setting.rawValue)\")")
      choice.artMode = mode(min(ownColors, forced.colourCount))
      return choice
    }
    if ownColors >= 1 << 24 { return stay("true colour") }
    if insideTmux(environment) {
      let report = tmux()
      guard report.passesRGB else {
        return stay("\(ownColors) colours: tmux does not pass RGB colour on (\(report.detail))")
      }
      return upgrade("tmux passes RGB: \(report.detail)")
        ?? stay("\(ownColors) colours: tmux passes RGB but there is no tmux-direct entry")
    }
    let colorterm = (environment["COLORTERM"] ?? "").lowercased()
    let promised =
      colorterm == "truecolor" || colorterm == "24bit"
      ? "COLORTERM=\(colorterm)"
      : term == "xterm-kitty" ? "kitty" : nil
    guard let promised else { return stay("\(ownColors) colours") }
    return upgrade(promised)
      ?? stay("\(ownColors) colours: \(promised), but no direct-colour entry for \(term)")
  }

  static func insideTmux(_ environment: [String: String]) -> Bool {
    !(environment["TMUX"] ?? "").isEmpty
  }

  /// Direct-colour entries that describe the same terminal as `term`, best first.
  static func directVariants(of term: String, insideTmux: Bool) -> [String] {
    if insideTmux && (term.hasPrefix("tmux") || term.hasPrefix("screen")) { return ["tmux-direct"] }
    if term == "xterm-kitty" { return ["kitty-direct"] }
    var base = term
    for suffix in ["-256color", "-88color", "-16color", "-color"] where base.hasSuffix(suffix) {
      base.removeLast(suffix.count)
      break
    }
    if base == "gnome" { base = "vte" }
    return [base + "-direct"]
  }
}

extension ColorMode {
  /// Colours the mode has (2^24 for true colour).
  public var colourCount: Int {
    switch self {
    case .trueColor: return 1 << 24
    case .palette256: return 256
    case .basic16: return 16
    case .basic8: return 8
    }
  }
}

/// Asks the tmux a program runs in whether it passes RGB colour to the terminal outside.
public enum TmuxColorQuery {
  /// Runs `tmux display -p` (and `show -sv terminal-overrides` for tmux before 3.2, which has
  /// no `client_termfeatures`). Costs a few milliseconds, only inside tmux.
  public static func ask() -> ColorChoice.TmuxReport {
    let answer = run("tmux display -p '#{client_termfeatures}|#{client_termname}' 2>/dev/null")
    let parts = answer.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
    let features = parts.first ?? ""
    let client = parts.count > 1 ? parts[1] : ""
    return report(
      features: features, client: client,
      overrides: features.isEmpty ? run("tmux show -sv terminal-overrides 2>/dev/null") : "")
  }

  /// Reads tmux's answers: the client's features name `RGB`, or an override for a pattern that
  /// matches the client's terminal sets `Tc` or `RGB`.
  static func report(features: String, client: String, overrides: String)
    -> ColorChoice
    .TmuxReport
  {
    let featureList = features.split(separator: ",").map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    if featureList.contains("RGB") {
      return .init(passesRGB: true, detail: "client features \(features)")
    }
    for line in overrides.split(separator: "\n") {
      let fields = line.split(separator: ":").map(String.init)
      guard let pattern = fields.first, fields.count > 1 else { continue }
      let flags = fields.dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
      guard flags.contains("Tc") || flags.contains("RGB") else { continue }
      if !client.isEmpty && fnmatch(pattern, client, 0) == 0 {
        return .init(passesRGB: true, detail: "terminal-overrides \(line)")
      }
    }
    if client.isEmpty && features.isEmpty {
      return .init(passesRGB: false, detail: "no client attached, or tmux did not answer")
    }
    return .init(
      passesRGB: false,
      detail: "\(client) without RGB; set -as terminal-features ',\(client):RGB' in tmux.conf")
  }

  private static func run(_ command: String) -> String {
    CommandOutput.read(command).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
