/// The colours the page is drawn with.
public struct Theme: Equatable, Sendable {
  public var text: Color = .rgb(240, 240, 245)
  public var muted: Color = .rgb(170, 170, 185)
  public var accent: Color = .rgb(255, 90, 120)
  public var band: Color = .rgb(14, 14, 20)
  public var error: Color = .rgb(255, 110, 90)
  public var progress: Color = .rgb(250, 250, 255)
  public var progressTrack: Color = .rgb(80, 80, 95)

  public init() {}

  public static let standard = Theme()
}
