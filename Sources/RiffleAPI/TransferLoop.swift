import CCurl
import CLinux
import Foundation

/// Runs every transfer of one `HTTPClient` on a single thread: http(s) with libcurl's multi
/// interface, files with `FileJob`, so every handler of a client runs on that one thread.
///
/// libcurl is loaded by the first http(s) transfer, on this thread (see CCurl.h): a run that
/// plays only local files never loads it. Until then the thread sleeps on a semaphore; after,
/// in `curl_multi_poll`, which `curl_multi_wakeup` ends early. Either way a new transfer or a
/// cancellation takes effect at once, and a server that never answers holds no thread of its own.
final class TransferLoop: @unchecked Sendable {
  private enum Job {
    case curl(CurlJob)
    case file(FileJob)
  }

  private let lock = NSLock()
  private var pending: [Job] = []
  private var started = false
  /// Set on the loop's thread once libcurl is loaded; from then on, wake-ups go through curl.
  private var multi: UnsafeMutableRawPointer?
  private let wakeUp = DispatchSemaphore(value: 0)
  /// How long the loop sleeps with nothing to do: a wake-up ends the wait early.
  static let idleWait: Int32 = 3_600_000
  /// What a batched stream (`HTTPRequest.batchDelay`) receives before its bytes are batched:
  /// its start plays as soon as it comes.
  static let batchAfterBytes = 64 * 1024
  /// True while the loop sleeps between a batched stream's turns: a wake-up then also signals
  /// `wakeUp`, so a new or cancelled transfer is not held up by the batching.
  private var batching = false

  /// Hands a transfer to the loop; its callbacks run on the loop's thread.
  func add(_ job: CurlJob) { add(.curl(job)) }
  func add(_ job: FileJob) { add(.file(job)) }

  private func add(_ job: Job) {
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
    wake()
  }

  /// Wakes the loop so it notices a new or cancelled transfer.
  func wake() {
    // Checked under the lock the loop publishes `multi` under: a wake-up before that is a
    // semaphore signal, which the loop sees before it first waits in curl.
    let (multi, batching): (UnsafeMutableRawPointer?, Bool) = lock.withLock {
      (self.multi, self.batching)
    }
    if let multi {
      _ = riffle_curl()?.pointee.curl_multi_wakeup(multi)
      if batching { wakeUp.signal() }
    } else {
      wakeUp.signal()
    }
  }

  private func takePending() -> [Job] {
    lock.withLock {
      defer { pending.removeAll() }
      return pending
    }
  }

  /// Loads libcurl and makes the multi handle (the loop calls this until it works once); nil
  /// when either fails.
  private func loadCurl() -> (UnsafePointer<RiffleCurl>, UnsafeMutableRawPointer)? {
    guard let library = riffle_curl(), let handle = library.pointee.curl_multi_init() else {
      return nil
    }
    lock.withLock { multi = handle }
    return (library, handle)
  }

  private func run() {
    var active: [UnsafeMutableRawPointer: CurlJob] = [:]
    var files: [FileJob] = []
    var loaded: (library: UnsafePointer<RiffleCurl>, multi: UnsafeMutableRawPointer)?
    while true {
      for job in takePending() {
        switch job {
        case .file(let job):
          if job.start() { files.append(job) }
        case .curl(let job):
          if let refusal = job.refusal {
            job.refuse(refusal)
            continue
          }
          if loaded == nil { loaded = loadCurl() }
          guard let (library, multi) = loaded else {
            job.refuse(.transport(Self.curlMissing))
            continue
          }
          guard let handle = job.start(library) else { continue }
          if library.pointee.curl_multi_add_handle(multi, handle) == CURLM_OK {
            active[handle] = job
          } else {
            job.finish(CURLE_FAILED_INIT)
          }
        }
      }
      // One chunk of each file per turn, so a long file does not hold up the other transfers.
      files.removeAll { !$0.step() }

      if let (library, multi) = loaded {
        let c = library.pointee
        for (handle, job) in active where job.transfer.isCancelled {
          _ = c.curl_multi_remove_handle(multi, handle)
          active[handle] = nil
          job.finish(CURLE_ABORTED_BY_CALLBACK)
        }
        var running: Int32 = 0
        _ = c.curl_multi_perform(multi, &running)
        var queued: Int32 = 0
        while let message = c.curl_multi_info_read(multi, &queued) {
          guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
            let job = active[handle]
          else { continue }
          let result = message.pointee.data.result
          _ = c.curl_multi_remove_handle(multi, handle)
          active[handle] = nil
          job.finish(result)
        }
        // Idle, the thread sleeps until `wake` (a paused or idle player must not wake up every
        // second); with transfers, as long as curl's own timers allow, at most a second; with
        // files to read, not at all.
        var timeout = -1
        _ = c.curl_multi_timeout(multi, &timeout)
        let wait =
          !files.isEmpty
          ? 0 : active.isEmpty ? Self.idleWait : Int32(timeout < 0 ? 1000 : min(timeout, 1000))
        if files.isEmpty, !active.isEmpty, active.values.allSatisfy(\.isBatching) {
          // Only stations playing: let their sockets gather a batch before the next turn.
          let delay = active.values.map(\.request.batchDelay).min() ?? 0
          gatherBatch(for: min(delay, Double(wait) / 1000))
        }
        _ = c.curl_multi_poll(multi, nil, 0, wait, nil)
      } else if files.isEmpty {
        wakeUp.wait()
      }
    }
  }

  /// Sleeps `seconds` unless a transfer is added or cancelled meanwhile (`wake`).
  private func gatherBatch(for seconds: TimeInterval) {
    let sleep = lock.withLock {
      guard pending.isEmpty else { return false }
      batching = true
      return true
    }
    guard sleep else { return }
    _ = wakeUp.wait(timeout: .now() + seconds)
    lock.withLock { batching = false }
  }

  /// What a transfer says when libcurl cannot be loaded.
  static var curlMissing: String {
    "libcurl cannot be loaded (\(NetworkLibraries.curlFailure))"
  }
}
