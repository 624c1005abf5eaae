import Foundation
import RiffleTestSupport
import Testing

@Suite("Bundled catalog")
struct CatalogAudioTests {
  struct CatalogSong: Decodable {
    var id: String
    var title: String
    var audioURL: String

    enum CodingKeys: String, CodingKey {
      case id, title
      case audioURL = "audio_url"
    }
  }
  struct CatalogFeed: Decodable {
    var songs: [CatalogSong]
  }

  @Test("the catalog has at least 6 songs of 15 to 40 s, each with a cover")
  func catalogShape() throws {
    let data = try Data(contentsOf: TestFiles.catalog.appendingPathComponent("songs.json"))
    let feed = try JSONDecoder().decode(CatalogFeed.self, from: data)
    #expect(feed.songs.count >= 6)
    for song in feed.songs {
      let file = TestFiles.catalog.appendingPathComponent(song.audioURL)
      #expect(FileManager.default.fileExists(atPath: file.path), "\(song.audioURL) missing")
    }
  }

  @Test("riffle plays a catalog song through the real binary into a WAV, whole")
  func catalogSongToWAV() throws {
    // The shortest catalog song, alone in a feed, so the test takes its length and no more.
    let catalog = try JSONDecoder().decode(
      CatalogFeed.self,
      from: Data(contentsOf: TestFiles.catalog.appendingPathComponent("songs.json")))
    // Catalog songs are constant bitrate, so the smallest file is the shortest song.
    let shortest = try catalog.songs.min { a, b in
      try fileSize(a.audioURL) < fileSize(b.audioURL)
    }!
    let audio = TestFiles.catalog.appendingPathComponent(shortest.audioURL)

    let home = try TemporaryDirectory("riffle-catalog")
    let feed = home.file("feed.json")
    let json = """
      {"songs":[{"id":"\(shortest.id)","title":"\(shortest.title)","handle":"t",\
      "display_name":"T","audio_url":"\(audio.absoluteString)"}]}
      """
    try Data(json.utf8).write(to: feed)
    let wav = home.file("played.wav")
    let tmux = try TmuxSession(
      command: [TestFiles.riffleBinary, feed.path, "--audio", "wav:\(wav.path)"],
      environment: home.xdgEnvironment)
    defer { tmux.kill() }
    try tmux.waitFor(shortest.title)
    try tmux.waitFor("End of the feed", timeout: 60)
    tmux.sendKeys("q")
    #expect(try tmux.waitForExit() == 0)

    let played = try WAVFile.read(wav)
    let reference = try WAVFile.decodedByMPG123(audio)
    #expect(played.sampleRate == 44_100)
    #expect(played.channels == 2)
    #expect(
      abs(played.frames - reference.frames) <= 1152,
      "played \(played.frames) frames, the song has \(reference.frames)")
    #expect(played.rms > 0.01, "the WAV is silent")
  }

  private func fileSize(_ relative: String) throws -> Int {
    let path = TestFiles.catalog.appendingPathComponent(relative).path
    return try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
  }
}
