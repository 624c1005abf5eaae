import Foundation
import RiffleCore

/// A live radio station as a page: what its answer's `icy-*` headers say, or the M3U or PLS
/// playlist that points at its stream.
public enum StationPlaylist {
  /// Playlist content types, which are not themselves audio.
  static func isPlaylistType(_ type: String) -> Bool {
    ["mpegurl", "x-mpegurl", "scpls", "x-scpls"].contains { type.hasPrefix("audio/" + $0) }
  }

  /// The station at `url` as one page: its name (`icy-name`, else the host) as the title, its
  /// genre (`icy-genre`) in the artist's place. The stream plays as a song without an end.
  public static func stationPage(_ url: URL, headers: [String: String]) -> SourcePage {
    let name = clean(headers["icy-name"]) ?? url.host ?? "Radio"
    let genre = clean(headers["icy-genre"]) ?? "Live radio"
    return SourcePage(
      songs: [stationSong(url, name: name, genre: genre)], kind: .station(url, name: name))
  }

  /// A station as a page's song: its name as the title, its genre in the artist's place; the
  /// id marks it live (`Song.isLiveStream`).
  public static func stationSong(_ url: URL, name: String, genre: String) -> Song {
    Song(
      id: "station:" + url.absoluteString, title: name, displayName: genre, handle: "",
      audioURL: url)
  }

  private static func clean(_ text: String?) -> String? {
    guard let text else { return nil }
    let cleaned = TextSanitizer.sanitize(String(text.prefix(200)))
      .trimmingCharacters(in: .whitespaces)
    return cleaned.isEmpty ? nil : cleaned
  }

  /// The first stream an M3U (`#EXTM3U`, or bare URLs) or PLS (`[playlist]`, `File1=`) names,
  /// with its title; nil when the bytes are not a playlist, a failure when one names no http(s)
  /// stream.
  public static func parse(_ body: Data) -> Result<(url: URL, name: String?), FeedLoadError>? {
    guard body.count < 1_000_000 else { return nil }
    let text = String(decoding: body.prefix(100_000), as: UTF8.self)
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    let lines = trimmed.split(whereSeparator: \.isNewline).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    let isPLS = trimmed.lowercased().hasPrefix("[playlist]")
    let isM3U =
      trimmed.hasPrefix("#EXTM3U")
      || (!lines.isEmpty
        && lines.allSatisfy {
          $0.hasPrefix("#") || $0.lowercased().hasPrefix("http://")
            || $0.lowercased().hasPrefix("https://")
        } && lines.contains { !$0.hasPrefix("#") })
    guard isPLS || isM3U else { return nil }
    var name: String?
    for line in lines {
      if isPLS {
        let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { continue }
        let key = parts[0].lowercased()
        if key.hasPrefix("title"), name == nil { name = parts[1] }
        if key.hasPrefix("file"), let url = stream(parts[1]) {
          return .success((url, name.flatMap { clean($0) }))
        }
      } else if line.hasPrefix("#EXTINF:") {
        name = line.split(separator: ",", maxSplits: 1).dropFirst().first.map(String.init)
      } else if !line.hasPrefix("#"), let url = stream(line) {
        return .success((url, name.flatMap { clean($0) }))
      }
    }
    return .failure(.feed(.notAFeed(expected: "a playlist naming an http(s) stream")))
  }

  private static func stream(_ text: String) -> URL? {
    guard let url = URL(string: text.trimmingCharacters(in: .whitespaces)),
      let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
    else { return nil }
    return url
  }
}
