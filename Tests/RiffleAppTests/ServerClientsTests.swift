import Foundation
import RiffleAPI
import RiffleCore
import RiffleTestSupport
import Testing

@testable import RiffleApp

private final class Calls: @unchecked Sendable {
  private let lock = NSLock()
  private var _list: [String] = []
  func add(_ text: String) { lock.withLock { _list.append(text) } }
  var list: [String] { lock.withLock { _list } }
}

@Suite("A server's songs: stars, plays and lyrics go to their server")
struct ServerClientsTests {
  /// A server of API 1.16 that takes star and scrobble and refuses unstar (error 50).
  fileprivate static func server(_ calls: Calls) throws -> LoopbackHTTPServer {
    try LoopbackHTTPServer { request in
      let ok = #"{"subsonic-response":{"status":"ok","version":"1.16.1"}}"#
      guard request.formQuery["t"] != nil else { return .respond(status: 200, body: Data(ok.utf8)) }
      if request.path != "/rest/ping" {
        let query = request.formQuery
        calls.add(
          "\(request.path) \(query["id"] ?? "") \(query["submission"] ?? "")"
            .trimmingCharacters(in: .whitespaces))
      }
      if request.path == "/rest/unstar" {
        return .respond(
          status: 200,
          body: Data(
            #"{"subsonic-response":{"status":"failed","version":"1.16.1","error":{"code":50,"message":"Not allowed"}}}"#
              .utf8))
      }
      return .respond(status: 200, body: Data(ok.utf8))
    }
  }

  @Test("l stars on the server and keeps nothing here; a refusal is handed back to roll back")
  func stars() throws {
    let calls = Calls()
    let loopback = try Self.server(calls)
    defer { loopback.stop() }
    let servers = SubsonicServers()
    servers.register([
      SubsonicServerSettings(
        name: "home", url: loopback.baseURL, user: "joe", credential: .password("sesame"))
    ])
    let kept = Calls()
    let base = LikesClient(
      all: { [:] },
      set: { id, _, done in
        kept.add(id); done(nil)
      }, flush: {},
      sync: { id, _, _ in kept.add("sync " + id) })
    let likes = base.sendingStars(to: servers)
    let saved = DispatchSemaphore(value: 0)
    likes.set("subsonic:home:s1", true) { error in
      #expect(error == nil)
      saved.signal()
    }
    saved.wait()
    likes.set("feed-song", true) { _ in }
    #expect(kept.list == ["feed-song"], "a server's like is not kept here")

    let refused = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var reason = ""
    nonisolated(unsafe) var state: Bool?
    likes.sync("subsonic:home:s1", true) { _, _ in Issue.record("star was taken") }
    likes.sync("subsonic:home:s1", false) { liked, why in
      state = liked
      reason = why
      refused.signal()
    }
    #expect(refused.wait(timeout: .now() + 10) == .success)
    #expect(state == false)
    #expect(reason.contains("home: this user may not do that"))
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline, !calls.list.contains("/rest/star s1") {
      Thread.sleep(forTimeInterval: 0.05)
    }
    #expect(calls.list.contains("/rest/star s1") && calls.list.contains("/rest/unstar s1"))
    // A server not in config.toml: refused at once, saying so.
    let unknown = DispatchSemaphore(value: 0)
    likes.sync("subsonic:gone:s1", true) { _, why in
      #expect(why.contains("No server named"))
      unknown.signal()
    }
    #expect(unknown.wait(timeout: .now() + 5) == .success)
  }

  @Test("a server's song reports now playing, then the play; other songs only to the base")
  func plays() throws {
    let calls = Calls()
    let loopback = try Self.server(calls)
    defer { loopback.stop() }
    let servers = SubsonicServers()
    servers.register([
      SubsonicServerSettings(
        name: "home", url: loopback.baseURL, user: "joe", credential: .password("sesame"))
    ])
    let based = Calls()
    let scrobble = ScrobbleClient(
      announce: { based.add("now " + $0.id) },
      listened: { song, _ in based.add("heard " + song.id) },
      flush: {}
    ).reportingPlays(to: servers)
    let song = Song(
      id: "subsonic:home:s9", title: "T", displayName: "A", handle: "",
      audioURL: URL(string: "subsonic://home/stream?id=s9")!)
    let other = Song(
      id: "x", title: "T", displayName: "A", handle: "",
      audioURL: URL(string: "https://cdn.example/x.mp3")!)
    scrobble.announce(song)
    scrobble.listened(song, Date())
    scrobble.announce(other)
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline, calls.list.count < 2 { Thread.sleep(forTimeInterval: 0.05) }
    #expect(Set(calls.list) == ["/rest/scrobble s9 false", "/rest/scrobble s9 true"])
    #expect(based.list == ["now subsonic:home:s9", "heard subsonic:home:s9", "now x"])
  }
}
