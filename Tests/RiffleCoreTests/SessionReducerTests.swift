import Foundation
import Testing

@testable import RiffleCore

// Exhaustive reducer tests (through `ReducerTestStore`) of the listening session: up next,
// shuffle, repeat, volume, sharing, saving and resuming.

private enum Tracks {
  /// Song `n` of the pages: id "p-n", 100 + n seconds.
  static func page(_ n: Int) -> Song {
    Song(
      id: "p-\(n)", title: "Page \(n)", displayName: "Band", handle: "band",
      audioURL: URL(string: "https://cdn1.example.com/p-\(n).mp3")!, duration: Double(100 + n))
  }

  /// A song from another source (a search): id "q-n".
  static func other(_ n: Int) -> Song {
    var song = Song(
      id: "q-\(n)", title: "Other \(n)", displayName: "Else", handle: "",
      audioURL: URL(string: "https://audio.example.com/q-\(n).m4a")!, duration: 30)
    song.webURL = URL(string: "https://music.example.com/song/q-\(n)")
    return song
  }

  static let feed = SourceKind.feed(Fixture.feedURL)

  /// Pages 0..<count of the feed, page `index` playing under `playID`.
  static func playing(
    count: Int = 4, index: Int = 0, playID: Int = 1, queue: [Song] = []
  ) -> PlayerState {
    Fixture.state {
      $0.source = PageSource(kind: feed)
      $0.songs = (0..<count).map(page)
      $0.index = index
      $0.playID = playID
      $0.playback = .playing
      $0.duration = page(index).duration
      $0.queue = queue
      $0.announcedPlayID = playID
      $0.listenedPlayID = playID
    }
  }
}

@Suite("Session: up next")
struct QueueReducerTests {
  @Test("e adds the song to the end of up next, E puts it first; each song once")
  func enqueueAndPlayNext() {
    var store = ReducerTestStore(Tracks.playing(queue: [Tracks.other(1)]))
    store.send(.enqueue, effects: [.after(Flash.seconds, .clearFlash(1))]) {
      $0.queue = [Tracks.other(1), Tracks.page(0)]
      $0.flash = Flash("\u{201C}Page 0\u{201D} plays up next (2)", id: 1)
    }
    store.send(.enqueue, effects: [.after(Flash.seconds, .clearFlash(2))]) {
      $0.flash = Flash("Already up next", id: 2)
    }
    // The arrows still page; up next waits for the song to end.
    store.send(.next, effects: [.play(Tracks.page(1), playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.duration = 101
    }
    store.send(.playNext, effects: [.after(Flash.seconds, .clearFlash(3))]) {
      $0.queue = [Tracks.page(1), Tracks.other(1), Tracks.page(0)]
      $0.flash = Flash("\u{201C}Page 1\u{201D} plays next", id: 3)
    }
    store.send(.clearFlash(2))
    store.send(.clearFlash(3)) { $0.flash = nil }
  }

  @Test("A song that ends plays up next in order, then the pages go on")
  func queueThenPages() {
    let queued = [Tracks.other(1), Tracks.other(2)]
    var store = ReducerTestStore(Tracks.playing(queue: queued))
    store.send(.trackFinished(playID: 1), effects: [.play(Tracks.other(1), playID: 2)]) {
      $0.queue = [Tracks.other(2)]
      $0.songs.insert(Tracks.other(1), at: 1)
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.position = 0
      $0.duration = 30
    }
    store.send(
      .trackFinished(playID: 2),
      effects: [.scrobble(Tracks.other(1), heard: 30), .play(Tracks.other(2), playID: 3)]
    ) {
      $0.listenedPlayID = 2
      $0.queue = []
      $0.songs.insert(Tracks.other(2), at: 2)
      $0.index = 2
      $0.playID = 3
    }
    store.send(
      .trackFinished(playID: 3),
      effects: [.scrobble(Tracks.other(2), heard: 30), .play(Tracks.page(1), playID: 4)]
    ) {
      $0.listenedPlayID = 3
      $0.index = 3
      $0.playID = 4
      $0.duration = 101
    }
  }

  @Test("Up next shown as pages: move, remove, clear; a song heard there leaves the queue")
  func queueAsPages() {
    let queued = [Tracks.other(1), Tracks.other(2), Tracks.other(3)]
    var store = ReducerTestStore(Tracks.playing(queue: queued))
    store.send(.showQueue, effects: [.play(Tracks.other(1), playID: 2)]) {
      $0.source = PageSource(kind: .queue)
      $0.songs = queued
      $0.index = 0
      $0.playID = 2
      $0.playback = .loading
      $0.duration = 30
      $0.message = .init(.info, "Up next")
    }
    store.send(.moveInQueue(-1))
    store.send(.moveInQueue(1)) {
      $0.queue = [Tracks.other(2), Tracks.other(1), Tracks.other(3)]
      $0.songs = [Tracks.other(2), Tracks.other(1), Tracks.other(3)]
      $0.index = 1
    }
    store.send(
      .trackFinished(playID: 2),
      effects: [.scrobble(Tracks.other(1), heard: 30), .play(Tracks.other(3), playID: 3)]
    ) {
      $0.listenedPlayID = 2
      $0.queue = [Tracks.other(2), Tracks.other(3)]
      $0.index = 2
      $0.playID = 3
      $0.position = 0
    }
    store.send(.removeFromQueue, effects: [.play(Tracks.other(1), playID: 4)]) {
      $0.queue = [Tracks.other(2)]
      $0.songs = [Tracks.other(2), Tracks.other(1)]
      $0.index = 1
      $0.playID = 4
    }
    store.send(.clearQueue, effects: [.after(Flash.seconds, .clearFlash(1))]) {
      $0.queue = []
      $0.flash = Flash("Up next cleared", id: 1)
    }
    store.send(.clearQueue)
  }

  @Test("Up next empty: u says so; queue keys do nothing outside up next")
  func emptyQueue() {
    var store = ReducerTestStore(Tracks.playing())
    store.send(.showQueue, effects: [.after(Flash.seconds, .clearFlash(1))]) {
      $0.flash = Flash("Nothing is up next", id: 1)
    }
    store.send(.moveInQueue(1))
    store.send(.removeFromQueue)
  }
}

@Suite("Session: shuffle and repeat")
struct ShuffleRepeatReducerTests {
  /// Plays songs to the end `count` times under shuffle; returns the ids played, in order.
  private func played(_ state: PlayerState, ends: Int) -> (ids: [String], state: PlayerState) {
    var state = state
    var ids = [state.currentSong!.id]
    for _ in 0..<ends {
      let effects = reduce(&state, .trackFinished(playID: state.playID))
      guard effects.contains(where: { if case .play = $0 { return true } else { return false } })
      else { break }
      ids.append(state.currentSong!.id)
    }
    return (ids, state)
  }

  @Test("Shuffle plays every song once a round, then stops; with repeat all, a new round")
  func everySongOncePerRound() {
    var state = Tracks.playing(count: 12)
    _ = reduce(&state, .toggleShuffle)
    #expect(state.shuffle && state.shuffleRound == ["p-0"])
    let once = played(state, ends: 20)
    #expect(once.ids.count == 12, "\(once.ids)")
    #expect(Set(once.ids).count == 12, "each song once: \(once.ids)")
    #expect(once.ids != (0..<12).map { "p-\($0)" }, "not the page order")
    #expect(once.state.playback == .finished)
    #expect(!once.state.canGoNext)

    _ = reduce(&state, .setRepeat(.all))
    let twice = played(state, ends: 23)
    #expect(twice.ids.count == 24)
    #expect(Set(twice.ids.prefix(12)).count == 12 && Set(twice.ids.suffix(12)).count == 12)
  }

  @Test("Previous under shuffle goes back to the songs played before, newest first")
  func previousUnderShuffle() {
    var state = Tracks.playing(count: 8, index: 3)
    _ = reduce(&state, .setShuffle(true))
    let run = played(state, ends: 3)
    var back = run.state
    for id in run.ids.dropLast().reversed() {
      _ = reduce(&back, .previous)
      #expect(back.currentSong?.id == id)
    }
  }

  @Test("The same seed shuffles the same way; the reducer stays pure")
  func seeded() {
    var a = Tracks.playing(count: 10)
    var b = a
    _ = reduce(&a, .toggleShuffle)
    _ = reduce(&b, .toggleShuffle)
    #expect(played(a, ends: 9).ids == played(b, ends: 9).ids)
  }

  @Test("Repeat one plays the song again when it ends; Next still moves on")
  func repeatOne() {
    var store = ReducerTestStore(Tracks.playing(count: 3))
    store.send(.cycleRepeat, effects: [.after(Flash.seconds, .clearFlash(1))]) {
      $0.repeatMode = .all
      $0.flash = Flash("Repeat all", id: 1)
    }
    store.send(.cycleRepeat, effects: [.after(Flash.seconds, .clearFlash(2))]) {
      $0.repeatMode = .one
      $0.flash = Flash("Repeat this song", id: 2)
    }
    store.send(.trackFinished(playID: 1), effects: [.play(Tracks.page(0), playID: 2)]) {
      $0.playID = 2
      $0.playback = .loading
      $0.position = 0
    }
    store.send(.next, effects: [.play(Tracks.page(1), playID: 3)]) {
      $0.index = 1
      $0.playID = 3
      $0.duration = 101
    }
  }

  @Test("Repeat all goes back to the first page after the last, once no page is left to load")
  func repeatAll() {
    var store = ReducerTestStore(
      Fixture.state {
        $0 = Tracks.playing(count: 3, index: 2)
        $0.repeatMode = .all
      })
    #expect(store.state.canGoNext)
    store.send(.trackFinished(playID: 1), effects: [.play(Tracks.page(0), playID: 2)]) {
      $0.index = 0
      $0.playID = 2
      $0.playback = .loading
      $0.position = 0
      $0.duration = 100
    }
    // With a page still to come, the end waits for it instead.
    var paging = ReducerTestStore(
      Fixture.state {
        $0 = Tracks.playing(count: 3, index: 2)
        $0.repeatMode = .all
        $0.source?.next = .page(2, size: 3)
        $0.source?.phase = .loading
      })
    paging.send(.trackFinished(playID: 1)) {
      $0.playback = .finished
      $0.position = 102
    }
  }
}

@Suite("Session: volume, sharing, saving")
struct VolumeShareReducerTests {
  @Test("Volume steps by 5 within 0...100, mute silences and unmute restores")
  func volume() {
    var store = ReducerTestStore(Tracks.playing())
    store.send(.changeVolume(-5), effects: [.setGain(0.95), .after(Flash.seconds, .clearFlash(1))])
    {
      $0.volume = 95
      $0.flash = Flash("Volume 95%", id: 1)
    }
    store.send(.setVolume(140), effects: [.setGain(1), .after(Flash.seconds, .clearFlash(2))]) {
      $0.volume = 100
      $0.flash = Flash("Volume 100%", id: 2)
    }
    store.send(.setVolume(50), effects: [.setGain(0.5), .after(Flash.seconds, .clearFlash(3))]) {
      $0.volume = 50
      $0.flash = Flash("Volume 50%", id: 3)
    }
    store.send(.toggleMute, effects: [.setGain(0), .after(Flash.seconds, .clearFlash(4))]) {
      $0.isMuted = true
      $0.flash = Flash("Muted", id: 4)
    }
    store.send(.toggleMute, effects: [.setGain(0.5), .after(Flash.seconds, .clearFlash(5))]) {
      $0.isMuted = false
      $0.flash = Flash("Volume 50%", id: 5)
    }
    store.send(.changeVolume(-80), effects: [.setGain(0), .after(Flash.seconds, .clearFlash(6))]) {
      $0.volume = 0
      $0.flash = Flash("Volume 0%", id: 6)
    }
  }

  @Test("s copies the song's page where it has one, else its audio")
  func share() {
    var store = ReducerTestStore(
      Fixture.state {
        $0 = Tracks.playing()
        $0.songs[1] = Tracks.other(1)
      })
    store.send(
      .share,
      effects: [
        .copyToClipboard("https://cdn1.example.com/p-0.mp3"),
        .after(Flash.seconds, .clearFlash(1)),
      ]
    ) { $0.flash = Flash("Link copied", id: 1) }
    store.send(.next, effects: [.play(Tracks.other(1), playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.duration = 30
      $0.flash = Flash("Link copied", id: 1)
    }
    store.send(
      .share,
      effects: [
        .copyToClipboard("https://music.example.com/song/q-1"),
        .after(Flash.seconds, .clearFlash(2)),
      ]
    ) { $0.flash = Flash("Link copied", id: 2) }
  }

  @Test("w saves up next, or the pages when up next is empty")
  func savePlaylist() {
    var store = ReducerTestStore(Tracks.playing(count: 2))
    store.send(
      .savePlaylist,
      effects: [.savePlaylist(title: "Riffle", songs: [Tracks.page(0), Tracks.page(1)])])
    var queued = ReducerTestStore(Tracks.playing(queue: [Tracks.other(1)]))
    queued.send(.savePlaylist, effects: [.savePlaylist(title: "Up next", songs: [Tracks.other(1)])])
  }
}

@Suite("Session: resuming")
struct ResumeReducerTests {
  static let session = SavedSession(
    source: Tracks.feed, resumeAt: ResumePoint(songID: "p-2", position: 42.5),
    queue: [Tracks.other(1)], volume: 60, isMuted: false, shuffle: true, repeatMode: .all)

  @Test("A saved session: its settings at once, then its song at its second, paused")
  func resume() {
    var store = ReducerTestStore(PlayerState())
    store.send(
      .resume(Self.session), effects: [.setGain(0.6), .loadPage(Tracks.feed, cursor: nil)]
    ) {
      $0.queue = [Tracks.other(1)]
      $0.volume = 60
      $0.shuffle = true
      $0.repeatMode = .all
      $0.resumeAt = ResumePoint(songID: "p-2", position: 42.5)
      $0.opening = PageSource(kind: Tracks.feed, phase: .loading)
    }
    let songs = (0..<4).map(Tracks.page)
    store.send(
      .pageLoaded(Tracks.feed, cursor: nil, SourcePage(songs: songs)),
      effects: [.play(Tracks.page(2), playID: 1), .pause, .seek(to: 42.5, playID: 1)]
    ) {
      $0.opening = nil
      $0.source = PageSource(kind: Tracks.feed)
      $0.songs = songs
      $0.index = 2
      $0.playID = 1
      $0.playback = .paused
      $0.position = 42.5
      $0.duration = 102
      $0.resumeAt = nil
      $0.shuffleRound = ["p-2"]
    }
    // And what quitting now would save is where it stands.
    #expect(store.state.session == Self.session)
  }

  @Test("A session whose song is gone starts at the first page, playing")
  func resumeSongGone() {
    var state = PlayerState()
    _ = reduce(&state, .resume(Self.session))
    let songs = [Tracks.page(7)]
    let effects = reduce(&state, .pageLoaded(Tracks.feed, cursor: nil, SourcePage(songs: songs)))
    #expect(effects == [.play(Tracks.page(7), playID: 1)])
    #expect(state.resumeAt == nil && state.playback == .loading)
  }

  @Test("A session round-trips through JSON")
  func codable() throws {
    let data = try JSONEncoder().encode(Self.session)
    #expect(try JSONDecoder().decode(SavedSession.self, from: data) == Self.session)
  }
}

@Suite("Session: scrobbling rules")
struct ScrobbleRuleReducerTests {
  @Test(
    "A listen counts at half the song or 4 minutes, once a play; paused starts are not announced")
  func listenRule() {
    #expect(ListenRule.threshold(duration: 200) == 100)
    #expect(ListenRule.threshold(duration: 3600) == 240)
    #expect(ListenRule.threshold(duration: nil) == 240)
    var state = Tracks.playing(count: 2, playID: 1)
    state.announcedPlayID = 0
    state.listenedPlayID = 0
    var store = ReducerTestStore(state)
    store.send(.playbackStarted(playID: 1, duration: 100), effects: [.announce(Tracks.page(0))]) {
      $0.duration = 100
      $0.announcedPlayID = 1
    }
    // Started again after buffering: not announced twice.
    store.send(.playbackStarted(playID: 1, duration: nil))
    store.send(.playbackProgress(playID: 1, position: 49.9, duration: nil)) {
      $0.position = 49.9
    }
    store.send(
      .playbackProgress(playID: 1, position: 50.2, duration: nil),
      effects: [.scrobble(Tracks.page(0), heard: 50.2)]
    ) {
      $0.position = 50.2
      $0.listenedPlayID = 1
    }
    store.send(.playbackProgress(playID: 1, position: 80, duration: nil)) { $0.position = 80 }
    // A play skipped before its half is not a listen.
    store.send(.next, effects: [.play(Tracks.page(1), playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.position = 0
      $0.duration = 101
    }
    store.send(.togglePlay, effects: [.pause]) { $0.playback = .paused }
    store.send(.playbackStarted(playID: 2, duration: nil))
  }
}

@Suite("Session: ReplayGain")
struct ReplayGainReducerTests {
  @Test("An album in order plays at its album gain; under shuffle, each song at its own")
  func albumOrTrack() {
    var song = Tracks.page(1)
    song.trackGain = -3
    song.albumGain = -5
    var state = Tracks.playing(count: 2)
    state.songs[1] = song
    var inOrder = state
    let effects = reduce(&inOrder, .next)
    guard case .play(let played, _)? = effects.first else {
      Issue.record("\(effects)")
      return
    }
    #expect(played.replayGain == -5)
    var shuffled = state
    shuffled.shuffle = true
    shuffled.shuffleRound = ["p-0"]
    guard case .play(let drawn, _)? = reduce(&shuffled, .next).first else {
      Issue.record("no play")
      return
    }
    #expect(drawn.replayGain == -3)
    var noAlbum = state
    noAlbum.songs[1].albumGain = nil
    guard case .play(let own, _)? = reduce(&noAlbum, .next).first else { return }
    #expect(own.replayGain == -3, "no album gain: the song's own")
  }
}

@Suite("Session: a like is about a song, wherever it stands")
struct LikeCopiesReducerTests {
  @Test(
    "A song on two pages and up next: a like shows on every copy; a failed save undoes them all")
  func everyCopy() {
    // Up next put the song in again as a later page, and it is queued once more.
    var state = Tracks.playing(count: 3, index: 2)
    state.songs[2] = Tracks.page(0)
    state.queue = [Tracks.page(0)]
    var store = ReducerTestStore(state)
    let liked = Tracks.page(0).togglingLike()
    store.send(
      .toggleLike, effects: [.persistLike(songID: "p-0", liked: true, sync: .localOnly)]
    ) {
      $0.songs[0] = liked
      $0.songs[2] = liked
      $0.queue = [liked]
      $0.likePulse = PlayerState.likePulseFrames
    }
    store.send(.likeSaveFailed(songID: "p-0", liked: true, "disk full")) {
      $0.songs[0] = Tracks.page(0)
      $0.songs[2] = Tracks.page(0)
      $0.queue = [Tracks.page(0)]
      $0.message = .init(.error, "Could not save the like: disk full")
    }
    store.send(.toggleLike, effects: [.persistLike(songID: "p-0", liked: true, sync: .localOnly)]) {
      $0.songs[0] = liked
      $0.songs[2] = liked
      $0.queue = [liked]
    }
    store.send(
      .likeRejected(songID: "p-0", liked: true, "refused"),
      effects: [
        .storeLikeLocally(songID: "p-0", liked: false)
      ]
    ) {
      $0.songs[0] = Tracks.page(0)
      $0.songs[2] = Tracks.page(0)
      $0.queue = [Tracks.page(0)]
      $0.message = .init(.error, "Could not like \u{201C}Page 0\u{201D}: refused")
    }
  }
}
