import Foundation
import Testing

@testable import RiffleAPI

@Suite("BackgroundWork")
struct BackgroundWorkTests {
  @Test("Jobs run side by side: one waiting does not hold up the next")
  func jobsRunConcurrently() {
    let second = DispatchSemaphore(value: 0)
    let first = DispatchSemaphore(value: 0)
    let outcome = Box<DispatchTimeoutResult?>(nil)
    BackgroundWork.run("test.first") {
      // Only the second job can let this one go on.
      outcome.value = second.wait(timeout: .now() + 30)
      first.signal()
    }
    BackgroundWork.run("test.second") { second.signal() }
    #expect(first.wait(timeout: .now() + 60) == .success)
    #expect(outcome.value == .success)
  }

  @Test("A job runs off the calling thread")
  func runsOffTheCaller() {
    let done = DispatchSemaphore(value: 0)
    let caller = pthread_self()
    let ranOnCaller = Box<Bool?>(nil)
    BackgroundWork.run("test.thread", qos: .userInitiated) {
      ranOnCaller.value = pthread_equal(pthread_self(), caller) != 0
      done.signal()
    }
    #expect(done.wait(timeout: .now() + 30) == .success)
    #expect(ranOnCaller.value == false)
  }

  @Test(
    "forEach calls the body once per index and returns after the last call",
    arguments: [(count: 1, lanes: 4), (count: 50, lanes: 3), (count: 7, lanes: 1)])
  func forEachCoversEachIndexOnce(count: Int, lanes: Int) {
    let calls = Box<[Int]>([])
    let running = Box<(now: Int, most: Int)>((0, 0))
    BackgroundWork.forEach("test.each", count: count, lanes: lanes) { index in
      running.update { $0 = ($0.now + 1, max($0.most, $0.now + 1)) }
      usleep(1_000)
      calls.update { $0.append(index) }
      running.update { $0.now -= 1 }
    }
    #expect(calls.value.sorted() == Array(0..<count))
    #expect(running.value.now == 0)
    #expect(running.value.most <= lanes)
  }

  @Test("forEach over nothing returns without calling the body")
  func forEachOverNothing() {
    let called = Box(false)
    BackgroundWork.forEach("test.none", count: 0) { _ in called.value = true }
    #expect(called.value == false)
  }
}

/// A value shared with background jobs.
private final class Box<T>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: T

  init(_ value: T) { stored = value }

  var value: T {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }

  func update(_ change: (inout T) -> Void) { lock.withLock { change(&stored) } }
}
