import Foundation

/// Work run off the caller's thread without leaving a timer behind: use these instead of
/// `DispatchQueue.global()`, `DispatchQueue.concurrentPerform`, concurrent queues or Swift
/// concurrency's default executor.
///
/// On Linux, libdispatch runs its global concurrent queues on a thread pool of its own, and the
/// first time a worker of that pool starts it arms a timer on its manager thread that samples the
/// pool's threads once a second (`_dispatch_workq_monitor_pools` in libdispatch's
/// src/event/workqueue.c). The timer is never cancelled: from the first
/// `DispatchQueue.global().async` on, the process wakes every second for good, paused or idle.
/// Serial queues run on libdispatch's overcommit pool, which has no such monitor, so each job
/// here gets a serial queue of its own: jobs still run side by side, and the threads they used
/// go away when idle.
public enum BackgroundWork {
  /// Runs `work` once on a new serial queue.
  public static func run(
    _ label: String, qos: DispatchQoS = .default, _ work: @escaping @Sendable () -> Void
  ) {
    DispatchQueue(label: label, qos: qos).async(execute: work)
  }

  /// Calls `body` once for each index in `0..<count`, on up to `lanes` threads at once, and
  /// returns when every call has returned.
  public static func forEach(
    _ label: String, count: Int, lanes: Int = ProcessInfo.processInfo.activeProcessorCount,
    _ body: @escaping @Sendable (Int) -> Void
  ) {
    guard count > 0 else { return }
    let next = IndexCounter()
    let group = DispatchGroup()
    for lane in 0..<min(max(lanes, 1), count) {
      DispatchQueue(label: "\(label).\(lane)").async(group: group) {
        while let index = next.take(below: count) { body(index) }
      }
    }
    group.wait()
  }
}

/// Hands out 0, 1, 2, ... to whichever lane asks next, so a slow item does not hold up the rest.
private final class IndexCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0

  func take(below limit: Int) -> Int? {
    lock.withLock {
      guard value < limit else { return nil }
      defer { value += 1 }
      return value
    }
  }
}
