import Foundation
import Testing

@testable import RiffleCore

// Exhaustive tests of the lyrics rules of `reduce(_:_:)` through `ReducerTestStore`.

private let synced = Lyrics.synced(
  SyncedLyrics([LyricLine(time: 1, text: "One"), LyricLine(time: 2, text: "Two")]))
private let plain = Lyrics.plain((1...30).map { "Line \($0)" })

private typealias Panel = PlayerState.LyricsPanel

@Suite("Lyrics: showing, loading, paging")
struct LyricsReducerTests {
  @Test("y shows the overlay and asks for the current song's lyrics; y again hides it")
  func toggleLoads() {
    var store = ReducerTestStore(Fixture.loaded())
    store.send(.toggleLyrics, effects: [.loadLyrics(Fixture.first)]) {
      $0.overlay = .lyrics
      $0.lyrics = Panel(songID: Fixture.first.id, phase: .loading)
    }
    #expect(store.state.needsTimer)
    store.send(.toggleLyrics) {
      $0.overlay = nil
    }
  }

  @Test("While loading with nothing playing the timer runs for the spinner, and stops after")
  func spinnerNeedsTimer() {
    var store = ReducerTestStore(Fixture.loaded(playback: .paused))
    #expect(!store.state.needsTimer)
    store.send(.toggleLyrics, effects: [.loadLyrics(Fixture.first)]) {
      $0.overlay = .lyrics
      $0.lyrics = Panel(songID: Fixture.first.id, phase: .loading)
    }
    #expect(store.state.needsTimer)
    store.send(.lyricsLoaded(songID: Fixture.first.id, synced)) {
      $0.lyrics?.phase = .loaded(synced)
    }
    #expect(!store.state.needsTimer)
  }

  @Test("Shown again for the same song, lyrics already here are not asked for again")
  func toggleAgainKeepsLyrics() {
    var store = ReducerTestStore(Fixture.loaded())
    store.send(.toggleLyrics, effects: [.loadLyrics(Fixture.first)]) {
      $0.overlay = .lyrics
      $0.lyrics = Panel(songID: Fixture.first.id, phase: .loading)
    }
    store.send(.lyricsLoaded(songID: Fixture.first.id, synced)) {
      $0.lyrics?.phase = .loaded(synced)
    }
    store.send(.toggleLyrics) { $0.overlay = nil }
    store.send(.toggleLyrics) { $0.overlay = .lyrics }
  }

  @Test("Lyrics that arrive while hidden are kept for when they are shown")
  func arriveWhileHidden() {
    var store = ReducerTestStore(
      Fixture.loaded {
        $0.lyrics = Panel(songID: Fixture.first.id, phase: .loading)
      })
    store.send(.lyricsLoaded(songID: Fixture.first.id, .instrumental)) {
      $0.lyrics?.phase = .loaded(.instrumental)
    }
  }

  @Test("Paging with the lyrics shown asks for the new song's lyrics after playing it")
  func pagingLoadsNewLyrics() {
    var store = ReducerTestStore(
      Fixture.loaded {
        $0.overlay = .lyrics
        $0.lyrics = Panel(songID: Fixture.first.id, phase: .loaded(synced))
      })
    store.send(
      .next, effects: [.play(Fixture.second, playID: 2), .loadLyrics(Fixture.second)]
    ) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.duration = nil
      $0.lyrics = Panel(songID: Fixture.second.id, phase: .loading)
    }
    // The first song's answer, late, is ignored.
    store.send(.lyricsLoaded(songID: Fixture.first.id, plain))
    store.send(.lyricsFailed(songID: Fixture.first.id, Failure("No connection", isTransient: true)))
    store.send(
      .previous, effects: [.play(Fixture.first, playID: 3), .loadLyrics(Fixture.first)]
    ) {
      $0.index = 0
      $0.playID = 3
      $0.duration = 187.52
      $0.lyrics = Panel(songID: Fixture.first.id, phase: .loading)
    }
  }

  @Test("A song that ends on its own moves the lyrics on to the next song")
  func trackFinishedLoadsNext() {
    var store = ReducerTestStore(
      Fixture.loaded(position: 180) {
        $0.overlay = .lyrics
        $0.lyrics = Panel(songID: Fixture.first.id, phase: .loaded(synced))
      })
    store.send(
      .trackFinished(playID: 1),
      effects: [.play(Fixture.second, playID: 2), .loadLyrics(Fixture.second)]
    ) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.position = 0
      $0.duration = nil
      $0.lyrics = Panel(songID: Fixture.second.id, phase: .loading)
    }
  }

  @Test("Paging with the lyrics hidden asks for nothing")
  func pagingHiddenAsksNothing() {
    var store = ReducerTestStore(
      Fixture.loaded { $0.lyrics = Panel(songID: Fixture.first.id, phase: .loaded(synced)) })
    store.send(.next, effects: [.play(Fixture.second, playID: 2)]) {
      $0.index = 1
      $0.playID = 2
      $0.playback = .loading
      $0.duration = nil
    }
    // Shown now: the panel is about the other song, so this one's are asked for.
    store.send(.toggleLyrics, effects: [.loadLyrics(Fixture.second)]) {
      $0.overlay = .lyrics
      $0.lyrics = Panel(songID: Fixture.second.id, phase: .loading)
    }
  }

  @Test("Without a song, y shows the overlay but asks for nothing")
  func noSong() {
    var store = ReducerTestStore(
      Fixture.state { $0.opening = PageSource(kind: .feed(Fixture.feedURL), phase: .loading) })
    store.send(.toggleLyrics) { $0.overlay = .lyrics }
  }

  @Test("Not found and instrumental are answers like any other")
  func notFoundAndInstrumental() {
    var store = ReducerTestStore(
      Fixture.loaded {
        $0.overlay = .lyrics
        $0.lyrics = Panel(songID: Fixture.first.id, phase: .loading)
      })
    store.send(.lyricsLoaded(songID: Fixture.first.id, .notFound)) {
      $0.lyrics?.phase = .loaded(.notFound)
    }
    // A second answer for a panel that is no longer loading changes nothing.
    store.send(.lyricsLoaded(songID: Fixture.first.id, .instrumental))
  }

  @Test("Help replaces the lyrics overlay and hides again to nothing")
  func helpOverLyrics() {
    var store = ReducerTestStore(
      Fixture.loaded {
        $0.overlay = .lyrics
        $0.lyrics = Panel(songID: Fixture.first.id, phase: .loaded(synced))
      })
    store.send(.toggleHelp) { $0.overlay = .help }
    store.send(.toggleHelp) { $0.overlay = nil }
  }
}

@Suite("Lyrics: failures and retries")
struct LyricsRetryReducerTests {
  static func loading(attempts: Int = 0) -> PlayerState {
    Fixture.loaded {
      $0.overlay = .lyrics
      $0.lyrics = Panel(songID: Fixture.first.id, phase: .loading, attempts: attempts)
    }
  }

  @Test("No connection says so with the wait, schedules a retry, and backs off 1, 2, 4 s")
  func transientFailureBacksOff() {
    var store = ReducerTestStore(Self.loading())
    let id = Fixture.first.id
    store.send(
      .lyricsFailed(songID: id, Failure("No connection to lrclib.net", isTransient: true)),
      effects: [.after(1, .retryDue(.lyrics(songID: id), attempt: 1))]
    ) {
      $0.lyrics?.attempts = 1
      $0.lyrics?.phase = .failed("No connection to lrclib.net: retrying in 1 s")
    }
    store.send(.retryDue(.lyrics(songID: id), attempt: 1), effects: [.loadLyrics(Fixture.first)]) {
      $0.lyrics?.phase = .loading
    }
    store.send(
      .lyricsFailed(songID: id, Failure("No connection to lrclib.net", isTransient: true)),
      effects: [.after(2, .retryDue(.lyrics(songID: id), attempt: 2))]
    ) {
      $0.lyrics?.attempts = 2
      $0.lyrics?.phase = .failed("No connection to lrclib.net: retrying in 2 s")
    }
    store.send(.retryDue(.lyrics(songID: id), attempt: 2), effects: [.loadLyrics(Fixture.first)]) {
      $0.lyrics?.phase = .loading
    }
    store.send(
      .lyricsFailed(songID: id, Failure("No connection to lrclib.net", isTransient: true)),
      effects: [.after(4, .retryDue(.lyrics(songID: id), attempt: 3))]
    ) {
      $0.lyrics?.attempts = 3
      $0.lyrics?.phase = .failed("No connection to lrclib.net: retrying in 4 s")
    }
    store.send(.retryDue(.lyrics(songID: id), attempt: 3), effects: [.loadLyrics(Fixture.first)]) {
      $0.lyrics?.phase = .loading
    }
    store.send(.lyricsLoaded(songID: id, synced)) {
      $0.lyrics = Panel(songID: id, phase: .loaded(synced))
    }
  }

  @Test("The wait never passes 30 s, and a server's Retry-After wins")
  func backoffCapAndRetryAfter() {
    let id = Fixture.first.id
    var capped = ReducerTestStore(Self.loading(attempts: 9))
    capped.send(
      .lyricsFailed(songID: id, Failure("Server error 503 from lrclib.net", isTransient: true)),
      effects: [.after(30, .retryDue(.lyrics(songID: id), attempt: 10))]
    ) {
      $0.lyrics?.attempts = 10
      $0.lyrics?.phase = .failed("Server error 503 from lrclib.net: retrying in 30 s")
    }
    var asked = ReducerTestStore(Self.loading())
    asked.send(
      .lyricsFailed(
        songID: id, Failure("Too many requests (429)", isTransient: true, retryAfter: 7)),
      effects: [.after(7, .retryDue(.lyrics(songID: id), attempt: 1))]
    ) {
      $0.lyrics?.attempts = 1
      $0.lyrics?.phase = .failed("Too many requests (429): retrying in 7 s")
    }
  }

  @Test("A failure that will not pass is said as it is, with no retry")
  func permanentFailure() {
    var store = ReducerTestStore(Self.loading())
    store.send(
      .lyricsFailed(
        songID: Fixture.first.id, Failure("The lyrics server's answer is not valid JSON"))
    ) {
      $0.lyrics?.phase = .failed("The lyrics server's answer is not valid JSON")
    }
  }

  @Test("A failure while hidden schedules nothing; showing again tries again at once")
  func failureWhileHidden() {
    var store = ReducerTestStore(Self.loading())
    store.send(.toggleLyrics) { $0.overlay = nil }
    store.send(.lyricsFailed(songID: Fixture.first.id, Failure("No connection", isTransient: true)))
    {
      $0.lyrics?.phase = .failed("No connection")
    }
    store.send(.toggleLyrics, effects: [.loadLyrics(Fixture.first)]) {
      $0.overlay = .lyrics
      $0.lyrics?.phase = .loading
    }
  }

  @Test("Stale retries are ignored: another attempt, another song, hidden, or not failed")
  func staleRetries() {
    let id = Fixture.first.id
    var store = ReducerTestStore(
      Fixture.loaded {
        $0.overlay = .lyrics
        $0.lyrics = Panel(songID: id, phase: .failed("x"), attempts: 2)
      })
    store.send(.retryDue(.lyrics(songID: id), attempt: 1))
    store.send(.retryDue(.lyrics(songID: Fixture.second.id), attempt: 2))
    store.send(.retry, effects: [.loadLyrics(Fixture.first)]) {
      $0.lyrics?.phase = .loading
    }
    // Loading now, not failed: the scheduled retry has nothing to do.
    store.send(.retryDue(.lyrics(songID: id), attempt: 2))
    store.send(.toggleLyrics) { $0.overlay = nil }
    store.send(.lyricsFailed(songID: id, Failure("gone"))) { $0.lyrics?.phase = .failed("gone") }
    store.send(.retryDue(.lyrics(songID: id), attempt: 2))
  }

  @Test("r retries failed lyrics at once, keeping the count so older retries stay stale")
  func manualRetry() {
    let id = Fixture.first.id
    var store = ReducerTestStore(
      Fixture.loaded {
        $0.overlay = .lyrics
        $0.lyrics = Panel(songID: id, phase: .failed("No connection: retrying in 2 s"), attempts: 2)
      })
    store.send(.retry, effects: [.loadLyrics(Fixture.first)]) {
      $0.lyrics?.phase = .loading
    }
    store.send(.retryDue(.lyrics(songID: id), attempt: 2))
  }

  @Test("r with the song and its lyrics both failed asks for both")
  func manualRetryBoth() {
    var store = ReducerTestStore(
      Fixture.loaded(playback: .failed("bad bytes")) {
        $0.overlay = .lyrics
        $0.lyrics = Panel(songID: Fixture.first.id, phase: .failed("No connection"))
      })
    store.send(.retry, effects: [.loadLyrics(Fixture.first), .play(Fixture.first, playID: 2)]) {
      $0.lyrics?.phase = .loading
      $0.playID = 2
      $0.playback = .loading
    }
  }
}

@Suite("Lyrics: scrolling plain lyrics")
struct LyricsScrollReducerTests {
  static func showing(_ lyrics: Lyrics, scroll: Int = 0) -> PlayerState {
    Fixture.loaded {
      $0.overlay = .lyrics
      $0.lyrics = Panel(songID: Fixture.first.id, phase: .loaded(lyrics), scroll: scroll)
    }
  }

  @Test("Lines and pages scroll, never above the first line nor past the last")
  func scrollClamps() {
    var store = ReducerTestStore(Self.showing(plain))
    store.send(.scrollLyrics(1)) { $0.lyrics?.scroll = 1 }
    store.send(.scrollLyrics(-5)) { $0.lyrics?.scroll = 0 }
    store.send(.pageLyrics(1)) { $0.lyrics?.scroll = PlayerState.lyricsPageLines }
    store.send(.scrollLyrics(100)) { $0.lyrics?.scroll = 29 }
    store.send(.pageLyrics(-1)) { $0.lyrics?.scroll = 19 }
  }

  @Test("Synced lyrics follow the song; keys do not scroll them, nor anything when hidden")
  func noScrollOtherwise() {
    var synced = ReducerTestStore(Self.showing(synced))
    synced.send(.scrollLyrics(3))
    var hidden = ReducerTestStore(Self.showing(plain, scroll: 2).with { $0.overlay = nil })
    hidden.send(.scrollLyrics(3))
    hidden.send(.pageLyrics(1))
  }

  @Test("A scroll key clears a notice and finishes the like pop, like every key")
  func scrollIsAKey() {
    var store = ReducerTestStore(
      Self.showing(plain).with {
        $0.notice = "config.toml line 3: unknown key"
        $0.likePulse = 3
      })
    store.send(.scrollLyrics(2)) {
      $0.notice = nil
      $0.likePulse = 0
      $0.lyrics?.scroll = 2
    }
  }
}

extension PlayerState {
  fileprivate func with(_ change: (inout PlayerState) -> Void) -> PlayerState {
    var copy = self
    change(&copy)
    return copy
  }
}
