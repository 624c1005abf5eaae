import Foundation
import RiffleCore
import RiffleTestSupport
import Testing

@testable import RiffleAPI

@Suite("Apple's charts")
struct AppleChartsTests {
  @Test("genres are found by name, loosely, or by id; countries are two letters")
  func names() {
    #expect(AppleCharts.genre(named: "hip hop")?.name == "Hip-Hop/Rap")
    #expect(AppleCharts.genre(named: "R&B")?.name == "R&B/Soul")
    #expect(AppleCharts.genre(named: "21")?.name == "Rock")
    #expect(AppleCharts.genre(named: "polka") == nil)
    #expect(AppleCharts.country("GB") == "gb")
    #expect(AppleCharts.country("usa") == nil)
    #expect(AppleCharts.country("u1") == nil)
  }

  @Test("the chart's entries in order; a web page or another shape says what it is")
  func entries() throws {
    let body = #"""
      {"feed":{"results":[
        {"id":"7","name":"A","artistName":"X","genres":[{"genreId":"21","name":"Rock"}]},
        {"id":"not-a-number","name":"B"}, {"name":"no id"},
        {"id":"9","name":"C","artistName":"Y"}]}}
      """#
    let entries = try AppleCharts.entries(Data(body.utf8))
    #expect(entries.map(\.id) == ["7", "9"])
    #expect(entries.first?.genres == ["Rock", "21"])
    #expect(throws: CatalogError.invalid("a web page, not the chart")) {
      try AppleCharts.entries(Data("<!doctype html><title>Sign in</title>".utf8))
    }
    #expect(throws: CatalogError.invalid("no chart in the answer")) {
      try AppleCharts.entries(Data(#"{"results":[]}"#.utf8))
    }
  }

  @Test("songs keep the chart's order; those without a preview are counted")
  func songsInOrder() {
    let entries = ["3", "1", "2", "1"].map {
      AppleCharts.ChartEntry(id: $0, name: "", artist: "", genres: [])
    }
    let previews: [JSONValue] = [1, 3].map { id in
      .object([
        "kind": .string("song"), "trackId": .integer(Int64(id)),
        "trackName": .string("Song \(id)"), "previewUrl": .string("https://a/\(id).m4a"),
      ])
    }
    let page = AppleCharts.songs(entries, previews: previews)
    #expect(page.songs.map(\.title) == ["Song 3", "Song 1"])
    #expect(page.skipped == 1)
    #expect(page.next == nil)
  }
}
