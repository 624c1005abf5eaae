import Foundation

/// One song as the player shows and plays it, whatever source it came from.
public struct Song: Equatable, Hashable, Sendable, Identifiable, Codable {
  public var id: String
  public var title: String
  /// The artist's display name ("Mira Sol").
  public var displayName: String
  /// The artist's handle without the "@" ("mirasol").
  public var handle: String
  /// The cover's URL, kept as its text (see `audioText`).
  private var imageText: String?
  /// The song's own web page, when the source has one (shared with `s`), kept as its text.
  private var webText: String?
  /// The audio's URL as its absolute text. A Foundation `URL` costs several hundred bytes on
  /// Linux; a feed of 100,000 songs kept two per song, so the `URL` is made when it is used.
  private var audioText: String
  public var likeCount: Int
  public var isLiked: Bool
  /// Length in seconds when the source says; the decoder's figure replaces it once known.
  public var duration: Double?
  /// The album (collection) the song is on, when the source says.
  public var album: String?
  /// Length of the whole recording when the audio is only a preview of it (iTunes).
  public var trackLength: Double?
  /// ReplayGain of the song and of its album, in dB (the library's songs: their tags, or their
  /// measured loudness), and the one the player chose to apply to this play.
  public var trackGain: Float?
  public var albumGain: Float?
  public var replayGain: Float?
  /// Where a like of this song goes besides this machine: the source that sent it says, and
  /// the song keeps it wherever it is played from (the queue, a playlist).
  public var likeDestination: LikeDestination
  /// When the source published it (a podcast episode's date).
  public var released: Date?
  /// Text that goes with it, shown in the lyrics view (a podcast episode's description).
  public var notes: String?
  /// A Podcasting 2.0 chapters file, kept as its text.
  private var chaptersText: String?
  /// The source's own id of the song's album (a Subsonic server's `albumId`), for `b`.
  public var albumID: String?
  /// Set on a page that stands for an album rather than a song (a server's album list).
  private var albumPage: Bool?

  public init(
    id: String, title: String, displayName: String, handle: String, imageURL: URL? = nil,
    audioURL: URL, likeCount: Int = 0, isLiked: Bool = false, duration: Double? = nil,
    album: String? = nil, trackLength: Double? = nil, released: Date? = nil,
    notes: String? = nil, chaptersURL: URL? = nil, likeDestination: LikeDestination = .localOnly
  ) {
    self.likeDestination = likeDestination
    self.id = id
    self.title = title
    self.displayName = displayName
    self.handle = handle
    self.imageText = imageURL?.absoluteString
    self.audioText = audioURL.absoluteString
    self.likeCount = likeCount
    self.isLiked = isLiked
    self.duration = duration
    self.album = album
    self.trackLength = trackLength
    self.released = released
    self.notes = notes
    self.chaptersText = chaptersURL?.absoluteString
  }

  /// True for a page that stands for an album (its `albumID`): it does not play; `b` or Space
  /// opens its songs.
  public var isAlbumPage: Bool {
    get { albumPage ?? false }
    set { albumPage = newValue ? true : nil }
  }

  public var chaptersURL: URL? {
    get { chaptersText.flatMap { URL(string: $0) } }
    set { chaptersText = newValue?.absoluteString }
  }

  public var imageURL: URL? {
    get { imageText.map(Self.url(from:)) }
    set { imageText = newValue?.absoluteString }
  }

  public var audioURL: URL {
    get { Self.url(from: audioText) }
    set { audioText = newValue.absoluteString }
  }

  public var webURL: URL? {
    get { webText.map(Self.url(from:)) }
    set { webText = newValue?.absoluteString }
  }

  /// The link to share: the song's page where its source has one, else its audio.
  public var shareLink: String { webText ?? audioText }

  /// A URL's absolute text back into a URL; text that does not parse (never seen: the text
  /// came from a URL) gives about:blank, which fails to play with a clear message.
  private static func url(from text: String) -> URL {
    URL(string: text) ?? URL(string: "about:blank")!
  }

  /// The same song with its like flipped and the count moved by one (never below zero).
  public func togglingLike() -> Song {
    var song = self
    song.isLiked.toggle()
    song.likeCount = max(0, likeCount + (song.isLiked ? 1 : -1))
    return song
  }

  /// The same song with the like set as the user last left it; the count follows the change.
  public func applyingLocalLike(_ liked: Bool) -> Song {
    liked == isLiked ? self : togglingLike()
  }
}

extension Array where Element == Song {
  /// Applies locally stored likes (song id -> liked) over the values a source sent.
  public func applyingLocalLikes(_ likes: [String: Bool]) -> [Song] {
    // In place, so that a feed's songs are not copied when no like touches them.
    var songs = self
    for index in indices {
      if let liked = likes[self[index].id], liked != self[index].isLiked {
        songs[index] = self[index].togglingLike()
      }
    }
    return songs
  }
}
