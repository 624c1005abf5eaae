import RiffleCore
import Testing

@testable import RiffleTUI

@Suite("PageMotion: the slide between pages")
struct PageMotionTests {
  @Test("Going forward slides in from the right, going back from the left")
  func directions() {
    var motion = PageMotion()
    motion.pageChanged(from: 0, to: 1)
    #expect(motion.slide == .init(from: 0, direction: 1, remaining: PageMotion.slideFrames))
    motion.pageChanged(from: 5, to: 2)
    #expect(motion.slide == .init(from: 5, direction: -1, remaining: PageMotion.slideFrames))
    #expect(motion.isAnimating)
  }

  @Test("Staying on the same page starts nothing and keeps a slide that runs")
  func samePage() {
    var motion = PageMotion()
    motion.pageChanged(from: 3, to: 3)
    #expect(motion.slide == nil)
    #expect(!motion.isAnimating)
    motion.pageChanged(from: 0, to: 1)
    motion.advance()
    let running = motion.slide
    motion.pageChanged(from: 1, to: 1)
    #expect(motion.slide == running)
  }

  @Test("A new page change restarts the slide from the page left")
  func restart() {
    var motion = PageMotion()
    motion.pageChanged(from: 0, to: 1)
    motion.advance()
    motion.advance()
    motion.pageChanged(from: 1, to: 2)
    #expect(motion.slide == .init(from: 1, direction: 1, remaining: PageMotion.slideFrames))
  }

  @Test("Each frame brings the page further in; after slideFrames frames the slide is over")
  func advanceToEnd() throws {
    var motion = PageMotion()
    motion.pageChanged(from: 0, to: 1)
    var progress = [try #require(motion.slide).progress]
    for _ in 1..<PageMotion.slideFrames {
      motion.advance()
      progress.append(try #require(motion.slide).progress)
    }
    #expect(progress.first == 0)
    #expect(zip(progress, progress.dropFirst()).allSatisfy { $0 < $1 }, "\(progress)")
    #expect(progress.allSatisfy { $0 >= 0 && $0 < 1 })
    #expect(motion.slide?.remaining == 1)
    motion.advance()
    #expect(motion.slide == nil)
    #expect(!motion.isAnimating)
    motion.advance()
    #expect(motion == PageMotion())
  }

  @Test("finish ends the slide at once")
  func finish() {
    var motion = PageMotion()
    motion.pageChanged(from: 2, to: 1)
    motion.advance()
    motion.finish()
    #expect(motion.slide == nil)
    #expect(!motion.isAnimating)
    motion.finish()
    #expect(motion == PageMotion())
  }
}

/// A one-row screen holding `text` (narrow letters, or wide characters with their
/// continuations) in a style that names where it came from.
private func row(_ text: String, width: Int = 10, style: CellStyle) -> Screen {
  var screen = Screen(width: width, height: 2)
  screen.put(text, x: 0, y: 0, style: style)
  screen.put(text, x: 0, y: 1, style: style)
  return screen
}

private let oldStyle = CellStyle(foreground: .rgb(1, 1, 1))
private let newStyle = CellStyle(foreground: .rgb(2, 2, 2))

@Suite("Screen.sliding: frames of a page sliding in")
struct ScreenSlidingTests {
  let old = row("ABCDEFGHIJ", style: oldStyle)
  let new = row("abcdefghij", style: newStyle)

  @Test("At 0 the old screen shows, at 1 the new one, in both directions")
  func ends() {
    for direction in [1, -1] {
      #expect(Screen.sliding(from: old, to: new, progress: 0, direction: direction) == old)
      #expect(Screen.sliding(from: old, to: new, progress: 1, direction: direction) == new)
      // Outside 0...1 is clamped.
      #expect(Screen.sliding(from: old, to: new, progress: -0.5, direction: direction) == old)
      #expect(Screen.sliding(from: old, to: new, progress: 2, direction: direction) == new)
    }
  }

  @Test("Halfway forward: the old page's right half on the left, the new page's left half after")
  func halfwayForward() {
    let frame = Screen.sliding(from: old, to: new, progress: 0.5, direction: 1)
    #expect(frame.lines == ["FGHIJabcde", "FGHIJabcde"])
    #expect((0..<5).allSatisfy { frame[$0, 0].style == oldStyle })
    #expect((5..<10).allSatisfy { frame[$0, 1].style == newStyle })
  }

  @Test("Halfway back: the new page's right half on the left, the old page's left half after")
  func halfwayBack() {
    let frame = Screen.sliding(from: old, to: new, progress: 0.5, direction: -1)
    #expect(frame.lines == ["fghijABCDE", "fghijABCDE"])
    #expect((0..<5).allSatisfy { frame[$0, 0].style == newStyle })
    #expect((5..<10).allSatisfy { frame[$0, 1].style == oldStyle })
  }

  @Test("Every frame is a window of old-then-new (forward) or new-then-old (back)")
  func everyFrame() {
    // 16 columns and steps of 1/16, so every offset is exact in binary floating point.
    let oldText = "ABCDEFGHIJKLMNOP"
    let newText = "abcdefghijklmnop"
    let old = row(oldText, width: 16, style: oldStyle)
    let new = row(newText, width: 16, style: newStyle)
    for step in 0...16 {
      let progress = Double(step) / 16
      let forward = Screen.sliding(from: old, to: new, progress: progress, direction: 1)
      let backward = Screen.sliding(from: old, to: new, progress: progress, direction: -1)
      let forwardStrip = oldText + newText
      let backwardStrip = newText + oldText
      #expect(forward.lines[0] == String(forwardStrip.dropFirst(step).prefix(16)), "\(progress)")
      #expect(
        backward.lines[0] == String(backwardStrip.dropFirst(16 - step).prefix(16)), "\(progress)")
    }
  }

  @Test("A wide character cut by the seam or the edge is blanked, never left half drawn")
  func wideAtSeam() {
    // 日 本 語 日 本: five wide characters in columns 0-1, 2-3, 4-5, 6-7, 8-9.
    let wideOld = row("日本語日本", style: oldStyle)
    let wideNew = row("日本語日本", style: newStyle)
    // Forward, halfway: old columns 5...9 then new columns 0...4. Old column 5 is the second
    // half of 語, new column 4 the first half of 語.
    let forward = Screen.sliding(from: wideOld, to: wideNew, progress: 0.5, direction: 1)
    #expect(forward.lines[0] == " 日本日本 ")
    #expect(brokenWideCell(in: forward) == nil)
    // Back, halfway: new columns 5...9 then old columns 0...4.
    let backward = Screen.sliding(from: wideOld, to: wideNew, progress: 0.5, direction: -1)
    #expect(backward.lines[0] == " 日本日本 ")
    #expect(brokenWideCell(in: backward) == nil)
    // A blanked half keeps the style of the page it belongs to.
    #expect(forward[0, 0].style == oldStyle && forward[9, 0].style == newStyle)
  }

  @Test("No frame of a slide between wide pages breaks a wide character or a row's width")
  func wideEveryFrame() {
    let text = "夜明け🌅のx東京🌧️雨y"
    for width in [9, 10, 11, 17] {
      let a = row(text, width: width, style: oldStyle)
      let b = row("z" + text, width: width, style: newStyle)
      for step in 0...20 {
        for direction in [1, -1] {
          let frame = Screen.sliding(
            from: a, to: b, progress: Double(step) / 20, direction: direction)
          let at = "width \(width), \(step)/20, direction \(direction)"
          #expect(brokenWideCell(in: frame) == nil, "\(at): \(frame.cells.map(\.text))")
          #expect(frame.lines.allSatisfy { DisplayWidth.of($0) == width }, "\(at)")
        }
      }
    }
  }

  @Test("Screens of different sizes give the new screen as it is")
  func differentSizes() {
    let small = row("abcdefgh", width: 8, style: newStyle)
    #expect(Screen.sliding(from: old, to: small, progress: 0.5, direction: 1) == small)
    var tall = Screen(width: 10, height: 3)
    tall.put("abc", x: 0, y: 2, style: newStyle)
    #expect(Screen.sliding(from: old, to: tall, progress: 0.3, direction: -1) == tall)
  }

  @Test("PageView draws a slide as the old page going out and the new one coming in")
  func pageViewSlide() {
    let state = PageFixture.playing(at: 1)
    var motion = PageMotion()
    motion.pageChanged(from: 0, to: 1)
    let titleRow = 24 - 7
    let start = PageView().render(state, motion: motion, width: 80, height: 24)
    #expect(start.lines[titleRow].hasPrefix("    Neon Tide"))
    for _ in 0..<3 { motion.advance() }
    let halfway = PageView().render(state, motion: motion, width: 80, height: 24)
    // Halfway the new page's left edge is at column 40: its title starts at 44.
    #expect(String(halfway.lines[titleRow].dropFirst(40)).hasPrefix("    Paper Lanterns"))
    motion.finish()
    let end = PageView().render(state, motion: motion, width: 80, height: 24)
    #expect(end == PageView().render(state, width: 80, height: 24))
  }
}
