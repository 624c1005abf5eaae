import Foundation
import RiffleAPI
import RiffleCore

/// A song of a Subsonic-compatible server carries its likes, plays and lyrics back to that
/// server: these wrap the clients of every other source.
extension LikesClient {
  /// A server's song: its like is the server's star, sent there and not kept here (so a star
  /// set or taken elsewhere shows on the next page loaded); a refusal rolls the like back.
  public func sendingStars(to servers: SubsonicServers) -> LikesClient {
    let base = self
    return LikesClient(
      all: base.all,
      set: { id, liked, done in
        if SubsonicSongs.parse(songID: id) != nil { return done(nil) }
        base.set(id, liked, done)
      },
      flush: base.flush,
      sync: { id, liked, rejected in
        guard SubsonicSongs.parse(songID: id) != nil else { return base.sync(id, liked, rejected) }
        guard let (client, songID) = servers.song(id) else {
          let server = SubsonicSongs.parse(songID: id)?.server ?? ""
          return rejected(liked, SubsonicServers.unknownServerMessage(server))
        }
        client.star(songID, liked) { error in
          if let error { rejected(liked, error.userMessage) }
        }
      })
  }
}

extension ScrobbleClient {
  /// A server's song also reports to its server: now playing (`submission=false`) when it is
  /// heard, a play (`submission=true`) when it counts as a listen.
  public func reportingPlays(to servers: SubsonicServers) -> ScrobbleClient {
    let base = self
    @Sendable func report(_ song: Song, submission: Bool, time: Date?) {
      guard let (client, id) = servers.song(song.id) else { return }
      client.scrobble(id, submission: submission, time: time) { error in
        if let error {
          FileHandle.standardError.write(Data("scrobble to server: \(error.userMessage)\n".utf8))
        }
      }
    }
    return ScrobbleClient(
      announce: { song in
        report(song, submission: false, time: nil)
        base.announce(song)
      },
      listened: { song, started in
        report(song, submission: true, time: started)
        base.listened(song, started)
      },
      flush: base.flush)
  }
}

extension LyricsClient {
  /// A server's song: its lyrics from its server first; where the server has none, as for
  /// any song.
  public func askingServers(_ servers: SubsonicServers) -> LyricsClient {
    let base = self
    return LyricsClient(load: { song, done in
      guard let (client, id) = servers.song(song.id) else { return base.load(song, done) }
      client.lyrics(id: id, artist: song.displayName, title: song.title) { result in
        switch result {
        case .success(.notFound): base.load(song, done)
        case .success(let lyrics): done(.success(lyrics))
        case .failure(let error):
          if let transfer = error.transferError { return done(.failure(.http(transfer))) }
          done(.failure(.invalid(error.userMessage)))
        }
      }
    })
  }
}
