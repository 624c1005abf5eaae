import Foundation
import RiffleCore
import Testing

@testable import RiffleApp

@Suite("i on a library page: a match not loaded is named from the whole library")
struct ListenerNamingTests {
  static let walk = Song(
    id: "file:///music/Testers/Night%20Walk.mp3", title: "Night Walk",
    displayName: "The Testers\u{7}", handle: "",
    audioURL: URL(string: "file:///music/Testers/Night%20Walk.mp3")!)

  @Test("a loaded song is paged to; one only in the library is named; others are left alone")
  func naming() {
    let match = ListenEvent.identified(songID: Self.walk.id, offset: 12, listened: 8)
    let names = [
      Self.walk.id: HeardSong(
        title: Self.walk.title, artist: Self.walk.displayName, source: "your library")
    ]
    #expect(Listener.naming(match, loaded: [Self.walk.id], names: names) == match)
    #expect(
      Listener.naming(match, loaded: [], names: names)
        == .named(HeardSong(title: "Night Walk", artist: "The Testers", source: "your library")))
    #expect(Listener.naming(match, loaded: [], names: [:]) == match)
    #expect(
      Listener.naming(.failed("No song matched"), loaded: [], names: names)
        == .failed("No song matched"))
    #expect(
      ListenEvent.named(HeardSong(title: "A", artist: "B", source: "your library")).action
        == .heardSong(HeardSong(title: "A", artist: "B", source: "your library")))
  }
}
