import Foundation
import RiffleApp
import RiffleCore
import RiffleTUI
import RiffleTestSupport
import Testing

/// The cover URLs asked for, in order, from any thread.
private final class Loads: @unchecked Sendable {
  private let lock = NSLock()
  private var urls: [URL] = []
  func record(_ url: URL) { lock.withLock { urls.append(url) } }
  var all: [URL] { lock.withLock { urls } }
}

@Suite("Artwork: what is kept between pages")
@MainActor
struct ArtworkTests {
  /// Six songs with the catalog's covers (real PNGs, decoded and rendered through chafa).
  private static let songs: [Song] = (1...6).map { number in
    let cover = TestFiles.catalog.appendingPathComponent("covers/riffle-00\(number).png")
    return Song(
      id: "song-\(number)", title: "Song \(number)", displayName: "Artist", handle: "artist",
      imageURL: cover, audioURL: URL(fileURLWithPath: "/dev/null"))
  }

  private func waitUntil(_ done: () -> Bool) async {
    let deadline = ContinuousClock.now + .seconds(20)
    while !done(), ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(5))
    }
    #expect(done(), "the covers were not ready in 20 s")
  }

  @Test("Cells stay for paging back; decoded images only for the last few songs")
  func keepsFewImages() async throws {
    let loads = Loads()
    let artwork = Artwork(mode: .palette256) { url, done in
      loads.record(url)
      done(try? Data(contentsOf: url))
    }
    var ready: [String] = []
    artwork.onReady = { ready.append($0) }
    let songs = Self.songs

    for song in songs { _ = artwork.cells(for: song, width: 20, height: 8) }
    await waitUntil { ready.count == songs.count }
    #expect(loads.all == songs.map { $0.imageURL! })
    // Paging back over them: every cover draws from its cells, nothing is fetched again.
    for song in songs { #expect(artwork.cells(for: song, width: 20, height: 8) != nil) }
    #expect(loads.all.count == songs.count)

    // Another size (a resize): the last songs' images are still decoded and render at once;
    // the older ones were let go and are fetched again.
    let kept = Artwork.keptImages
    for song in songs { _ = artwork.cells(for: song, width: 24, height: 10) }
    await waitUntil { ready.count == 2 * songs.count }
    #expect(loads.all.count == 2 * songs.count - kept)
    #expect(Array(loads.all.dropFirst(songs.count)) == songs.dropLast(kept).map { $0.imageURL! })
    for song in songs { #expect(artwork.cells(for: song, width: 24, height: 10) != nil) }
  }

  @Test("A cover the loader has at once (on disk) is still read and decoded off the main queue")
  func cachedCoverOffMain() async {
    let onMain = Loads()
    let artwork = Artwork(mode: .palette256) { url, done in
      if Thread.isMainThread { onMain.record(url) }
      // As the disk cache answers: at once, in the caller's context.
      done(try? Data(contentsOf: url))
    }
    var ready: [String] = []
    artwork.onReady = { ready.append($0) }
    let song = Self.songs[0]
    #expect(artwork.cells(for: song, width: 20, height: 8) == nil, "never ready within the call")
    await waitUntil { ready == [song.id] }
    #expect(onMain.all.isEmpty, "the loader ran on the main queue")
    #expect(artwork.cells(for: song, width: 20, height: 8) != nil)
  }
}
