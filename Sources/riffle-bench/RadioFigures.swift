import Foundation
import RiffleTestSupport

#if canImport(Glibc)
  import Glibc
#endif

extension SystemFigures {
  /// CPU while a live station plays: Riffle and mpg123 listening to the same Icecast mount
  /// (Debian's icecast2 on loopback, fed by ffmpeg at 128 kbps), each through its own private
  /// PulseAudio server, one after the other within one run.
  func radioFigures() throws -> [Bench.Row] {
    let station = try IcecastStation(name: "Bench FM", genre: "Benchmark")
    defer { station.stop() }
    guard station.waitForMount() else { throw BenchError("the Icecast mount never came up") }
    var riffle: [Double] = []
    var unbatched: [Double] = []
    var mpg123: [Double] = []
    var riffleServer: [Double] = []
    var mpg123Server: [Double] = []
    let window = 20.0
    for _ in 0..<runs {
      do {
        let pulse = try PrivatePulseServer()
        let run = try PlayerRun(
          arguments: [station.streamURL, "--audio", "pulse"], environment: pulse.environment)
        defer { run.stop() }
        let pid = try run.pid()
        // The first page is the station; its play request is the first.
        try run.waitForSample(1)
        let (player, server) = try measureStationCPU([pid, pulse.pid], after: 2, over: window)
        riffle.append(player)
        riffleServer.append(server)
      }
      do {
        // The same binary as before a station's bytes were batched (every packet handed on).
        let pulse = try PrivatePulseServer()
        let run = try PlayerRun(
          arguments: [station.streamURL, "--audio", "pulse"],
          environment: pulse.environment.merging(["RIFFLE_LIVE_BATCH": "0"]) { $1 })
        defer { run.stop() }
        let pid = try run.pid()
        try run.waitForSample(1)
        unbatched.append(try measureStationCPU([pid, pulse.pid], after: 2, over: window).0)
      }
      do {
        let pulse = try PrivatePulseServer()
        let process = try ChildProcess(
          "/usr/bin/mpg123", ["-q", "-o", "pulse", station.streamURL],
          environment: pulse.environment)
        defer { process.stop() }
        let (player, server) = try measureStationCPU(
          [process.pid, pulse.pid], after: 3, over: window)
        mpg123.append(player)
        mpg123Server.append(server)
      }
    }
    let method =
      "Icecast on loopback (ffmpeg, 128 kbps MP3, -re) played by riffle URL --audio pulse in "
      + "tmux vs mpg123 -q -o pulse URL; whole process, every thread's time on a CPU over 20 s, "
      + "private PulseAudio null sink each; median of \(runs)"
    return [
      Bench.Row(
        figure: "CPU playing a live station (one core)", value: Self.median(riffle),
        peerName: "mpg123", peerValue: Self.median(mpg123), format: Self.percent,
        target: "<= 1.5x mpg123", method: method),
      Bench.Row(
        figure: "CPU playing a live station, bytes not batched (RIFFLE_LIVE_BATCH=0)",
        value: Self.median(unbatched), peerName: "mpg123", peerValue: Self.median(mpg123),
        format: Self.percent, target: "(before batching)", method: method),
      Bench.Row(
        figure: "PulseAudio server CPU while a station plays", value: Self.median(riffleServer),
        peerName: "for mpg123", peerValue: Self.median(mpg123Server), format: Self.percent,
        target: "<= mpg123's", method: "the private server's own time on a CPU, same windows"),
    ]
  }

  /// CPU share of each process over `seconds`, after waiting `after` seconds.
  private func measureStationCPU(_ pids: [pid_t], after: Double, over seconds: Double) throws
    -> (Double, Double)
  {
    Thread.sleep(forTimeInterval: after)
    let start = pids.map { ProcessUsage.read($0) }
    let t0 = Date()
    Thread.sleep(forTimeInterval: seconds)
    let end = pids.map { ProcessUsage.read($0) }
    let elapsed = Date().timeIntervalSince(t0)
    guard let a0 = start[0], let a1 = end[0], let b0 = start[1], let b1 = end[1] else {
      throw BenchError("a process ended while it was measured")
    }
    return (a1.runTime(since: a0) / elapsed, b1.runTime(since: b0) / elapsed)
  }
}
