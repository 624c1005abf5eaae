import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Milestones with monotonic timestamps, for the benchmark and the crash tests.
///
/// When `RIFFLE_TRACE` names a file, each `mark` appends one line `<CLOCK_MONOTONIC ns> <event>`
/// to it with a single `write` (lines from several threads never interleave). Other processes
/// read the same clock, so a benchmark can set its own timestamps beside these. Without the
/// variable a mark costs one load and a branch. The events:
/// - `start <pid>`: the player runs (written by the first mark, before its own line)
/// - `play <playID>`: the engine is asked to play a song (a page was arrived on)
/// - `sample <playID>`: the first PCM of that request is handed to the output
/// - `like-set <songID> <true|false>`: a like or unlike is asked for (before it is saved)
/// - `like-saved <songID> <true|false>`: the likes file holding that change is on disk
/// - `input`: keys are waiting on stdin (the player reads them now)
/// - `frame`: a frame has been handed to the terminal (after its write)
public enum Trace {
  private static let fd: Int32 = {
    guard let path = ProcessInfo.processInfo.environment["RIFFLE_TRACE"], !path.isEmpty else {
      return -1
    }
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    if fd >= 0 { append(fd, "start \(getpid())") }
    return fd
  }()

  /// True when marks are written somewhere.
  public static var isOn: Bool { fd >= 0 }

  /// Appends `event` with the current monotonic time, when tracing is on.
  public static func mark(_ event: @autoclosure () -> String) {
    let fd = self.fd
    guard fd >= 0 else { return }
    append(fd, event())
  }

  /// Nanoseconds of CLOCK_MONOTONIC, the clock every mark uses.
  public static func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }

  private static func append(_ fd: Int32, _ event: String) {
    let line = "\(now()) \(event)\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
  }
}
