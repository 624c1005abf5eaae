import Foundation
import RiffleTestSupport
import Testing

/// kitty under Xvfb resized while the player is sending its first picture (a cover of noise: a
/// PNG of a megabyte and more, which takes kitty a while to take in): the picture for the last
/// size is the one shown, no stray text, nothing left after q.
extension XvfbEndToEndTests {
  @Suite("kitty resized during a picture's upload")
  struct PictureResizeEndToEndTests {
    typealias Kitty = XvfbEndToEndTests.KittyPictureEndToEndTests

    @Test("resized twice while the first picture goes out: the last size's picture, clean")
    func resizeDuringUpload() throws {
      let display = try xDisplay(needing: ["kitty"])
      let feed = try GradientFeed(title: "Noisy Resize", noise: true, config: Kitty.forceKitty)
      // Stopped before the feed goes: the player writes its session as it ends.
      defer { display.stop() }
      try display.kitty(
        [
          "sh", "-c",
          "'\(TestFiles.riffleBinary)' '\(feed.feed.path)' --audio null; echo riffle-exited $?;"
            + " sleep 60",
        ], environment: feed.environment)
      // Resized as soon as the page is up, while its cover is made and sent.
      try display.waitForKittyText("Noisy Resize")
      try display.kittyCommand([
        "resize-os-window", "--unit", "cells", "--width", "100", "--height", "30",
      ])
      usleep(150_000)
      try display.kittyCommand([
        "resize-os-window", "--unit", "cells", "--width", "90", "--height", "28",
      ])
      var text = ""
      let deadline = Date().addingTimeInterval(10)
      repeat {
        usleep(200_000)
        text = display.kittyText() ?? ""
      } while !(text.split(separator: "\n").count == 28 && text.contains("Noisy Resize"))
        && Date() < deadline
      #expect(text.contains("Noisy Resize"), "\(text)")
      for stray in ["_G", "Ga=", "a=t", "f=100", "\u{FFFD}"] {
        #expect(!text.contains(stray), "stray \(stray) in \(text)")
      }
      // Noise at pixel level, out to the band's right margin at the last size (columns 86 to
      // 89, rows 21 to 23 of 9x18 pixels: beyond the first size's 720x432 pixels, no text).
      let counts = try Kitty.waitForPicture(on: display)
      #expect(counts.allSatisfy { $0 > 80 }, "colours per patch: \(counts)")
      let corner = try XvfbDisplay.distinctColours(
        in: display.screenshot(), x: 774, y: 380, width: 36, height: 36)
      #expect(corner > 80, "the last size's picture reaches its corner: \(corner)")

      try display.kittySend("q")
      try display.waitForKittyText("riffle-exited 0")
      usleep(300_000)
      let left = try Kitty.patchColours(
        display.screenshot(), at: [(100, 40), (300, 120), (500, 300), (774, 380)])
      #expect(left.allSatisfy { $0 == 1 }, "colours per patch after q: \(left)")
    }
  }
}
