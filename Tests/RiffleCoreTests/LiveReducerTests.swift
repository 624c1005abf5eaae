import Foundation
import Testing

@testable import RiffleCore

/// A station's page playing under request 1: its song, the state, the live state.
private enum Station {
  static let url = URL(string: "http://radio.example/live.mp3")!
  static let song = Song(
    id: "station:" + url.absoluteString, title: "Loopback FM", displayName: "Synthwave",
    handle: "", audioURL: url)

  static func playing() -> PlayerState {
    var state = PlayerState()
    state.source = PageSource(kind: .station(url, name: "Loopback FM"))
    state.songs = [song]
    state.playID = 1
    state.playback = .playing
    state.announcedPlayID = 1
    state.listenedPlayID = 1
    var live = LiveStream(songID: song.id, playID: 1)
    live.phase = .playing
    live.wasHeard = true
    state.live = live
    return state
  }
}

@Suite("Live stations in the reducer")
struct LiveReducerTests {
  @Test("playing a station sets up its live state; nothing is announced or scrobbled")
  func begin() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.source = PageSource(kind: .station(Station.url, name: "Loopback FM"))
        $0.songs = [Station.song]
      })
    store.send(.togglePlay, effects: [.play(Station.song, playID: 1)]) {
      $0.playID = 1
      $0.playback = .loading
      $0.live = LiveStream(songID: Station.song.id, playID: 1)
      $0.announcedPlayID = 1
      $0.listenedPlayID = 1
    }
    store.send(.playbackStarted(playID: 1, duration: nil)) {
      $0.playback = .playing
      $0.live?.phase = .playing
      $0.live?.wasHeard = true
    }
    store.send(.playbackProgress(playID: 1, position: 300, duration: nil)) { $0.position = 300 }
  }

  @Test("the stream's title shows on the page as artist and title, beside the station's name")
  func title() {
    var store = ReducerTestStore(Station.playing())
    store.send(.streamTitle(playID: 1, "Mira Sol - Night Drive")) {
      $0.live?.title = "Mira Sol - Night Drive"
    }
    #expect(store.state.currentSong?.title == "Night Drive")
    #expect(store.state.currentSong?.displayName == "Mira Sol")
    #expect(store.state.currentSong?.album == "Loopback FM")
    #expect(store.state.songs[0].title == "Loopback FM")
    // Hostile text is cleaned; a title that is not "Artist - Title" is shown whole.
    store.send(.streamTitle(playID: 1, "News at \u{1B}[2Jten")) { $0.live?.title = "News at ten" }
    #expect(store.state.currentSong?.title == "News at ten")
    #expect(store.state.currentSong?.displayName == "Loopback FM")
    // A blank title gives the station's own name back; an older request's title is ignored.
    store.send(.streamTitle(playID: 1, "")) { $0.live?.title = "" }
    #expect(store.state.currentSong == Station.song)
    store.send(.streamTitle(playID: 0, "Old - Song"))
  }

  @Test("a dropped stream reconnects after 1, 2, 4 s, saying so; sound resets the count")
  func reconnect() {
    var state = Station.playing()
    state.position = 42.7
    var store = ReducerTestStore(state)
    store.send(
      .streamDropped(playID: 1, "stopped sending", transient: true),
      effects: [.after(1, .retryDue(.stream(songID: Station.song.id), attempt: 1))]
    ) {
      $0.position = 0
      $0.playback = .buffering
      $0.live?.heardBefore = 42
      $0.live?.retry = Retry(attempts: 1)
      $0.live?.phase = .waiting(seconds: 1, reason: "stopped sending")
    }
    #expect(store.state.live?.note == "Reconnecting in 1 s\u{2026} (stopped sending)")
    // A stale retry is ignored; the due one connects again under a new request.
    store.send(.retryDue(.stream(songID: Station.song.id), attempt: 0))
    store.send(
      .retryDue(.stream(songID: Station.song.id), attempt: 1),
      effects: [.play(Station.song, playID: 2)]
    ) {
      $0.playID = 2
      $0.playback = .loading
      $0.announcedPlayID = 2
      $0.listenedPlayID = 2
      $0.live?.playID = 2
      $0.live?.phase = .connecting
    }
    #expect(store.state.live?.note == "Reconnecting\u{2026}")
    store.send(
      .streamDropped(playID: 2, "Cannot connect to radio.example", transient: true),
      effects: [.after(2, .retryDue(.stream(songID: Station.song.id), attempt: 2))]
    ) {
      $0.playback = .buffering
      $0.live?.retry = Retry(attempts: 2)
      $0.live?.phase = .waiting(seconds: 2, reason: "Cannot connect to radio.example")
    }
    store.send(
      .retryDue(.stream(songID: Station.song.id), attempt: 2),
      effects: [.play(Station.song, playID: 3)]
    ) {
      $0.playID = 3
      $0.playback = .loading
      $0.announcedPlayID = 3
      $0.listenedPlayID = 3
      $0.live?.playID = 3
      $0.live?.phase = .connecting
    }
    store.send(.playbackStarted(playID: 3, duration: nil)) {
      $0.playback = .playing
      $0.live?.phase = .playing
      $0.live?.retry = Retry()
    }
  }

  @Test("a station never heard that fails for good says so and is not tried again")
  func failsForGood() {
    var state = Station.playing()
    state.live?.wasHeard = false
    state.live?.phase = .connecting
    state.playback = .loading
    var store = ReducerTestStore(state)
    store.send(.streamDropped(playID: 1, "Not found (404) at radio.example", transient: false)) {
      $0.playback = .failed("Not found (404) at radio.example")
      $0.message = .init(
        .error, "Cannot play \u{201C}Loopback FM\u{201D}: Not found (404) at radio.example")
    }
  }

  @Test("pause lets go of the stream; play rejoins it live, the time listened goes on")
  func pauseRejoins() {
    var state = Station.playing()
    state.position = 61.4
    state.live?.title = "Mira Sol - Night Drive"
    var store = ReducerTestStore(state)
    store.send(.togglePlay, effects: [.stop]) {
      $0.playID = 2
      $0.position = 0
      $0.playback = .paused
      $0.live?.heardBefore = 61
      $0.live?.phase = .paused
    }
    // Whatever the stopped connection still reports is about an older request.
    store.send(.playbackProgress(playID: 1, position: 62, duration: nil))
    store.send(.streamDropped(playID: 1, "stopped sending", transient: true))
    store.send(.togglePlay, effects: [.play(Station.song, playID: 3)]) {
      $0.playID = 3
      $0.playback = .loading
      $0.announcedPlayID = 3
      $0.listenedPlayID = 3
      $0.live?.playID = 3
      $0.live?.phase = .connecting
    }
    #expect(store.state.live?.title == "Mira Sol - Night Drive")
    #expect(store.state.live?.heardBefore == 61)
  }

  @Test("paging to an ordinary song clears the live state")
  func leaving() {
    var state = Station.playing()
    state.songs.append(Fixture.first)
    var store = ReducerTestStore(state)
    store.send(.next, effects: [.play(Fixture.first, playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.duration = Fixture.first.duration
      $0.live = nil
    }
  }
}

@Suite("Keeping stations")
struct KeepStationReducerTests {
  @Test("l on a station's page likes it and keeps it among the user's stations")
  func keep() {
    var state = Station.playing()
    state.live?.title = "Mira Sol - Night Drive"
    var store = ReducerTestStore(state)
    let kept = Station.song.applyingLocalLike(true)
    store.send(
      .toggleLike,
      effects: [
        .persistLike(songID: Station.song.id, liked: true, sync: .localOnly),
        .keepStation(kept, kept: true),
        .after(Flash.seconds, .clearFlash(1)),
      ]
    ) {
      $0.songs[0] = kept
      $0.likePulse = PlayerState.likePulseFrames
      $0.flash = Flash("Kept in your stations (riffle radio)", id: 1)
    }
  }
}

@Suite("Lyrics and naming songs on a station")
struct LiveLyricsReducerTests {
  @Test("y looks up the song the station names; a new title while they show asks again")
  func lyrics() {
    var state = Station.playing()
    state.live?.title = "Mira Sol - Night Drive"
    var store = ReducerTestStore(state)
    let named = store.state.currentSong!
    #expect(named.title == "Night Drive" && named.displayName == "Mira Sol")
    store.send(.toggleLyrics, effects: [.loadLyrics(named)]) {
      $0.overlay = .lyrics
      $0.lyrics = .init(songID: Station.song.id, phase: .loading)
    }
    store.send(.lyricsLoaded(songID: Station.song.id, .notFound)) {
      $0.lyrics = .init(songID: Station.song.id, phase: .loaded(.notFound))
    }
    var next = Station.song
    next.title = "Dawn"
    next.displayName = "Juno Reyes"
    next.album = "Loopback FM"
    store.send(.streamTitle(playID: 1, "Juno Reyes - Dawn"), effects: [.loadLyrics(next)]) {
      $0.live?.title = "Juno Reyes - Dawn"
      $0.lyrics = .init(songID: Station.song.id, phase: .loading)
    }
  }

  @Test("i on a station's page names what the player played; unnamed, the station's title")
  func identify() {
    var state = Station.playing()
    var store = ReducerTestStore(state)
    store.send(.identify, effects: [.nameHeard(seconds: 10)]) {
      $0.identify = .listening(level: 0, seconds: 0)
    }
    store.send(.identifyFailed("No song matched")) {
      $0.identify = nil
      $0.message = .init(.info, "No song matched, and the station names none")
    }
    state.live?.title = "Mira Sol - Night Drive"
    store = ReducerTestStore(state)
    store.send(.identify, effects: [.nameHeard(seconds: 10)]) {
      $0.identify = .listening(level: 0, seconds: 0)
    }
    store.send(.identifyFailed("No song matched")) {
      $0.identify = nil
      $0.message = .init(.info, "The station says it plays \u{201C}Mira Sol - Night Drive\u{201D}")
    }
    // Named from a store: the song, who made it, and where it was found.
    store.send(.identify, effects: [.nameHeard(seconds: 10)]) {
      $0.identify = .listening(level: 0, seconds: 0)
      $0.message = nil
    }
    let heard = HeardSong(title: "Night Walk", artist: "The Testers", source: "your library")
    store.send(.heardSong(heard)) {
      $0.identify = nil
      $0.message = .init(.info, "\u{201C}Night Walk\u{201D} by The Testers (your library)")
    }
    // An answer after i stopped the listening is dropped.
    store.send(.identify, effects: [.nameHeard(seconds: 10)]) {
      $0.identify = .listening(level: 0, seconds: 0)
      $0.message = nil
    }
    store.send(.identify, effects: [.stopListening]) {
      $0.identify = nil
      $0.message = .init(.info, "Stopped listening")
    }
    store.send(.heardSong(heard))
  }
}

@Suite("A station in a resumed session")
struct LiveResumeReducerTests {
  @Test("a session resumed on a station waits paused without fetching; play tunes in live")
  func resumePaused() {
    let kind = SourceKind.station(Station.url, name: "Loopback FM")
    var state = PlayerState()
    _ = reduce(
      &state,
      .resume(
        SavedSession(
          source: kind, resumeAt: ResumePoint(songID: Station.song.id, position: 80), queue: [],
          volume: 100, isMuted: false, shuffle: false, repeatMode: .off)))
    var store = ReducerTestStore(state)
    store.send(.pageLoaded(kind, cursor: nil, SourcePage(songs: [Station.song]))) {
      $0.opening = nil
      $0.source = PageSource(kind: kind)
      $0.songs = [Station.song]
      $0.playID = 2
      $0.playback = .paused
      $0.resumeAt = nil
      $0.message = .init(.info, "Loopback FM \u{00B7} live")
      $0.announcedPlayID = 1
      $0.listenedPlayID = 1
      var live = LiveStream(songID: Station.song.id, playID: 1)
      live.phase = .paused
      $0.live = live
    }
    store.send(.togglePlay, effects: [.play(Station.song, playID: 3)]) {
      $0.playID = 3
      $0.playback = .loading
      $0.announcedPlayID = 3
      $0.listenedPlayID = 3
      $0.live?.playID = 3
      $0.live?.phase = .connecting
    }
  }
}
