import Foundation
import RiffleCore
import Testing

@testable import RiffleAPI

@Suite("Playlist files")
struct PlaylistFileTests {
  private let folder = URL(fileURLWithPath: "/music/lists/road.m3u8")

  @Test("M3U8 with #EXTINF: lengths, 'artist - title', relative and absolute paths, URLs")
  func m3u8() throws {
    let text = """
      #EXTM3U
      #EXTINF:185,Mira Sol - Neon Tide
      ../albums/neon.mp3
      #EXTINF:-1 tvg-id="x",Radio One
      https://radio.example.com/live.mp3
      /srv/music/orbit.flac
      """
    let parsed = try #require(PlaylistFile.parse(Data(text.utf8), base: folder))
    #expect(parsed.skipped == 0)
    #expect(
      parsed.songs.map(\.audioURL.absoluteString) == [
        "file:///music/albums/neon.mp3", "https://radio.example.com/live.mp3",
        "file:///srv/music/orbit.flac",
      ])
    #expect(parsed.songs.map(\.title) == ["Neon Tide", "Radio One", "orbit"])
    #expect(parsed.songs.map(\.displayName) == ["Mira Sol", "", ""])
    #expect(parsed.songs.map(\.duration) == [185, nil, nil])
    #expect(Set(parsed.songs.map(\.id)).count == 3)
  }

  @Test("Windows line endings, a byte order mark, Latin-1, backslashes, blank lines")
  func oddEncodings() throws {
    var bytes: [UInt8] = [0xEF, 0xBB, 0xBF]
    bytes += Array("#EXTM3U\r\n\r\n#EXTINF:10,Caf\u{E9}\r\nsub\\caf\u{E9}.mp3\r\n".utf8)
    let utf8 = try #require(PlaylistFile.parse(Data(bytes), base: folder))
    #expect(utf8.songs.map(\.title) == ["Café"])
    #expect(utf8.songs.first?.audioURL.path == "/music/lists/sub/café.mp3")
    let latin1 =
      Data([0x23, 0x45, 0x58, 0x54, 0x4D, 0x33, 0x55, 0x0A]) + Data("#EXTINF:3,Caf".utf8)
      + Data([0xE9, 0x0A]) + Data("a.mp3\n".utf8)
    let parsed = try #require(PlaylistFile.parse(latin1, base: folder))
    #expect(parsed.songs.map(\.title) == ["Café"])
  }

  @Test("PLS and XSPF")
  func plsAndXSPF() throws {
    let pls = """
      [playlist]
      File1=http://stream.example.com:8000/live
      Title1=Example FM
      Length1=-1
      File2=song.ogg
      NumberOfEntries=2
      Version=2
      """
    let fromPLS = try #require(
      PlaylistFile.parse(Data(pls.utf8), base: URL(string: "https://example.com/l/a.pls")!))
    #expect(
      fromPLS.songs.map(\.audioURL.absoluteString) == [
        "http://stream.example.com:8000/live", "https://example.com/l/song.ogg",
      ])
    #expect(fromPLS.songs.first?.title == "Example FM")
    let xspf = """
      <?xml version="1.0" encoding="UTF-8"?>
      <playlist version="1" xmlns="http://xspf.org/ns/0/"><trackList>
      <track><location>one.mp3</location><title>One &amp; Only</title>
      <creator>Band</creator><album>LP</album><duration>61000</duration></track>
      <track><title>no location</title></track>
      </trackList></playlist>
      """
    let fromXSPF = try #require(PlaylistFile.parse(Data(xspf.utf8), base: folder))
    #expect(fromXSPF.songs.map(\.title) == ["One & Only"])
    #expect(fromXSPF.songs.first?.displayName == "Band")
    #expect(fromXSPF.songs.first?.album == "LP")
    #expect(fromXSPF.songs.first?.duration == 61)
  }

  @Test(
    "What cannot be played is counted: playlists inside (itself too), other schemes, remote to local"
  )
  func skipped() throws {
    let text = "#EXTM3U\nroad.m3u8\nother.pls\nftp://x/y.mp3\nok.mp3\nok.mp3\n"
    let parsed = try #require(PlaylistFile.parse(Data(text.utf8), base: folder))
    #expect(parsed.songs.count == 1, "the same file twice is one song")
    #expect(parsed.skipped == 3)
    let remote = try #require(
      PlaylistFile.parse(
        Data("#EXTM3U\n/etc/passwd\nfile:///etc/shadow\n".utf8),
        base: URL(string: "https://evil.example.com/x.m3u")!))
    #expect(remote.songs.isEmpty && remote.skipped == 2)
    #expect(
      PlaylistFile.parse(
        Data("<html><body>404</body></html>".utf8), base: URL(string: "https://x.example.com/a")!)
        == nil)
  }

  @Test("A thousand entries read, escape sequences in titles made harmless")
  func largeAndHostile() throws {
    var text = "#EXTM3U\n"
    for n in 0..<1000 { text += "#EXTINF:1,\u{1B}[31mBand - Song \(n)\u{07}\nsong-\(n).mp3\n" }
    let parsed = try #require(PlaylistFile.parse(Data(text.utf8), base: folder))
    #expect(parsed.songs.count == 1000)
    #expect(!parsed.songs.contains { $0.title.unicodeScalars.contains { $0.value < 0x20 } })
  }

  @Test("Written as M3U8 and read back: the same songs, local files relative to the folder")
  func roundTrip() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "riffle-playlist-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dir) }
    let songs = [
      Song(
        id: "a", title: "Neon Tide", displayName: "Mira Sol", handle: "",
        audioURL: dir.appendingPathComponent("music/neon tide.mp3"), duration: 185.4),
      Song(
        id: "b", title: "Preview", displayName: "Band", handle: "",
        audioURL: URL(string: "https://audio.example.com/p.m4a?x=1")!),
    ]
    let file = try PlaylistFile.save(songs, title: "Road / Trip", in: dir)
    #expect(file.lastPathComponent == "Road - Trip.m3u8")
    let again = try PlaylistFile.save(songs, title: "Road / Trip", in: dir)
    #expect(again.lastPathComponent == "Road - Trip 2.m3u8")
    let text = try String(contentsOf: file, encoding: .utf8)
    #expect(text.contains("#EXTINF:185,Mira Sol - Neon Tide\nmusic/neon tide.mp3\n"))
    #expect(text.contains("#EXTINF:-1,Band - Preview\nhttps://audio.example.com/p.m4a?x=1\n"))
    let parsed = try #require(PlaylistFile.parse(try Data(contentsOf: file), base: file))
    #expect(parsed.songs.map(\.audioURL) == songs.map(\.audioURL))
    #expect(parsed.songs.map(\.title) == ["Neon Tide", "Preview"])
    #expect(
      PlaylistFile.saved(in: dir).map(\.lastPathComponent) == [
        "Road - Trip 2.m3u8", "Road - Trip.m3u8",
      ])
  }

  @Test("A server's songs saved with w read back as that server's songs; remote lists cannot")
  func serverSongs() throws {
    let decoded = SubsonicSongs(server: "home").songs([
      .object(["id": .string("s 1"), "title": .string("Dust"), "artist": .string("Kai")])
    ])
    let text = PlaylistFile.m3u8(decoded) + "subsonic://home/getCoverArt?id=c1\n"
    #expect(text.contains("subsonic://home/stream?id=s%201\n"))
    #expect(!text.contains("p=") && !text.contains("t="))
    let parsed = try #require(PlaylistFile.parse(Data(text.utf8), base: folder))
    // The cover's address is not a song.
    #expect(parsed.skipped == 1)
    let song = try #require(parsed.songs.first)
    #expect(parsed.songs.count == 1)
    #expect(song.id == "subsonic:home:s 1")
    #expect(song.audioURL == decoded.first?.audioURL)
    #expect(song.likeDestination == .server)
    #expect(song.title == "Dust" && song.displayName == "Kai")
    // A playlist from the network cannot reach the user's own servers.
    let remote = try #require(
      PlaylistFile.parse(Data(text.utf8), base: URL(string: "https://lists.example/a.m3u8")!))
    #expect(remote.songs.isEmpty && remote.skipped == 2)
  }
}
