import Foundation
import RiffleAPI
import RiffleCore

extension FuzzTarget {
  /// Radio Browser's answer (a station search) on arbitrary bytes.
  static let radioBrowser = FuzzTarget(
    name: "radio", summary: "RadioBrowser.page (a station search's JSON)"
  ) { data in
    guard case .success(let page) = RadioBrowser.page(data) else { return }
    var ids: Set<String> = []
    for song in page.songs {
      require(song.isLiveStream, "a station that does not play live")
      require(ids.insert(song.id).inserted, "the same stream twice")
      let scheme = song.audioURL.scheme?.lowercased()
      require(scheme == "http" || scheme == "https", "a stream that is not http(s)")
      for text in [song.title, song.displayName, song.album ?? ""] {
        require(text == TextSanitizer.sanitize(text), "unsanitized text \(text.debugDescription)")
      }
      require(!song.title.isEmpty, "a station without a name")
    }
  }
}
