import Foundation
import Testing

@testable import RiffleCore

@Suite("An artist's songs, each once")
struct DeduplicationTests {
  private func song(_ id: Int, _ title: String, by artist: String = "The Band") -> Song {
    Song(
      id: "itunes:\(id)", title: title, displayName: artist, handle: "",
      audioURL: URL(string: "https://audio.example.com/\(id).m4a")!)
  }

  private func kept(_ titles: [String]) -> [String] {
    SongDeduplicator.unique(titles.enumerated().map { song($0.offset, $0.element) }).songs.map(
      \.title)
  }

  @Test("a remaster is the same song: the first (most popular) is kept")
  func remaster() {
    #expect(
      kept(["Here Comes the Sun (Remastered 2009)", "Here Comes the Sun"]) == [
        "Here Comes the Sun (Remastered 2009)"
      ])
    #expect(kept(["Song", "Song - 2011 Remaster", "Song (Remastered)"]) == ["Song"])
  }

  @Test("a live recording is the same song, with a dash or in brackets")
  func live() {
    #expect(
      kept(["Song", "Song - Live", "Song (Live at Wembley 1986)", "Song [Live]"]) == ["Song"])
  }

  @Test("deluxe, bonus and edition markers are set aside")
  func editions() {
    #expect(
      kept(["Song [Deluxe]", "Song (Bonus Track)", "Song (2015 Deluxe Edition)", "Song"]) == [
        "Song [Deluxe]"
      ])
  }

  @Test("features and versions are set aside; case, accents, quotes and spaces do not count")
  func spellings() {
    #expect(
      kept([
        "Don’t Stop", "don't  stop (feat. Someone)", "Don't Stop - Single Version",
        "DON'T STOP (Radio Edit)",
      ]) == ["Don’t Stop"])
    #expect(kept(["Café", "Cafe"]) == ["Café"])
  }

  @Test("different songs stay: a remix or other mix, a part, a title that only contains a word")
  func differentSongs() {
    let titles = [
      "Symphony No. 5 - I. Allegro", "Symphony No. 5 - II. Andante", "Song", "Song (Remix)",
      "Song (Extended Mix)",
      "Live Forever", "Forever",
    ]
    #expect(kept(titles) == titles)
  }

  @Test("the same title by another artist is another song")
  func otherArtist() {
    let songs = [
      song(1, "Hallelujah", by: "Leonard Cohen"), song(2, "Hallelujah", by: "Jeff Buckley"),
    ]
    #expect(SongDeduplicator.unique(songs).songs.count == 2)
  }

  @Test("the count of repeats hidden is given")
  func hiddenCount() {
    let songs = [song(1, "A"), song(2, "A (Live)"), song(3, "B"), song(4, "A - Remastered")]
    let result = SongDeduplicator.unique(songs)
    #expect(result.songs.map(\.id) == ["itunes:1", "itunes:3"])
    #expect(result.hidden == 2)
  }

  @Test("a title made only of a decoration is not emptied into another")
  func onlyDecoration() {
    #expect(kept(["(Live)", "Intro"]) == ["(Live)", "Intro"])
  }
}
