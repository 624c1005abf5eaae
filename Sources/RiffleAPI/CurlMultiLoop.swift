import CCurl
import CLinux
import Foundation

/// Runs every transfer of one `HTTPClient` on a single thread with libcurl's multi interface.
///
/// New transfers and cancellations wake the loop through `curl_multi_wakeup`, so cancelling a
/// download takes effect at once, and a server that never answers holds no thread of its own.
final class CurlMultiLoop: @unchecked Sendable {
  private let lock = NSLock()
  private var pending: [CurlJob] = []
  private let multi: UnsafeMutableRawPointer
  private var started = false
  /// How long the loop sleeps with nothing to do: `curl_multi_wakeup` ends the wait early.
  static let idleWait: Int32 = 3_600_000

  init() {
    multi = curl_multi_init()!
  }

  /// Hands a job to the loop; its callbacks run on the loop's thread.
  func add(_ job: CurlJob) {
    lock.withLock {
      pending.append(job)
      if !started {
        started = true
        let thread = Thread { [self] in
          // Named for /proc and debuggers (Foundation's `name` does not reach the kernel here).
          riffle_name_current_thread("riffle-http")
          run()
        }
        thread.start()
      }
    }
    curl_multi_wakeup(multi)
  }

  /// Wakes the loop so it notices a cancelled transfer.
  func wake() {
    curl_multi_wakeup(multi)
  }

  private func run() {
    var active: [UnsafeMutableRawPointer: CurlJob] = [:]
    while true {
      for job in lock.withLock({ () -> [CurlJob] in
        defer { pending.removeAll() }
        return pending
      }) {
        guard let handle = job.start() else { continue }
        if curl_multi_add_handle(multi, handle) == CURLM_OK {
          active[handle] = job
        } else {
          job.finish(CURLE_FAILED_INIT)
        }
      }
      for (handle, job) in active where job.transfer.isCancelled {
        curl_multi_remove_handle(multi, handle)
        active[handle] = nil
        job.finish(CURLE_ABORTED_BY_CALLBACK)
      }

      var running: Int32 = 0
      curl_multi_perform(multi, &running)
      var queued: Int32 = 0
      while let message = curl_multi_info_read(multi, &queued) {
        guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
          let job = active[handle]
        else { continue }
        let result = message.pointee.data.result
        curl_multi_remove_handle(multi, handle)
        active[handle] = nil
        job.finish(result)
      }
      // Idle, the thread sleeps until `wake` (a paused or idle player must not wake up every
      // second); with transfers, as long as curl's own timers allow, at most a second.
      var timeout = -1
      curl_multi_timeout(multi, &timeout)
      let wait = active.isEmpty ? Self.idleWait : Int32(timeout < 0 ? 1000 : min(timeout, 1000))
      curl_multi_poll(multi, nil, 0, wait, nil)
    }
  }
}
