import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleAPI

/// The saved file as plain JSON.
private func savedLikes(_ file: URL) throws -> [String: Bool] {
  let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
  #expect(object?["version"] as? Int == 1)
  return try #require(object?["likes"] as? [String: Bool])
}

private final class Errors: @unchecked Sendable {
  private let lock = NSLock()
  private var values: [String?] = []
  func add(_ error: Error?) { lock.withLock { values.append(error.map { "\($0)" }) } }
  var all: [String?] { lock.withLock { values } }
}

@Suite("LikeStore")
struct LikeStoreTests {
  @Test("Without a file the store starts empty, without a problem, and writes nothing")
  func startsEmpty() throws {
    let dir = try TemporaryDirectory()
    let file = dir.url.appendingPathComponent("data/riffle/likes.json")
    let store = LikeStore(file: file)
    #expect(store.all.isEmpty)
    #expect(store.loadProblem == nil)
    store.flush()
    #expect(!FileManager.default.fileExists(atPath: file.path))
  }

  @Test("Likes and unlikes are saved on flush and a fresh store reads them back")
  func setFlushReload() throws {
    let dir = try TemporaryDirectory()
    let file = dir.url.appendingPathComponent("data/riffle/likes.json")
    let store = LikeStore(file: file)
    let errors = Errors()
    store.set("8f1c2a9e", liked: true, completion: { errors.add($0) })
    store.set("b3d90e14", liked: false, completion: { errors.add($0) })
    store.set("f02e6c71", liked: true)
    store.set("f02e6c71", liked: false)
    #expect(store.all == ["8f1c2a9e": true, "b3d90e14": false, "f02e6c71": false])
    store.flush()
    #expect(errors.all == [nil, nil])
    #expect(try savedLikes(file) == ["8f1c2a9e": true, "b3d90e14": false, "f02e6c71": false])

    let fresh = LikeStore(file: file)
    #expect(fresh.all == ["8f1c2a9e": true, "b3d90e14": false, "f02e6c71": false])
    #expect(fresh.loadProblem == nil)
    // No temporary file beside it.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        == ["likes.json"])
  }

  @Test("Many changes from many threads all reach the file")
  func concurrentSets() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("likes.json")
    let store = LikeStore(file: file)
    DispatchQueue.concurrentPerform(iterations: 200) { index in
      store.set("song-\(index)", liked: index.isMultiple(of: 3))
    }
    store.flush()
    let saved = try savedLikes(file)
    #expect(saved.count == 200)
    #expect(saved.allSatisfy { $0.value == (Int($0.key.dropFirst(5))!.isMultiple(of: 3)) })
    #expect(LikeStore(file: file).all == saved)
  }

  @Test("An unreadable likes file is moved aside, never overwritten, and the problem is named")
  func unreadableMovedAside() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("likes.json")
    let garbage = Data(#"{"version": 1, "likes": {"8f1c2a9e": tru"#.utf8)
    try garbage.write(to: file)
    let store = LikeStore(file: file)
    #expect(store.all.isEmpty)
    let problem = try #require(store.loadProblem)
    let asideNames = try FileManager.default.contentsOfDirectory(atPath: dir.url.path)
      .filter { $0 != "likes.json" }
    #expect(asideNames.count == 1)
    let aside = try #require(asideNames.first)
    #expect(aside.hasPrefix("likes.json.unreadable-"))
    #expect(problem == "Likes file was unreadable; kept as \(aside)")
    #expect(try Data(contentsOf: dir.file(aside)) == garbage)
    #expect(!FileManager.default.fileExists(atPath: file.path))

    // Saving afterwards writes a new file and leaves the old one where it was put.
    store.set("b3d90e14", liked: true)
    store.flush()
    #expect(try savedLikes(file) == ["b3d90e14": true])
    #expect(try Data(contentsOf: dir.file(aside)) == garbage)
  }

  @Test("A likes file of the wrong shape is moved aside too")
  func wrongShapeMovedAside() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("likes.json")
    let other = Data(#"["8f1c2a9e", "b3d90e14"]"#.utf8)
    try other.write(to: file)
    let store = LikeStore(file: file)
    #expect(store.all.isEmpty)
    #expect(
      store.loadProblem?.hasPrefix("Likes file was unreadable; kept as likes.json.unreadable-")
        == true)
    let aside = try FileManager.default.contentsOfDirectory(atPath: dir.url.path)
    #expect(aside.count == 1)
    #expect(try aside.first.map { try Data(contentsOf: dir.file($0)) } == other)
  }
}
