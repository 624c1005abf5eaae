import Foundation

/// One thing fuzzed: a name (the folder of its seed corpus, `Tests/Fuzz/corpus/<name>`) and a
/// body that takes arbitrary bytes.
///
/// The body must accept any input without crashing, hanging or leaking; where the code under
/// test promises something about its output (no control characters, no widths over the limit),
/// the body checks it with `require`, so the fuzzer finds wrong answers as well as crashes.
public struct FuzzTarget: Sendable {
  public let name: String
  public let summary: String
  public let body: @Sendable (Data) -> Void

  public init(name: String, summary: String, body: @escaping @Sendable (Data) -> Void) {
    self.name = name
    self.summary = summary
    self.body = body
  }

  /// Every target, by name. A new target is one file in `Targets/` plus one entry here (see
  /// docs/hardening.md).
  public static let all: [FuzzTarget] = [
    .feedJSON, .config, .textSanitizer, .audioDecoder, .itunes, .lrclib, .lrc, .podcastRSS, .icy,
    .radioBrowser,
  ]

  public static func named(_ name: String) -> FuzzTarget? {
    all.first { $0.name == name }
  }
}

/// Stops the run when a promise of the code under test is broken: libFuzzer (or the replay)
/// reports the input that did it.
public func require(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
  file: StaticString = #fileID, line: UInt = #line
) {
  if !condition() { fatalError("fuzz check failed: \(message())", file: file, line: line) }
}
