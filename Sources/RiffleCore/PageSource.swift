import Foundation

/// What a source of pages is: where its songs come from, whatever client fetches them.
///
/// Adding a source means one case here, its texts below, and one client that turns a page
/// request into songs (`PageClient` in RiffleApp); the reducer's page path serves them all.
public enum SourceKind: Hashable, Sendable, Codable {
  /// A song feed (the Suno feed format), remote or a file.
  case feed(URL)
  /// iTunes songs matching what the user typed.
  case search(String)
  /// The most popular songs of the artist with this name, each song once.
  case artist(String)
  /// A playlist file (M3U, M3U8, PLS, XSPF), local or remote.
  case playlist(URL)
  /// The songs waiting to play ("up next"), shown as pages.
  case queue
  /// Songs of the user's library (`riffle library`, `riffle FOLDER`).
  case library(LibraryQuery)
  /// The most popular songs of one artist the catalog knows by `id`, chosen among several of
  /// the same or a like name.
  case artistID(Int, name: String)
  /// Apple's chart of the most-played songs in a country (a two-letter code), kept to one
  /// genre when one is named.
  case charts(genre: String?, country: String)
  /// A podcast's episodes, newest first: a feed URL whose answer was RSS or Atom, and the show's
  /// name. `riffle URL` opens a `.feed`; the answer turns it into this (`SourcePage.kind`).
  case podcast(URL, show: String)
  /// The newest episodes of every show the user follows (`riffle podcasts`), newest first.
  case podcasts
  /// A live radio station: one page whose audio does not end. `riffle URL` opens a `.feed`; an
  /// answer that is an audio stream (or a playlist pointing at one) turns it into this.
  case station(URL, name: String)
  /// A Subsonic-compatible server named in config.toml's `[[servers]]`, and what of it.
  case server(String, ServerQuery)
  /// Stations whose name holds a term, from the Radio Browser directory (`riffle radio search`).
  case radioSearch(String)
  /// The stations the user keeps (`l` on a station's page; `riffle radio`).
  case radioFavourites

  /// How the status line names the source ("“blue”", "Mira Sol's top songs").
  public var label: String {
    switch self {
    case .feed: return "the feed"
    case .playlist(let url): return "the playlist \u{201C}\(url.lastPathComponent)\u{201D}"
    case .queue: return "up next"
    case .library(let query): return query.label
    case .search(let term): return "\u{201C}\(term)\u{201D}"
    case .artist(let name), .artistID(_, let name): return "\(name)\u{2019}s top songs"
    case .charts(let genre, let country):
      return "Top \(genre.map { $0 + " " } ?? "")songs \u{00B7} \(country.uppercased())"
    case .podcast(_, let show): return "\u{201C}\(show)\u{201D}"
    case .podcasts: return "your podcasts"
    case .station(_, let name): return name
    case .server(let name, let query): return serverLabel(name, query)
    case .radioSearch(let term): return "stations named \u{201C}\(term)\u{201D}"
    case .radioFavourites: return "your stations"
    }
  }

  /// The source's name on the top line; nil where "Riffle" alone says it (the feed).
  public var title: String? {
    switch self {
    case .feed: return nil
    case .playlist(let url): return url.deletingPathExtension().lastPathComponent
    case .queue: return "Up next"
    case .library(let query): return query.title
    case .search(let term): return "Results for \u{201C}\(term)\u{201D}"
    case .artist, .artistID, .charts: return label
    case .podcast(_, let show): return show
    case .podcasts: return "Your podcasts"
    case .station(_, let name): return name + " \u{00B7} live"
    case .server(let name, let query): return serverTitle(name, query)
    case .radioSearch(let term): return "Radio: \u{201C}\(term)\u{201D}"
    case .radioFavourites: return "Your stations"
    }
  }

  /// What the activity line says while the first page is on its way.
  public var activity: String {
    switch self {
    case .feed, .queue: return "Loading songs\u{2026}"
    case .playlist: return "Reading the playlist\u{2026}"
    case .library: return "Reading the library\u{2026}"
    case .search(let term): return "Searching for \u{201C}\(term)\u{201D}\u{2026}"
    case .artist(let name), .artistID(_, let name):
      return "Finding \(name)\u{2019}s top songs\u{2026}"
    case .charts: return "Loading the chart\u{2026}"
    case .podcast: return "Loading episodes\u{2026}"
    case .podcasts: return "Checking your podcasts\u{2026}"
    case .station: return "Tuning in\u{2026}"
    case .server(let name, let query): return serverActivity(name, query)
    case .radioSearch(let term): return "Finding stations named \u{201C}\(term)\u{201D}\u{2026}"
    case .radioFavourites: return "Reading your stations\u{2026}"
    }
  }

  /// What the status line says when the first page has no songs.
  public var emptyNote: String {
    switch self {
    case .feed: return "The feed has no songs"
    case .playlist: return "The playlist has no songs that can be played"
    case .queue: return "Nothing is up next"
    case .library(.search(let term)):
      return "Nothing in the library matches \u{201C}\(term)\u{201D}"
    case .library(.folder(let path)):
      return "No songs Riffle plays in \u{201C}\((path as NSString).lastPathComponent)\u{201D}"
    case .library: return "No songs in the library here: add folders with riffle library add"
    case .search(let term): return "No songs found for \u{201C}\(term)\u{201D}"
    case .artist(let name), .artistID(_, let name):
      return "No songs found for the artist \u{201C}\(name)\u{201D}"
    case .charts(let genre?, let country):
      return "No \(genre) songs in the \(country.uppercased()) chart"
    case .charts(nil, let country): return "The \(country.uppercased()) chart has no songs"
    case .podcast: return "The podcast has no episodes"
    case .podcasts: return "No podcasts followed: riffle podcast add URL"
    case .station: return "The station sent nothing to play"
    case .server(let name, let query): return serverEmptyNote(name, query)
    case .radioSearch(let term): return "No stations found for \u{201C}\(term)\u{201D}"
    case .radioFavourites: return "No stations kept: l on a station's page keeps it"
    }
  }

  /// What the status line says when the last song has ended.
  public var endNote: String {
    switch self {
    case .feed: return "End of the feed"
    case .playlist: return "End of the playlist"
    case .queue: return "End of up next"
    case .library: return "End of the library"
    case .search, .artist, .artistID: return "End of the results"
    case .charts: return "End of the chart"
    case .podcast: return "End of the podcast"
    case .podcasts: return "End of your podcasts"
    case .station(_, let name): return "\(name) stopped sending"
    case .server(_, let query): return serverEndNote(query)
    case .radioSearch, .radioFavourites: return "End of the stations"
    }
  }

  /// What the status line says of `count` entries left out because they cannot be played.
  public func skippedNote(_ count: Int) -> String {
    switch self {
    case .feed:
      return count == 1
        ? "skipped 1 song without an id or audio URL"
        : "skipped \(count) songs without an id or audio URL"
    case .search, .artist, .artistID, .charts:
      return "\(count) without a preview"
    case .playlist, .queue, .library:
      return count == 1
        ? "skipped 1 entry that cannot be played" : "skipped \(count) entries that cannot be played"
    case .podcast:
      return count == 1 ? "skipped 1 item without audio" : "skipped \(count) items without audio"
    case .podcasts:
      return count == 1 ? "1 show could not be had" : "\(count) shows could not be had"
    case .station:
      return "\(count) left out"
    case .server:
      return count == 1 ? "skipped 1 entry without an id" : "skipped \(count) entries without an id"
    case .radioSearch, .radioFavourites:
      return count == 1 ? "1 station without a stream" : "\(count) stations without a stream"
    }
  }

  /// How close to the end of the loaded songs the next page is asked for: a feed's pages may
  /// be a few songs each; a catalog's batches are 25 from a slower, rate-limited API.
  public var lookahead: Int {
    switch self {
    case .feed, .playlist, .queue, .library, .podcast, .podcasts, .station, .server, .radioSearch,
      .radioFavourites:
      return 3
    case .search, .artist, .artistID, .charts: return 5
    }
  }

  /// The key of the fingerprint index kept for this source's songs: a feed's URL, else one
  /// key per kind of source (`riffle:library`, `riffle:server`...), so the stores of two kinds
  /// never replace each other's songs (docs/fingerprinting.md, "Where `i` searches").
  public var fingerprintKey: URL? {
    if case .feed(let url) = self { return url }
    return URL(string: "riffle:\(fingerprintKind)")
  }

  /// The name of the kind of source in its fingerprint key.
  var fingerprintKind: String {
    switch self {
    case .feed: return "feed"
    case .search: return "search"
    case .artist, .artistID: return "artist"
    case .playlist: return "playlist"
    case .queue: return "queue"
    case .library: return "library"
    case .charts: return "charts"
    case .podcast, .podcasts: return "podcast"
    case .station, .radioSearch, .radioFavourites: return "radio"
    case .server: return "server"
    }
  }

  /// How the user knows the songs a fingerprint key of the form `riffle:KIND` stands for
  /// (`fingerprintKind`): "up next", "a search"; nil for a kind that names none.
  public static func fingerprintSourceName(kind: String) -> String? {
    switch kind {
    case "queue": return "up next"
    case "library": return "your library"
    case "server": return "your server"
    case "search": return "a search"
    case "artist": return "an artist's songs"
    case "playlist": return "a playlist"
    case "charts": return "the charts"
    case "podcast": return "a podcast"
    default: return nil
    }
  }
}

/// Where a like goes besides the likes kept on this machine.
public enum LikeDestination: UInt8, Hashable, Sendable, Codable {
  /// Kept here only (search results: no server knows them).
  case localOnly
  /// Sent to the likes endpoint the user gave (`--likes-endpoint`): a feed's songs.
  case likesEndpoint
  /// A star on the Subsonic-compatible server the song came from (`star`, `unstar`).
  case server
}

/// Which page of a source to ask for next; a source's client makes these and reads them back.
public enum PageCursor: Hashable, Sendable {
  /// A numbered page (1-based) of `size` songs, as a feed's envelope counts them.
  case page(Int, size: Int?)
  /// `limit` results from `offset` on, as a search API counts them.
  case offset(Int, limit: Int)
}

/// One page of songs as a source's client hands it to the reducer.
public struct SourcePage: Equatable, Sendable {
  public var songs: [Song]
  /// The page after this one; nil when this was the last.
  public var next: PageCursor?
  /// Entries left out because they cannot be played (no id, no audio, no preview).
  public var skipped: Int
  /// Repeats of a song already on the pages, left out.
  public var hidden: Int
  /// Songs that exist but cannot be played yet (a clip still being made), left out.
  public var notReady: Int
  /// Instead of songs: the artists a name matches when the best match is not clear, for the
  /// user to choose from.
  public var choices: [ArtistMatch]
  /// What the answer showed the source to be, when that is not what was asked for (a feed URL
  /// that answered with a podcast); the source takes this kind from its first page on.
  public var kind: SourceKind?

  public init(
    songs: [Song], next: PageCursor? = nil, skipped: Int = 0, hidden: Int = 0, notReady: Int = 0,
    choices: [ArtistMatch] = [], kind: SourceKind? = nil
  ) {
    self.songs = songs
    self.next = next
    self.skipped = skipped
    self.hidden = hidden
    self.notReady = notReady
    self.choices = choices
    self.kind = kind
  }

  /// What the status line says of the songs not ready yet, nil when there are none.
  public var notReadyNote: String? {
    switch notReady {
    case 0: return nil
    case 1: return "1 song not ready yet"
    default: return "\(notReady) songs not ready yet"
    }
  }
}

/// A source of pages as the player holds it: what it is, its paging and where its requests
/// stand.
public struct PageSource: Equatable, Sendable {
  /// Where the source's latest page request stands.
  public enum Phase: Equatable, Sendable {
    /// Nothing asked for.
    case idle
    /// A page request is out.
    case loading
    /// A page request failed for a reason that may pass; `retry.attempts` numbers the try
    /// that comes after the wait.
    case waiting(String)
    /// A page request failed for good; `r` (or paging on, for a later page) asks again.
    case failed(String)
  }

  public var kind: SourceKind
  /// The page to ask for next; nil before the first page, and after the last.
  public var next: PageCursor?
  public var phase: Phase
  /// Failed tries in a row at the page asked for.
  public var retry: Retry

  public init(
    kind: SourceKind, next: PageCursor? = nil, phase: Phase = .idle, retry: Retry = Retry()
  ) {
    self.kind = kind
    self.next = next
    self.phase = phase
    self.retry = retry
  }

  /// The source's name on the top line (see `SourceKind.title`).
  public var title: String? { kind.title }

  /// The reason the latest request failed, if it did.
  public var failure: String? {
    switch phase {
    case .waiting(let reason), .failed(let reason): return reason
    case .idle, .loading: return nil
    }
  }
}

/// Which songs of the library to page through.
public enum LibraryQuery: Hashable, Sendable, Codable {
  /// Every song in album order: artist (the album artist where there is one), album, disc
  /// (none counts as 1), track; files without an artist or album after them, by folder and file name.
  case all
  /// One album's songs in order; `artist` is its album artist (or artist), nil for any.
  case album(String, artist: String?)
  /// An artist's songs (as artist or album artist), in album order.
  case artist(String)
  /// The songs under a folder (an absolute path), in album order: `riffle PATH`.
  case folder(String)
  /// Full-text search over title, artist, album artist, album and genre: every word must
  /// match the start of a word, case and accents aside (`bjo` finds Björk). Best match first
  /// once a word has three characters; before that, in the order songs were indexed.
  case search(String)
}

extension LibraryQuery {
  /// How the status line names the query.
  public var label: String {
    switch self {
    case .all: return "your library"
    case .album(let album, _): return "the album \u{201C}\(album)\u{201D}"
    case .artist(let artist): return "\(artist) in your library"
    case .folder(let path):
      return "the folder \u{201C}\((path as NSString).lastPathComponent)\u{201D}"
    case .search(let term): return "\u{201C}\(term)\u{201D} in your library"
    }
  }

  /// The top line's name for the pages.
  public var title: String {
    switch self {
    case .all: return "Library"
    case .album(let album, _): return album
    case .artist(let artist): return artist
    case .folder(let path): return (path as NSString).lastPathComponent
    case .search(let term): return "Library: \u{201C}\(term)\u{201D}"
    }
  }
}

/// An artist a catalog knows: what the choice list shows of each.
public struct ArtistMatch: Hashable, Sendable {
  public var id: Int
  public var name: String
  /// The artist's main genre ("Rock"); empty when the catalog gives none.
  public var genre: String

  public init(id: Int, name: String, genre: String = "") {
    self.id = id
    self.name = name
    self.genre = genre
  }
}

/// The artists a name matched, shown for the user to choose one (`Overlay.artistChoice`).
public struct ArtistChoice: Equatable, Sendable {
  /// The name asked for.
  public var name: String
  public var matches: [ArtistMatch]
  /// The row the cursor is on.
  public var selected: Int

  public init(name: String, matches: [ArtistMatch], selected: Int = 0) {
    self.name = name
    self.matches = matches
    self.selected = selected
  }
}
