import Foundation
import RiffleAPI
import RiffleCore

/// The lyrics a local file carries, in the order issue 16 gives: a `.lrc` beside it, then the
/// synced lyrics in its ID3v2 tag (SYLT, read now with TagLib), then the lyrics its tags gave
/// the index at scan (USLT, LYRICS, ©lyr, read by FFmpeg: synced when they are LRC text).
public enum LocalLyrics {
  /// Nil when none of them has words (the player then asks the cache and LRCLIB).
  public static func find(_ audio: URL, index: LibraryIndex?) -> Lyrics? {
    if let beside = LyricsSource.localLyrics(besideAudio: audio) { return beside }
    if case .synced(let lines) = EmbeddedSyncedLyrics.read(path: audio.path) {
      return .synced(lines)
    }
    guard let text = try? index?.lyrics(path: audio.path) else { return nil }
    if case .synced(let lines)? = Lyrics.fromLRC(text) { return .synced(lines) }
    return Lyrics.fromPlainText(text)
  }
}
