import Foundation

/// A repeating timer on the main queue that can be started and stopped; tests drive a manual one.
@MainActor
public protocol Ticker: AnyObject {
  var isRunning: Bool { get }
  /// True when ticking at the animation rate.
  var isFast: Bool { get }
  /// Starts ticking (or changes the rate): fast for animations, slow for the progress clock.
  func start(fast: Bool, _ handler: @escaping @MainActor () -> Void)
  func stop()
}

/// The live ticker: a DispatchSourceTimer on the main queue, cancelled when stopped, so an idle
/// or paused player has no timer waking it.
@MainActor
public final class DispatchTicker: Ticker {
  private var timer: DispatchSourceTimer?
  private let slow: DispatchTimeInterval
  private let fast: DispatchTimeInterval
  public private(set) var isFast = false

  /// `slow` drives the clock while a song plays; `fast` drives animations (about 30 frames/s).
  public init(
    slow: DispatchTimeInterval = .milliseconds(100), fast: DispatchTimeInterval = .milliseconds(33)
  ) {
    self.slow = slow
    self.fast = fast
  }

  public var isRunning: Bool { timer != nil }

  public func start(fast: Bool, _ handler: @escaping @MainActor () -> Void) {
    let interval = fast ? self.fast : slow
    if let timer {
      if fast != isFast {
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(5))
        isFast = fast
      }
      return
    }
    let timer = DispatchSource.makeTimerSource(queue: .main)
    timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(5))
    timer.setEventHandler { MainActor.assumeIsolated { handler() } }
    timer.resume()
    self.timer = timer
    isFast = fast
  }

  public func stop() {
    timer?.cancel()
    timer = nil
  }
}

/// A ticker that fires only when a test says so.
@MainActor
public final class ManualTicker: Ticker {
  private var handler: (@MainActor () -> Void)?
  public private(set) var startCount = 0

  public init() {}

  public private(set) var isFast = false

  public var isRunning: Bool { handler != nil }

  public func start(fast: Bool, _ handler: @escaping @MainActor () -> Void) {
    isFast = fast
    guard self.handler == nil else { return }
    startCount += 1
    self.handler = handler
  }

  public func stop() { handler = nil }

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
