import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleAPI

// Bugs found in review, each pinned by the test that first showed it; all fixed, kept so
// they stay fixed.

@Suite("Regressions in RiffleAPI (3)")
struct APIRegressions3 {
  /// LikeStore.init moves an unreadable likes.json to "likes.json.unreadable-<seconds>". When a
  /// file of that name already exists (a second unreadable file within the same second: two
  /// starts in a row, or two players at once), `try? moveItem` fails silently, the unreadable
  /// likes.json stays where it is, `loadProblem` still claims it was "kept as" the other file,
  /// and the next `set` replaces it: the user's likes are lost, which the store promises never
  /// to do. (Sources/RiffleAPI/LikeStore.swift, init: the `try?` on moveItem and the name that
  /// only has whole seconds.)
  @Test("A second unreadable likes file within the same second is kept too, not overwritten")
  func secondUnreadableFileSameSecond() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("likes.json")
    // Start early in a second so both stores open within it.
    while Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1) > 0.3 {
      Thread.sleep(forTimeInterval: 0.01)
    }
    let first = Data(#"{"likes": {"song-a": tru"#.utf8)
    let second = Data(#"{"likes": {"song-b": tru"#.utf8)
    try first.write(to: file)
    _ = LikeStore(file: file)
    try second.write(to: file)
    let store = LikeStore(file: file)
    #expect(store.loadProblem != nil)
    store.set("song-c", liked: true)
    store.flush()

    let kept = try FileManager.default.contentsOfDirectory(atPath: dir.url.path)
      .map { try Data(contentsOf: dir.file($0)) }
    #expect(kept.contains(first))
    #expect(kept.contains(second), "the second unreadable likes file was overwritten")
    // And the message names the file that holds what was unreadable.
    if let problem = store.loadProblem, let name = problem.components(separatedBy: "kept as ").last
    {
      #expect((try? Data(contentsOf: dir.file(name))) == second, "\(problem)")
    }
  }

  /// LikeStore.init reads with `guard let data = try? Data(contentsOf: file) else { return }`:
  /// any read error (EACCES for a file left by `sudo riffle`, EISDIR, EIO) is taken as "no
  /// file", so `loadProblem` stays nil and the user is not told; for EACCES the next `set`
  /// renames a new file over it and the likes are gone. Tests run as root, so a directory
  /// named likes.json stands in for the unreadable file. (Sources/RiffleAPI/LikeStore.swift,
  /// init.)
  @Test("A likes.json that exists but cannot be read is reported in loadProblem")
  func existingButUnreadable() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("likes.json")
    try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
    let store = LikeStore(file: file)
    #expect(store.all.isEmpty)
    #expect(store.loadProblem != nil, "an unreadable likes.json was treated as no file")
  }
}
