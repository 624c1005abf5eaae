import Foundation
import RiffleTestSupport
import Testing

/// A clip as Suno's API writes it; `audio` nil leaves the audio out.
private func clip(_ id: String, _ title: String, status: String = "complete", audio: String?)
  -> String
{
  let audioField = audio.map { #""audio_url":"\#($0)","# } ?? ""
  return #"""
    {"id":"\#(id)","entity_type":"song_schema","title":"\#(title)","status":"\#(status)",\#(audioField)\#
    "image_url":"/img/\#(id).png","artist_name":"Artist \#(id)","handle":"h\#(id)",\#
    "reaction":{"reaction_type":"L","counts":{"upvote":17}},"metadata":{"duration":2.0}}
    """#
}

@Suite("Suno shapes end to end (tmux, loopback HTTP)")
struct SunoEndToEndTests {
  /// Each shape Suno answers in, served at its own path, with the title its first song has.
  static let shapes: [(path: String, body: String, first: String)] = [
    (
      "/playlist",
      #"{"entity_type":"playlist_schema","name":"Mix","playlist_clips":[{"clip":\#(clip("p1", "Playlist Opener", audio: "/audio/short-1.mp3")),"relative_index":1},{"clip":\#(clip("p2", "Still Cooking", status: "streaming", audio: nil))}]}"#,
      "Playlist Opener"
    ),
    (
      "/profile",
      #"{"handle":"hp","clips":[\#(clip("c1", "Profile Song", audio: "/audio/short-1.mp3"))]}"#,
      "Profile Song"
    ),
    (
      "/home",
      #"{"sections":[{"title":"Playlists","items":[{"entity_type":"playlist_schema","id":"pl","name":"Not A Song"}]},{"title":"Trending","items":[\#(clip("h1", "Trending Now", audio: "/audio/short-1.mp3"))]}]}"#,
      "Trending Now"
    ),
    ("/bare", "[\(clip("b1", "Bare Array Song", audio: "/audio/short-1.mp3"))]", "Bare Array Song"),
    ("/clip", clip("o1", "Only Clip", audio: "/audio/short-1.mp3"), "Only Clip"),
  ]

  @Test("every shape opens as pages: songs play, a clip being made is said not ready")
  func eachShape() throws {
    let short1 = try Data(contentsOf: TestFiles.fixture("short-1.mp3"))
    var routes: [String: LoopbackHTTPServer.Reply] = [
      "/audio/short-1.mp3": .file(short1, contentType: "audio/mpeg")
    ]
    for shape in Self.shapes {
      routes[shape.path] = .respond(
        status: 200, headers: ["Content-Type": "application/json"], body: Data(shape.body.utf8))
    }
    let server = try LoopbackHTTPServer(handler: LoopbackHTTPServer.routes(routes))
    defer { server.stop() }
    let home = try TemporaryDirectory("riffle-suno")
    for shape in Self.shapes {
      let tmux = try TmuxSession(
        command: [
          TestFiles.riffleBinary, server.url(shape.path).absoluteString, "--audio", "null",
        ],
        environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 })
      let screen = try tmux.waitForAll(shape.first, "Artist ")
      #expect(screen.contains("17"), "the reaction's upvotes (\(shape.path)):\n\(screen)")
      #expect(!screen.contains("Not A Song"))
      if shape.path == "/playlist" {
        #expect(screen.contains("1 song not ready yet"), "\(screen)")
        #expect(screen.contains("1 / 1"))
      }
      tmux.sendKeys("q")
      #expect(try tmux.waitForExit() == 0, "\(shape.path)")
    }
  }

  @Test("the token goes to the feed's host only and never into a file; a refused one says so")
  func tokenStaysSecret() throws {
    let token = "riffle-test-token-5f0c1e"
    let short1 = try Data(contentsOf: TestFiles.fixture("short-1.mp3"))
    let port = PortBox()
    let server = try LoopbackHTTPServer { request in
      switch request.path {
      case "/me/clips":
        guard request.headers["authorization"] == "Bearer \(token)" else {
          return .respond(status: 401, body: Data(#"{"detail":"Unauthorized"}"#.utf8))
        }
        // The songs and covers are on "another host" (a CDN): localhost, not 127.0.0.1.
        let cdn = "http://localhost:\(port.value)"
        return .respond(
          status: 200, headers: ["Content-Type": "application/json"],
          body: Data(
            #"{"clips":[\#(clip("t1", "Signed In Song", audio: "\(cdn)/audio/t1.mp3"))]}"#.utf8))
      case "/audio/t1.mp3":
        return .file(short1, contentType: "audio/mpeg")
      default:
        return .respond(status: 404, body: Data())
      }
    }
    defer { server.stop() }
    port.value = server.port
    let home = try TemporaryDirectory("riffle-token")
    let feed = server.url("/me/clips").absoluteString
    let environment = home.xdgEnvironment.merging(["LANG": "C.UTF-8", "RIFFLE_TOKEN": token]) {
      $1
    }
    let tmux = try TmuxSession(
      command: [TestFiles.riffleBinary, feed, "--audio", "null"], environment: environment)
    let screen = try tmux.waitFor("Signed In Song")
    #expect(!screen.contains(token))
    // Wait for the song's audio to be asked for, then quit.
    let deadline = Date().addingTimeInterval(10)
    while !server.requests.contains(where: { $0.path == "/audio/t1.mp3" }) && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.1)
    }
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    let requests = server.requests
    #expect(
      requests.filter { $0.path == "/me/clips" }.allSatisfy { $0.headers["authorization"] != nil })
    let others = requests.filter { $0.path != "/me/clips" }
    #expect(!others.isEmpty, "the audio was fetched")
    #expect(others.allSatisfy { $0.headers["authorization"] == nil }, "\(others.map { $0.path })")

    // A token the server does not take: the message names the setting, never the token.
    let wrong = try TmuxSession(
      command: [TestFiles.riffleBinary, feed, "--audio", "null"],
      environment: environment.merging(["RIFFLE_TOKEN": token + "-expired"]) { $1 })
    let refused = try wrong.waitFor("refused the token")
    #expect(refused.contains("RIFFLE_TOKEN") || refused.contains("config.toml"), "\(refused)")
    #expect(!refused.contains(token))
    wrong.sendKeys("q")
    #expect(try wrong.waitForExit() == 0)

    // Nothing Riffle wrote holds the token: not the log, not a cache, not the config folder.
    let written = try filesUnder(home.url)
    #expect(written.contains { $0.hasSuffix("riffle.log") }, "the log was written: \(written)")
    for path in written {
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      #expect(data.range(of: Data(token.utf8)) == nil, "the token is in \(path)")
    }
  }
}

private final class PortBox: @unchecked Sendable {
  var value: UInt16 = 0
}

/// Every regular file under a folder.
private func filesUnder(_ folder: URL) throws -> [String] {
  guard let walk = FileManager.default.enumerator(atPath: folder.path) else { return [] }
  var files: [String] = []
  for case let relative as String in walk {
    let path = folder.appendingPathComponent(relative).path
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      !isDirectory.boolValue
    {
      files.append(path)
    }
  }
  return files
}
