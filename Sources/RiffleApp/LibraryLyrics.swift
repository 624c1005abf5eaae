import Foundation
import RiffleAPI
import RiffleCore
import RiffleLibrary

extension LyricsClient {
  /// A local song's lyrics from the file itself before any server (`LocalLyrics`: a `.lrc`
  /// beside it, its SYLT frame, the tags' lyrics kept in `index`); where none has words, as
  /// for any song (the cache, then LRCLIB).
  public func readingFileTags(index: @escaping @Sendable () -> LibraryIndex?) -> LyricsClient {
    let base = self
    return LyricsClient(load: { song, done in
      guard song.audioURL.isFileURL, song.notes == nil, song.chaptersURL == nil else {
        return base.load(song, done)
      }
      // A file is opened: off the caller's queue (the main queue).
      BackgroundWork.run("riffle.lyrics.file", qos: .userInitiated) {
        if let lyrics = LocalLyrics.find(song.audioURL, index: index()) {
          return done(.success(lyrics))
        }
        base.load(song, done)
      }
    })
  }
}
