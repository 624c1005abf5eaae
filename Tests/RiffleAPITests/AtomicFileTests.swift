import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleAPI

@Suite("AtomicFile")
struct AtomicFileTests {
  @Test("A write creates the file and the folders above it")
  func createsFileAndFolders() throws {
    let dir = try TemporaryDirectory()
    let file = dir.url.appendingPathComponent("data/riffle/likes.json")
    try AtomicFile.write(Data("{}".utf8), to: file)
    #expect(try Data(contentsOf: file) == Data("{}".utf8))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        == ["likes.json"])
  }

  @Test("A write of nothing leaves an empty file")
  func emptyWrite() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("empty")
    try AtomicFile.write(Data("old".utf8), to: file)
    try AtomicFile.write(Data(), to: file)
    #expect(try Data(contentsOf: file).isEmpty)
  }

  @Test("A write replaces the file by renaming: a reader of the old file still sees all of it")
  func replacesByRename() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("likes.json")
    let old = Data(repeating: 0x41, count: 100_000)
    let new = Data(repeating: 0x42, count: 50_000)
    try AtomicFile.write(old, to: file)
    let oldInode = try #require(
      try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int)
    let reader = try FileHandle(forReadingFrom: file)
    defer { try? reader.close() }
    try AtomicFile.write(new, to: file)
    // The open handle still reads the old file whole: it was never written in place.
    #expect(try reader.readToEnd() == old)
    #expect(try Data(contentsOf: file) == new)
    let newInode = try #require(
      try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int)
    #expect(newInode != oldInode)
  }

  @Test("No temporary file is left beside the target")
  func noTempLeft() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("likes.json")
    for round in 0..<5 {
      try AtomicFile.write(Data("round \(round)".utf8), to: file)
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["likes.json"])
    #expect(try Data(contentsOf: file) == Data("round 4".utf8))
  }

  @Test("A temporary file left by a crash is overwritten and cleared by the next write")
  func staleTempFile() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("likes.json")
    try AtomicFile.write(Data("good".utf8), to: file)
    let stale = dir.file(".likes.json.\(getpid()).tmp")
    try Data(repeating: 0x58, count: 10_000).write(to: stale)
    try AtomicFile.write(Data("better".utf8), to: file)
    #expect(try Data(contentsOf: file) == Data("better".utf8))
    #expect(!FileManager.default.fileExists(atPath: stale.path))
  }

  @Test("A write that cannot replace the target throws, keeps it, and cleans up")
  func failedRenameCleansUp() throws {
    let dir = try TemporaryDirectory()
    // The target is a folder with something in it: rename cannot replace it.
    let target = dir.file("likes.json")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    try Data("keep".utf8).write(to: target.appendingPathComponent("inside"))
    #expect(throws: RiffleAPI.POSIXError.self) {
      try AtomicFile.write(Data("new".utf8), to: target)
    }
    do {
      try AtomicFile.write(Data("new".utf8), to: target)
    } catch let error as RiffleAPI.POSIXError {
      #expect(error.description.hasPrefix("rename to \(target.path): "))
      #expect(error.code != 0)
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["likes.json"])
    #expect(try Data(contentsOf: target.appendingPathComponent("inside")) == Data("keep".utf8))
  }

  @Test("A write into a folder that cannot exist throws")
  func folderCannotExist() throws {
    let dir = try TemporaryDirectory()
    let blocker = dir.file("data")
    try Data("a file, not a folder".utf8).write(to: blocker)
    #expect(throws: (any Error).self) {
      try AtomicFile.write(Data("x".utf8), to: blocker.appendingPathComponent("likes.json"))
    }
    #expect(try Data(contentsOf: blocker) == Data("a file, not a folder".utf8))
  }

  @Test("Temporary files of writers that died are removed; a live writer's are kept")
  func staleTemporariesOfDeadWriters() throws {
    let dir = try TemporaryDirectory()
    let dead = dir.file(".likes.json.\(try endedProcessID()).tmp")
    let mine = dir.file(".likes.json.\(getpid()).tmp")
    let live = dir.file(".abc.mp3.1.tmp")  // pid 1 always runs
    let other = dir.file(".hidden")
    for file in [dead, mine, live, other] { try Data("x".utf8).write(to: file) }
    #expect(AtomicFile.removeStaleTemporaries(in: dir.url) == 1)
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
    #expect(left == [".abc.mp3.1.tmp", ".hidden", ".likes.json.\(getpid()).tmp"])
  }
}
