import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What the kernel says a process has used so far, read from /proc: for the benchmark's figures
/// and the tests that check a paused player sleeps.
public struct ProcessUsage: Sendable {
  /// utime + stime of every thread, live or ended, in seconds (clock ticks).
  public var cpu: Double
  /// Voluntary and involuntary context switches of each live thread, by thread id: each one
  /// is the thread going to sleep or being put aside, so their rate counts wake-ups.
  public var switches: [String: Int]
  /// Each live thread's name (`comm`), by thread id.
  public var threadNames: [String: String]
  /// Resident memory now and at its peak, in bytes.
  public var resident: Int
  public var peakResident: Int
  /// Each live thread's time on a CPU, in seconds, by thread id: the scheduler's own count in
  /// nanoseconds (`/proc/PID/task/TID/schedstat`), where `cpu` moves in 10 ms clock ticks.
  public var runTimes: [String: Double] = [:]

  /// Seconds on a CPU since `earlier`, to the nanosecond: the live threads' scheduler counts
  /// (threads started since count from zero). What a thread that ended in between ran is in
  /// the clock-tick total only; when that total shows more than its 10 ms of rounding beyond
  /// the threads' sum, it is the answer instead.
  public func runTime(since earlier: ProcessUsage) -> Double {
    let threads = runTimes.reduce(0) { $0 + $1.value - (earlier.runTimes[$1.key] ?? 0) }
    let ticks = cpu - earlier.cpu
    return ticks - threads > 1 / Self.ticksPerSecond ? ticks : threads
  }

  /// Context switches since `earlier`: threads started since count from zero; the last
  /// switches of threads that ended in between are missed.
  public func switches(since earlier: ProcessUsage) -> Int {
    switches.reduce(0) { $0 + $1.value - (earlier.switches[$1.key] ?? 0) }
  }

  /// The threads that switched since `earlier`, in thread-id order, with their names.
  public func woken(since earlier: ProcessUsage) -> [(thread: String, name: String, count: Int)] {
    switches.sorted { (Int($0.key) ?? 0) < (Int($1.key) ?? 0) }.compactMap { thread, count in
      let woke = count - (earlier.switches[thread] ?? 0)
      return woke > 0 ? (thread, threadNames[thread] ?? "?", woke) : nil
    }
  }

  static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

  /// The usage of `pid` now, or nil when it is not running.
  public static func read(_ pid: pid_t) -> ProcessUsage? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    // Fields after "pid (comm)": state is field 3, utime 14, stime 15.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let utime = Double(fields[11]), let stime = Double(fields[12]) else {
      return nil
    }
    var usage = ProcessUsage(
      cpu: (utime + stime) / ticksPerSecond, switches: [:], threadNames: [:], resident: 0,
      peakResident: 0)
    let status = statusFields(path: "/proc/\(pid)/status")
    usage.resident = (status.numbers["VmRSS"] ?? 0) * 1024
    usage.peakResident = (status.numbers["VmHWM"] ?? 0) * 1024
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    for task in tasks {
      let fields = statusFields(path: "/proc/\(pid)/task/\(task)/status")
      guard let name = fields.name else { continue }  // ended while being read
      usage.switches[task] =
        (fields.numbers["voluntary_ctxt_switches"] ?? 0)
        + (fields.numbers["nonvoluntary_ctxt_switches"] ?? 0)
      usage.threadNames[task] = name
      if let schedstat = try? String(
        contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
        let nanoseconds = schedstat.split(separator: " ").first.flatMap({ Double($0) })
      {
        usage.runTimes[task] = nanoseconds / 1e9
      }
    }
    return usage
  }

  /// The numeric fields of a /proc status file, without units, and its Name.
  private static func statusFields(path: String) -> (name: String?, numbers: [String: Int]) {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return (nil, [:]) }
    var name: String?
    var numbers: [String: Int] = [:]
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: ":", maxSplits: 1)
      guard parts.count == 2 else { continue }
      if parts[0] == "Name" { name = parts[1].trimmingCharacters(in: .whitespaces) }
      let number = parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap {
        Int($0)
      }
      if let number { numbers[String(parts[0])] = number }
    }
    return (name, numbers)
  }
}

/// The `RIFFLE_TRACE` file of a run of the player (see RiffleAPI's `Trace`): one line per mark,
/// `<CLOCK_MONOTONIC ns> <event words>`.
public struct TraceFile: Sendable {
  public let url: URL

  public init(url: URL) {
    self.url = url
  }

  /// Every mark as (seconds, event words), in order.
  public func marks() -> [(time: Double, words: [String])] {
    guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { line in
      let words = line.split(separator: " ").map(String.init)
      guard words.count >= 2, let ns = Double(words[0]) else { return nil }
      return (ns / 1e9, Array(words.dropFirst()))
    }
  }

  /// The time of the first mark that is exactly `words`.
  public func time(of words: String...) -> Double? {
    marks().first { $0.words == words }?.time
  }
}
