import Foundation
import RiffleAPI
import RiffleCore

/// Runs the reducer's effects against the clients: a plain switch, no rules of its own. What
/// comes back arrives as actions through `post` (from any thread) or `send` (on the main
/// queue, for delayed actions).
@MainActor
final class EffectRunner {
  private let clients: PlayerClients
  private let scheduler: Scheduler
  private let post: @Sendable (PlayerAction) -> Void
  private let send: @MainActor (PlayerAction) -> Void
  /// An answer had at once: applied right after the action that asked, before the frame.
  private let answer: @MainActor (PlayerAction) -> Void

  init(
    clients: PlayerClients, scheduler: Scheduler, post: @escaping @Sendable (PlayerAction) -> Void,
    send: @escaping @MainActor (PlayerAction) -> Void,
    answer: @escaping @MainActor (PlayerAction) -> Void = { _ in }
  ) {
    self.clients = clients
    self.scheduler = scheduler
    self.post = post
    self.send = send
    self.answer = answer
  }

  /// The following song last told to the engine.
  private var preparedNext: Song?

  /// Tells the engine which song follows the current one, when that changed (gapless).
  func prepareNext(_ song: Song?) {
    guard song != preparedNext else { return }
    preparedNext = song
    clients.audio.prepareNext(song)
  }

  /// Seconds heard of a play request, nil if it is not the current one (read by the ticker).
  func position(of playID: Int) -> Double? {
    clients.audio.position(playID)
  }

  func run(_ effect: PlayerEffect) {
    let post = self.post
    switch effect {
    case .loadPage(let kind, let cursor):
      let likes = clients.likes
      clients.pages.load(kind, cursor) { result in
        switch result {
        case .success(var page):
          page.songs = page.songs.applyingLocalLikes(likes.all())
          post(.pageLoaded(kind, cursor: cursor, page))
        case .failure(let failure):
          post(.pageFailed(kind, cursor: cursor, failure))
        }
      }
    case .previewSearch(let term):
      switch clients.searchLibrary(term) {
      case .success(var page):
        page.songs = page.songs.applyingLocalLikes(clients.likes.all())
        answer(.previewLoaded(term: term, page))
      case .failure(let failure):
        answer(.previewFailed(term: term, failure))
      }
    case .reloadLibrary(let kind, let count):
      guard case .library(let query) = kind else { return }
      let reload = clients.reloadLibrary
      let likes = clients.likes
      BackgroundWork.run("riffle.library.reload") {
        guard case .success(var page) = reload(query, count) else { return }
        page.songs = page.songs.applyingLocalLikes(likes.all())
        post(.libraryReloaded(kind, page))
      }
    case .after(let delay, let action):
      let send = self.send
      scheduler.after(delay) { send(action) }
    case .saveSearchHistory(let terms):
      clients.saveSearchHistory(terms)
    case .loadLyrics(let song):
      let id = song.id
      clients.lyrics.load(song) { result in
        switch result {
        case .success(let lyrics): post(.lyricsLoaded(songID: id, lyrics))
        case .failure(let error): post(.lyricsFailed(songID: id, error.failure))
        }
      }
    case .play(let song, let playID):
      clients.audio.play(song, playID)
    case .pause:
      clients.audio.pause()
    case .resume:
      clients.audio.resume()
    case .stop:
      clients.audio.stop()
    case .keepStation(let song, let kept):
      clients.keepStation(song, kept) { problem in
        if let problem { post(.notify("Could not keep the station: \(problem)")) }
      }
    case .seek(let position, let playID):
      clients.audio.seek(position, playID)
    case .persistLike(let id, let liked, let sync):
      clients.likes.set(id, liked) { error in
        if let error { post(.likeSaveFailed(songID: id, liked: liked, error)) }
      }
      if sync == .likesEndpoint || sync == .server {
        clients.likes.sync(id, liked) { refused, reason in
          post(.likeRejected(songID: id, liked: refused, reason))
        }
      }
    case .storeLikeLocally(let id, let liked):
      clients.likes.set(id, liked) { error in
        if let error { FileHandle.standardError.write(Data("likes: \(error)\n".utf8)) }
      }
    case .listen(let seconds, let feedURL, let songs, let queued):
      clients.identify.start(seconds, feedURL, songs, queued) { event in post(event.action) }
    case .stopListening:
      clients.identify.stop()
    case .nameHeard(let seconds):
      clients.nameHeard(seconds) { result in
        switch result {
        case .success(let song): post(.heardSong(song))
        case .failure(let failure): post(.identifyFailed(failure.reason))
        }
      }
    case .announce(let song):
      clients.scrobble.announce(song)
    case .scrobble(let song, let heard):
      clients.scrobble.listened(song, Date().addingTimeInterval(-heard))
    case .setGain(let gain):
      clients.audio.setGain(gain)
    case .copyToClipboard(let text):
      clients.copyToClipboard(text)
    case .savePlaylist(let title, let songs):
      clients.savePlaylist(title, songs) { result in
        switch result {
        case .success(let name): post(.showFlash("Saved \u{201C}\(name)\u{201D}"))
        case .failure(let failure): post(.notify("Could not save the playlist: \(failure.reason)"))
        }
      }
    case .saveSession(let session):
      clients.saveSession(session)
    case .quit:
      clients.identify.stop()
      clients.audio.shutdown()
      clients.likes.flush()
      clients.scrobble.flush()
    }
  }
}
