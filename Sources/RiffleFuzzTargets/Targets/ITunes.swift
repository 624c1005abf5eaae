import Foundation
import RiffleAPI
import RiffleCore

extension FuzzTarget {
  /// The iTunes Search API decoder on arbitrary bytes: every song it gives can be played from
  /// http(s), counts add up, and the artist's songs come out without repeats.
  static let itunes = FuzzTarget(name: "itunes", summary: "ITunesDecoder.results/batch") { data in
    guard let results = try? ITunesDecoder.results(data) else { return }
    let batch = ITunesDecoder.batch(results)
    // Results that are not songs, and a track sent twice, are neither songs nor skipped (d493eb7).
    require(batch.songs.count + batch.skipped <= batch.received, "counts do not add up")
    require(batch.received <= results.count, "more received than sent")
    for song in batch.songs {
      let scheme = song.audioURL.scheme?.lowercased()
      require(scheme == "http" || scheme == "https", "a preview at \(song.audioURL)")
      require(song.id.hasPrefix("itunes:"), "an id without its source: \(song.id)")
    }
    let unique = SongDeduplicator.unique(batch.songs)
    require(unique.songs.count + unique.hidden == batch.songs.count, "dedup lost songs")
    require(
      Set(unique.songs.map { SongDeduplicator.normalizedTitle($0.title) + "|" + $0.displayName })
        .count <= unique.songs.count, "dedup kept a repeat")
  }
}
