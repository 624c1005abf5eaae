import Foundation

/// Earlier searches kept between runs: a JSON list of strings, newest last, written atomically.
public enum SearchHistory {
  /// The kept searches; a missing or unreadable file is an empty history.
  public static func load(from file: URL) -> [String] {
    guard let data = try? Data(contentsOf: file),
      let terms = try? JSONDecoder().decode([String].self, from: data)
    else { return [] }
    return Array(terms.filter { !$0.isEmpty }.suffix(100))
  }

  public static func save(_ terms: [String], to file: URL) throws {
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try AtomicFile.write(try JSONEncoder().encode(terms), to: file)
  }
}

extension AppPaths {
  public var searchHistoryFile: URL { data.appendingPathComponent("search-history.json") }
}
