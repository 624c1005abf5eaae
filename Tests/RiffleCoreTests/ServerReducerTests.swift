import Foundation
import Testing

@testable import RiffleCore

// A server's album pages do not play; b and Space open the album; over a server's pages, /, a
// and b ask that server.

private enum Server {
  static let albums = SourceKind.server("home", .albums)

  static func album(_ n: Int) -> Song {
    var page = Song(
      id: "subsonic-album:home:al-\(n)", title: "Album \(n)", displayName: "Mira Sol",
      handle: "", audioURL: URL(string: "subsonic://home/getAlbum?id=al-\(n)")!,
      album: "2 songs")
    page.albumID = "al-\(n)"
    page.isAlbumPage = true
    return page
  }

  static func song(_ n: Int) -> Song {
    var song = Song(
      id: "subsonic:home:s-\(n)", title: "Song \(n)", displayName: "Mira Sol", handle: "",
      audioURL: URL(string: "subsonic://home/stream?id=s-\(n)")!, duration: 100,
      album: "Dawn", likeDestination: .server)
    song.albumID = "al-0"
    return song
  }
}

@Suite("Server sources: album pages, b, /, a")
struct ServerReducerTests {
  @Test("The albums' first page shows an album that does not play, and says how to open it")
  func albumPagesDoNotPlay() {
    var state = PlayerState()
    state.opening = PageSource(kind: Server.albums, phase: .loading)
    var store = ReducerTestStore(state)
    let page = SourcePage(songs: [Server.album(0), Server.album(1)], next: .offset(2, limit: 2))
    store.send(
      .pageLoaded(Server.albums, cursor: nil, page),
      effects: [.loadPage(Server.albums, cursor: .offset(2, limit: 2))]
    ) {
      $0.opening = nil
      $0.source = PageSource(kind: Server.albums, next: .offset(2, limit: 2), phase: .loading)
      $0.songs = page.songs
      $0.index = 0
      $0.playID = 1
      $0.playback = .idle
      $0.message = .init(.info, "Album \u{201C}Album 0\u{201D} by Mira Sol: b or Space opens it")
    }
    // Space on an album page opens it, as b does.
    store.send(
      .togglePlay,
      effects: [.loadPage(.server("home", .album(id: "al-0", title: "Album 0")), cursor: nil)]
    ) {
      $0.opening = PageSource(
        kind: .server("home", .album(id: "al-0", title: "Album 0")), phase: .loading)
      $0.message = nil
    }
  }

  @Test("Paging from a song that plays to an album page stops it")
  func pagingToAnAlbumStops() {
    var state = PlayerState()
    state.source = PageSource(kind: Server.albums)
    state.songs = [Server.song(0), Server.album(1)]
    state.playID = 3
    state.playback = .playing
    state.duration = 100
    state.position = 12
    var store = ReducerTestStore(state)
    store.send(.next, effects: [.pause]) {
      $0.index = 1
      $0.playID = 4
      $0.playback = .idle
      $0.position = 0
      $0.duration = nil
      $0.message = .init(.info, "Album \u{201C}Album 1\u{201D} by Mira Sol: b or Space opens it")
    }
  }

  @Test("Over a server's song: b opens its album, a its artist, / searches the server")
  func keysAskTheServer() {
    var state = PlayerState()
    state.source = PageSource(kind: .server("home", .search("x")))
    state.songs = [Server.song(0)]
    state.playID = 1
    state.playback = .playing
    var store = ReducerTestStore(state)
    let album = SourceKind.server("home", .album(id: "al-0", title: "Dawn"))
    store.send(.showAlbum, effects: [.loadPage(album, cursor: nil)]) {
      $0.opening = PageSource(kind: album, phase: .loading)
    }
    let artist = SourceKind.server("home", .artist("Mira Sol"))
    store.send(.showArtist, effects: [.loadPage(artist, cursor: nil)]) {
      $0.opening = PageSource(kind: artist, phase: .loading)
    }
    store.send(.openSearch) {
      $0.overlay = .search
      $0.search = SearchPrompt()
      $0.search?.target = .server("home")
    }
    // Tab turns the prompt to iTunes, and back to the server.
    store.send(.switchSearchTarget) { $0.search?.target = .itunes }
    store.send(.switchSearchTarget) { $0.search?.target = .server("home") }
    for character in "dusk" {
      store.send(.editSearch(.insert(String(character)))) {
        $0.search?.apply(.insert(String(character)), history: [])
      }
    }
    let search = SourceKind.server("home", .search("dusk"))
    store.send(
      .submitSearch, effects: [.saveSearchHistory(["dusk"]), .loadPage(search, cursor: nil)]
    ) {
      $0.overlay = nil
      $0.search = nil
      $0.searchHistory = ["dusk"]
      $0.opening = PageSource(kind: search, phase: .loading)
    }
  }

  @Test("A server's song without an album id: b says so")
  func noAlbum() {
    var song = Server.song(0)
    song.albumID = nil
    var state = PlayerState()
    state.source = PageSource(kind: Server.albums)
    state.songs = [song]
    var store = ReducerTestStore(state)
    store.send(.showAlbum) { $0.notice = "This song does not name its album" }
  }

  @Test("A server's song keeps its like for the server; the kind's texts name the server")
  func texts() {
    #expect(Server.song(0).likeDestination == .server)
    #expect(Server.albums.title == "home \u{00B7} newest albums")
    #expect(
      SourceKind.server("home", .search("x")).emptyNote
        == "Nothing on home matches \u{201C}x\u{201D}")
    #expect(SourceKind.server("home", .album(id: "1", title: "Dawn")).endNote == "End of the album")
    #expect(Server.albums.serverName == "home")
    #expect(SourceKind.search("x").serverName == nil)
  }
}
