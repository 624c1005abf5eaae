import Foundation
import RiffleAPI
import RiffleCore

extension FuzzTarget {
  /// The podcast feed reader (RSS and Atom through XMLParser, the notes' HTML) on arbitrary
  /// bytes, as from a remote feed.
  static let podcastRSS = FuzzTarget(name: "podcast", summary: "PodcastFeedParser.parse") {
    data in
    let base = URL(string: "https://feeds.example/show/rss")!
    guard let feed = try? PodcastFeedParser.parse(data, base: base) else { return }
    var ids = Set<String>()
    for song in feed.songs {
      require(ids.insert(song.id).inserted, "a repeated id \(song.id)")
      let scheme = song.audioURL.scheme?.lowercased()
      require(scheme == "http" || scheme == "https", "a remote feed gave \(song.audioURL)")
      for text in [song.title, song.displayName, song.notes ?? ""] {
        require(
          !text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x1B },
          "a control character in \(text.debugDescription)")
      }
    }
  }
}
