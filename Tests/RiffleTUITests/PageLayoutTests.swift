import RiffleCore
import Testing

@testable import RiffleTUI

/// The text drawn in `columns` of `row` (a wide character counted once).
private func drawn(_ screen: Screen, row: Int, _ columns: Range<Int>) -> String {
  columns.filter { $0 >= 0 && $0 < screen.width }.map { screen[$0, row] }
    .filter { !$0.isContinuation }.map(\.text).joined()
}

/// States whose layout differs: labels, like widths, clock widths.
enum PageLayoutCase: String, CaseIterable, CustomStringConvertible {
  case playing, paused, liked, firstPage, loading, noDuration, longSong, manyLikes

  var description: String { rawValue }

  var state: PlayerState {
    switch self {
    case .playing: return PageFixture.playing()
    case .paused: return PageFixture.playing(playback: .paused)
    case .liked:
      var state = PageFixture.playing()
      state.songs[1] = state.songs[1].togglingLike()
      return state
    case .firstPage: return PageFixture.playing(at: 0)
    case .loading: return PageFixture.playing(playback: .loading, position: 0)
    case .noDuration:
      var state = PageFixture.playing(playback: .buffering)
      state.duration = nil
      return state
    case .longSong:
      // "10:05" and "12:34": wider clock labels than the usual "0:12".
      var state = PageFixture.playing(position: 605)
      state.duration = 754
      return state
    case .manyLikes:
      var state = PageFixture.playing()
      state.songs[1].likeCount = 1_234_567
      return state
    }
  }

  /// The like area as drawn: heart, count, and " liked" when liked.
  var likeText: String {
    switch self {
    case .liked: return "♥ 4 liked"
    case .firstPage: return "♡ 1,234"
    case .manyLikes: return "♡ 1,234,567"
    default: return "♡ 3"
    }
  }
}

private let layoutWidths = [30, 31, 40, 43, 44, 45, 59, 60, 61, 80, 120, 200, 400]
private let layoutHeights = [8, 9, 12, 24, 60]

@Suite("PageLayout")
struct PageLayoutTests {
  @Test("There is a layout from 30x8 up and none below")
  func minimumSize() {
    let state = PageFixture.playing()
    #expect(PageLayout.make(width: 30, height: 8, state: state) != nil)
    #expect(PageLayout.make(width: 29, height: 8, state: state) == nil)
    #expect(PageLayout.make(width: 30, height: 7, state: state) == nil)
    #expect(PageLayout.make(width: 0, height: 0, state: state) == nil)
  }

  @Test("80x24 playing: the rows and columns a user sees")
  func at80x24() throws {
    let layout = try #require(PageLayout.make(width: 80, height: 24, state: PageFixture.playing()))
    #expect(layout.titleRow == 17)
    #expect(layout.likeRow == 19)
    #expect(layout.progressRow == 20)
    #expect(layout.controlsRow == 21)
    #expect(layout.hintsRow == 23)
    #expect(layout.like == 4..<7)
    // "    0:12 " then the bar, then " 0:35    ".
    #expect(layout.progressBar == 9..<71)
    // 7 + 5 + 8 + 5 + 7 = 32 columns, centred in 80.
    #expect(layout.previous == 24..<31)
    #expect(layout.playPause == 36..<44)
    #expect(layout.next == 49..<56)
  }

  @Test("Buttons are words from 44 columns and symbols below; the play label keeps its width")
  func labels() throws {
    let playing = PageFixture.playing()
    let paused = PageFixture.playing(playback: .paused)
    let wide = try #require(PageLayout.make(width: 44, height: 12, state: playing))
    let narrow = try #require(PageLayout.make(width: 43, height: 12, state: playing))
    #expect(wide.labels.previous == "|◀ Prev" && wide.labels.next == "Next ▶|")
    #expect(wide.labels.playPause == "❚❚ Pause")
    #expect(narrow.labels.previous == "|◀" && narrow.labels.next == "▶|")
    #expect(narrow.labels.playPause == "❚❚")
    for width in [43, 44, 80] {
      let a = try #require(PageLayout.make(width: width, height: 12, state: playing))
      let b = try #require(PageLayout.make(width: width, height: 12, state: paused))
      #expect(a.playPause == b.playPause && a.next == b.next, "width \(width)")
      #expect(b.labels.playPause == (width >= 44 ? " ▶ Play " : "▶ "))
    }
  }

  @Test(
    "The buttons, the heart and the bar are where PageView draws them",
    arguments: PageLayoutCase.allCases)
  func matchesDrawing(_ layoutCase: PageLayoutCase) {
    let state = layoutCase.state
    for width in layoutWidths {
      for height in layoutHeights {
        guard let layout = PageLayout.make(width: width, height: height, state: state) else {
          Issue.record("no layout at \(width)x\(height)")
          continue
        }
        let screen = PageView().render(state, width: width, height: height)
        let at = "\(layoutCase) at \(width)x\(height)"

        let row = layout.controlsRow
        #expect(drawn(screen, row: row, layout.previous) == layout.labels.previous, "\(at)")
        #expect(drawn(screen, row: row, layout.playPause) == layout.labels.playPause, "\(at)")
        #expect(drawn(screen, row: row, layout.next) == layout.labels.next, "\(at)")
        let outside =
          drawn(screen, row: row, 0..<layout.previous.lowerBound)
          + drawn(screen, row: row, layout.previous.upperBound..<layout.playPause.lowerBound)
          + drawn(screen, row: row, layout.playPause.upperBound..<layout.next.lowerBound)
          + drawn(screen, row: row, layout.next.upperBound..<width)
        #expect(outside.allSatisfy { $0 == " " }, "\(at): \(screen.lines[row])")

        #expect(drawn(screen, row: layout.likeRow, layout.like) == layoutCase.likeText, "\(at)")
        #expect(
          drawn(screen, row: layout.likeRow, layout.like.upperBound..<width).allSatisfy {
            $0 == " "
          }, "\(at): \(screen.lines[layout.likeRow])")

        let bar = drawn(screen, row: layout.progressRow, layout.progressBar)
        #expect(bar.count == layout.progressBar.count, "\(at)")
        #expect(bar.allSatisfy { "━●─".contains($0) }, "\(at): \(bar)")
        #expect(bar.filter { $0 == "●" }.count == 1, "\(at): \(bar)")
        let line = screen.lines[layout.progressRow]
        let before = drawn(screen, row: layout.progressRow, 0..<layout.progressBar.lowerBound)
        let after = drawn(screen, row: layout.progressRow, layout.progressBar.upperBound..<width)
        #expect(before.hasSuffix(" ") && after.hasPrefix(" "), "\(at): \(line)")
        #expect(!before.contains { "━●─".contains($0) }, "\(at): \(line)")
        #expect(!after.contains { "━●─".contains($0) }, "\(at): \(line)")
      }
    }
  }

  @Test("The knob stands at the column whose seek fraction is the song's position")
  func knobMatchesFraction() throws {
    for width in layoutWidths {
      let state = PageFixture.playing(position: 12)
      let layout = try #require(PageLayout.make(width: width, height: 24, state: state))
      let screen = PageView().render(state, width: width, height: 24)
      let knob = try #require(
        layout.progressBar.first { screen[$0, layout.progressRow].text == "●" })
      let fraction = try #require(layout.progressFraction(atColumn: knob))
      let step = 1 / Double(layout.progressBar.count - 1)
      #expect(fraction <= 12.0 / 35 && 12.0 / 35 < fraction + step, "width \(width)")
    }
  }

  @Test("progressFraction is 0 at the first column, 1 at the last, clamped outside")
  func fraction() throws {
    let layout = try #require(PageLayout.make(width: 80, height: 24, state: PageFixture.playing()))
    let bar = layout.progressBar
    #expect(layout.progressFraction(atColumn: bar.lowerBound) == 0)
    #expect(layout.progressFraction(atColumn: bar.upperBound - 1) == 1)
    #expect(layout.progressFraction(atColumn: bar.lowerBound - 5) == 0)
    #expect(layout.progressFraction(atColumn: 500) == 1)
    let middle = try #require(layout.progressFraction(atColumn: bar.lowerBound + 1))
    #expect(abs(middle - 1 / Double(bar.count - 1)) < 1e-12)
  }
}
