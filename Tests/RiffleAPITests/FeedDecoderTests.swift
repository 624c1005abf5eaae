import Foundation
import RiffleCore
import Testing

@testable import RiffleAPI

private let remoteBase = URL(string: "https://cdn.example.com/feeds/week-12/songs.json")!
private let fileBase = URL(fileURLWithPath: "/home/ana/Music/riffle/feed.json")

private func decode(_ json: String, base: URL = remoteBase) throws -> FeedPage {
  try FeedDecoder.decode(Data(json.utf8), base: base)
}

/// Decodes a feed with one entry and returns its song, recording an issue when it was skipped.
private func decodeOne(
  _ entry: String, base: URL = remoteBase, sourceLocation: SourceLocation = #_sourceLocation
) throws -> Song? {
  let page = try decode(#"{"songs": [\#(entry)]}"#, base: base)
  #expect(page.songs.count == 1, "skipped: \(page.skipped)", sourceLocation: sourceLocation)
  return page.songs.first
}

@Suite("Decoding the flat feed shape")
struct FlatFeedTests {
  @Test("A flat feed gives every song with every field")
  func flatFeed() throws {
    let json = #"""
      {
        "songs": [
          {
            "id": "8f1c2a9e-5b7d-4c3e-9a61-0d2f4e6b8c10",
            "title": "Neon Tide",
            "handle": "mirasol",
            "display_name": "Mira Sol",
            "image_url": "https://cdn1.example.com/image_8f1c2a9e.jpeg",
            "is_liked": false,
            "upvote_count": 128,
            "audio_url": "https://cdn1.example.com/8f1c2a9e.mp3"
          },
          {
            "id": "b3d90e14-77a2-4f0b-8c5e-2e9a1f7d6c43",
            "title": "Paper Lanterns",
            "handle": "oskarvale",
            "display_name": "Oskar Vale",
            "image_url": "https://cdn1.example.com/image_b3d90e14.jpeg",
            "is_liked": true,
            "upvote_count": 3,
            "audio_url": "https://cdn1.example.com/b3d90e14.mp3"
          }
        ]
      }
      """#
    let page = try decode(json)
    #expect(page.skipped == [])
    #expect(page.page == nil)
    #expect(page.totalPages == nil)
    #expect(
      page.songs == [
        Song(
          id: "8f1c2a9e-5b7d-4c3e-9a61-0d2f4e6b8c10", title: "Neon Tide", displayName: "Mira Sol",
          handle: "mirasol", imageURL: URL(string: "https://cdn1.example.com/image_8f1c2a9e.jpeg"),
          audioURL: URL(string: "https://cdn1.example.com/8f1c2a9e.mp3")!, likeCount: 128,
          isLiked: false, duration: nil, likeDestination: .likesEndpoint),
        Song(
          id: "b3d90e14-77a2-4f0b-8c5e-2e9a1f7d6c43", title: "Paper Lanterns",
          displayName: "Oskar Vale", handle: "oskarvale",
          imageURL: URL(string: "https://cdn1.example.com/image_b3d90e14.jpeg"),
          audioURL: URL(string: "https://cdn1.example.com/b3d90e14.mp3")!, likeCount: 3,
          isLiked: true, duration: nil, likeDestination: .likesEndpoint),
      ])
  }

  @Test("An empty song list is an empty page, not an error")
  func emptyFeed() throws {
    #expect(try decode(#"{"songs": []}"#) == FeedPage(songs: []))
  }

  @Test("Missing optional fields become empty strings, nil, zero and false")
  func missingOptionalFields() throws {
    let song = try decodeOne(
      #"{"id": "0e7d2b59", "audio_url": "https://cdn1.example.com/0e7d2b59.mp3"}"#)
    #expect(
      song
        == Song(
          id: "0e7d2b59", title: "", displayName: "", handle: "", imageURL: nil,
          audioURL: URL(string: "https://cdn1.example.com/0e7d2b59.mp3")!, likeCount: 0,
          isLiked: false, duration: nil, likeDestination: .likesEndpoint))
  }

  @Test("Null fields count as missing")
  func nullFields() throws {
    let song = try decodeOne(
      #"""
      {"id": "0e7d2b59", "audio_url": "https://cdn1.example.com/0e7d2b59.mp3", "title": null,
       "display_name": null, "handle": null, "image_url": null, "is_liked": null,
       "upvote_count": null, "duration": null}
      """#)
    #expect(song?.title == "")
    #expect(song?.displayName == "")
    #expect(song?.handle == "")
    #expect(song?.imageURL == nil)
    #expect(song?.isLiked == false)
    #expect(song?.likeCount == 0)
    #expect(song?.duration == nil)
  }

  @Test("The album is read when the entry has one (album or album_name), else nil")
  func album() throws {
    let audio = #""audio_url": "https://cdn1.example.com/a.mp3""#
    #expect(try decodeOne(#"{"id": "a", \#(audio), "album": " Lights "}"#)?.album == "Lights")
    #expect(try decodeOne(#"{"id": "a", \#(audio), "album_name": "Orbit"}"#)?.album == "Orbit")
    #expect(try decodeOne(#"{"id": "a", \#(audio), "album": null}"#)?.album == nil)
    #expect(try decodeOne(#"{"id": "a", \#(audio)}"#)?.album == nil)
  }

  @Test("Surrounding whitespace is trimmed from ids, titles and names")
  func whitespaceTrimmed() throws {
    let song = try decodeOne(
      #"""
      {"id": "  0e7d2b59\n", "title": "  Copper Sky ", "display_name": "\tLena Wren",
       "audio_url": " https://cdn1.example.com/0e7d2b59.mp3 "}
      """#)
    #expect(song?.id == "0e7d2b59")
    #expect(song?.title == "Copper Sky")
    #expect(song?.displayName == "Lena Wren")
    #expect(song?.audioURL.absoluteString == "https://cdn1.example.com/0e7d2b59.mp3")
  }

  @Test("A handle with a leading @ loses it; one without is kept as is")
  func handleAtTrimmed() throws {
    let at = try decodeOne(#"{"id": "a", "audio_url": "a.mp3", "handle": "@mirasol"}"#)
    #expect(at?.handle == "mirasol")
    let spaced = try decodeOne(#"{"id": "a", "audio_url": "a.mp3", "handle": "  @mirasol "}"#)
    #expect(spaced?.handle == "mirasol")
    let plain = try decodeOne(#"{"id": "a", "audio_url": "a.mp3", "handle": "mirasol"}"#)
    #expect(plain?.handle == "mirasol")
  }

  @Test("like_count is used when upvote_count is missing")
  func likeCountFallback() throws {
    let song = try decodeOne(#"{"id": "a", "audio_url": "a.mp3", "like_count": 7}"#)
    #expect(song?.likeCount == 7)
  }
}

@Suite("Decoding the paging envelope")
struct PagedFeedTests {
  static let json = #"""
    {
      "songs": [
        {
          "id": "c41a7f3e-2d90-4b1a-8e6f-5a3c9d0b7e12",
          "title": "Glass Harbor",
          "handle": "@lenawren",
          "display_name": "Lena Wren",
          "image_url": "https://cdn1.example.com/image_c41a7f3e.jpeg",
          "image_large_url": "https://cdn1.example.com/image_large_c41a7f3e.jpeg",
          "is_liked": false,
          "upvote_count": 41,
          "audio_url": "https://cdn1.example.com/c41a7f3e.mp3",
          "created_at": "2024-11-02T18:44:09.512Z",
          "metadata": {
            "tags": "dream pop, shimmering guitars, female vocals",
            "prompt": "[Verse]\nLights on the water",
            "duration": 203.4,
            "type": "gen"
          }
        }
      ],
      "page": 2,
      "per_page": 20,
      "total_pages": 7,
      "total_songs": 131,
      "start": 20,
      "end": 40
    }
    """#

  @Test("The envelope's page and page count are read and its other keys ignored")
  func paging() throws {
    let page = try decode(Self.json)
    #expect(page.page == 2)
    #expect(page.totalPages == 7)
    #expect(page.skipped == [])
    #expect(page.songs.count == 1)
  }

  @Test("Songs in the envelope take the large image and the duration from metadata")
  func songInEnvelope() throws {
    let song = try #require(try decode(Self.json).songs.first)
    #expect(
      song
        == Song(
          id: "c41a7f3e-2d90-4b1a-8e6f-5a3c9d0b7e12", title: "Glass Harbor",
          displayName: "Lena Wren", handle: "lenawren",
          imageURL: URL(string: "https://cdn1.example.com/image_large_c41a7f3e.jpeg"),
          audioURL: URL(string: "https://cdn1.example.com/c41a7f3e.mp3")!, likeCount: 41,
          isLiked: false, duration: 203.4, likeDestination: .likesEndpoint))
  }

  @Test("A top-level duration wins over the one in metadata")
  func topLevelDurationWins() throws {
    let song = try decodeOne(
      #"{"id": "a", "audio_url": "a.mp3", "duration": 187.52, "metadata": {"duration": 99}}"#)
    #expect(song?.duration == 187.52)
  }

  @Test("A duration written as text is read; zero and negative durations are unknown")
  func durationEdgeCases() throws {
    let text = try decodeOne(#"{"id": "a", "audio_url": "a.mp3", "duration": "201.5"}"#)
    #expect(text?.duration == 201.5)
    let zero = try decodeOne(#"{"id": "a", "audio_url": "a.mp3", "duration": 0}"#)
    #expect(zero?.duration == nil)
    let negative = try decodeOne(
      #"{"id": "a", "audio_url": "a.mp3", "metadata": {"duration": -3}}"#)
    #expect(negative?.duration == nil)
    let wrongType = try decodeOne(
      #"{"id": "a", "audio_url": "a.mp3", "duration": {"s": 1}, "metadata": {"duration": 64}}"#)
    #expect(wrongType?.duration == 64)
  }
}

@Suite("Decoding wrapped clips")
struct WrappedFeedTests {
  @Test("Entries wrapping the song in a clip are unwrapped, large image first")
  func wrappedClips() throws {
    let json = #"""
      {
        "clips": [
          {
            "clip": {
              "id": "f02e6c71-1a9d-4b88-b5f3-7c4d0e9a2b65",
              "title": "Slow Orbit",
              "handle": "junoreyes",
              "display_name": "Juno Reyes",
              "image_url": "https://cdn1.example.com/image_f02e6c71.jpeg",
              "image_large_url": "https://cdn1.example.com/image_large_f02e6c71.jpeg",
              "audio_url": "https://cdn1.example.com/f02e6c71.mp3",
              "is_liked": true,
              "upvote_count": 2048,
              "metadata": {"duration": 242.0, "tags": "ambient"}
            },
            "relative_index": 1.0
          }
        ]
      }
      """#
    let page = try decode(json)
    #expect(page.skipped == [])
    #expect(
      page.songs == [
        Song(
          id: "f02e6c71-1a9d-4b88-b5f3-7c4d0e9a2b65", title: "Slow Orbit",
          displayName: "Juno Reyes", handle: "junoreyes",
          imageURL: URL(string: "https://cdn1.example.com/image_large_f02e6c71.jpeg"),
          audioURL: URL(string: "https://cdn1.example.com/f02e6c71.mp3")!, likeCount: 2048,
          isLiked: true, duration: 242, likeDestination: .likesEndpoint)
      ])
  }

  @Test("Keys missing from the clip fall back to the wrapper")
  func wrapperFallback() throws {
    let json = #"""
      {
        "songs": [
          {
            "clip": {
              "id": "5a9c3e1d-4f72-4b0e-a6d8-9e2b7c1f0a34",
              "title": "Low Tide",
              "audio_url": "https://cdn1.example.com/5a9c3e1d.mp3"
            },
            "is_liked": true,
            "upvote_count": 17,
            "display_name": "Ada Moss",
            "handle": "@adamoss",
            "image_url": "https://cdn1.example.com/image_5a9c3e1d.jpeg"
          }
        ]
      }
      """#
    let song = try #require(try decode(json).songs.first)
    #expect(song.id == "5a9c3e1d-4f72-4b0e-a6d8-9e2b7c1f0a34")
    #expect(song.title == "Low Tide")
    #expect(song.isLiked)
    #expect(song.likeCount == 17)
    #expect(song.displayName == "Ada Moss")
    #expect(song.handle == "adamoss")
    #expect(song.imageURL?.absoluteString == "https://cdn1.example.com/image_5a9c3e1d.jpeg")
  }

  @Test("A key in the clip wins over the same key on the wrapper")
  func clipWinsOverWrapper() throws {
    let json = #"""
      [{"clip": {"id": "inner", "audio_url": "https://cdn1.example.com/inner.mp3",
                 "upvote_count": 5},
        "id": "outer", "audio_url": "https://cdn1.example.com/outer.mp3", "upvote_count": 99}]
      """#
    let song = try #require(try decode(json).songs.first)
    #expect(song.id == "inner")
    #expect(song.audioURL.absoluteString == "https://cdn1.example.com/inner.mp3")
    #expect(song.likeCount == 5)
  }

  @Test("A top-level array of entries is a feed, wrapped or not")
  func topLevelArray() throws {
    let json = #"""
      [
        {"id": "a1", "title": "First", "audio_url": "https://cdn1.example.com/a1.mp3"},
        {"clip": {"id": "b2", "title": "Second", "audio_url": "https://cdn1.example.com/b2.mp3"}}
      ]
      """#
    let page = try decode(json)
    #expect(page.songs.map(\.id) == ["a1", "b2"])
    #expect(page.songs.map(\.title) == ["First", "Second"])
    #expect(page.skipped == [])
  }
}

@Suite("Fields of the wrong type")
struct WrongTypeFeedTests {
  @Test(
    "upvote_count is read from numbers and numeric text, and is otherwise zero",
    arguments: [
      (#""12""#, 12), ("12", 12), ("12.9", 12), (#"{"count": 12}"#, 0), ("[12]", 0),
      ("true", 0), (#""lots""#, 0), ("-5", 0),
    ])
  func upvoteCount(raw: String, expected: Int) throws {
    let song = try decodeOne(#"{"id": "a", "audio_url": "a.mp3", "upvote_count": \#(raw)}"#)
    #expect(song?.likeCount == expected)
  }

  @Test(
    "is_liked is read from booleans, numbers and boolean words",
    arguments: [
      ("true", true), ("false", false), ("1", true), ("0", false), (#""true""#, true),
      (#""TRUE""#, true), (#""yes""#, true), (#""no""#, false), (#""maybe""#, false),
      (#"{}"#, false),
    ])
  func isLiked(raw: String, expected: Bool) throws {
    let song = try decodeOne(#"{"id": "a", "audio_url": "a.mp3", "is_liked": \#(raw)}"#)
    #expect(song?.isLiked == expected)
  }

  @Test("A numeric id becomes its text")
  func numericID() throws {
    let whole = try decodeOne(#"{"id": 42, "audio_url": "a.mp3"}"#)
    #expect(whole?.id == "42")
    let fraction = try decodeOne(#"{"id": 42.5, "audio_url": "a.mp3"}"#)
    #expect(fraction?.id == "42.5")
  }

  @Test("A numeric title becomes its text; a boolean title is empty")
  func numericTitle() throws {
    let year = try decodeOne(#"{"id": "a", "audio_url": "a.mp3", "title": 1999}"#)
    #expect(year?.title == "1999")
    let flag = try decodeOne(#"{"id": "a", "audio_url": "a.mp3", "title": true}"#)
    #expect(flag?.title == "")
  }

  @Test("An image URL of the wrong type is dropped and the song kept")
  func imageWrongType() throws {
    let song = try decodeOne(#"{"id": "a", "audio_url": "a.mp3", "image_url": ["x.png"]}"#)
    #expect(song?.imageURL == nil)
  }
}

@Suite("Entries that are skipped")
struct SkippedEntryTests {
  @Test("Unusable entries are skipped, each with a numbered note, and the rest kept")
  func skippedWithNotes() throws {
    let json = #"""
      {
        "songs": [
          {"id": "8f1c2a9e", "title": "Neon Tide",
           "audio_url": "https://cdn1.example.com/8f1c.mp3"},
          {"title": "No Id", "audio_url": "https://cdn1.example.com/noid.mp3"},
          {"id": "c41a7f3e", "title": "Empty Audio", "audio_url": ""},
          {"id": "5a9c3e1d", "title": "Still Rendering", "status": "queued"},
          "not a song",
          {"id": "8f1c2a9e", "title": "Neon Tide (again)",
           "audio_url": "https://cdn1.example.com/dup.mp3"},
          {"id": "f02e6c71", "audio_url": "javascript:alert(document.cookie)"},
          null,
          {"id": "   ", "audio_url": "https://cdn1.example.com/blank.mp3"},
          {"id": "b3d90e14", "audio_url": "   "},
          {"id": {"uuid": "x"}, "audio_url": "https://cdn1.example.com/obj.mp3"},
          {"id": "0e7d2b59", "title": "Copper Sky",
           "audio_url": "https://cdn1.example.com/0e7d.mp3"}
        ]
      }
      """#
    let page = try decode(json)
    #expect(page.songs.map(\.id) == ["8f1c2a9e", "0e7d2b59"])
    #expect(page.songs.first?.title == "Neon Tide", "the first of two equal ids is kept")
    #expect(
      page.skipped == [
        "entry 2: no id",
        "entry 3: no audio URL",
        "entry 5: not an object",
        "entry 6: repeats id 8f1c2a9e",
        "entry 7: audio URL not usable",
        "entry 8: not an object",
        "entry 9: no id",
        "entry 10: no audio URL",
        "entry 11: no id",
      ])
    #expect(page.notReady == ["entry 4: not ready yet (queued)"], "a clip still being made")
  }

  @Test("A feed of only unusable entries gives no songs and a note for each")
  func onlySkipped() throws {
    let page = try decode(#"[1, "two", {"id": "x"}]"#)
    #expect(page.songs == [])
    #expect(
      page.skipped == [
        "entry 1: not an object", "entry 2: not an object", "entry 3: no audio URL",
      ])
  }
}

@Suite("Resolving URLs in a feed")
struct FeedURLTests {
  @Test(
    "Relative URLs resolve against a remote feed's URL",
    arguments: [
      ("audio/neon-tide.mp3", "https://cdn.example.com/feeds/week-12/audio/neon-tide.mp3"),
      ("../x.mp3", "https://cdn.example.com/feeds/x.mp3"),
      ("../../shared/y.mp3", "https://cdn.example.com/shared/y.mp3"),
      ("/media/z.mp3", "https://cdn.example.com/media/z.mp3"),
      ("//mirror.example.net/w.mp3", "https://mirror.example.net/w.mp3"),
      ("audio/my song.mp3", "https://cdn.example.com/feeds/week-12/audio/my%20song.mp3"),
    ])
  func relativeToRemote(raw: String, expected: String) throws {
    let song = try decodeOne(#"{"id": "a", "audio_url": "\#(raw)"}"#)
    #expect(song?.audioURL.absoluteString == expected)
  }

  @Test(
    "Relative URLs resolve against a local feed file",
    arguments: [
      ("audio/a.mp3", "file:///home/ana/Music/riffle/audio/a.mp3"),
      ("../x.mp3", "file:///home/ana/Music/x.mp3"),
      ("/srv/music/b.mp3", "file:///srv/music/b.mp3"),
    ])
  func relativeToFile(raw: String, expected: String) throws {
    let song = try decodeOne(#"{"id": "a", "audio_url": "\#(raw)"}"#, base: fileBase)
    #expect(song?.audioURL.absoluteString == expected)
    #expect(song?.audioURL.isFileURL == true)
  }

  @Test("A relative image URL resolves like the audio URL")
  func relativeImage() throws {
    let song = try decodeOne(
      #"{"id": "a", "audio_url": "a.mp3", "image_large_url": "covers/glass-harbor.png"}"#)
    #expect(
      song?.imageURL?.absoluteString
        == "https://cdn.example.com/feeds/week-12/covers/glass-harbor.png")
  }

  @Test("A local feed may point at remote audio and at other local files")
  func localFeedMayUseBoth() throws {
    let remote = try decodeOne(
      #"{"id": "a", "audio_url": "https://cdn1.example.com/a.mp3"}"#, base: fileBase)
    #expect(remote?.audioURL.absoluteString == "https://cdn1.example.com/a.mp3")
    let local = try decodeOne(
      #"{"id": "b", "audio_url": "file:///srv/music/b.mp3"}"#, base: fileBase)
    #expect(local?.audioURL.absoluteString == "file:///srv/music/b.mp3")
  }

  @Test("A remote feed pointing at a local file is skipped")
  func remoteFeedFileAudioSkipped() throws {
    let page = try decode(#"{"songs": [{"id": "a", "audio_url": "file:///etc/passwd"}]}"#)
    #expect(page.songs == [])
    #expect(page.skipped == ["entry 1: audio URL not usable"])
  }

  @Test("A remote feed's local image is dropped but the song kept")
  func remoteFeedFileImageDropped() throws {
    let song = try decodeOne(
      #"{"id": "a", "audio_url": "a.mp3", "image_url": "file:///home/ana/.ssh/id_ed25519"}"#)
    #expect(song?.imageURL == nil)
  }

  @Test(
    "Schemes other than http, https and file are rejected",
    arguments: [
      "javascript:alert(1)", "JavaScript:alert(1)", "data:audio/mpeg;base64,SUQzBAAAAAAA",
      "ftp://ftp.example.com/a.mp3", "mailto:someone@example.com", "about:blank",
    ])
  func otherSchemesRejected(raw: String) throws {
    let page = try decode(#"{"songs": [{"id": "a", "audio_url": "\#(raw)"}]}"#)
    #expect(page.songs == [])
    #expect(page.skipped == ["entry 1: audio URL not usable"])
  }

  @Test("A javascript: image is dropped but the song kept")
  func javascriptImageDropped() throws {
    let song = try decodeOne(
      #"{"id": "a", "audio_url": "a.mp3", "image_url": "javascript:alert(1)"}"#)
    #expect(song?.imageURL == nil)
  }

  @Test("An upper-case http scheme is accepted")
  func upperCaseScheme() throws {
    let song = try decodeOne(#"{"id": "a", "audio_url": "HTTPS://cdn1.example.com/a.mp3"}"#)
    #expect(song?.audioURL.scheme?.lowercased() == "https")
    #expect(song?.audioURL.host == "cdn1.example.com")
  }
}

@Suite("Responses that are not feeds")
struct NotAFeedTests {
  @Test("Invalid JSON throws invalidJSON", arguments: [#"{"songs": ["#, "", "502 Bad Gateway"])
  func invalidJSON(text: String) throws {
    let error = #expect(throws: FeedError.self) { try decode(text) }
    #expect(throws: FeedError.webPage, "HTML is named as a web page") {
      try decode("<html>502</html>")
    }
    guard case .invalidJSON(let why)? = error else {
      Issue.record("expected invalidJSON, got \(String(describing: error))")
      return
    }
    #expect(!why.isEmpty)
    #expect(error?.userMessage == "The feed is not valid JSON")
  }

  @Test(
    "Valid JSON without a song list throws notAFeed",
    arguments: [
      #"{"foo": 1}"#, #"{"songs": "none"}"#, #"{"clips": {}}"#, "42", #""songs""#, "null",
    ])
  func notAFeed(text: String) throws {
    let error = #expect(throws: FeedError.self) { try decode(text) }
    #expect(error == .notAFeed(expected: "an object with a \"songs\" list"))
    #expect(
      error?.userMessage == "The response is not a song feed (an object with a \"songs\" list)")
  }
}
