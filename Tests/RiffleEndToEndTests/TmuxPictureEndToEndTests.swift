import Foundation
import RiffleTestSupport
import Testing

/// kitty under Xvfb running tmux (a server of its own) running the player: pictures pass
/// through tmux only when its `allow-passthrough` is on, placed in the pane, taken off when
/// tmux shows another window, and gone after q.
extension XvfbEndToEndTests {
  @Suite("Pictures through tmux in kitty")
  struct TmuxPictureEndToEndTests {
    /// tmux in kitty, its own socket and configuration, running the player in its first window.
    struct Tmux {
      let socket = "riffle-xvfb-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
      let tmux: String

      init() throws {
        guard let tmux = XvfbDisplay.which("tmux") else {
          try Test.cancel("skipped: tmux is not installed")
        }
        self.tmux = tmux
      }

      func start(
        on display: XvfbDisplay, feed: GradientFeed, passthrough: Bool
      ) throws {
        let config = feed.home.file("tmux.conf")
        try Data(
          """
          set -g default-terminal tmux-256color
          set -g allow-passthrough \(passthrough ? "on" : "off")
          set -g focus-events on
          set -g status-right ''

          """.utf8
        ).write(to: config)
        // Started once kitty has settled (the question through tmux gets 100 ms).
        let player =
          "sleep 1; '\(TestFiles.riffleBinary)' '\(feed.feed.path)' --audio null;"
          + " echo riffle-exited $?; sleep 60"
        try display.kitty(
          [tmux, "-L", socket, "-f", config.path, "new-session", player],
          environment: feed.environment)
      }

      @discardableResult
      func command(_ arguments: String...) throws -> String {
        try runProgram(tmux, ["-L", socket] + arguments).stdout
      }

      func stop() { _ = try? runProgram(tmux, ["-L", socket, "kill-server"]) }
    }

    typealias Kitty = XvfbEndToEndTests.KittyPictureEndToEndTests

    /// Screenshots until `condition` holds for the patches' colour counts (or 10 s pass).
    static func patches(on display: XvfbDisplay, until condition: ([Int]) -> Bool) throws -> [Int] {
      var counts: [Int] = []
      let deadline = Date().addingTimeInterval(10)
      repeat {
        counts = try Kitty.patchColours(display.screenshot())
        if condition(counts) { break }
        usleep(200_000)
      } while Date() < deadline
      return counts
    }

    @Test(
      "allow-passthrough on: a picture in the pane, off while another window shows, gone after q")
    func passthroughOn() throws {
      let tmux = try Tmux()
      let display = try xDisplay(needing: ["kitty"])
      let feed = try GradientFeed(title: "Tmux Gradient")
      // Stopped before the feed goes: the player writes its session as it ends.
      defer {
        tmux.stop()
        display.stop()
      }
      try tmux.start(on: display, feed: feed, passthrough: true)
      try display.waitForKittyText("Tmux Gradient", "1 / 1")
      let log = try String(contentsOf: feed.log, encoding: .utf8)
      #expect(log.contains("pictures: kitty graphics through tmux (xterm-kitty answered"), "\(log)")
      let picture = try Self.patches(on: display) { $0.allSatisfy { $0 > 80 } }
      #expect(picture.allSatisfy { $0 > 80 }, "colours per patch: \(picture)")

      // Another window: tmux draws it, the player takes its picture off (told by tmux's focus
      // report, written to the client's terminal, for tmux passes nothing from a hidden pane).
      try tmux.command("new-window", "sleep 60")
      let away = try Self.patches(on: display) { $0.allSatisfy { $0 == 1 } }
      #expect(away.allSatisfy { $0 == 1 }, "colours per patch on the other window: \(away)")
      try tmux.command("select-window", "-t", ":0")
      let back = try Self.patches(on: display) { $0.allSatisfy { $0 > 80 } }
      #expect(back.allSatisfy { $0 > 80 }, "colours per patch back on the player: \(back)")

      // A pane split off to the left: the player's pane moves 31 columns right (279 pixels)
      // and shrinks; its picture follows it, the new pane shows none.
      try tmux.command("split-window", "-h", "-b", "-l", "30", "-t", ":0.0", "sleep 60")
      var split: [Int] = []
      let deadline = Date().addingTimeInterval(10)
      repeat {
        usleep(200_000)
        split = try Kitty.patchColours(
          display.screenshot(), at: [(100, 40), (200, 120), (330, 40), (550, 120)])
      } while !(split[0] == 1 && split[1] == 1 && split[2] > 80 && split[3] > 80)
        && Date() < deadline
      #expect(
        split[0] == 1 && split[1] == 1 && split[2] > 80 && split[3] > 80,
        "colours per patch, new pane then the player's: \(split)")

      try tmux.command("send-keys", "-t", ":0.1", "q")
      try display.waitForKittyText("riffle-exited 0")
      let left = try Self.patches(on: display) { $0.allSatisfy { $0 == 1 } }
      #expect(left.allSatisfy { $0 == 1 }, "colours per patch after q: \(left)")
    }

    @Test("allow-passthrough off: symbols, no stray escape text, nothing left after q")
    func passthroughOff() throws {
      let tmux = try Tmux()
      let display = try xDisplay(needing: ["kitty"])
      let feed = try GradientFeed(title: "Tmux Symbols")
      // Stopped before the feed goes: the player writes its session as it ends.
      defer {
        tmux.stop()
        display.stop()
      }
      try tmux.start(on: display, feed: feed, passthrough: false)
      let screen = try display.waitForKittyText("Tmux Symbols", "1 / 1")
      let log = try String(contentsOf: feed.log, encoding: .utf8)
      #expect(log.contains("pictures: symbols: inside tmux without allow-passthrough"), "\(log)")
      usleep(1_000_000)
      let cells = try Kitty.patchColours(display.screenshot())
      // Cells in tmux's 256 colours (it passes no RGB here): a few colours a patch, not the
      // picture's hundreds; the cover is there (not one flat colour everywhere).
      #expect(
        cells.allSatisfy { $0 < 60 } && cells.contains { $0 > 1 }, "colours per patch: \(cells)")
      for stray in ["Gi=31", "_G", "tmux;", "AAAA"] {
        #expect(!screen.contains(stray), "\(screen)")
      }
      try tmux.command("send-keys", "-t", ":0.0", "q")
      let after = try display.waitForKittyText("riffle-exited 0")
      #expect(!after.contains("Tmux Symbols"))
      let left = try Self.patches(on: display) { $0.allSatisfy { $0 == 1 } }
      #expect(left.allSatisfy { $0 == 1 }, "colours per patch after q: \(left)")
    }
  }
}
