import Foundation
import RiffleCore
import Testing

@testable import RiffleTUI

/// A terminal size a page is rendered at.
struct Size: Sendable, CustomStringConvertible {
  var width: Int
  var height: Int

  init(_ width: Int, _ height: Int) {
    self.width = width
    self.height = height
  }

  var description: String { "\(width)x\(height)" }
}

/// Songs and player states the page is drawn in.
enum PageFixture {
  static let songs = [
    Song(
      id: "8f1c2a9e-5b7d-4c3e-9a61-0d2f4e6b8c10", title: "Neon Tide", displayName: "Mira Sol",
      handle: "mirasol", audioURL: URL(string: "https://cdn1.example.com/8f1c2a9e.mp3")!,
      likeCount: 1234, duration: 35),
    Song(
      id: "b3d90e14-77a2-4f0b-8c5e-2e9a1f7d6c43", title: "Paper Lanterns",
      displayName: "Oskar Vale", handle: "oskarvale",
      audioURL: URL(string: "https://cdn1.example.com/b3d90e14.mp3")!, likeCount: 3, duration: 35),
    Song(
      id: "f02e6c71-1a9d-4b88-b5f3-7c4d0e9a2b65", title: "Slow Orbit", displayName: "Juno Reyes",
      handle: "junoreyes", audioURL: URL(string: "https://cdn1.example.com/f02e6c71.mp3")!,
      likeCount: 0, duration: 35),
  ]

  /// Far wider than any terminal: CJK and emoji (one with a variation selector), all two
  /// columns wide, so a cut can land in the middle of one.
  static let wideTitle =
    "夜明けのプレリュード🌅東京の雨に濡れた街角で君を待つ🎹🌧️さよならは言わないで"
    + "、もう一度だけ踊ろう💃星降る夜の約束をずっと忘れない"

  static let longTitle =
    "An Extraordinarily Long Song Title That Keeps Going Well Past the Edge of Any Reasonable "
    + "Terminal Window (Extended Club Mix)"

  /// Every trick a server could try: OSC title change, clear screen, colours, a hyperlink,
  /// C1 CSI, BEL, bidi override and isolate, and a line break.
  static let hostileTitle =
    "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31mRed Alert\u{1B}[0m \u{202E}desrever\u{202C} "
    + "\u{9B}5mBlink\u{2066}\u{2067}isolated\u{2069} \u{1B}]8;;https://evil.example\u{1B}\\link"
    + "\u{1B}]8;;\u{1B}\\\nend"

  /// The feed loaded and page `index` playing, 12 s into a 35 s song.
  static func playing(
    at index: Int = 1, playback: PlayerState.Playback = .playing, position: Double = 12
  ) -> PlayerState {
    var state = PlayerState()
    state.source = PageSource(kind: .feed(URL(string: "https://studio-api.example.com/feed")!))
    state.songs = songs
    state.index = index
    state.playID = index + 1
    state.playback = playback
    state.position = position
    state.duration = 35
    return state
  }

  static func playing(titled title: String) -> PlayerState {
    var state = playing()
    state.songs[1].title = title
    return state
  }
}

/// Each screen the page can show, by name.
enum Scene: String, CaseIterable, Sendable, CustomStringConvertible {
  case loading, playing, paused, liked, likePulse, firstPage, lastPage, longTitle, wideTitle
  case hostileTitle, errorMessage, help, feedFailed, listening
  case searchPrompt, searching, searchResult, libraryPreview

  var description: String { rawValue }

  var state: PlayerState {
    switch self {
    case .loading:
      var state = PlayerState()
      state.opening = PageSource(
        kind: .feed(URL(string: "https://studio-api.example.com/feed")!), phase: .loading)
      return state
    case .playing:
      return PageFixture.playing()
    case .paused:
      return PageFixture.playing(playback: .paused)
    case .liked:
      var state = PageFixture.playing()
      state.songs[1] = state.songs[1].togglingLike()
      return state
    case .likePulse:
      // Two frames after the press: the heart is still doubled and the spark shows.
      var state = Scene.liked.state
      state.likePulse = PlayerState.likePulseFrames - 2
      return state
    case .firstPage:
      return PageFixture.playing(at: 0)
    case .lastPage:
      return PageFixture.playing(at: 2)
    case .longTitle:
      return PageFixture.playing(titled: PageFixture.longTitle)
    case .wideTitle:
      return PageFixture.playing(titled: PageFixture.wideTitle)
    case .hostileTitle:
      var state = PageFixture.playing(titled: PageFixture.hostileTitle)
      state.songs[1].displayName = "DJ \u{1B}[5mBlink\u{1B}[0m\u{202D}"
      state.songs[1].handle = "evil\u{07}\u{9D}0;x\u{9C}"
      state.message = .init(.info, "from server: \u{1B}[1mbold\u{1B}[0m\u{2067}")
      return state
    case .errorMessage:
      var state = PageFixture.playing()
      state.message = .init(.error, "Could not save the like: disk is full")
      return state
    case .help:
      var state = PageFixture.playing()
      state.overlay = .help
      return state
    case .searchPrompt:
      var state = PageFixture.playing()
      state.overlay = .search
      state.search = SearchPrompt(text: "daft punk 🎧")
      return state
    case .libraryPreview:
      // Search as you type over the library: the results drawn over the song playing.
      var state = PageFixture.playing()
      state.source = PageSource(kind: .library(.all))
      state.overlay = .search
      state.search = SearchPrompt(text: "bj")
      state.search?.target = .library
      var result = state.songs[1]
      result.title = "Army of Me"
      result.displayName = "Björk"
      state.preview = SearchPreview(
        term: "bj", songs: [result, state.songs[2]], next: .offset(25, limit: 100))
      return state
    case .searching:
      var state = PageFixture.playing()
      state.opening = PageSource(kind: .search("daft punk"), phase: .loading)
      return state
    case .searchResult:
      var state = PageFixture.playing()
      state.source = PageSource(kind: .search("daft punk"))
      state.songs[1].handle = ""
      state.songs[1].album = "Discovery"
      state.message = .init(.info, "Results for “daft punk”")
      return state
    case .listening:
      // `i` pressed 3.4 s ago, the room at half the meter.
      var state = PageFixture.playing()
      state.identify = .listening(level: 0.5, seconds: 3.4)
      return state
    case .feedFailed:
      var state = PlayerState()
      let reason = "No connection to studio-api.example.com"
      state.opening = PageSource(
        kind: .feed(URL(string: "https://studio-api.example.com/feed")!), phase: .failed(reason))
      state.message = .init(.error, reason)
      return state
    }
  }
}

let snapshotSizes = [Size(80, 24), Size(120, 40), Size(40, 12), Size(30, 8)]

/// Scalars that must never reach a cell: C0 and C1 controls, DEL and bidi formatting.
func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
  switch scalar.value {
  case 0x00...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069:
    return true
  default:
    return false
  }
}

/// Wide characters are whole: each is followed by its continuation cell, and every
/// continuation cell follows a wide character. Returns the first broken cell, if any.
func brokenWideCell(in screen: Screen) -> (x: Int, y: Int)? {
  for y in 0..<screen.height {
    var expectContinuation = false
    for x in 0..<screen.width {
      let cell = screen[x, y]
      if cell.isContinuation != expectContinuation { return (x, y) }
      expectContinuation = !cell.isContinuation && DisplayWidth.of(cell.text) == 2
    }
    if expectContinuation { return (screen.width - 1, y) }
  }
  return nil
}

/// Every row exactly as wide as the screen, wide characters whole, no control in any cell.
func expectWellFormed(
  _ screen: Screen, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  let lines = screen.lines
  let wrongRows = lines.indices.filter { DisplayWidth.of(lines[$0]) != screen.width }
  #expect(wrongRows.isEmpty, "\(label): rows \(wrongRows)", sourceLocation: sourceLocation)
  if let cell = brokenWideCell(in: screen) {
    Issue.record("\(label): broken wide character at \(cell)", sourceLocation: sourceLocation)
  }
  let scalars = screen.cells.flatMap { $0.text.unicodeScalars }
  #expect(!scalars.contains(where: isForbidden), "\(label)", sourceLocation: sourceLocation)
}

@Suite("Page view snapshots")
struct PageViewSnapshotTests {
  @Test("Each scene at each size matches its snapshot", arguments: Scene.allCases, snapshotSizes)
  func scene(_ scene: Scene, size: Size) {
    let screen = PageView().render(scene.state, width: size.width, height: size.height)
    assertSnapshot(screen, named: "\(scene)-\(size)")
  }

  @Test(
    "Below 30x8 the page is replaced by a notice",
    arguments: [Size(29, 8), Size(30, 7), Size(10, 3), Size(1, 1)])
  func tooSmall(size: Size) {
    let screen = PageView().render(PageFixture.playing(), width: size.width, height: size.height)
    assertSnapshot(screen, named: "tooSmall-\(size)")
    #expect(!screen.text.contains("Paper Lanterns"))
    #expect(screen.text.contains(size.width >= 18 ? "Terminal too small" : "…"))
  }

  @Test("At 30x8, the smallest size, the page is drawn, not the notice")
  func smallestPage() {
    let screen = PageView().render(PageFixture.playing(), width: 30, height: 8)
    #expect(screen.text.contains("Paper Lanterns"))
    #expect(!screen.text.contains("too small"))
  }

  @Test(
    "A title too wide is cut with an ellipsis between whole wide characters",
    arguments: snapshotSizes)
  func wideTitleCut(size: Size) throws {
    let screen = PageView().render(
      Scene.wideTitle.state, width: size.width, height: size.height)
    let titleRow = screen.lines[size.height - 7]
    let title = titleRow.trimmingCharacters(in: .whitespaces)
    #expect(title.hasPrefix("夜明け"))
    #expect(title.hasSuffix("…"))
    #expect(brokenWideCell(in: screen) == nil)
    // The cut leaves at most one column unused inside the margins (a wide character that did
    // not fit beside the ellipsis).
    let margin = size.width >= 60 ? 4 : 2
    #expect(DisplayWidth.of(title) >= size.width - 2 * margin - 1)
    #expect(DisplayWidth.of(title) <= size.width - 2 * margin)
  }

  @Test("A long title is cut with an ellipsis inside the margins", arguments: snapshotSizes)
  func longTitleCut(size: Size) {
    let screen = PageView().render(
      Scene.longTitle.state, width: size.width, height: size.height)
    let margin = size.width >= 60 ? 4 : 2
    let titleRow = screen.lines[size.height - 7]
    #expect(titleRow.hasPrefix(String(repeating: " ", count: margin) + "An Extra"))
    // The ellipsis ends the title within the margins, a space cut before it dropped.
    let end = titleRow.dropLast(margin)
    #expect(end.hasSuffix("…") || end.hasSuffix("… "), "\(titleRow)")
    #expect(titleRow.hasSuffix(String(repeating: " ", count: margin)))
  }

  @Test(
    "Nothing of a hostile title, artist or message reaches a cell as a control",
    arguments: snapshotSizes)
  func hostileTextIsDefused(size: Size) {
    let screen = PageView().render(
      Scene.hostileTitle.state, width: size.width, height: size.height)
    let scalars = screen.cells.flatMap { $0.text.unicodeScalars }
    #expect(!scalars.contains(where: isForbidden))
    #expect(!screen.text.contains("pwned"))
    #expect(!screen.text.contains("evil.example"))
    #expect(!screen.text.contains("[31m"))
    #expect(screen.text.contains("Red Alert"))
  }

  @Test("Prev is drawn dim on the first page and Next on the last; both bold in between")
  func disabledControls() throws {
    func controlStyles(_ state: PlayerState) throws -> (prev: CellStyle, next: CellStyle) {
      let screen = PageView().render(state, width: 80, height: 24)
      let row = 24 - 3
      let line = screen.lines[row]
      let prev = try #require(line.range(of: "|◀ Prev"))
      let next = try #require(line.range(of: "Next ▶|"))
      let prevX = line.distance(from: line.startIndex, to: prev.lowerBound)
      let nextX = line.distance(from: line.startIndex, to: next.lowerBound)
      return (screen[prevX, row].style, screen[nextX, row].style)
    }
    let first = try controlStyles(PageFixture.playing(at: 0))
    let middle = try controlStyles(PageFixture.playing(at: 1))
    let last = try controlStyles(PageFixture.playing(at: 2))
    #expect(first.prev.dim && !first.next.dim)
    #expect(!middle.prev.dim && !middle.next.dim && middle.prev.bold && middle.next.bold)
    #expect(!last.prev.dim && last.next.dim)
  }

  @Test("The liked heart is filled and in the accent colour; unliked it is hollow and muted")
  func heart() throws {
    let liked = PageView().render(Scene.liked.state, width: 80, height: 24)
    let unliked = PageView().render(Scene.playing.state, width: 80, height: 24)
    let row = 24 - 5
    #expect(liked.lines[row].hasPrefix("    ♥ 4 liked"))
    #expect(liked[4, row].style.foreground == Theme.standard.accent)
    #expect(unliked.lines[row].hasPrefix("    ♡ 3"))
    #expect(unliked[4, row].style.foreground == Theme.standard.muted)
  }

  /// Every state below with every size of a coarse grid from 1x1 to 400x120: nothing crashes,
  /// every row is exactly as wide as the screen, wide characters are whole and no control
  /// character reaches a cell. (The help overlay over a wide title is in Regressions.swift.)
  @Test(
    "Any size renders rows exactly as wide as the screen",
    arguments: [
      Scene.loading, .playing, .likePulse, .wideTitle, .hostileTitle, .errorMessage, .help,
      .feedFailed,
    ])
  func everySize(_ scene: Scene) {
    let widths = [1, 2, 5, 10, 29, 30, 31, 47, 80, 133, 200, 400]
    let heights = [1, 2, 3, 7, 8, 9, 24, 60, 120]
    let state = scene.state
    for width in widths {
      for height in heights {
        let screen = PageView().render(state, width: width, height: height)
        #expect(screen.width == width && screen.height == height)
        expectWellFormed(screen, "\(scene) at \(width)x\(height)")
      }
    }
  }
}

@Suite("Listening indicator")
struct ListeningIndicatorTests {
  @Test("the meter fills with the level and the seconds count up to 10")
  func meter() {
    func row(_ level: Double, _ seconds: Double) -> (title: String, meter: String) {
      var state = PageFixture.playing()
      state.identify = .listening(level: level, seconds: seconds)
      let lines = PageView().render(state, width: 80, height: 24).lines
      let title = lines.firstIndex { $0.contains("Listening") }!
      return (lines[title], lines[title + 1])
    }
    let quiet = row(0, 0)
    let loud = row(1, 9.9)
    let half = row(0.5, 4)
    #expect(quiet.title.contains("0 s / 10 s"))
    #expect(loud.title.contains("9 s / 10 s"))
    #expect(!quiet.meter.contains("█") && quiet.meter.filter { $0 == "░" }.count == 30)
    #expect(!loud.meter.contains("░") && loud.meter.filter { $0 == "█" }.count == 30)
    #expect(half.meter.filter { $0 == "█" }.count == 15)
  }

  @Test("no indicator when not listening")
  func hidden() {
    let screen = PageView().render(PageFixture.playing(), width: 80, height: 24)
    #expect(!screen.text.contains("Listening"))
  }
}
