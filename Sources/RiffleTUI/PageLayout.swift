import RiffleCore

/// Where each part of the page is, for a size and a state. Drawing and mouse hit-testing both
/// read it, so a click always lands on what is drawn there.
public struct PageLayout: Equatable, Sendable {
  public var width: Int
  public var height: Int
  public var margin: Int
  /// Columns between the margins.
  public var inner: Int
  /// First row of the darkened band (title) ; the band runs to the bottom.
  public var bandTop: Int
  public var titleRow: Int { bandTop }
  public var artistRow: Int { bandTop + 1 }
  public var likeRow: Int { bandTop + 2 }
  public var progressRow: Int { bandTop + 3 }
  public var controlsRow: Int { bandTop + 4 }
  public var statusRow: Int { bandTop + 5 }
  public var hintsRow: Int { bandTop + 6 }
  /// Columns of the heart and count on `likeRow`.
  public var like: Range<Int>
  /// Columns of the bar itself on `progressRow` (without the time labels).
  public var progressBar: Range<Int>
  /// Columns of the buttons on `controlsRow`.
  public var previous: Range<Int>
  public var playPause: Range<Int>
  public var next: Range<Int>
  /// The labels drawn for the buttons.
  public var labels: (previous: String, playPause: String, next: String, gap: String)

  public static func == (a: PageLayout, b: PageLayout) -> Bool {
    a.width == b.width && a.height == b.height && a.bandTop == b.bandTop && a.like == b.like
      && a.progressBar == b.progressBar && a.previous == b.previous
      && a.playPause == b.playPause && a.next == b.next
  }

  /// The layout of a song page, or nil when the terminal is too small for one.
  public static func make(width: Int, height: Int, state: PlayerState) -> PageLayout? {
    guard width >= PageView.minimumSize.width, height >= PageView.minimumSize.height else {
      return nil
    }
    let margin = width >= 60 ? 4 : 2
    let inner = width - 2 * margin
    let bandTop = height - 7

    let likeWidth: Int = {
      guard let song = state.currentSong else { return 1 }
      return 2 + DisplayWidth.of(PageView.grouped(song.likeCount)) + (song.isLiked ? 6 : 0)
    }()

    let elapsed = DisplayWidth.of(formatTime(state.position))
    let total = DisplayWidth.of(state.duration.map(formatTime) ?? "-:--")
    let barStart = margin + elapsed + 1
    let barWidth = max(0, inner - elapsed - total - 2)

    // Words where there is room, symbols where there is not; the play label keeps one width so
    // the row does not shift when it changes.
    let roomy = width >= 44
    let isPlaying = [.playing, .buffering, .loading].contains(state.playback)
    let play = roomy ? (isPlaying ? "❚❚ Pause" : " ▶ Play ") : (isPlaying ? "❚❚" : "▶ ")
    let labels = (
      previous: roomy ? "|◀ Prev" : "|◀", playPause: play, next: roomy ? "Next ▶|" : "▶|",
      gap: roomy ? "     " : "    "
    )
    let widths = [labels.previous, labels.gap, labels.playPause, labels.gap, labels.next].map(
      DisplayWidth.of)
    let start = max(0, (width - widths.reduce(0, +)) / 2)
    let previous = start..<start + widths[0]
    let playPause = previous.upperBound + widths[1]..<previous.upperBound + widths[1] + widths[2]
    let nextStart = playPause.upperBound + widths[3]
    return PageLayout(
      width: width, height: height, margin: margin, inner: inner, bandTop: bandTop,
      like: margin..<margin + likeWidth, progressBar: barStart..<barStart + barWidth,
      previous: previous, playPause: playPause, next: nextStart..<nextStart + widths[4],
      labels: labels)
  }

  /// The point in the song a column of the progress bar stands for, as a fraction 0...1.
  public func progressFraction(atColumn x: Int) -> Double? {
    guard progressBar.count > 1 else { return nil }
    let clamped = min(max(x, progressBar.lowerBound), progressBar.upperBound - 1)
    return Double(clamped - progressBar.lowerBound) / Double(progressBar.count - 1)
  }
}
