import Foundation
import RiffleAPI
import RiffleCore
import RiffleTestSupport
import Testing

@Suite("Radio Browser and the stations kept")
struct RadioBrowserTests {
  @Test("the search's address: the term encoded whole, the most listened first")
  func searchURL() {
    let radio = RadioBrowser(base: URL(string: "http://127.0.0.1:9/rb")!)
    let url = radio.searchURL("jazz & blues+1")
    #expect(url.path == "/rb/json/stations/search")
    let query = url.query ?? ""
    #expect(query.contains("name=jazz%20%26%20blues%2B1"))
    #expect(query.contains("hidebroken=true"))
    #expect(query.contains("order=clickcount"))
  }

  @Test("stations as pages: name, tags, country and codec; entries without a stream skipped")
  func page() throws {
    let body = """
      [
        {"name": "Jazz \\u001b[2JFM", "url": "http://a.example/jazz.pls",
         "url_resolved": "http://a.example:8000/jazz", "tags": "jazz,smooth jazz,,lounge,extra",
         "country": "Germany", "codec": "MP3", "bitrate": 128,
         "favicon": "https://a.example/icon.png"},
        {"name": "No stream", "url": "", "url_resolved": ""},
        {"name": "Local file", "url_resolved": "file:///etc/passwd"},
        {"name": "Twice", "url_resolved": "http://a.example:8000/jazz"},
        {"name": "", "url_resolved": "http://b.example/x"},
        {"name": "Bare", "url": "https://b.example/bare", "bitrate": "n/a", "favicon": "javascript:x"},
        "not an object", 42, null
      ]
      """
    let page = try RadioBrowser.page(Data(body.utf8)).get()
    #expect(page.songs.map(\.title) == ["Jazz FM", "Bare"])
    #expect(page.skipped == 7)
    let jazz = page.songs[0]
    #expect(jazz.isLiveStream)
    #expect(jazz.audioURL.absoluteString == "http://a.example:8000/jazz")
    #expect(jazz.displayName == "jazz, smooth jazz, lounge")
    #expect(jazz.album == "Germany \u{00B7} MP3 128 kbps")
    #expect(jazz.imageURL?.absoluteString == "https://a.example/icon.png")
    #expect(page.songs[1].displayName == "Live radio")
    #expect(page.songs[1].imageURL == nil)
  }

  @Test("answers that are not a list of stations fail with a reason")
  func malformed() {
    for body in ["<html>502 Bad Gateway</html>", #"{"error": "x"}"#, "[", ""] {
      guard case .failure(let error) = RadioBrowser.page(Data(body.utf8)) else {
        Issue.record("\(body) was read as stations")
        continue
      }
      #expect(error.userMessage.hasPrefix("Unexpected answer"))
      #expect(!error.isTransient)
    }
  }

  @Test("the search goes to the server with Riffle's User-Agent")
  func search() throws {
    let body = Data(#"[{"name": "Loop FM", "url_resolved": "http://127.0.0.1:1/live"}]"#.utf8)
    let server = try LoopbackHTTPServer(
      handler: LoopbackHTTPServer.routes([
        "/json/stations/search": .respond(
          status: 200, headers: ["Content-Type": "application/json"], body: body)
      ]))
    defer { server.stop() }
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox()
    RadioBrowser(base: server.baseURL).search("loop") {
      box.result = $0
      done.signal()
    }
    done.wait()
    #expect(try box.result?.get().songs.map(\.title) == ["Loop FM"])
    let request = try #require(server.requests.first)
    #expect(request.headers["user-agent"]?.hasPrefix("Riffle/") == true)
    #expect(request.formQuery["name"] == "loop")
  }

  @Test("kept stations survive a new store, once per stream, and go when let go")
  func favourites() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "riffle-stations-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("stations.json")
    let store = FavouriteStations(file: file)
    #expect(try store.page().get().songs.isEmpty)
    let a = FavouriteStation(url: "http://a.example/live", name: "A FM", genre: "jazz")
    try store.set(a, kept: true)
    try store.set(FavouriteStation(url: "http://b.example/live", name: "B", genre: ""), kept: true)
    try store.set(a, kept: true)
    let songs = try FavouriteStations(file: file).page().get().songs
    #expect(songs.map(\.title) == ["B", "A FM"])
    #expect(songs.allSatisfy { $0.isLiveStream && $0.isLiked })
    try store.set(a, kept: false)
    #expect(try store.all().map(\.name) == ["B"])
    // A damaged file is reported and left as it is.
    try Data("{not json".utf8).write(to: file)
    #expect(throws: (any Error).self) { try store.set(a, kept: true) }
    #expect(try Data(contentsOf: file) == Data("{not json".utf8))
  }
}

private final class ResultBox: @unchecked Sendable {
  var result: Result<SourcePage, CatalogError>?
}
