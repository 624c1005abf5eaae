import Foundation
import RiffleCore
import Testing

@testable import RiffleDesktop

/// A state with `count` songs on page `index`, playing as `playback`.
func mprisState(
  count: Int = 3, index: Int = 0, playback: PlayerState.Playback = .playing,
  position: Double = 0, duration: Double? = 30
) -> PlayerState {
  var state = PlayerState()
  state.songs = (1...max(count, 1)).prefix(count).map { n in
    Song(
      id: "song-\(n)", title: "Title \(n)", displayName: "Artist \(n)", handle: "artist\(n)",
      imageURL: URL(string: "https://img.example/\(n).png"),
      audioURL: URL(string: "https://audio.example/\(n).mp3")!, duration: 31)
  }
  state.index = index
  state.playback = playback
  state.position = position
  state.duration = duration
  state.source = PageSource(kind: .feed(URL(string: "https://example.com/feed")!))
  return state
}

@Suite("MPRIS properties from the player state")
struct MPRISStateTests {
  @Test(
    "PlaybackStatus follows playback",
    arguments: [
      (PlayerState.Playback.playing, "Playing"), (.loading, "Playing"), (.buffering, "Playing"),
      (.paused, "Paused"), (.idle, "Stopped"), (.finished, "Stopped"), (.failed("x"), "Stopped"),
    ])
  func playbackStatus(playback: PlayerState.Playback, status: String) {
    let state = MPRISState(mprisState(playback: playback))
    #expect(state.properties["PlaybackStatus"] == .string(status))
  }

  @Test("metadata names the song: trackid, title, artist list, length in µs, art and audio URLs")
  func metadata() {
    let state = MPRISState(mprisState(index: 1, duration: 12.5))
    #expect(
      state.properties["Metadata"]
        == .dictionary([
          "mpris:trackid": .objectPath("/org/riffle/track/song_2D2"),
          "xesam:title": .string("Title 2"),
          "xesam:artist": .stringArray(["Artist 2"]),
          "mpris:length": .int64(12_500_000),
          "mpris:artUrl": .string("https://img.example/2.png"),
          "xesam:url": .string("https://audio.example/2.mp3"),
        ]))
  }

  @Test("the song's own duration stands in until the decoder's is known; none, no length")
  func lengthFallback() {
    let fromSong = MPRISState(mprisState(duration: nil))
    guard case .dictionary(let metadata) = fromSong.properties["Metadata"] else {
      Issue.record("no metadata")
      return
    }
    #expect(metadata["mpris:length"] == .int64(31_000_000))
    var state = mprisState(duration: nil)
    state.songs[0].duration = nil
    guard case .dictionary(let none) = MPRISState(state).properties["Metadata"] else { return }
    #expect(none["mpris:length"] == nil)
    #expect(MPRISState(state).properties["CanSeek"] == .bool(false))
  }

  @Test("no songs: NoTrack, nothing to play, pause or seek")
  func empty() {
    let state = MPRISState(PlayerState())
    #expect(
      state.properties["Metadata"]
        == .dictionary(["mpris:trackid": .objectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack")]))
    #expect(state.properties["CanPlay"] == .bool(false))
    #expect(state.properties["CanPause"] == .bool(false))
    #expect(state.properties["CanSeek"] == .bool(false))
    #expect(state.properties["CanGoNext"] == .bool(false))
    #expect(state.properties["CanGoPrevious"] == .bool(false))
    #expect(state.properties["PlaybackStatus"] == .string("Stopped"))
  }

  @Test("CanGoNext and CanGoPrevious are false at the ends, like the buttons")
  func ends() {
    let first = MPRISState(mprisState(index: 0))
    #expect(first.properties["CanGoPrevious"] == .bool(false))
    #expect(first.properties["CanGoNext"] == .bool(true))
    let last = MPRISState(mprisState(index: 2))
    #expect(last.properties["CanGoPrevious"] == .bool(true))
    #expect(last.properties["CanGoNext"] == .bool(false))
  }

  @Test(
    "seeking is possible only while there is sound to move in",
    arguments: [
      (PlayerState.Playback.playing, true), (.paused, true), (.buffering, true), (.loading, false),
      (.idle, false), (.finished, false), (.failed("x"), false),
    ])
  func canSeek(playback: PlayerState.Playback, expected: Bool) {
    #expect(MPRISState(mprisState(playback: playback)).properties["CanSeek"] == .bool(expected))
  }

  @Test("the position grows while playing, stands while paused, and stops at the length")
  func position() {
    let playing = MPRISState(mprisState(playback: .playing, position: 10))
    #expect(playing.positionMicroseconds(after: 0) == 10_000_000)
    #expect(playing.positionMicroseconds(after: 1.5) == 11_500_000)
    #expect(playing.positionMicroseconds(after: 100) == 30_000_000)
    #expect(playing.positionMicroseconds(after: -3) == 10_000_000)
    let paused = MPRISState(mprisState(playback: .paused, position: 10))
    #expect(paused.positionMicroseconds(after: 5) == 10_000_000)
  }

  @Test("changes lists only what differs (the position is not a property here)")
  func changes() {
    let before = MPRISState(mprisState(playback: .playing, position: 1))
    let later = MPRISState(mprisState(playback: .playing, position: 9))
    #expect(later.changes(since: before).isEmpty)
    let paused = MPRISState(mprisState(playback: .paused, position: 9))
    #expect(paused.changes(since: before) == ["PlaybackStatus": .string("Paused")])
    let paged = MPRISState(mprisState(index: 2))
    #expect(Set(paged.changes(since: before).keys) == ["Metadata", "CanGoNext", "CanGoPrevious"])
  }

  @Test("track ids are valid object paths for any song id, and distinct")
  func trackIDs() {
    #expect(MPRISState.trackID("abc123") == "/org/riffle/track/abc123")
    #expect(MPRISState.trackID("a-b/c") == "/org/riffle/track/a_2Db_2Fc")
    #expect(MPRISState.trackID("") == "/org/riffle/track/_")
    #expect(MPRISState.trackID("é") == "/org/riffle/track/_C3_A9")
    #expect(MPRISState.trackID("a_b") != MPRISState.trackID("a-b"))
    #expect(MPRISState.trackID("_5F") != MPRISState.trackID("_"))
  }

  @Test("titles and artists from servers lose their control characters")
  func sanitized() {
    var state = mprisState()
    state.songs[0].title = "Bad\u{1B}[31mTitle"
    state.songs[0].displayName = ""
    guard case .dictionary(let metadata) = MPRISState(state).properties["Metadata"] else {
      Issue.record("no metadata")
      return
    }
    #expect(metadata["xesam:title"] == .string(TextSanitizer.sanitize("Bad\u{1B}[31mTitle")))
    #expect(metadata["xesam:artist"] == .stringArray(["artist1"]), "the handle stands in")
  }
}

@Suite("MPRIS commands become player actions")
struct MPRISCommandTests {
  @Test("PlayPause toggles when there is a song")
  func playPause() {
    #expect(MPRISCommand.playPause.actions(in: mprisState()) == [.togglePlay])
    #expect(MPRISCommand.playPause.actions(in: PlayerState()) == [])
  }

  @Test(
    "Play starts or resumes, and does nothing while sound is asked for",
    arguments: [
      (PlayerState.Playback.paused, true), (.idle, true), (.finished, true), (.failed("x"), true),
      (.playing, false), (.loading, false), (.buffering, false),
    ])
  func play(playback: PlayerState.Playback, toggles: Bool) {
    #expect(
      MPRISCommand.play.actions(in: mprisState(playback: playback))
        == (toggles ? [.togglePlay] : []))
    #expect(
      MPRISCommand.pause.actions(in: mprisState(playback: playback))
        == (toggles ? [] : [.togglePlay]))
  }

  @Test("Stop pauses and goes back to the start")
  func stop() {
    #expect(
      MPRISCommand.stop.actions(in: mprisState(playback: .playing)) == [.togglePlay, .seekTo(0)])
    #expect(MPRISCommand.stop.actions(in: mprisState(playback: .paused)) == [.seekTo(0)])
    #expect(MPRISCommand.stop.actions(in: mprisState(playback: .finished)) == [])
  }

  @Test("Next and Previous are the keys' actions (the reducer refuses them at the ends)")
  func paging() {
    #expect(MPRISCommand.next.actions(in: mprisState(index: 2)) == [.next])
    #expect(MPRISCommand.previous.actions(in: mprisState(index: 0)) == [.previous])
  }

  @Test("Seek moves by microseconds; past the end is Next; nothing without sound")
  func seek() {
    let state = mprisState(playback: .playing, position: 10, duration: 30)
    #expect(MPRISCommand.seek(offset: 5_000_000).actions(in: state) == [.seek(by: 5)])
    #expect(MPRISCommand.seek(offset: -2_500_000).actions(in: state) == [.seek(by: -2.5)])
    #expect(MPRISCommand.seek(offset: 25_000_000).actions(in: state) == [.next])
    let last = mprisState(index: 2, playback: .playing, position: 10, duration: 30)
    #expect(MPRISCommand.seek(offset: 25_000_000).actions(in: last) == [.seek(by: 25)])
    #expect(MPRISCommand.seek(offset: 1_000_000).actions(in: mprisState(playback: .idle)) == [])
  }

  @Test("SetPosition applies only to the current track and within its length")
  func setPosition() {
    let state = mprisState(index: 1, playback: .paused, duration: 30)
    let track = MPRISState.trackID("song-2")
    #expect(
      MPRISCommand.setPosition(trackID: track, position: 20_000_000).actions(in: state)
        == [.seekTo(20)])
    #expect(
      MPRISCommand.setPosition(trackID: MPRISState.trackID("song-1"), position: 20_000_000)
        .actions(in: state) == [])
    #expect(MPRISCommand.setPosition(trackID: track, position: -1).actions(in: state) == [])
    #expect(MPRISCommand.setPosition(trackID: track, position: 31_000_000).actions(in: state) == [])
  }

  @Test("Quit quits")
  func quit() {
    #expect(MPRISCommand.quit.actions(in: mprisState()) == [.quit])
  }
}

@Suite("Song notifications")
struct SongNotifierTests {
  @Test("a song is announced once it plays, and only once")
  func announce() {
    #expect(SongNotifier.songToAnnounce(mprisState(playback: .loading), after: nil) == nil)
    let playing = mprisState(playback: .playing)
    #expect(SongNotifier.songToAnnounce(playing, after: nil)?.id == "song-1")
    let first = SongNotifier.key(playing.currentSong!)
    #expect(SongNotifier.songToAnnounce(playing, after: first) == nil)
    #expect(SongNotifier.songToAnnounce(mprisState(index: 1), after: first)?.id == "song-2")
    #expect(SongNotifier.songToAnnounce(mprisState(playback: .paused), after: nil) == nil)
  }

  @Test("a station is announced again each time its stream names another song")
  func stationTitles() {
    var state = mprisState(playback: .playing)
    state.songs[0].id = "station:http://radio.example/live"
    state.live = LiveStream(songID: state.songs[0].id, playID: state.playID)
    state.live?.title = "Mira Sol - Night Drive"
    let heard = SongNotifier.songToAnnounce(state, after: nil)
    #expect(heard?.title == "Night Drive")
    #expect(heard?.displayName == "Mira Sol")
    #expect(SongNotifier.songToAnnounce(state, after: SongNotifier.key(heard!)) == nil)
    state.live?.title = "Mira Sol - Dawn"
    #expect(SongNotifier.songToAnnounce(state, after: SongNotifier.key(heard!))?.title == "Dawn")
  }

  @Test("Notify's arguments: app, replaced id, icon, title, escaped artist, hints, timeout")
  func arguments() {
    var song = mprisState().songs[0]
    song.displayName = "Tom & <Jerry>"
    song.imageURL = URL(fileURLWithPath: "/covers/1.png")
    let values = SongNotifier.arguments(for: song)(42)
    #expect(
      values == [
        .string("Riffle"), .uint32(42), .string("audio-x-generic"), .string("Title 1"),
        .string("Tom &amp; &lt;Jerry&gt;"), .stringArray([]),
        .dictionary([
          "desktop-entry": .string("riffle"), "category": .string("x-riffle.song"),
          "urgency": .byte(0), "image-path": .string("file:///covers/1.png"),
        ]), .int32(-1),
      ])
    song.imageURL = URL(string: "https://img.example/1.png")
    guard case .dictionary(let hints) = SongNotifier.arguments(for: song)(0)[6] else { return }
    #expect(hints["image-path"] == nil, "only a local cover can be shown by path")
  }
}

@Suite("MPRIS: Volume, Shuffle and LoopStatus")
struct MPRISSessionPropertiesTests {
  @Test("The properties follow the state; writes become the player's actions")
  func volumeShuffleLoop() {
    var state = PlayerState()
    state.volume = 40
    state.shuffle = true
    state.repeatMode = .one
    let properties = MPRISState(state).properties
    #expect(properties["Volume"] == .double(0.4))
    #expect(properties["Shuffle"] == .bool(true))
    #expect(properties["LoopStatus"] == .string("Track"))
    state.isMuted = true
    #expect(MPRISState(state).properties["Volume"] == .double(0))
    #expect(MPRISCommand.setVolume(0.5).actions(in: state) == [.setVolume(50)])
    #expect(MPRISCommand.setVolume(3).actions(in: state) == [.setVolume(100)])
    #expect(MPRISCommand.setVolume(.nan).actions(in: state) == [])
    #expect(MPRISCommand.setShuffle(true).actions(in: state) == [])
    #expect(MPRISCommand.setShuffle(false).actions(in: state) == [.setShuffle(false)])
    #expect(MPRISCommand.setLoopStatus("Playlist").actions(in: state) == [.setRepeat(.all)])
    #expect(MPRISCommand.setLoopStatus("Track").actions(in: state) == [])
    #expect(MPRISCommand.setLoopStatus("Sometimes").actions(in: state) == [])
  }
}

@Suite("MPRIS: the TrackList")
struct MPRISTrackListTests {
  private func song(_ id: String) -> Song {
    Song(
      id: id, title: "Song \(id)", displayName: "Band", handle: "",
      audioURL: URL(string: "https://cdn1.example.com/\(id).mp3")!, duration: 60)
  }

  @Test("The song on the page, then up next, each once; none in the queue's own pages")
  func tracks() {
    var state = PlayerState()
    state.source = PageSource(kind: .feed(URL(string: "https://example.com/feed.json")!))
    state.songs = [song("a"), song("b")]
    state.queue = [song("c"), song("a")]
    let tracks = MPRISState(state).tracks
    #expect(tracks == ["a", "c"].map(MPRISState.trackID))
    #expect(
      MPRISState(state).trackMetadata[MPRISState.trackID("c")]?["xesam:title"] == .string("Song c"))
    state.source = PageSource(kind: .queue)
    #expect(MPRISState(state).tracks == [MPRISState.trackID("a")])
    #expect(MPRISState(PlayerState()).tracks.isEmpty)
  }
}
