import Foundation
import Testing

@testable import RiffleTUI

@Suite("Pictures through tmux: its answer, the choice, the wrapping")
struct TmuxPassthroughTests {
  @Test("tmux's answer: passthrough on or off, the pane's offset, a status line on top")
  func parse() {
    let on = TmuxPassthrough.parse(
      "1|40|3|on|bottom|xterm-kitty|bpaste,focus,title|/dev/pts/4\n")
    #expect(
      on
        == TmuxPassthrough(
          allowed: true, left: 40, top: 3, clientTerm: "xterm-kitty",
          clientFeatures: "bpaste,focus,title", clientTTY: "/dev/pts/4"))
    #expect(on?.clientHasSixel == false)
    // Shown: its window is the current one, and no other pane of it is zoomed.
    #expect(TmuxPassthrough.parse("1|0|0|on|bottom|||/dev/pts/1|1|0|0")?.paneShown == true)
    #expect(TmuxPassthrough.parse("1|0|0|on|bottom|||/dev/pts/1|0|0|1")?.paneShown == false)
    #expect(TmuxPassthrough.parse("1|0|0|on|bottom|||/dev/pts/1|1|1|0")?.paneShown == false)
    #expect(TmuxPassthrough.parse("1|0|0|on|bottom|||/dev/pts/1|1|1|1")?.paneShown == true)
    #expect(TmuxPassthrough.parse("0|0|0|on|bottom||")?.allowed == false)
    // tmux 3.2 knows no allow-passthrough: the field is empty.
    #expect(TmuxPassthrough.parse("|0|0|on|bottom|xterm|")?.allowed == false)
    #expect(TmuxPassthrough.parse("all|0|0|on|bottom||")?.allowed == true)
    // A status line of two rows at the top: the pane starts two rows lower.
    #expect(TmuxPassthrough.parse("1|0|5|2|top|foot|sixel,RGB")?.top == 7)
    #expect(TmuxPassthrough.parse("1|0|5|2|top|foot|sixel,RGB")?.clientHasSixel == true)
    #expect(TmuxPassthrough.parse("1|0|0|off|top||")?.top == 0)
    // Nothing, or an error message: no answer.
    #expect(TmuxPassthrough.parse("") == nil)
    #expect(TmuxPassthrough.parse("no server running on /tmp/x") == nil)
  }

  @Test("wrapped: ESC P tmux; with every ESC doubled, cut after a command's end")
  func wrap() {
    let command = Array("\u{1B}_Ga=d,d=A,q=2\u{1B}\\".utf8)
    #expect(
      TmuxPassthrough.wrap(command)
        == Array("\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d,d=A,q=2\u{1B}\u{1B}\\\u{1B}\\".utf8))
    // Three commands, at most two to a sequence: two sequences, cut between commands.
    let three = command + command + command
    let wrapped = TmuxPassthrough.wrap(three, largest: command.count * 2 + 3)
    let text = String(decoding: wrapped, as: UTF8.self)
    #expect(text.components(separatedBy: "\u{1B}Ptmux;").count - 1 == 2)
    // Unwrapped again (the outer terminal's view): the same bytes.
    #expect(Self.unwrap(wrapped) == three)
    // One long command (a sixel) is never cut (tmux writes between two sequences, which
    // would end it in the terminal outside): one sequence of its own, the rest after it.
    let sixel = Array("\u{1B}Pq".utf8) + [UInt8](repeating: 0x3F, count: 1000) + [0x1B, 0x5C]
    let pieces = TmuxPassthrough.wrap(sixel + command, largest: 300)
    #expect(Self.unwrap(pieces) == sixel + command)
    let sequences = String(decoding: pieces, as: UTF8.self).components(separatedBy: "\u{1B}Ptmux;")
    #expect(sequences.count - 1 == 2)
    #expect(Self.unwrap(Array(("\u{1B}Ptmux;" + sequences[1]).utf8)) == sixel)
  }

  /// What the terminal outside receives from tmux: each sequence's body, ESCs undoubled.
  static func unwrap(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var i = 0
    let head = Array("\u{1B}Ptmux;".utf8)
    while i < bytes.count {
      guard Array(bytes[i..<min(bytes.count, i + head.count)]) == head else { return out }
      i += head.count
      while i + 1 < bytes.count {
        if bytes[i] == 0x1B && bytes[i + 1] == 0x1B {
          out.append(0x1B)
          i += 2
        } else if bytes[i] == 0x1B && bytes[i + 1] == 0x5C {
          i += 2
          break
        } else {
          out.append(bytes[i])
          i += 1
        }
      }
    }
    return out
  }

  @Test("the choice in tmux: symbols unless passthrough is on and the terminal outside answers")
  func choose() {
    let inTmux = ["TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0"]
    let on = TmuxPassthrough(allowed: true, left: 10, top: 2, clientTerm: "xterm-kitty")
    func pick(
      _ setting: PictureSetting = .auto, tmux: TmuxPassthrough?, kitty: Bool,
      environment: [String: String] = inTmux
    ) -> (protocol: PictureProtocol, reason: String, passthrough: TmuxPassthrough?) {
      TerminalPictures.choose(setting: setting, environment: environment, tmux: { tmux }) {
        through in
        #expect(through == tmux, "asked through tmux")
        return TerminalAnswers(kittyGraphics: kitty)
      }
    }
    let kitty = pick(tmux: on, kitty: true)
    #expect(kitty.protocol == .kitty && kitty.passthrough == on)
    #expect(kitty.reason.hasPrefix("kitty graphics through tmux (xterm-kitty answered"))
    let off = pick(tmux: TmuxPassthrough(allowed: false), kitty: true)
    #expect(off.protocol == .symbols && off.passthrough == nil)
    #expect(off.reason.hasPrefix("symbols: inside tmux without allow-passthrough"))
    let silent = pick(tmux: nil, kitty: true)
    #expect(silent.protocol == .symbols && silent.passthrough == nil)
    let noAnswer = pick(tmux: on, kitty: false)
    #expect(noAnswer.protocol == .symbols && noAnswer.passthrough == nil)
    var sixelClient = on
    sixelClient.clientFeatures = "RGB,sixel"
    #expect(pick(tmux: sixelClient, kitty: false).protocol == .sixel)
    // Forced: through tmux when it lets pictures pass, else as before (tmux drops them).
    #expect(pick(.sixel, tmux: on, kitty: false).passthrough == on)
    #expect(pick(.kitty, tmux: TmuxPassthrough(allowed: false), kitty: false).passthrough == nil)
    // tmux on the Linux console: not asked (it might print the question).
    let console = TerminalPictures.choose(
      setting: .auto, environment: inTmux,
      tmux: { TmuxPassthrough(allowed: true, clientTerm: "linux") }
    ) { _ in
      Issue.record("the console was asked")
      return TerminalAnswers()
    }
    #expect(console.protocol == .symbols)
    // GNU screen (no TMUX): symbols without asking.
    let screen = TerminalPictures.choose(
      setting: .auto, environment: ["TERM": "screen-256color"], tmux: { nil }
    ) { _ in
      Issue.record("the terminal was asked")
      return TerminalAnswers()
    }
    #expect(screen.protocol == .symbols)
  }

  @Test("pictures placed at the pane's offset in the terminal outside")
  func offset() throws {
    #expect(
      String(
        decoding: KittyGraphics.place(id: 7, x: 10, y: 2, columns: 80, rows: 24), as: UTF8.self
      )
      .hasPrefix("\u{1B}7\u{1B}[3;11H\u{1B}_Ga=p,i=7,"))
    let image = RGBAImage(width: 16, height: 16, red: 90, green: 30, blue: 200)
    let png = try #require(
      CoverPicture.make(
        image, key: "i", row: 1, columns: 20, rows: 4, cellPixels: (8, 16), darkRows: 0,
        darkening: 0))
    let drawn = CellPictures.draw(png, protocol: .iterm, origin: (x: 10, y: 2))
    #expect(String(decoding: drawn, as: UTF8.self).hasPrefix("\u{1B}7\u{1B}[4;11H\u{1B}]1337;"))
  }
}
