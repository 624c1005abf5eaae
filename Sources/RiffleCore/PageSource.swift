import Foundation

/// What a source of pages is: where its songs come from, whatever client fetches them.
///
/// Adding a source means one case here, its texts below, and one client that turns a page
/// request into songs (`PageClient` in RiffleApp); the reducer's page path serves them all.
public enum SourceKind: Hashable, Sendable {
  /// A song feed (the Suno feed format), remote or a file.
  case feed(URL)
  /// iTunes songs matching what the user typed.
  case search(String)
  /// The most popular songs of the artist with this name, each song once.
  case artist(String)
  /// A podcast's episodes, newest first: a feed URL whose answer was RSS or Atom, and the show's
  /// name. `riffle URL` opens a `.feed`; the answer turns it into this (`SourcePage.kind`).
  case podcast(URL, show: String)
  /// The newest episodes of every show the user follows (`riffle podcasts`), newest first.
  case podcasts
  /// A live radio station: one page whose audio does not end. `riffle URL` opens a `.feed`; an
  /// answer that is an audio stream (or a playlist pointing at one) turns it into this.
  case station(URL, name: String)

  /// How the status line names the source ("“blue”", "Mira Sol's top songs").
  public var label: String {
    switch self {
    case .feed: return "the feed"
    case .search(let term): return "\u{201C}\(term)\u{201D}"
    case .artist(let name): return "\(name)\u{2019}s top songs"
    case .podcast(_, let show): return "\u{201C}\(show)\u{201D}"
    case .podcasts: return "your podcasts"
    case .station(_, let name): return name
    }
  }

  /// The source's name on the top line; nil where "Riffle" alone says it (the feed).
  public var title: String? {
    switch self {
    case .feed: return nil
    case .search(let term): return "Results for \u{201C}\(term)\u{201D}"
    case .artist: return label
    case .podcast(_, let show): return show
    case .podcasts: return "Your podcasts"
    case .station(_, let name): return name + " \u{00B7} live"
    }
  }

  /// What the activity line says while the first page is on its way.
  public var activity: String {
    switch self {
    case .feed: return "Loading songs\u{2026}"
    case .search(let term): return "Searching for \u{201C}\(term)\u{201D}\u{2026}"
    case .artist(let name): return "Finding \(name)\u{2019}s top songs\u{2026}"
    case .podcast: return "Loading episodes\u{2026}"
    case .podcasts: return "Checking your podcasts\u{2026}"
    case .station: return "Tuning in\u{2026}"
    }
  }

  /// What the status line says when the first page has no songs.
  public var emptyNote: String {
    switch self {
    case .feed: return "The feed has no songs"
    case .search(let term): return "No songs found for \u{201C}\(term)\u{201D}"
    case .artist(let name): return "No songs found for the artist \u{201C}\(name)\u{201D}"
    case .podcast: return "The podcast has no episodes"
    case .podcasts: return "No podcasts followed: riffle podcast add URL"
    case .station: return "The station sent nothing to play"
    }
  }

  /// What the status line says when the last song has ended.
  public var endNote: String {
    switch self {
    case .feed: return "End of the feed"
    case .search, .artist: return "End of the results"
    case .podcast: return "End of the podcast"
    case .podcasts: return "End of your podcasts"
    case .station(_, let name): return "\(name) stopped sending"
    }
  }

  /// What the status line says of `count` entries left out because they cannot be played.
  public func skippedNote(_ count: Int) -> String {
    switch self {
    case .feed:
      return count == 1
        ? "skipped 1 song without an id or audio URL"
        : "skipped \(count) songs without an id or audio URL"
    case .search, .artist:
      return "\(count) without a preview"
    case .podcast:
      return count == 1 ? "skipped 1 item without audio" : "skipped \(count) items without audio"
    case .podcasts:
      return count == 1 ? "1 show could not be had" : "\(count) shows could not be had"
    case .station:
      return "\(count) left out"
    }
  }

  /// How close to the end of the loaded songs the next page is asked for: a feed's pages may
  /// be a few songs each; a catalog's batches are 25 from a slower, rate-limited API.
  public var lookahead: Int {
    switch self {
    case .feed, .podcast, .podcasts, .station: return 3
    case .search, .artist: return 5
    }
  }

  /// Where a like given to a song of this source goes besides this machine.
  public var likeDestination: LikeDestination {
    switch self {
    case .feed: return .likesEndpoint
    case .search, .artist, .podcast, .podcasts, .station: return .localOnly
    }
  }

  /// The key of the fingerprint index kept for this source's songs, when it keeps one.
  public var fingerprintKey: URL? {
    if case .feed(let url) = self { return url }
    return nil
  }
}

/// Where a like goes besides the likes kept on this machine.
public enum LikeDestination: Hashable, Sendable {
  /// Kept here only (search results: no server knows them).
  case localOnly
  /// Sent to the likes endpoint the user gave (`--likes-endpoint`), when there is one.
  case likesEndpoint
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
  /// What the answer showed the source to be, when that is not what was asked for (a feed URL
  /// that answered with a podcast); the source takes this kind from its first page on.
  public var kind: SourceKind?

  public init(
    songs: [Song], next: PageCursor? = nil, skipped: Int = 0, hidden: Int = 0,
    kind: SourceKind? = nil
  ) {
    self.songs = songs
    self.next = next
    self.skipped = skipped
    self.hidden = hidden
    self.kind = kind
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

  /// True while a page request is out or waiting to be tried again.
  public var isBusy: Bool {
    switch phase {
    case .loading, .waiting: return true
    case .idle, .failed: return false
    }
  }

  /// The reason the latest request failed, if it did.
  public var failure: String? {
    switch phase {
    case .waiting(let reason), .failed(let reason): return reason
    case .idle, .loading: return nil
    }
  }
}
