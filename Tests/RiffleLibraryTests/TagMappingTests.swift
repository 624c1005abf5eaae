import Foundation
import RiffleAudio
import Testing

@testable import RiffleLibrary

@Suite("TagMapping: container tags to the library's fields")
struct TagMappingTests {
  private func tags(_ pairs: [(String, String)], picture: Bool = false) -> FileTags {
    FileTags(
      kind: .mp3, tags: pairs.map { (key: $0.0, value: $0.1) }, duration: 181.5,
      hasEmbeddedPicture: picture)
  }

  @Test("every field from the names FFmpeg gives ID3 and MP4 tags")
  func id3Names() {
    let (info, notes) = TagMapping.info(
      from: tags(
        [
          ("title", "Jóga"), ("artist", "Björk"), ("album_artist", "Björk"),
          ("album", "Homogenic"), ("track", "2/10"), ("disc", "1/1"), ("date", "1997-09-22"),
          ("genre", "Electronic"), ("REPLAYGAIN_TRACK_GAIN", "-6.54 dB"),
          ("REPLAYGAIN_ALBUM_GAIN", "+1.20 dB"), ("lyrics-eng", "Line one\nLine two"),
        ], picture: true),
      fileName: "02.mp3")
    #expect(notes.isEmpty)
    #expect(info.title == "Jóga")
    #expect(info.artist == "Björk")
    #expect(info.albumArtist == "Björk")
    #expect(info.album == "Homogenic")
    #expect(info.track == 2)
    #expect(info.disc == 1)
    #expect(info.year == 1997)
    #expect(info.genre == "Electronic")
    #expect(info.duration == 181.5)
    #expect(info.hasEmbeddedCover)
    #expect(info.trackGain == -6.54)
    #expect(info.albumGain == 1.2)
    #expect(info.lyrics == "Line one\nLine two")
  }

  @Test("Vorbis comment names (ALBUMARTIST, TRACKNUMBER, DISCNUMBER, YEAR, LYRICS)")
  func vorbisNames() {
    let (info, _) = TagMapping.info(
      from: tags([
        ("ALBUMARTIST", "Various"), ("TRACKNUMBER", "07"), ("DISCNUMBER", "2"),
        ("YEAR", "May 1999"), ("LYRICS", "[00:01.00]Hello"),
      ]), fileName: "x.ogg")
    #expect(info.albumArtist == "Various")
    #expect(info.track == 7)
    #expect(info.disc == 2)
    #expect(info.year == 1999)
    #expect(info.lyrics == "[00:01.00]Hello")
  }

  @Test("no title: the file name without its ending; no artist or album: none")
  func missingTags() {
    let (info, notes) = TagMapping.info(from: tags([]), fileName: "01 Intro.flac")
    #expect(info.title == "01 Intro")
    #expect(info.artist == nil && info.album == nil && info.track == nil && info.year == nil)
    #expect(notes.isEmpty)
  }

  @Test("escape sequences are removed and said; a 10,000-character title is cut and said")
  func hostileText() {
    let (info, notes) = TagMapping.info(
      from: tags([
        ("title", String(repeating: "a", count: 10_000)),
        ("artist", "\u{1B}]0;pwned\u{07}\u{1B}[31mRed\u{1B}[0m"),
      ]), fileName: "x.mp3")
    #expect(info.title.count == TagMapping.longestText)
    #expect(info.artist == "Red")
    #expect(notes.contains("title tag cut from 10000 to 500 characters"))
    #expect(notes.contains("escape sequences removed from the artist tag"))
  }

  @Test("blank tags count as missing; the next name is tried")
  func blankTags() {
    let (info, _) = TagMapping.info(
      from: tags([("artist", "   "), ("performer", "Someone")]), fileName: "x.mp3")
    #expect(info.artist == "Someone")
  }

  @Test("numbers, years and gains that are not what they claim are dropped")
  func badNumbers() {
    #expect(TagMapping.leadingNumber("x/12") == nil)
    #expect(TagMapping.leadingNumber("0") == nil)
    #expect(TagMapping.leadingNumber("99999999999999999999") == nil)
    #expect(TagMapping.leadingNumber(" 3 / 12") == 3)
    #expect(TagMapping.year("12345") == nil)
    #expect(TagMapping.year("0000") == nil)
    #expect(TagMapping.year("2004-05-01") == 2004)
    #expect(TagMapping.decibels("loud") == nil)
    #expect(TagMapping.decibels("-900 dB") == nil)
    #expect(TagMapping.decibels("nan") == nil)
    #expect(TagMapping.decibels("+3.5dB") == 3.5)
  }

  @Test("an Opus R128 gain becomes a ReplayGain at -18 LUFS")
  func r128() {
    let (info, _) = TagMapping.info(
      from: tags([("R128_TRACK_GAIN", "-1280")]), fileName: "x.opus")
    #expect(info.trackGain == 0)  // -5 dB to -23 LUFS is 0 dB to -18 LUFS
    #expect(TagMapping.r128Gain("40000") == nil)
  }

  @Test("lyrics keep their line breaks but lose control characters")
  func lyricsLines() {
    let (info, _) = TagMapping.info(
      from: tags([("lyrics", "one\r\ntwo\u{1B}[2J\rthree\n\n")]), fileName: "x.mp3")
    #expect(info.lyrics == "one\ntwo\nthree")
  }

  @Test("the gain to play: album gain for an album in order, else track gain, else loudness")
  func gainChoice() throws {
    var info = TrackInfo(title: "t")
    info.trackGain = -3
    info.albumGain = -5
    let url = URL(fileURLWithPath: "/m/t.mp3")
    let song = LibrarySong(
      song: .init(id: "x", title: "t", displayName: "a", handle: "", audioURL: url), path: url.path,
      info: info, coverPath: nil, lrcPath: nil, loudness: -14)
    #expect(song.gain(albumInOrder: true) == -5)
    #expect(song.gain(albumInOrder: false) == -3)
    var measured = song
    measured.info.trackGain = nil
    measured.info.albumGain = nil
    #expect(measured.gain(albumInOrder: true) == -4)
  }
}
