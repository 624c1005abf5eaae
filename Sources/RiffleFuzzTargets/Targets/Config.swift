import Foundation
import RiffleApp

extension FuzzTarget {
  /// config.toml parsing: any text gives a config and a list of problems, never a crash.
  static let config = FuzzTarget(name: "config", summary: "Config.parse") { data in
    guard let text = String(data: data, encoding: .utf8) else { return }
    let (_, problems) = Config.parse(text)
    let lineCount = text.split(separator: "\n", omittingEmptySubsequences: false).count
    for problem in problems {
      if let line = problem.line {
        require(line >= 1 && line <= lineCount + 1, "problem on line \(line) of \(lineCount)")
      }
    }
  }
}
