import Foundation
import RiffleCore
import RiffleTUI
import Testing

@Suite("Keys on a server's album page")
struct AlbumPageKeysTests {
  static func state(albumPage: Bool) -> PlayerState {
    var song = Song(
      id: "subsonic-album:home:a1", title: "Dawn", displayName: "Mira Sol", handle: "",
      audioURL: URL(string: "subsonic://home/getAlbum?id=a1")!)
    song.albumID = "a1"
    song.isAlbumPage = albumPage
    var state = PlayerState()
    state.songs = [song]
    return state
  }

  @Test("Enter opens the album on its page, and does nothing on a song's page")
  func enter() {
    var router = InputRouter()
    #expect(
      router.action(for: .enter, state: Self.state(albumPage: true), width: 80, height: 24)
        == .showAlbum)
    #expect(
      router.action(for: .enter, state: Self.state(albumPage: false), width: 80, height: 24)
        == nil)
    #expect(
      router.action(for: .char("b"), state: Self.state(albumPage: true), width: 80, height: 24)
        == .showAlbum)
  }
}
