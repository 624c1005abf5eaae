import Foundation
import RiffleCore

/// What a scrobbling service is told about a song: who, what, from which album, how long.
public struct ScrobbleTrack: Codable, Equatable, Sendable {
  public var artist: String
  public var title: String
  public var album: String?
  /// The song's length in seconds, when known.
  public var duration: Double?
  public var trackNumber: Int?
  /// The song's id in Riffle (for the log and for telling listens apart; never sent).
  public var songID: String
  /// Where the song came from: a feed's or a page's http(s) URL is sent to ListenBrainz as
  /// `origin_url`; anything else stays here.
  public var origin: String?

  public init(
    artist: String, title: String, album: String? = nil, duration: Double? = nil,
    trackNumber: Int? = nil, songID: String, origin: String? = nil
  ) {
    self.artist = artist
    self.title = title
    self.album = album
    self.duration = duration
    self.trackNumber = trackNumber
    self.songID = songID
    self.origin = origin
  }

  /// The track for a song the player plays: its artist (display name, else handle), title,
  /// album and the length of what plays (for an iTunes preview, the preview's).
  public init(song: Song, origin: String? = nil) {
    let artist = song.displayName.trimmingCharacters(in: .whitespaces)
    self.init(
      artist: artist.isEmpty ? song.handle : artist, title: song.title, album: song.album,
      duration: song.duration, songID: song.id, origin: origin)
  }

  enum CodingKeys: String, CodingKey {
    case artist, title, album, duration
    case trackNumber = "track_number"
    case songID = "song_id"
    case origin
  }

  /// The album, or nil when empty.
  var albumName: String? { album.flatMap { $0.isEmpty ? nil : $0 } }

  /// The length in whole seconds, when known and positive.
  var wholeSeconds: Int? {
    guard let duration, duration.isFinite, duration >= 1 else { return nil }
    return Int(duration.rounded())
  }

  /// True when both services can take the track: it names an artist and a title.
  public var isScrobblable: Bool {
    !artist.trimmingCharacters(in: .whitespaces).isEmpty
      && !title.trimmingCharacters(in: .whitespaces).isEmpty
  }

  /// When a play counts as a listen, by both services' rules: half the song or 4 minutes,
  /// whichever comes first (4 minutes when the length is unknown).
  public static func listenThreshold(duration: Double?) -> Double {
    ListenRule.threshold(duration: duration)
  }
}

/// A scrobbling service Riffle can send listens to.
public enum ScrobbleServiceKind: String, Codable, Sendable, CaseIterable, Comparable {
  case listenBrainz = "listenbrainz"
  case lastFM = "lastfm"

  /// The service's name in messages.
  public var displayName: String {
    switch self {
    case .listenBrainz: return "ListenBrainz"
    case .lastFM: return "Last.fm"
    }
  }

  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// The `[scrobble.listenbrainz]` and `[scrobble.lastfm]` tables of config.toml: which services
/// get listens, with which credentials. Either, both or none may be set.
///
/// Its description never shows a token, key or secret, so printing settings cannot leak them.
public struct ScrobbleSettings: Equatable, Sendable, CustomStringConvertible,
  CustomDebugStringConvertible, CustomReflectable
{
  /// ListenBrainz: a user token (from the profile page) and the server.
  public struct ListenBrainz: Equatable, Sendable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
  {
    public static let defaultURL = URL(string: "https://api.listenbrainz.org")!
    public var token: String
    public var url: URL

    public init(token: String, url: URL = defaultURL) {
      self.token = token
      self.url = url
    }

    public var description: String { "ListenBrainz at \(url.absoluteString)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["url": url], displayStyle: .struct) }
  }

  /// Last.fm: the application's API key and secret, and the user's session key.
  public struct LastFM: Equatable, Sendable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
  {
    public static let defaultURL = URL(string: "https://ws.audioscrobbler.com")!
    public var apiKey: String
    public var secret: String
    public var sessionKey: String
    public var url: URL

    public init(apiKey: String, secret: String, sessionKey: String, url: URL = defaultURL) {
      self.apiKey = apiKey
      self.secret = secret
      self.sessionKey = sessionKey
      self.url = url
    }

    public var description: String { "Last.fm at \(url.absoluteString)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["url": url], displayStyle: .struct) }
  }

  public var listenBrainz: ListenBrainz?
  public var lastFM: LastFM?

  public init(listenBrainz: ListenBrainz? = nil, lastFM: LastFM? = nil) {
    self.listenBrainz = listenBrainz
    self.lastFM = lastFM
  }

  /// True when no service is set: nothing is scrobbled.
  public var isEmpty: Bool { listenBrainz == nil && lastFM == nil }

  /// The services set, in a fixed order.
  public var kinds: [ScrobbleServiceKind] {
    (listenBrainz == nil ? [] : [.listenBrainz]) + (lastFM == nil ? [] : [.lastFM])
  }

  public var description: String {
    var parts: [String] = []
    if let listenBrainz { parts.append(listenBrainz.description) }
    if let lastFM { parts.append(lastFM.description) }
    return parts.isEmpty ? "no scrobbling" : "scrobbling to " + parts.joined(separator: " and ")
  }

  public var debugDescription: String { description }

  public var customMirror: Mirror {
    Mirror(self, children: ["services": description], displayStyle: .struct)
  }
}
