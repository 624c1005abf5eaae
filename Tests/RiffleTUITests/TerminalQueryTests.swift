import Foundation
import Testing

@testable import RiffleTUI

#if canImport(Glibc)
  import Glibc
#endif

/// The start-up question asked of a pseudo-terminal whose other end plays the terminal: one
/// that answers nothing, one that claims kitty (TERM) and ignores kitty's query, one that
/// answers kitty late.
@Suite("Picture queries against a pseudo-terminal")
struct TerminalQueryTests {
  /// A pseudo-terminal: the player's end (`slave`) and the terminal's (`master`).
  final class Pty {
    var master: Int32 = -1
    var slave: Int32 = -1

    init() throws {
      guard openpty(&master, &slave, nil, nil, nil) == 0 else {
        throw CocoaError(.fileNoSuchFile)
      }
    }

    deinit {
      close(master)
      close(slave)
    }

    /// The terminal's side: reads what the player asked, waits `delay`, then answers `answer`.
    /// Waited for before the pseudo-terminal closes (its descriptors could be reused).
    func answer(_ answer: String, after delay: Double, reading: Bool = true) -> DispatchGroup {
      let master = self.master
      let done = DispatchGroup()
      done.enter()
      let thread = Thread {
        defer { done.leave() }
        guard reading else {
          usleep(UInt32(delay * 1_000_000))
          var bytes = Array(answer.utf8)
          _ = write(master, &bytes, bytes.count)
          return
        }
        var buffer = [UInt8](repeating: 0, count: 256)
        var input = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&input, 1, 1000) > 0 else { return }
        _ = read(master, &buffer, buffer.count)
        usleep(UInt32(delay * 1_000_000))
        var bytes = Array(answer.utf8)
        _ = write(master, &bytes, bytes.count)
      }
      thread.start()
      return done
    }

    /// What the player wrote (the queries), read from the terminal's side.
    func asked() -> String {
      var buffer = [UInt8](repeating: 0, count: 256)
      var input = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
      guard poll(&input, 1, 100) > 0 else { return "" }
      let count = read(master, &buffer, buffer.count)
      return String(decoding: buffer[0..<max(0, count)], as: UTF8.self)
    }
  }

  @Test("no answer at all: the wait ends after 100 ms, symbols, and the reason says so")
  func silent() throws {
    let pty = try Pty()
    let started = Date()
    let answers = TerminalPictures.ask(input: pty.slave, output: pty.slave)
    let waited = Date().timeIntervalSince(started)
    #expect(waited >= 0.095 && waited < 0.3, "waited \(waited) s")
    #expect(!answers.answered && !answers.kittyGraphics)
    #expect(pty.asked().hasPrefix("\u{1B}_Gi=31,"))
    let choice = TerminalPictures.choose(
      setting: .auto, environment: ["TERM": "xterm-kitty"], ask: { _ in answers })
    #expect(choice.protocol == .symbols)
    #expect(choice.reason == "symbols: the terminal did not answer the queries within 100 ms")
  }

  @Test("claims kitty (TERM=xterm-kitty) but ignores kitty's query: DA1 ends the wait, symbols")
  func claimsButIgnores() throws {
    let pty = try Pty()
    let terminal = pty.answer("\u{1B}[?62;22c", after: 0.01)
    let answers = TerminalPictures.ask(input: pty.slave, output: pty.slave)
    terminal.wait()
    // DA1's answer ended the wait (a timeout leaves `answered` false).
    #expect(answers.answered && !answers.kittyGraphics && !answers.sixel)
    let choice = TerminalPictures.choose(
      setting: .auto, environment: ["TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"],
      ask: { _ in answers })
    #expect(choice.protocol == .symbols)
  }

  @Test("kitty's answer after the wait: symbols now, and the late answer is dropped as input")
  func lateAnswer() throws {
    let pty = try Pty()
    let late = "\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;22c"
    let terminal = pty.answer(late, after: 0.25)
    let answers = TerminalPictures.ask(input: pty.slave, output: pty.slave)
    terminal.wait()
    #expect(!answers.answered && !answers.kittyGraphics)
    // What arrives later reaches the key reader, which drops it whole.
    let keys: [Key] = late.map { $0 == "\u{1B}" ? .escape : .char($0) }
    #expect(EscapeDecoder.decode(keys + [.char("q")]) == [.char("q")])
  }

  @Test("through tmux: kitty's query wrapped, the wait ends at kitty's answer, not tmux's DA1")
  func throughTmux() throws {
    let pty = try Pty()
    // tmux answers DA1 at once; the terminal outside answers kitty's query later.
    let tmux = pty.answer("\u{1B}[?1;2c", after: 0)
    let outer = pty.answer("\u{1B}_Gi=31;OK\u{1B}\\", after: 0.04, reading: false)
    let answers = TerminalPictures.ask(
      through: TmuxPassthrough(allowed: true), input: pty.slave, output: pty.slave)
    tmux.wait()
    outer.wait()
    #expect(answers.kittyGraphics, "\(answers)")
  }
}
