import RiffleCore
import Testing

@testable import RiffleTUI

/// The sizes a page is laid out at in these tests: roomy, narrow (symbol labels) and smallest.
let pointerSizes = [Size(80, 24), Size(40, 12), Size(30, 8)]

/// A pointer fed events one at a time, as the view model feeds it.
private struct Pointer {
  var input = PointerInput()
  let layout: PageLayout?
  let state: PlayerState

  init(_ size: Size, state: PlayerState = PageFixture.playing()) {
    layout = PageLayout.make(width: size.width, height: size.height, state: state)
    self.state = state
  }

  mutating func send(_ kind: MouseEvent.Kind, _ x: Int, _ y: Int) -> PlayerAction? {
    input.handle(MouseEvent(kind, x: x, y: y), layout: layout, state: state)
  }

  /// Left press and release on one cell: what each of the two gives.
  mutating func click(_ x: Int, _ y: Int) -> (press: PlayerAction?, release: PlayerAction?) {
    (send(.press(button: 0), x, y), send(.release, x, y))
  }

  /// Press at `from`, drag through the columns between, release at `to` (same row unless `toY`).
  mutating func drag(from: Int, to: Int, y: Int, toY: Int? = nil) -> [PlayerAction?] {
    var out = [send(.press(button: 0), from, y)]
    let step = to >= from ? 1 : -1
    for x in stride(from: from + step, through: to, by: step) { out.append(send(.drag, x, y)) }
    out.append(send(.release, to, toY ?? y))
    return out
  }
}

@Suite("PointerInput: clicks on the controls")
struct PointerClickTests {
  @Test(
    "Each column of Prev, Play/Pause and Next gives that button's action", arguments: pointerSizes)
  func buttons(size: Size) throws {
    let layout = try #require(
      PageLayout.make(width: size.width, height: size.height, state: PageFixture.playing()))
    let buttons: [(Range<Int>, PlayerAction)] = [
      (layout.previous, .previous), (layout.playPause, .togglePlay), (layout.next, .next),
    ]
    for (range, action) in buttons {
      #expect(!range.isEmpty)
      for x in range {
        var pointer = Pointer(size)
        let result = pointer.click(x, layout.controlsRow)
        #expect(result.press == nil, "the press alone does nothing")
        #expect(result.release == action, "\(size) column \(x)")
      }
    }
  }

  @Test(
    "Columns beside the buttons and the rows above and below them give nothing",
    arguments: pointerSizes)
  func besideButtons(size: Size) throws {
    let layout = try #require(
      PageLayout.make(width: size.width, height: size.height, state: PageFixture.playing()))
    let row = layout.controlsRow
    let gaps =
      [layout.previous.lowerBound - 1, layout.next.upperBound]
      + Array(layout.previous.upperBound..<layout.playPause.lowerBound)
      + Array(layout.playPause.upperBound..<layout.next.lowerBound)
    for x in gaps {
      var pointer = Pointer(size)
      #expect(pointer.click(x, row).release == nil, "\(size) column \(x)")
    }
    for y in [row - 1, row + 1] {
      var pointer = Pointer(size)
      #expect(pointer.click(layout.next.lowerBound, y).release == nil, "\(size) row \(y)")
    }
  }

  @Test("The heart and its count toggle the like", arguments: pointerSizes)
  func heart(size: Size) throws {
    let layout = try #require(
      PageLayout.make(width: size.width, height: size.height, state: PageFixture.playing()))
    for x in layout.like {
      var pointer = Pointer(size)
      #expect(pointer.click(x, layout.likeRow).release == .toggleLike, "\(size) column \(x)")
    }
    var pointer = Pointer(size)
    #expect(pointer.click(layout.like.upperBound, layout.likeRow).release == nil)
    #expect(pointer.click(layout.like.lowerBound, layout.likeRow - 1).release == nil)
  }

  @Test("A liked song's heart covers \"♥ 4 liked\"")
  func likedHeart() throws {
    var state = PageFixture.playing()
    state.songs[1] = state.songs[1].togglingLike()
    let layout = try #require(PageLayout.make(width: 80, height: 24, state: state))
    #expect(layout.like == 4..<4 + "♥ 4 liked".count)
    var pointer = Pointer(Size(80, 24), state: state)
    #expect(pointer.click(layout.like.upperBound - 1, layout.likeRow).release == .toggleLike)
  }

  @Test(
    "Prev on the first page still asks for .previous; the reducer ignores it",
    arguments: pointerSizes)
  func disabledPrevious(size: Size) throws {
    let first = PageFixture.playing(at: 0)
    let layout = try #require(PageLayout.make(width: size.width, height: size.height, state: first))
    var pointer = Pointer(size, state: first)
    let action = try #require(pointer.click(layout.previous.lowerBound, layout.controlsRow).release)
    #expect(action == .previous)
    var state = first
    let effects = reduce(&state, action)
    #expect(effects == [])
    #expect(state == first)
  }

  @Test("A press and release one column apart is still a click; two apart is not")
  func clickTolerance() throws {
    let layout = try #require(PageLayout.make(width: 80, height: 24, state: PageFixture.playing()))
    let x = layout.next.lowerBound + 2
    var pointer = Pointer(Size(80, 24))
    #expect(pointer.send(.press(button: 0), x, layout.controlsRow) == nil)
    #expect(pointer.send(.release, x + 1, layout.controlsRow) == .next)
    #expect(pointer.send(.press(button: 0), x, layout.controlsRow) == nil)
    #expect(pointer.send(.release, x + 2, layout.controlsRow) == nil)
  }

  @Test("Right and middle clicks, and a release with no press, do nothing")
  func otherButtons() throws {
    let layout = try #require(PageLayout.make(width: 80, height: 24, state: PageFixture.playing()))
    let (x, y) = (layout.next.lowerBound, layout.controlsRow)
    for button in [1, 2] {
      var pointer = Pointer(Size(80, 24))
      #expect(pointer.send(.press(button: button), x, y) == nil)
      #expect(pointer.send(.release, x, y) == nil, "button \(button)")
    }
    var pointer = Pointer(Size(80, 24))
    #expect(pointer.send(.release, x, y) == nil)
    // A completed click leaves nothing behind: a second release is not a second click.
    #expect(pointer.click(x, y).release == .next)
    #expect(pointer.send(.release, x, y) == nil)
  }
}

@Suite("PointerInput: seeking on the progress bar")
struct PointerSeekTests {
  @Test(
    "A click on the bar seeks there: first column 0, last column the duration",
    arguments: pointerSizes)
  func clickSeeks(size: Size) throws {
    let state = PageFixture.playing()
    let layout = try #require(PageLayout.make(width: size.width, height: size.height, state: state))
    let bar = layout.progressBar
    #expect(bar.count > 2)
    let y = layout.progressRow
    for x in bar {
      var pointer = Pointer(size)
      let expected = 35 * Double(x - bar.lowerBound) / Double(bar.count - 1)
      let result = pointer.click(x, y)
      guard case .seekTo(let target) = result.press else {
        Issue.record("\(size) column \(x): \(String(describing: result.press))")
        continue
      }
      #expect(abs(target - expected) < 1e-9, "\(size) column \(x)")
      #expect(result.release == nil, "the release after a seek is not a click or a swipe")
    }
    var pointer = Pointer(size)
    #expect(pointer.click(bar.lowerBound, y).press == .seekTo(0))
    #expect(pointer.click(bar.upperBound - 1, y).press == .seekTo(35))
  }

  @Test("The time labels beside the bar are not the bar", arguments: pointerSizes)
  func labelsAreNotTheBar(size: Size) throws {
    let layout = try #require(
      PageLayout.make(width: size.width, height: size.height, state: PageFixture.playing()))
    let y = layout.progressRow
    for x in [layout.margin, layout.progressBar.lowerBound - 1, layout.progressBar.upperBound] {
      var pointer = Pointer(size)
      let result = pointer.click(x, y)
      #expect(result.press == nil && result.release == nil, "\(size) column \(x)")
    }
  }

  @Test(
    "Dragging along the bar seeks at every step and clamps past its ends", arguments: pointerSizes)
  func dragSeeks(size: Size) throws {
    let layout = try #require(
      PageLayout.make(width: size.width, height: size.height, state: PageFixture.playing()))
    let bar = layout.progressBar
    let y = layout.progressRow
    let middle = bar.lowerBound + (bar.count - 1) / 2
    var pointer = Pointer(size)
    #expect(pointer.send(.press(button: 0), middle, y) != nil)
    #expect(pointer.send(.drag, bar.lowerBound, y) == .seekTo(0))
    #expect(pointer.send(.drag, 0, y) == .seekTo(0))
    #expect(pointer.send(.drag, size.width - 1, y) == .seekTo(35))
    // Off the row the column still counts: a hand is not that steady.
    #expect(pointer.send(.drag, bar.upperBound - 1, y - 3) == .seekTo(35))
    #expect(pointer.send(.drag, bar.lowerBound, 0) == .seekTo(0))
    // A drag from the bar that ends far to the left seeks; it does not also swipe.
    #expect(pointer.send(.release, bar.lowerBound, y) == nil)
    // The drag is over: motion without a held button seeks no more.
    #expect(pointer.send(.drag, middle, y) == nil)
  }

  @Test("Without a known duration a click on the bar does nothing")
  func noDuration() throws {
    var state = PageFixture.playing()
    state.duration = nil
    let layout = try #require(PageLayout.make(width: 80, height: 24, state: state))
    var pointer = Pointer(Size(80, 24), state: state)
    let result = pointer.click(layout.progressBar.lowerBound + 5, layout.progressRow)
    #expect(result.press == nil && result.release == nil)
  }

  @Test("A seek to the last column is clamped by the reducer to just before the end")
  func seekToEndThroughReducer() throws {
    let state = PageFixture.playing()
    let layout = try #require(PageLayout.make(width: 80, height: 24, state: state))
    var pointer = Pointer(Size(80, 24))
    let action = try #require(
      pointer.click(layout.progressBar.upperBound - 1, layout.progressRow).press)
    var reduced = state
    #expect(reduce(&reduced, action) == [.seek(to: 34.75, playID: state.playID)])
    #expect(reduced.position == 34.75)
  }
}

@Suite("PointerInput: swipes and the wheel")
struct PointerSwipeTests {
  @Test(
    "Dragging the page left 6 columns or more is next; right is previous", arguments: pointerSizes)
  func swipe(size: Size) {
    let y = 2
    let x = size.width / 2
    var pointer = Pointer(size)
    #expect(pointer.drag(from: x, to: x - 6, y: y).last == .next)
    #expect(pointer.drag(from: x, to: x + 6, y: y).last == .previous)
    #expect(pointer.drag(from: size.width - 1, to: 0, y: y).last == .next)
    // Only the release decides: the drag events on the way give nothing.
    #expect(pointer.drag(from: x, to: x - 8, y: y).dropLast().allSatisfy { $0 == nil })
  }

  @Test("A short drag, or a mostly vertical one, gives nothing", arguments: pointerSizes)
  func notASwipe(size: Size) {
    let x = size.width / 2
    var pointer = Pointer(size)
    #expect(pointer.drag(from: x, to: x - 5, y: 2).last == .some(nil))
    #expect(pointer.drag(from: x, to: x + 5, y: 2).last == .some(nil))
    #expect(pointer.drag(from: x, to: x, y: 1, toY: size.height - 2).last == .some(nil))
    #expect(pointer.drag(from: x, to: x - 6, y: 0, toY: 6).last == .some(nil))
  }

  @Test("A swipe that starts on a button swipes; it does not click")
  func swipeFromButton() throws {
    let layout = try #require(PageLayout.make(width: 80, height: 24, state: PageFixture.playing()))
    var pointer = Pointer(Size(80, 24))
    let x = layout.playPause.lowerBound
    #expect(pointer.drag(from: x, to: x + 10, y: layout.controlsRow).last == .previous)
  }

  @Test("Wheel up is previous, wheel down is next, anywhere", arguments: pointerSizes)
  func wheel(size: Size) {
    var pointer = Pointer(size)
    #expect(pointer.send(.wheelUp, 0, 0) == .previous)
    #expect(pointer.send(.wheelDown, size.width - 1, size.height - 1) == .next)
  }

  @Test(
    "With no layout (terminal too small) only the wheel does anything",
    arguments: [Size(29, 8), Size(30, 7), Size(20, 6), Size(1, 1)])
  func noLayout(size: Size) {
    var pointer = Pointer(size)
    #expect(pointer.layout == nil)
    for x in 0..<size.width {
      for y in 0..<size.height {
        let result = pointer.click(x, y)
        #expect(result.press == nil && result.release == nil, "\(size) at \(x),\(y)")
      }
    }
    #expect(pointer.drag(from: size.width - 1, to: 0, y: 0).allSatisfy { $0 == nil })
    #expect(pointer.send(.wheelUp, 0, 0) == .previous)
    #expect(pointer.send(.wheelDown, 0, 0) == .next)
  }
}
