import Foundation

/// What happens when a song ends and nothing else is due.
public enum RepeatMode: String, Equatable, Sendable, Codable, CaseIterable {
  case off, all, one

  /// The mode after this one when the key cycles them.
  public var next: RepeatMode {
    switch self {
    case .off: return .all
    case .all: return .one
    case .one: return .off
    }
  }
}

/// A note shown on the band for a moment.
public struct Flash: Equatable, Sendable {
  public var text: String
  public var id: Int

  public init(_ text: String, id: Int) {
    self.text = text
    self.id = id
  }

  /// How long a note stays, in seconds.
  public static let seconds = 2.0
}

/// A song and a point in it to go back to.
public struct ResumePoint: Equatable, Sendable, Codable {
  public var songID: String
  public var position: Double

  public init(songID: String, position: Double) {
    self.songID = songID
    self.position = position
  }
}

/// Everything the player shows, as one value. Only `reduce` changes it.
public struct PlayerState: Equatable, Sendable {
  /// What the audio for the current page is doing.
  public enum Playback: Equatable, Sendable {
    case idle
    /// Asked for, no sound yet.
    case loading
    /// Was playing; waiting for bytes.
    case buffering
    case playing
    case paused
    /// The last song ended.
    case finished
    case failed(String)
  }

  /// A line for the status bar: information or an error.
  public struct Message: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
      case info
      case error
    }
    public var kind: Kind
    public var text: String

    public init(_ kind: Kind, _ text: String) {
      self.kind = kind
      self.text = text
    }
  }

  /// Something drawn over the page.
  public enum Overlay: Equatable, Sendable {
    case help
    /// The words of the current song (`lyrics` says which song and how far they are).
    case lyrics
    /// The search prompt (its line is `search`).
    case search
    /// The artists a name matches, to choose one (the list is `artistChoice`).
    case artistChoice
  }

  /// The lyrics of one song: asked for, here, or failed.
  public struct LyricsPanel: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
      case loading
      case loaded(Lyrics)
      /// Why they could not be had, said to the user (with the retry countdown, if any).
      case failed(String)
    }
    /// The song these lyrics are about; results for any other song are ignored.
    public var songID: String
    public var phase: Phase
    /// First line shown of plain lyrics (synced lyrics follow the song instead).
    public var scroll: Int
    /// Failed tries in a row at loading them; sets the wait before the next.
    public var attempts: Int

    public init(songID: String, phase: Phase, scroll: Int = 0, attempts: Int = 0) {
      self.songID = songID
      self.phase = phase
      self.scroll = scroll
      self.attempts = attempts
    }
  }

  /// Naming a song heard nearby (`i`): listening, then looking it up.
  public enum Identify: Equatable, Sendable {
    /// Recording: the input level (0...1) and seconds heard so far.
    case listening(level: Double, seconds: Double)
  }

  /// The source whose songs are the pages; nil until a first page has arrived.
  public var source: PageSource?
  /// A source asked for whose first page has not arrived: the pages stay as they are
  /// meanwhile, and answers about any other source are ignored.
  public var opening: PageSource?
  public var songs: [Song] = []
  public var index: Int = 0
  public var playback: Playback = .idle
  /// Seconds of the current song already heard.
  public var position: Double = 0
  public var duration: Double?
  /// Numbers each request to play; engine reports about older requests are ignored.
  public var playID: Int = 0
  public var message: Message?
  /// A notice that stays until the next key (see `PlayerAction.notify`).
  public var notice: String?
  public var overlay: Overlay?
  /// The lyrics last asked for; kept while the overlay is hidden so showing them again is free.
  public var lyrics: LyricsPanel?
  /// Frames left in the like "pop" animation; 0 when still.
  public var likePulse: Int = 0
  /// Counts timer frames; drives the spinner.
  public var frame: Int = 0
  public var isQuitting = false
  /// Set while listening for a song to name.
  public var identify: Identify?
  /// The spectrum of what plays is shown (drawn only while a song plays).
  public var visualizer = false

  /// Songs asked to play after the current one, before the pages go on ("up next").
  public var queue: [Song] = []
  /// Output volume in percent (0...100), applied in Riffle's own output.
  public var volume = 100
  public var isMuted = false
  /// Songs play in a random order, each once a round.
  public var shuffle = false
  public var repeatMode: RepeatMode = .off
  /// Ids of the songs played in this shuffle round.
  public var shuffleRound: Set<String> = []
  /// Ids of the songs shuffle played before the current one, newest last (for Previous).
  public var shuffleHistory: [String] = []
  /// The state of the random generator shuffle draws from (SplitMix64), so the reducer stays
  /// pure: the composition root seeds it.
  public var randomState: UInt64 = 0x9E37_79B9_7F4A_7C15
  /// A short note on the band (volume, shuffle, repeat, a link copied) and its number, so only
  /// the latest one's timer clears it.
  public var flash: Flash?
  /// Where to pick up when the source being opened arrives (a session restored at start).
  public var resumeAt: ResumePoint?
  /// The play request last announced as "now playing", and the last one scrobbled as heard:
  /// each play is announced once and counted once.
  public var announcedPlayID = 0
  public var listenedPlayID = 0

  /// The radio station playing on the current page, if one is (see `LiveStream`).
  public var live: LiveStream?

  /// The search prompt's line while the prompt is open.
  public var search: SearchPrompt?
  /// The library's songs for the prompt's line, shown while the prompt is open (search as you
  /// type); the pages themselves change only on Enter.
  public var preview: SearchPreview?
  /// The artists to choose from while `Overlay.artistChoice` shows.
  public var artistChoice: ArtistChoice?
  /// Earlier searches, newest last (Up and Down walk through them).
  public var searchHistory: [String] = []

  public init() {}

  /// The song on the current page, if there is one.
  public var currentSong: Song? {
    guard songs.indices.contains(index) else { return nil }
    // A station's page shows the title its stream names now.
    return live?.applied(to: songs[index]) ?? songs[index]
  }

  public var canGoPrevious: Bool { index > 0 && !songs.isEmpty }
  /// Whether Next has somewhere to go: a later page, a song shuffle has not played this
  /// round, or the start again when repeating all. (Up next plays when a song ends.)
  public var canGoNext: Bool {
    guard !songs.isEmpty else { return false }
    if repeatMode == .all { return true }
    if shuffle { return songs.contains { !shuffleRound.contains($0.id) } }
    return index + 1 < songs.count
  }

  /// The gain the output applies (0...1).
  public var gain: Double { isMuted ? 0 : Double(volume) / 100 }

  /// True while something on screen moves with time, so the timer must run.
  public var needsTimer: Bool {
    playback == .playing || isAnimating || needsSpinner
  }

  /// True while a spinner turns on screen: a song loading or buffering, a source's first page
  /// on its way, lyrics coming.
  public var needsSpinner: Bool {
    playback == .loading || playback == .buffering || opening?.phase == .loading
      || (overlay == .lyrics && lyrics?.phase == .loading)
  }

  /// True while a short animation runs (the timer then ticks fast enough for smooth motion).
  public var isAnimating: Bool { likePulse > 0 }

  /// Lines a page of plain lyrics scrolls when the screen's size is not known.
  public static let lyricsPageLines = 10
  /// Longest a listen for `i` lasts, in seconds.
  public static let listenSeconds = 10.0

  /// Number of frames a like "pop" lasts.
  public static let likePulseFrames = 6
}

/// When a play counts as a listen, as ListenBrainz and Last.fm both document it: half the song
/// or 4 minutes, whichever comes first; 4 minutes when the length is not known.
public enum ListenRule {
  public static func threshold(duration: Double?) -> Double {
    guard let duration, duration.isFinite, duration > 0 else { return 240 }
    return min(duration / 2, 240)
  }
}
