import Foundation

/// How often the screen must be drawn again for what moves on it.
public enum TickerPace: Equatable, Sendable {
  /// Animations (slides, the like's pop, fades): about 30 frames a second.
  case animation
  /// A spinner turns (loading, buffering, a search on its way): ten times a second.
  case spinner
  /// Once, after this many seconds: when a playing song's clock or progress bar will next show
  /// something new. The owner asks again on every tick, so the wake-ups follow the song.
  case once(after: Double)
}

/// A timer on the main queue that can be started, re-paced and stopped; tests drive a manual one.
@MainActor
public protocol Ticker: AnyObject {
  var isRunning: Bool { get }
  /// The pace it runs at, nil when stopped.
  var pace: TickerPace? { get }
  /// Starts ticking at `pace`, or changes the pace of a running timer (a `once` wake-up is set
  /// again from now each time it is asked for).
  func start(_ pace: TickerPace, _ handler: @escaping @MainActor () -> Void)
  func stop()
}

extension Ticker {
  /// True when ticking at the animation rate.
  public var isFast: Bool { pace == .animation }
}

/// The live ticker: a DispatchSourceTimer on the main queue, cancelled when stopped, so an idle
/// or paused player has no timer waking it.
@MainActor
public final class DispatchTicker: Ticker {
  private var timer: DispatchSourceTimer?
  private let spinner: DispatchTimeInterval
  private let animation: DispatchTimeInterval
  public private(set) var pace: TickerPace?

  /// `spinner` turns spinners; `animation` drives animations (about 30 frames/s).
  public init(
    spinner: DispatchTimeInterval = .milliseconds(100),
    animation: DispatchTimeInterval = .milliseconds(33)
  ) {
    self.spinner = spinner
    self.animation = animation
  }

  public var isRunning: Bool { timer != nil }

  public func start(_ pace: TickerPace, _ handler: @escaping @MainActor () -> Void) {
    let timer: DispatchSourceTimer
    if let running = self.timer {
      // A repeating pace already set goes on undisturbed; a one-off wake-up moves.
      if pace == self.pace, pace == .animation || pace == .spinner { return }
      timer = running
    } else {
      timer = DispatchSource.makeTimerSource(queue: .main)
      timer.setEventHandler { MainActor.assumeIsolated { handler() } }
    }
    switch pace {
    case .animation:
      timer.schedule(deadline: .now() + animation, repeating: animation, leeway: .milliseconds(5))
    case .spinner:
      timer.schedule(deadline: .now() + spinner, repeating: spinner, leeway: .milliseconds(5))
    case .once(let seconds):
      timer.schedule(
        deadline: .now() + max(0, seconds), repeating: .never, leeway: .milliseconds(2))
    }
    if self.timer == nil {
      timer.resume()
      self.timer = timer
    }
    self.pace = pace
  }

  public func stop() {
    timer?.cancel()
    timer = nil
    pace = nil
  }
}

/// A ticker that fires only when a test says so.
@MainActor
public final class ManualTicker: Ticker {
  private var handler: (@MainActor () -> Void)?
  /// How many times it went from stopped to running.
  public private(set) var startCount = 0
  /// Every pace asked for, in order (a `once` asked again means the wake-up moved).
  public private(set) var requests: [TickerPace] = []

  public init() {}

  public private(set) var pace: TickerPace?

  public var isRunning: Bool { handler != nil }

  public func start(_ pace: TickerPace, _ handler: @escaping @MainActor () -> Void) {
    self.pace = pace
    requests.append(pace)
    guard self.handler == nil else { return }
    startCount += 1
    self.handler = handler
  }

  public func stop() {
    handler = nil
    pace = nil
  }

  /// Fires the timer `count` times (only while running).
  public func fire(_ count: Int = 1) {
    for _ in 0..<count { handler?() }
  }
}

/// Runs work once after a delay on the main queue (retries); tests run it when they choose.
@MainActor
public protocol Scheduler: AnyObject {
  func after(_ seconds: Double, _ work: @escaping @MainActor () -> Void)
}

/// The live scheduler: `DispatchQueue.main.asyncAfter`.
@MainActor
public final class DispatchScheduler: Scheduler {
  public init() {}

  public func after(_ seconds: Double, _ work: @escaping @MainActor () -> Void) {
    DispatchQueue.main.asyncAfter(deadline: .now() + seconds) {
      MainActor.assumeIsolated { work() }
    }
  }
}

/// A scheduler that keeps the work until a test runs it.
@MainActor
public final class ManualScheduler: Scheduler {
  /// Delays asked for, in order, with work not yet run.
  public private(set) var pending: [(seconds: Double, work: @MainActor () -> Void)] = []

  public init() {}

  public func after(_ seconds: Double, _ work: @escaping @MainActor () -> Void) {
    pending.append((seconds, work))
  }

  /// The delays of the work still waiting.
  public var delays: [Double] { pending.map(\.seconds) }

  /// Runs everything waiting now (not what that work schedules in turn).
  public func runPending() {
    let due = pending
    pending.removeAll()
    for item in due { item.work() }
  }
}
