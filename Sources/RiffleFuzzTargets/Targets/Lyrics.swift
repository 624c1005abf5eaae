import Foundation
import RiffleAPI
import RiffleCore

extension FuzzTarget {
  /// LRCLIB's answer on arbitrary bytes: lyrics or a plain refusal, never a crash; synced lines
  /// in time order.
  static let lrclib = FuzzTarget(name: "lrclib", summary: "LyricsSource.decode") { data in
    guard case .synced(let synced)? = try? LyricsSource.decode(data) else { return }
    let times = synced.lines.map(\.time)
    require(times == times.sorted(), "synced lines out of order")
  }

  /// LRC parsing: any text gives lines in time order, the current line is the last one started.
  static let lrc = FuzzTarget(name: "lrc", summary: "LRCParser.parse") { data in
    let document = LRCParser.parse(String(decoding: data, as: UTF8.self))
    let times = document.lines.map(\.time)
    require(times == times.sorted(), "lines out of order")
    require(times.allSatisfy(\.isFinite), "a time that is not a number")
    guard case .synced(let synced)? = Lyrics.fromLRC(String(decoding: data, as: UTF8.self)) else {
      return
    }
    for probe in [-1.0, 0, 1.5, 60, 3600] {
      if let index = synced.currentIndex(at: probe) {
        require(synced.lines[index].time <= probe, "a line not yet started is current")
      }
    }
  }
}
