/// The page's short animations: view state the view model keeps beside `PlayerState`, so the
/// reducer's rules stay about the player, not about frames.
public struct PageMotion: Equatable, Sendable {
  /// A page sliding in after a change of song.
  public struct Slide: Equatable, Sendable {
    /// The page sliding out.
    public var from: Int
    /// +1: the new page comes in from the right (next); -1: from the left (previous).
    public var direction: Int
    /// Frames left; the slide ends at 0.
    public var remaining: Int

    /// How far the new page has come in, 0 (not yet) to 1 (in place).
    public var progress: Double {
      1 - Double(remaining) / Double(PageMotion.slideFrames)
    }
  }

  public var slide: Slide?
  /// A cover fading in: the song it belongs to and the frames left.
  public var fade: (songID: String, remaining: Int)?

  /// Frames a cover takes to fade in.
  public static let fadeFrames = 8

  public static func == (a: PageMotion, b: PageMotion) -> Bool {
    a.slide == b.slide && a.fade?.songID == b.fade?.songID && a.fade?.remaining == b.fade?.remaining
  }

  /// How far a song's cover has faded in, 0 (dark) to 1 (whole).
  public func fadeProgress(for songID: String) -> Double {
    guard let fade, fade.songID == songID else { return 1 }
    return 1 - Double(fade.remaining) / Double(Self.fadeFrames)
  }

  /// Starts the fade-in of a cover that has just arrived.
  public mutating func coverArrived(for songID: String) {
    fade = (songID, Self.fadeFrames)
  }

  /// Frames a slide lasts (at the fast tick, about 200 ms).
  public static let slideFrames = 6

  public init(slide: Slide? = nil) {
    self.slide = slide
  }

  public var isAnimating: Bool { slide != nil || fade != nil }

  /// Starts a slide when the page changed.
  public mutating func pageChanged(from old: Int, to new: Int) {
    guard old != new else { return }
    slide = Slide(from: old, direction: new > old ? 1 : -1, remaining: Self.slideFrames)
  }

  /// One frame on.
  public mutating func advance() {
    if let current = fade {
      fade = current.remaining > 1 ? (current.songID, current.remaining - 1) : nil
    }
    guard let current = slide else { return }
    slide =
      current.remaining > 1
      ? Slide(from: current.from, direction: current.direction, remaining: current.remaining - 1)
      : nil
  }

  /// Ends every animation at once (a key press skips them).
  public mutating func finish() {
    slide = nil
    fade = nil
  }
}
