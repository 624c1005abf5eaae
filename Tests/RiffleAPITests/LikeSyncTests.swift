import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleAPI

/// A likes server on 127.0.0.1: POST likes, DELETE unlikes, each answered after `delay`;
/// `status` other than 2xx refuses.
private final class LikesServer: @unchecked Sendable {
  private let lock = NSLock()
  private var liked: [String: Bool] = [:]
  private var _status = 200
  let server: LoopbackHTTPServer

  init(delay: TimeInterval = 0) throws {
    let box = WeakBox()
    server = try LoopbackHTTPServer { request in
      if delay > 0 { Thread.sleep(forTimeInterval: delay) }
      return box.value?.answer(request) ?? .respond(status: 500, body: Data())
    }
    box.value = self
  }

  var status: Int {
    get { lock.withLock { _status } }
    set { lock.withLock { _status = newValue } }
  }

  /// What the server holds for a request path ("/api/songs/ID/like").
  func isLiked(_ path: String) -> Bool { lock.withLock { liked[path] ?? false } }

  var requests: [LoopbackHTTPServer.Request] { server.requests }

  var template: String { server.baseURL.absoluteString + "/api/songs/{id}/like" }

  private func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
    lock.withLock {
      guard (200..<300).contains(_status) else {
        return .respond(status: _status, body: Data(#"{"error": "nope"}"#.utf8))
      }
      switch request.method {
      case "POST": liked[request.path] = true
      case "DELETE": liked[request.path] = false
      default: return .respond(status: 405, body: Data())
      }
      return .respond(
        status: 200, headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
    }
  }

  func stop() { server.stop() }
}

private final class WeakBox: @unchecked Sendable {
  weak var value: LikesServer?
}

/// Calls of `onRejected`.
private final class Rejections: @unchecked Sendable {
  private let lock = NSLock()
  private var calls: [(liked: Bool, reason: String)] = []

  var handler: @Sendable (Bool, String) -> Void {
    { liked, reason in self.lock.withLock { self.calls.append((liked, reason)) } }
  }

  var all: [(liked: Bool, reason: String)] { lock.withLock { calls } }
}

@Suite("LikeSync")
struct LikeSyncTests {
  @Test("A like is a POST to the templated URL")
  func likePosts() throws {
    let likes = try LikesServer()
    defer { likes.stop() }
    let sync = LikeSync(template: likes.template, debounce: 0.05)
    let rejections = Rejections()
    sync.set("song-1", liked: true, onRejected: rejections.handler)
    sync.settle(timeout: 10)
    #expect(likes.requests.map(\.method) == ["POST"])
    #expect(likes.requests.first?.target == "/api/songs/song-1/like")
    #expect(likes.requests.first?.headers["accept"] == "application/json")
    #expect(likes.isLiked("/api/songs/song-1/like"))
    #expect(rejections.all.isEmpty)
  }

  @Test("An unlike is a DELETE to the templated URL")
  func unlikeDeletes() throws {
    let likes = try LikesServer()
    defer { likes.stop() }
    let sync = LikeSync(template: likes.template, debounce: 0.05)
    let rejections = Rejections()
    sync.set("song-2", liked: true, onRejected: rejections.handler)
    sync.settle(timeout: 10)
    sync.set("song-2", liked: false, onRejected: rejections.handler)
    sync.settle(timeout: 10)
    #expect(likes.requests.map(\.method) == ["POST", "DELETE"])
    #expect(likes.requests.last?.target == "/api/songs/song-2/like")
    #expect(!likes.isLiked("/api/songs/song-2/like"))
    #expect(rejections.all.isEmpty)
  }

  @Test("The song id is percent-encoded into one path segment")
  func idIsPercentEncoded() throws {
    let likes = try LikesServer()
    defer { likes.stop() }
    let sync = LikeSync(template: likes.template, debounce: 0.05)
    sync.set("a b/c?d#e%ñ", liked: true, onRejected: { _, _ in })
    sync.settle(timeout: 10)
    #expect(likes.requests.map(\.target) == ["/api/songs/a%20b%2Fc%3Fd%23e%25%C3%B1/like"])
    #expect(
      sync.url(for: "8f1c2a9e-5b7d")?.absoluteString
        == likes.server.baseURL.absoluteString + "/api/songs/8f1c2a9e-5b7d/like")
    #expect(
      LikeSync(template: "https://h.example/like?song={id}").url(for: "x/y")?.absoluteString
        == "https://h.example/like?song=x%2Fy")
  }

  @Test("Two quick toggles back to the first state cost at most one request")
  func debounceBackToStart() throws {
    let likes = try LikesServer()
    defer { likes.stop() }
    let sync = LikeSync(template: likes.template, debounce: 0.3)
    sync.set("song-3", liked: true, onRejected: { _, _ in })
    Thread.sleep(forTimeInterval: 0.05)
    sync.set("song-3", liked: false, onRejected: { _, _ in })
    sync.settle(timeout: 10)
    #expect(likes.requests.count <= 1)
    #expect(likes.requests.allSatisfy { $0.method == "DELETE" })
    #expect(!likes.isLiked("/api/songs/song-3/like"))
  }

  @Test("Quick toggles within the wait send only the final state")
  func debounceSendsFinal() throws {
    let likes = try LikesServer()
    defer { likes.stop() }
    let sync = LikeSync(template: likes.template, debounce: 0.3)
    for liked in [true, false, true, false, true] {
      sync.set("song-4", liked: liked, onRejected: { _, _ in })
      Thread.sleep(forTimeInterval: 0.03)
    }
    sync.settle(timeout: 10)
    #expect(likes.requests.map(\.method) == ["POST"])
    #expect(likes.isLiked("/api/songs/song-4/like"))
  }

  @Test(
    "Rapid toggling while a request is out costs at most two requests and ends right",
    arguments: [10, 11])
  func rapidToggling(toggles: Int) throws {
    // The server takes long enough that all the toggles land while the first request is out,
    // even on a loaded machine where each 10 ms sleep can take far longer.
    let likes = try LikesServer(delay: 1.5)
    defer { likes.stop() }
    let sync = LikeSync(template: likes.template, debounce: 0.05)
    let rejections = Rejections()
    var liked = false
    for index in 0..<toggles {
      liked.toggle()
      sync.set("song-5", liked: liked, onRejected: rejections.handler)
      // After the first toggle, wait for its request to go out; then toggle fast.
      Thread.sleep(forTimeInterval: index == 0 ? 0.15 : 0.01)
    }
    sync.settle(timeout: 10)
    #expect(likes.requests.count <= 2, "\(likes.requests.map(\.method))")
    #expect(likes.requests.first?.method == "POST")
    #expect(likes.isLiked("/api/songs/song-5/like") == liked)
    #expect(rejections.all.isEmpty)
    if toggles.isMultiple(of: 2) {
      #expect(likes.requests.map(\.method) == ["POST", "DELETE"])
    }
  }

  @Test("Songs are settled independently")
  func songsIndependent() throws {
    let likes = try LikesServer()
    defer { likes.stop() }
    let sync = LikeSync(template: likes.template, debounce: 0.1)
    sync.set("a", liked: true, onRejected: { _, _ in })
    sync.set("b", liked: true, onRejected: { _, _ in })
    sync.set("c", liked: false, onRejected: { _, _ in })
    sync.settle(timeout: 10)
    #expect(likes.requests.count == 3)
    #expect(likes.isLiked("/api/songs/a/like"))
    #expect(likes.isLiked("/api/songs/b/like"))
    #expect(!likes.isLiked("/api/songs/c/like"))
    #expect(Set(likes.requests.map(\.target)).count == 3)
  }

  @Test("A refused like calls onRejected with the refused state and the reason")
  func serverErrorRejects() throws {
    let likes = try LikesServer()
    defer { likes.stop() }
    likes.status = 500
    let sync = LikeSync(template: likes.template, debounce: 0.05)
    let rejections = Rejections()
    sync.set("song-6", liked: true, onRejected: rejections.handler)
    sync.settle(timeout: 10)
    #expect(likes.requests.map(\.method) == ["POST"])
    #expect(rejections.all.count == 1)
    #expect(rejections.all.first?.liked == true)
    #expect(rejections.all.first?.reason == "Server error 500 from 127.0.0.1")

    // The refused state is not sent again by itself; an unlike afterwards is.
    likes.status = 200
    Thread.sleep(forTimeInterval: 0.2)
    #expect(likes.requests.count == 1)
    sync.set("song-6", liked: false, onRejected: rejections.handler)
    sync.settle(timeout: 10)
    #expect(likes.requests.map(\.method) == ["POST", "DELETE"])
    #expect(rejections.all.count == 1)
  }

  @Test("A refused unlike calls onRejected with false and the reason")
  func refusedUnlike() throws {
    let likes = try LikesServer()
    defer { likes.stop() }
    let sync = LikeSync(template: likes.template, debounce: 0.05)
    let rejections = Rejections()
    sync.set("song-7", liked: true, onRejected: rejections.handler)
    sync.settle(timeout: 10)
    likes.status = 403
    sync.set("song-7", liked: false, onRejected: rejections.handler)
    sync.settle(timeout: 10)
    #expect(likes.requests.map(\.method) == ["POST", "DELETE"])
    #expect(rejections.all.map(\.liked) == [false])
    #expect(rejections.all.first?.reason == "Access denied (403) by 127.0.0.1")
    #expect(likes.isLiked("/api/songs/song-7/like"))
  }

  @Test("An unreachable likes server rejects with the connection reason")
  func unreachableRejects() throws {
    let port = try ClosedPort()
    let template = "http://127.0.0.1:\(port.port)/api/songs/{id}/like"
    let sync = LikeSync(template: template, debounce: 0.05)
    let rejections = Rejections()
    sync.set("song-8", liked: true, onRejected: rejections.handler)
    sync.settle(timeout: 10)
    #expect(rejections.all.map(\.liked) == [true])
    #expect(rejections.all.first?.reason == "No connection to 127.0.0.1")
  }

  @Test(
    "validate() accepts http(s) templates with {id} and explains the others",
    arguments: [
      ("https://apitest.suno.com/api/songs/{id}/like", nil),
      ("http://127.0.0.1:8080/likes/{id}", nil),
      ("https://host/api/like?song={id}", nil),
      ("https://host/api/songs/like", "the likes endpoint must contain {id}"),
      ("", "the likes endpoint must contain {id}"),
      ("https://host/api/songs/{ID}/like", "the likes endpoint must contain {id}"),
      ("ftp://host/{id}", "the likes endpoint must be an http(s) URL"),
      ("file:///tmp/{id}", "the likes endpoint must be an http(s) URL"),
      ("host/api/{id}/like", "the likes endpoint must be an http(s) URL"),
      ("{id}", "the likes endpoint must be an http(s) URL"),
    ] as [(String, String?)])
  func validate(template: String, message: String?) {
    #expect(LikeSync.validate(template) == message)
  }
}
