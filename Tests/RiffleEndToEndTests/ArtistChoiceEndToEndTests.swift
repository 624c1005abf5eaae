import Foundation
import RiffleTestSupport
import Testing

@Suite("Choosing among artists of one name, end to end (tmux, loopback iTunes)")
struct ArtistChoiceEndToEndTests {
  @Test("two artists named alike: a list (name, genre), Down and Enter open the second's songs")
  func chooseAmongTwo() throws {
    func track(_ id: Int, _ artist: Int, _ title: String) -> ITunesServer.Track {
      ITunesServer.Track(
        trackId: id, artistId: artist, artistName: "Nirvana", trackName: title,
        previewPath: "/audio/\(id)")
    }
    let harness = try SearchHarness(
      ITunesServer(artists: [
        1: (name: "Nirvana", tracks: [track(11, 1, "Smells Like Grunge")]),
        2: (name: "Nirvana", tracks: [track(21, 2, "Rainbow Chaser")]),
      ]))
    let tmux = try harness.start(["artist", "Nirvana"])
    let list = try tmux.waitForAll("Which \u{201C}Nirvana\u{201D}?", "2 artists match")
    #expect(list.contains("Pop"), "each artist's genre shows:\n\(list)")
    #expect(list.components(separatedBy: "Nirvana").count - 1 >= 3, "both rows:\n\(list)")
    tmux.sendKeys("Down")
    tmux.sendKeys("Enter")
    let songs = try tmux.waitForAll("Rainbow Chaser", "Nirvana\u{2019}s top songs")
    #expect(!songs.contains("Which"))
    let lookups = harness.server.requests.filter { $0.path == "/lookup" }
    #expect(lookups.map { ITunesServer.query($0.target)["id"] } == ["2"])
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)
  }
}
