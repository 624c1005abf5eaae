import Foundation

extension PlayerState {
  /// The song that plays when the current one ends by itself, as `advance` would pick it, with
  /// the gain it would be played at; nil when it is not known ahead (shuffle draws at the end),
  /// when nothing follows, or when it is not a song to open early (a station, an album's page).
  ///
  /// The engine opens this song while the current one ends and plays it on into the same
  /// output, so album neighbours join without a gap (`PlaybackEngine.prepare(next:)`).
  public var followingSong: Song? {
    guard let current = currentSong, !current.isLiveStream else { return nil }
    let next: Song?
    if repeatMode == .one {
      next = current
    } else if !queue.isEmpty, source?.kind != .queue {
      next = queue.first
    } else if shuffle {
      next = nil
    } else if index + 1 < songs.count {
      next = songs[index + 1]
    } else if repeatMode == .all, source?.next == nil {
      next = songs.first
    } else {
      next = nil
    }
    guard var song = next, !song.isLiveStream, !song.isAlbumPage else { return nil }
    // As `playCurrent` plays it: the album's gain in order, the song's own under shuffle.
    song.replayGain = shuffle ? song.trackGain : song.albumGain ?? song.trackGain
    return song
  }
}
