import Foundation
import RiffleCore
import Testing

@testable import RiffleTUI

/// Lyrics as LRCLIB would give them for the fixture songs.
enum LyricsFixture {
  static let synced = SyncedLyrics(
    [
      "Lanterns rise above the bay", "Paper hearts that drift away", "",
      "Every light a word unsaid",
      "Carried where the stars are fed", "Hold the flame and let it go",
      "Down the river, soft and slow",
      "Paper lanterns, paper lanterns", "Find your way back home",
    ].enumerated().map { LyricLine(time: Double(4 + 3 * $0.offset), text: $0.element) })

  static let plain = (1...40).map { $0 % 5 == 0 ? "" : "Plain line number \($0) of the song" }

  /// Wide characters and every trick a server could send inside lyrics.
  static let hostile = SyncedLyrics([
    LyricLine(time: 0, text: "夜明けのプレリュード🌅東京の雨に濡れた街角で君を待つ🎹🌧️さよならは言わないで"),
    LyricLine(
      time: 1, text: "\u{1B}]0;pwned\u{07}\u{1B}[31mRed\u{1B}[0m \u{202E}line\u{202C}\u{9B}5m"),
    LyricLine(time: 2, text: "end"),
  ])

  /// Page 2 of 3 playing at `position`, with the lyrics overlay showing `phase`.
  static func showing(
    _ phase: PlayerState.LyricsPanel.Phase, position: Double = 14.5, scroll: Int = 0
  ) -> PlayerState {
    var state = PageFixture.playing(position: position)
    state.overlay = .lyrics
    state.lyrics = .init(songID: state.songs[1].id, phase: phase, scroll: scroll)
    return state
  }
}

/// Each lyrics screen, by name.
enum LyricsScene: String, CaseIterable, Sendable, CustomStringConvertible {
  case syncedMiddle, syncedBeforeFirst, syncedPaused, plainTop, plainScrolled, plainShort
  case loading, notFound, instrumental, failedRetrying, hostile

  var description: String { "lyrics-\(rawValue)" }

  var state: PlayerState {
    switch self {
    case .syncedMiddle: return LyricsFixture.showing(.loaded(.synced(LyricsFixture.synced)))
    case .syncedBeforeFirst:
      return LyricsFixture.showing(.loaded(.synced(LyricsFixture.synced)), position: 1)
    case .syncedPaused:
      var state = LyricsFixture.showing(.loaded(.synced(LyricsFixture.synced)), position: 25.5)
      state.playback = .paused
      return state
    case .plainTop: return LyricsFixture.showing(.loaded(.plain(LyricsFixture.plain)))
    case .plainScrolled:
      return LyricsFixture.showing(.loaded(.plain(LyricsFixture.plain)), scroll: 12)
    case .plainShort:
      return LyricsFixture.showing(.loaded(.plain(["Only", "three", "lines"])))
    case .loading: return LyricsFixture.showing(.loading)
    case .notFound: return LyricsFixture.showing(.loaded(.notFound))
    case .instrumental: return LyricsFixture.showing(.loaded(.instrumental))
    case .failedRetrying:
      return LyricsFixture.showing(.failed("No connection to lrclib.net: retrying in 4 s"))
    case .hostile:
      return LyricsFixture.showing(.loaded(.synced(LyricsFixture.hostile)), position: 1.5)
    }
  }
}

@Suite("Lyrics view")
struct LyricsViewTests {
  @Test(
    "Each lyrics scene at each size matches its snapshot",
    arguments: LyricsScene.allCases, [Size(80, 24), Size(40, 12)])
  func scene(_ scene: LyricsScene, size: Size) {
    let screen = PageView().render(scene.state, width: size.width, height: size.height)
    assertSnapshot(screen, named: "\(scene)-\(size)")
  }

  /// The row and text of the line drawn in the accent colour, bold.
  static func highlighted(_ screen: Screen) -> (row: Int, text: String)? {
    for y in 0..<screen.height {
      let cells = (0..<screen.width).filter {
        screen[$0, y].style.bold && screen[$0, y].style.foreground == Theme.standard.accent
          && screen[$0, y].text != " "
      }
      if !cells.isEmpty {
        return (y, screen.lines[y].trimmingCharacters(in: .whitespaces))
      }
    }
    return nil
  }

  @Test("The line being sung is highlighted on the middle row and moves on with the position")
  func highlightFollowsPosition() throws {
    let area = try #require(LyricsView.area(width: 80, height: 24))
    let middle = area.lowerBound + area.count / 2
    for (index, line) in LyricsFixture.synced.lines.enumerated() where !line.text.isEmpty {
      for position in [line.time, line.time + 2.99] {
        let state = LyricsFixture.showing(
          .loaded(.synced(LyricsFixture.synced)), position: position)
        let screen = PageView().render(state, width: 80, height: 24)
        let found = try #require(Self.highlighted(screen), "at \(position)")
        #expect(found.row == middle, "line \(index) at \(position)")
        #expect(found.text == line.text, "at \(position)")
        // The line before is above it, muted; the next one below.
        if index > 0, !LyricsFixture.synced.lines[index - 1].text.isEmpty {
          #expect(screen.lines[middle - 1].contains(LyricsFixture.synced.lines[index - 1].text))
        }
      }
    }
  }

  @Test("Before the first line nothing is highlighted; a pause line shows a note")
  func beforeFirstAndPause() throws {
    let before = PageView().render(LyricsScene.syncedBeforeFirst.state, width: 80, height: 24)
    #expect(Self.highlighted(before) == nil)
    #expect(before.text.contains("Lanterns rise above the bay"))
    let pause = PageView().render(
      LyricsFixture.showing(.loaded(.synced(LyricsFixture.synced)), position: 10.5), width: 80,
      height: 24)
    #expect(Self.highlighted(pause)?.text == "♪")
  }

  @Test("States are said in words")
  func statesInWords() {
    func text(_ scene: LyricsScene) -> String {
      PageView().render(scene.state, width: 80, height: 24).text
    }
    #expect(text(.loading).contains("Loading lyrics…"))
    #expect(text(.notFound).contains("No lyrics found for this song"))
    #expect(text(.instrumental).contains("Instrumental"))
    #expect(text(.failedRetrying).contains("No connection to lrclib.net: retrying in 4 s"))
    #expect(text(.failedRetrying).contains("r tries again"))
    // The band below stays: title and progress are still there.
    #expect(text(.notFound).contains("Paper Lanterns"))
    #expect(text(.notFound).contains("0:14"))
  }

  @Test("Plain lyrics show from the scroll line, with arrows where there is more")
  func plainScroll() throws {
    let top = PageView().render(LyricsScene.plainTop.state, width: 80, height: 24)
    let area = try #require(LyricsView.area(width: 80, height: 24))
    #expect(top.lines[area.lowerBound].contains("Plain line number 1 of"))
    #expect(!top.lines[area.lowerBound].contains("▲"))
    #expect(top.lines[area.upperBound - 1].contains("▼"))
    let scrolled = PageView().render(LyricsScene.plainScrolled.state, width: 80, height: 24)
    #expect(scrolled.lines[area.lowerBound].contains("Plain line number 13 of"))
    #expect(scrolled.lines[area.lowerBound].contains("▲"))
    // Past the last full page, the last page shows.
    let end = PageView().render(
      LyricsFixture.showing(.loaded(.plain(LyricsFixture.plain)), scroll: 39), width: 80,
      height: 24)
    // (Line 40 is a blank verse break.)
    #expect(end.lines[area.upperBound - 2].contains("Plain line number 39 of"))
    #expect(!end.lines[area.upperBound - 1].contains("▼"))
  }

  @Test("Scroll keys become exact scrolls for the screen: pages, and no scrolling past the end")
  func resolveScroll() throws {
    let rows = try #require(LyricsView.area(width: 80, height: 24)).count
    let lines = LyricsFixture.plain.count
    let state = LyricsScene.plainTop.state
    func resolve(_ action: PlayerAction, _ state: PlayerState) -> PlayerAction? {
      LyricsView.resolve(action, state: state, width: 80, height: 24)
    }
    #expect(resolve(.scrollLyrics(1), state) == .scrollLyrics(1))
    #expect(resolve(.scrollLyrics(-1), state) == .scrollLyrics(0))
    #expect(resolve(.pageLyrics(1), state) == .scrollLyrics(rows - 1))
    #expect(resolve(.pageLyrics(5), state) == .scrollLyrics(lines - rows))
    // Scrolled beyond the last full page (a taller terminal before): back to it, then on.
    let beyond = LyricsFixture.showing(.loaded(.plain(LyricsFixture.plain)), scroll: 39)
    #expect(resolve(.scrollLyrics(1), beyond) == .scrollLyrics(lines - rows - 39))
    #expect(resolve(.scrollLyrics(-1), beyond) == .scrollLyrics(lines - rows - 1 - 39))
    // Anything else passes through; scrolling means nothing without plain lyrics shown.
    #expect(resolve(.next, state) == .next)
    #expect(resolve(.pageLyrics(1), LyricsScene.syncedMiddle.state) == nil)
    #expect(resolve(.scrollLyrics(1), PageFixture.playing()) == nil)
  }

  @Test(
    "Any size: rows as wide as the screen, wide characters whole, no controls",
    arguments: LyricsScene.allCases)
  func everySize(_ scene: LyricsScene) {
    let state = scene.state
    for width in [1, 10, 29, 30, 31, 47, 80, 133, 200] {
      for height in [1, 3, 8, 9, 10, 11, 12, 24, 60] {
        let screen = PageView().render(state, width: width, height: height)
        expectWellFormed(screen, "\(scene) at \(width)x\(height)")
        #expect(!screen.text.contains("pwned"))
      }
    }
  }

  @Test("Over a cover the page shows through darkened behind the words")
  func darkensArt() throws {
    let state = LyricsScene.syncedMiddle.state
    let art = CoverCells(
      width: 80, height: 24,
      cells: Array(
        repeating: Cell(
          "▀", style: CellStyle(foreground: .rgb(200, 100, 40), background: .rgb(160, 80, 40))),
        count: 80 * 24))
    let screen = PageView().render(state, width: 80, height: 24) { _ in art }
    let area = try #require(LyricsView.area(width: 80, height: 24))
    let middle = area.lowerBound + area.count / 2
    #expect(screen[0, middle].style.background == .rgb(40, 20, 10))
    let row = screen.lines[middle]
    #expect(row.contains("Every light a word unsaid"))
    let x = try #require(row.firstIndex(of: "E")).utf16Offset(in: row)
    #expect(screen[x, middle].style.background == .rgb(40, 20, 10))
    #expect(screen[x, middle].style.foreground == Theme.standard.accent)
  }
}

@Suite("Lyrics view: wrapping notices")
struct LyricsWrapTests {
  @Test("Words wrap at spaces within the width; a word too long stands alone")
  func wrap() {
    #expect(
      LyricsView.wrap("No connection to lrclib.net: retrying in 4 s", width: 20) == [
        "No connection to", "lrclib.net: retrying", "in 4 s",
      ])
    #expect(LyricsView.wrap("short", width: 20) == ["short"])
    #expect(LyricsView.wrap("averyveryverylongword x", width: 8) == ["averyveryverylongword", "x"])
    #expect(LyricsView.wrap("東京の雨 に濡れた", width: 9) == ["東京の雨", "に濡れた"])
  }
}
