import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleLibrary

@Suite("FolderWalk: folders that move under the walk")
struct FolderWalkTests {
  private func touch(_ url: URL) throws {
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("x".utf8).write(to: url)
  }

  @Test("a folder that vanishes between its listing and its walk is a line, and the walk goes on")
  func vanishingFolder() throws {
    let dir = try TemporaryDirectory()
    let root = dir.file("music")
    try touch(root.appendingPathComponent("a/1.mp3"))
    try touch(root.appendingPathComponent("b/2.mp3"))
    try touch(root.appendingPathComponent("c/3.mp3"))
    var walk = FolderWalk()
    var found: [String] = []
    let walked = try walk.walk(root.path) { files in
      found += files.map { ($0.path as NSString).lastPathComponent }
      // The root's listing is done and its folders are queued: take one away.
      if FileManager.default.fileExists(atPath: root.appendingPathComponent("b").path) {
        try FileManager.default.removeItem(at: root.appendingPathComponent("b"))
      }
    }
    #expect(walked)
    #expect(found == ["1.mp3", "3.mp3"])
    #expect(
      walk.problems == [
        ScanIssue(
          path: root.appendingPathComponent("b").path, message: "folder vanished during the scan")
      ])
    // Gone is gone: its songs may be dropped (it is not among the folders kept).
    #expect(walk.unreadableFolders.isEmpty)
  }

  @Test("a second way to a folder is walked once; a broken link to a song is a line")
  func duplicatesAndBrokenLinks() throws {
    let dir = try TemporaryDirectory()
    let root = dir.file("music")
    try touch(root.appendingPathComponent("album/1.mp3"))
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("same album").path, withDestinationPath: "album")
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("gone.mp3").path, withDestinationPath: "nowhere.mp3")
    var walk = FolderWalk()
    var found: [String] = []
    _ = walk.walk(root.path) { files in found += files.map(\.path) }
    #expect(found == [root.appendingPathComponent("album/1.mp3").path])
    #expect(
      walk.problems == [
        ScanIssue(
          path: root.appendingPathComponent("gone.mp3").path, message: "broken symbolic link"),
        ScanIssue(
          path: root.appendingPathComponent("same album").path,
          message: "already scanned as \(root.appendingPathComponent("album").path); skipped"),
      ])
  }
}
