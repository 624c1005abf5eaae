import Testing

@testable import RiffleTUI

@Suite("Colour choice: the terminfo entry and colours the screen starts with")
struct ColorChoiceTests {
  /// The terminfo entries of a machine with ncurses-term, by their colour counts.
  static let entries: [String: Int] = [
    "xterm-256color": 256, "xterm-direct": 1 << 24, "xterm-kitty": 256, "kitty-direct": 1 << 24,
    "tmux-256color": 256, "tmux-direct": 1 << 24, "screen-256color": 256, "xterm": 8,
    "vte-256color": 256, "vte-direct": 1 << 24, "rxvt-unicode-256color": 256, "linux": 8,
  ]

  static func choose(
    _ term: String, _ environment: [String: String] = [:], setting: ColorSetting = .auto,
    tmux: ColorChoice.TmuxReport? = nil
  ) -> ColorChoice {
    ColorChoice.choose(
      term: term, environment: environment, setting: setting, colors: { entries[$0] },
      tmux: {
        // Asking tmux outside tmux, or when the answer cannot matter, is a mistake.
        guard let tmux else {
          Issue.record("tmux was asked")
          return .init(passesRGB: false, detail: "")
        }
        return tmux
      })
  }

  @Test("COLORTERM=truecolor or 24bit under a 256-colour TERM starts the direct variant")
  func colorterm() {
    for value in ["truecolor", "24bit", "TrueColor"] {
      let choice = Self.choose("xterm-256color", ["COLORTERM": value])
      #expect(choice.entry == "xterm-direct")
      #expect(choice.trueColor && choice.artMode == .trueColor)
    }
    #expect(Self.choose("vte-256color", ["COLORTERM": "truecolor"]).entry == "vte-direct")
    #expect(Self.choose("xterm-kitty").entry == "kitty-direct", "kitty always has true colour")
    let plain = Self.choose("xterm-256color", ["COLORTERM": "yes"])
    #expect(plain.entry == "xterm-256color" && plain.artMode == .palette256)
    #expect(plain.reason == "256 colours")
  }

  @Test("without a direct variant the entry stays, and the reason says why")
  func noVariant() {
    let choice = Self.choose("rxvt-unicode-256color", ["COLORTERM": "truecolor"])
    #expect(choice.entry == "rxvt-unicode-256color" && !choice.trueColor)
    #expect(choice.artMode == .palette256)
    #expect(
      choice.reason
        == "256 colours: COLORTERM=truecolor, but no direct-colour entry for rxvt-unicode-256color")
    #expect(Self.choose("linux", ["COLORTERM": "truecolor"]).artMode == .basic8)
  }

  @Test("a direct entry stays as it is")
  func alreadyDirect() {
    let choice = Self.choose("xterm-direct")
    #expect(
      choice
        == ColorChoice(
          entry: "xterm-direct", trueColor: true, artMode: .trueColor, reason: "true colour"))
  }

  @Test("inside tmux only tmux's word counts: RGB passed on, or not")
  func tmux() {
    let inside = ["TMUX": "/tmp/tmux-0/default,1,0", "COLORTERM": "truecolor"]
    let passes = Self.choose(
      "tmux-256color", inside, tmux: .init(passesRGB: true, detail: "client features RGB"))
    #expect(passes.entry == "tmux-direct" && passes.trueColor)
    #expect(
      passes.reason == "true colour through tmux-direct (tmux passes RGB: client features RGB)")
    #expect(
      Self.choose("screen-256color", inside, tmux: .init(passesRGB: true, detail: "")).entry
        == "tmux-direct")
    let not = Self.choose(
      "tmux-256color", inside, tmux: .init(passesRGB: false, detail: "xterm without RGB"))
    #expect(not.entry == "tmux-256color" && not.artMode == .palette256)
    #expect(not.reason == "256 colours: tmux does not pass RGB colour on (xterm without RGB)")
  }

  @Test("a forced setting wins over what the terminal says")
  func forced() {
    let down = Self.choose("xterm-256color", ["COLORTERM": "truecolor"], setting: .palette256)
    #expect(down.entry == "xterm-256color" && down.artMode == .palette256)
    #expect(down.reason == "256 colours (color = \"256\")")
    #expect(Self.choose("xterm-direct", setting: .basic16).artMode == .basic16)
    let up = Self.choose("xterm-256color", setting: .trueColor)
    #expect(up.entry == "xterm-direct" && up.trueColor)
    // Forced inside tmux, tmux is not asked.
    #expect(
      Self.choose("tmux-256color", ["TMUX": "x"], setting: .trueColor).entry == "tmux-direct")
    // 16 forced on an 8-colour terminal: art keeps to the 8 it has.
    #expect(Self.choose("xterm", setting: .basic16).artMode == .basic8)
  }

  @Test("tmux's answers: features with RGB, a Tc or RGB override matching the client, or neither")
  func tmuxAnswers() {
    #expect(
      TmuxColorQuery.report(features: "256,RGB,title", client: "xterm-256color", overrides: "")
        .passesRGB)
    let old = TmuxColorQuery.report(
      features: "", client: "xterm-256color", overrides: "xterm*:Tc\nrxvt*:XT")
    #expect(old.passesRGB && old.detail == "terminal-overrides xterm*:Tc")
    #expect(
      !TmuxColorQuery.report(features: "", client: "rxvt-unicode", overrides: "xterm*:Tc")
        .passesRGB)
    let none = TmuxColorQuery.report(features: "256,title", client: "xterm", overrides: "")
    #expect(!none.passesRGB)
    #expect(none.detail == "xterm without RGB; set -as terminal-features ',xterm:RGB' in tmux.conf")
    #expect(!TmuxColorQuery.report(features: "", client: "", overrides: "").passesRGB)
  }
}
