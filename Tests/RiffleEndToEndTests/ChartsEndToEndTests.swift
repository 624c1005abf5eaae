import Foundation
import RiffleTestSupport
import Testing

@Suite("Apple's charts end to end (tmux, loopback charts and iTunes)")
struct ChartsEndToEndTests {
  static let chart = ChartsServer(charts: [
    "gb": [
      .init(
        id: 101, name: "Glass Hearts", artist: "Ana Ruiz", genre: ("14", "Pop"),
        previewPath: "/audio/101"),
      .init(
        id: 102, name: "Iron Bridge", artist: "The Quarry", genre: ("21", "Rock"),
        previewPath: "/audio/102"),
      .init(
        id: 103, name: "No Preview Here", artist: "The Quarry", genre: ("21", "Rock"),
        previewPath: nil),
      .init(
        id: 104, name: "Granite Sky", artist: "Slate", genre: ("21", "Rock"),
        previewPath: "/audio/104"),
    ]
  ])

  @Test("riffle charts rock --country gb: the chart's rock songs in order, with previews")
  func genreChart() throws {
    let preview = try Data(contentsOf: TestFiles.fixture("short-1.mp3"))
    let box = ChartsBase()
    let server = try LoopbackHTTPServer { request in
      if request.path.hasPrefix("/audio/") { return .file(preview, contentType: "audio/mpeg") }
      return Self.chart.reply(to: request, base: box.url) ?? .respond(status: 404, body: Data())
    }
    defer { server.stop() }
    box.url = server.baseURL
    let home = try TemporaryDirectory("riffle-charts")
    let base = server.baseURL.absoluteString
    let tmux = try TmuxSession(
      command: [
        TestFiles.riffleBinary, "charts", "rock", "--country", "GB", "--charts-url", base,
        "--itunes-url", base, "--audio", "null",
      ],
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 })
    let first = try tmux.waitForAll("Iron Bridge", "1 / 2", "Top Rock songs")
    #expect(first.contains("1 without a preview"), "\(first)")
    #expect(!first.contains("Glass Hearts"))
    tmux.sendKeys("Right")
    try tmux.waitForAll("Granite Sky", "2 / 2")
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
    let paths = server.requests.map(\.path)
    #expect(paths.contains("/api/v2/gb/music/most-played/100/songs.json"))
    let lookup = server.requests.first { $0.path == "/lookup" }
    #expect(lookup.map { ITunesServer.query($0.target)["id"] } == "102,103,104")
  }

  @Test("--list names the genres; a bad country or genre is refused before the screen")
  func listAndBadInput() throws {
    let list = try runProgram(TestFiles.riffleBinary, ["charts", "--list"])
    #expect(list.status == 0)
    #expect(list.stdout.contains("Hip-Hop/Rap") && list.stdout.contains("Rock"))
    let country = try runProgram(TestFiles.riffleBinary, ["charts", "--country", "usa"])
    #expect(country.status != 0)
    #expect(country.stderr.contains("two-letter country code"))
    let genre = try runProgram(TestFiles.riffleBinary, ["charts", "polka", "metal"])
    #expect(genre.status != 0)
    #expect(genre.stderr.contains("riffle charts --list"))
  }
}

private final class ChartsBase: @unchecked Sendable {
  var url = URL(string: "http://127.0.0.1")!
}
