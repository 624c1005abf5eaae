import RiffleCore
import Testing

@testable import RiffleTUI

@Suite("The page over a picture")
struct PagePictureTests {
  /// A cover with a picture for an 80x24 page.
  static func cover() throws -> CoverCells {
    let image = RGBAImage(width: 8, height: 8, red: 200, green: 100, blue: 50)
    var cells = CoverArt.render(image, width: 80, height: 24, mode: .trueColor)
    let picture = try #require(
      CoverPicture.make(
        image, key: "p", columns: 80, rows: 24, cellPixels: (8, 16), darkRows: 7, darkening: 0.65))
    cells.picture = picture
    return cells
  }

  @Test("still and with nothing over it: the picture under default cells, the text on top")
  func still() throws {
    let cover = try Self.cover()
    let state = PageFixture.playing()
    let screen = PageView().render(state, width: 80, height: 24) { _ in cover }
    #expect(screen.picture == cover.picture)
    // The cover's cells are not drawn: blanks with the terminal's own background.
    #expect(screen[40, 5] == Cell(" "))
    #expect(screen[0, 23].style.background == .default)
    #expect(screen.text.contains("Paper Lanterns"))
    // Text over the picture has no background of its own either.
    let title = try #require(screen.lines.firstIndex { $0.contains("Paper Lanterns") })
    #expect(screen[4, title].style.background == .default)
  }

  @Test("a slide, a fade or an overlay draws the cells instead (no picture)")
  func moving() throws {
    let cover = try Self.cover()
    let state = PageFixture.playing()
    var slide = PageMotion()
    slide.pageChanged(from: 0, to: 1)
    #expect(
      PageView().render(state, motion: slide, width: 80, height: 24) { _ in cover }.picture == nil)
    var fade = PageMotion()
    fade.coverArrived(for: state.songs[1].id)
    #expect(
      PageView().render(state, motion: fade, width: 80, height: 24) { _ in cover }.picture == nil)
    for overlay in [PlayerState.Overlay.help, .lyrics] {
      var over = state
      over.overlay = overlay
      let screen = PageView().render(over, width: 80, height: 24) { _ in cover }
      #expect(screen.picture == nil)
      #expect(screen[40, 2].style.background != .default, "the cover's cells are drawn")
    }
    // A picture for another size is not used.
    let small = PageView().render(state, width: 81, height: 24) { _ in cover }
    #expect(small.picture == nil)
  }
}
