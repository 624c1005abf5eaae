import Foundation
import RiffleAPI
import RiffleCore

extension FuzzTarget {
  /// The song feed decoder (every shape of the feed) on arbitrary bytes, as from a remote feed.
  static let feedJSON = FuzzTarget(name: "feed", summary: "FeedDecoder.decode") { data in
    let base = URL(string: "https://feeds.example/api/songs")!
    guard let page = try? FeedDecoder.decode(data, base: base) else { return }
    var ids = Set<String>()
    for song in page.songs {
      require(!song.id.isEmpty, "a song without an id")
      require(ids.insert(song.id).inserted, "a repeated id \(song.id)")
      let scheme = song.audioURL.scheme?.lowercased()
      require(scheme == "http" || scheme == "https", "a remote feed gave \(song.audioURL)")
    }
  }
}
