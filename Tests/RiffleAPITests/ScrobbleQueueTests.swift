import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleAPI

/// The listens waiting to be scrobbled, on disk: what a crash, a kill -9 or a damaged file
/// leaves, and that reading it back never loses what was confirmed written.
@Suite("Scrobbling: the queue on disk")
struct ScrobbleQueueTests {
  static func listen(_ n: Int, _ services: Set<ScrobbleServiceKind> = [.listenBrainz, .lastFM])
    -> PendingListen
  {
    PendingListen(
      id: "id-\(n)",
      track: ScrobbleTrack(
        artist: "Artist \(n)", title: "Title \(n)", album: n.isMultiple(of: 2) ? "Album" : nil,
        duration: Double(60 + n), trackNumber: n, songID: "song-\(n)"),
      listenedAt: 1_700_000_000 + n, services: services)
  }

  @Test("listens read back as written; a service's answer takes them off its list only")
  func roundTrip() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("riffle/scrobbles.json")
    var queue = ScrobbleQueue(file: file)
    for n in 1...3 { queue.append(Self.listen(n)) }
    try queue.save()
    var (loaded, problem) = ScrobbleQueue.load(from: file)
    #expect(problem == nil)
    #expect(loaded.listens == queue.listens)

    loaded.remove(["id-1", "id-2"], for: .listenBrainz)
    try loaded.save()
    let (again, _) = ScrobbleQueue.load(from: file)
    #expect(again.pending(for: .listenBrainz).map(\.id) == ["id-3"])
    #expect(again.pending(for: .lastFM).map(\.id) == ["id-1", "id-2", "id-3"])

    var emptied = again
    emptied.remove(["id-1", "id-2", "id-3"], for: .lastFM)
    emptied.remove(["id-3"], for: .listenBrainz)
    try emptied.save()
    #expect(!FileManager.default.fileExists(atPath: file.path))
    #expect(ScrobbleQueue.load(from: file).0.listens.isEmpty)
  }

  @Test("a writer killed mid-write leaves the old queue whole; its temporary file is removed")
  func killedWriter() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("scrobbles.json")
    var queue = ScrobbleQueue(file: file)
    queue.append(Self.listen(1))
    try queue.save()
    // What AtomicFile leaves when its process dies before the rename: half a new file under
    // the writer's temporary name.
    var bigger = queue
    bigger.append(Self.listen(2))
    let encoder = JSONEncoder()
    let whole = try encoder.encode(ScrobbleQueue.Document(version: 1, listens: bigger.listens))
    let dead = try endedProcessID()
    let torn = dir.file(".scrobbles.json.\(dead).tmp")
    try whole.prefix(whole.count / 2).write(to: torn)

    let (loaded, problem) = ScrobbleQueue.load(from: file)
    #expect(problem == nil)
    #expect(loaded.listens == queue.listens)
    #expect(!FileManager.default.fileExists(atPath: torn.path))
  }

  @Test("a queue file cut at any byte is never a crash: it is moved aside and reported")
  func cutAtEveryByte() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("scrobbles.json")
    var queue = ScrobbleQueue(file: file)
    for n in 1...2 { queue.append(Self.listen(n)) }
    try queue.save()
    let whole = try Data(contentsOf: file)
    for length in stride(from: 0, to: whole.count, by: 1) {
      try whole.prefix(length).write(to: file)
      let (loaded, problem) = ScrobbleQueue.load(from: file)
      #expect(loaded.listens.isEmpty)
      guard case .unreadable(let movedTo?, _) = problem else {
        Issue.record("a file cut at \(length) bytes was not reported and moved aside")
        return
      }
      // Nothing is thrown away: the damaged bytes are kept beside the queue.
      let aside = dir.file(movedTo)
      #expect(try Data(contentsOf: aside) == whole.prefix(length))
      try FileManager.default.removeItem(at: aside)
      #expect(!FileManager.default.fileExists(atPath: file.path))
    }
  }

  @Test("a queue from a newer Riffle is kept aside, not overwritten")
  func newerVersion() throws {
    let dir = try TemporaryDirectory()
    let file = dir.file("scrobbles.json")
    try Data(#"{"version": 2, "listens": []}"#.utf8).write(to: file)
    let (loaded, problem) = ScrobbleQueue.load(from: file)
    #expect(loaded.listens.isEmpty)
    guard case .unreadable(let movedTo?, let reason) = problem else {
      Issue.record("a newer version must be reported")
      return
    }
    #expect(reason.contains("version 2"))
    #expect(FileManager.default.fileExists(atPath: dir.file(movedTo).path))
  }
}
