import Foundation
import RiffleCore
import RiffleTestSupport
import Testing

@testable import RiffleAPI

private let base = URL(string: "https://cdn.example.com/feeds/songs.json")!

private func decode(_ json: String) throws(FeedError) -> FeedPage {
  try FeedDecoder.decode(Data(json.utf8), base: base)
}

private func decodeBytes(_ bytes: [UInt8]) throws(FeedError) -> FeedPage {
  try FeedDecoder.decode(Data(bytes), base: base)
}

/// The reason in an invalidJSON error, or nil (with an issue recorded) for anything else.
private func invalidReason(
  _ json: String, sourceLocation: SourceLocation = #_sourceLocation
) -> String? {
  invalidReason(bytes: Array(json.utf8), sourceLocation: sourceLocation)
}

private func invalidReason(
  bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
) -> String? {
  do {
    let page = try decodeBytes(bytes)
    Issue.record("decoded \(page.songs.count) songs", sourceLocation: sourceLocation)
  } catch .invalidJSON(let why) {
    return why
  } catch {
    Issue.record("expected invalidJSON, got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}

private let audio = #""audio_url": "https://cdn1.example.com/a.mp3""#

@Suite("The streaming feed decoder on hostile and unusual input")
struct FeedStreamingTests {
  @Test("Nesting up to 512 levels is read; one more is invalid JSON, also where it is skipped")
  func nestingLimit() throws {
    func nested(_ depth: Int) -> String {
      String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }
    // The feed's own object and list take two levels, the entry a third.
    let deepest = try decode(#"{"songs": [{"id": "a", \#(audio), "x": \#(nested(509))}]}"#)
    #expect(deepest.songs.map(\.id) == ["a"])
    let why = invalidReason(#"{"songs": [{"id": "a", \#(audio), "x": \#(nested(510))}]}"#)
    #expect(why?.contains("nested more than 512 levels") == true)
    #expect(invalidReason(nested(513))?.contains("nested") == true)
  }

  @Test("Nesting far deeper than the limit is an error, not a crash")
  func hostileNesting() {
    let open = String(repeating: #"{"a":["#, count: 200_000)
    #expect(invalidReason(#"{"songs": [], "x": \#(open)"#)?.contains("nested") == true)
    #expect(invalidReason(String(repeating: "[", count: 1_000_000))?.contains("nested") == true)
  }

  @Test("A title of several megabytes is kept whole; a huge unknown field is skipped")
  func hugeStrings() throws {
    let title = String(repeating: "Ab ", count: 2_000_000) + "end"
    let filler = String(repeating: "x", count: 3_000_000)
    let page = try decode(
      #"{"songs": [{"id": "a", \#(audio), "title": "\#(title)", "notes": "\#(filler)"}]}"#)
    #expect(page.songs.first?.title == title)
  }

  @Test("Escapes decode: quotes, backslashes, control escapes, \\u, surrogate pairs, \\/")
  func escapes() throws {
    let song = try #require(
      try decode(
        #"[{"id": "a", \#(audio), "title": "Say \"hi\"\\\/\tthen\u00e9 \ud83c\udfb5 \u4e2d\u0041"}]"#
      ).songs.first)
    #expect(song.title == "Say \"hi\"\\/\tthen\u{e9} \u{1F3B5} \u{4E2D}A")
  }

  @Test("An escaped key is the same key")
  func escapedKey() throws {
    let page = try decode(#"{"s\u006fngs": [{"\u0069d": "a", "audio\u005furl": "a.mp3"}]}"#)
    #expect(page.songs.map(\.id) == ["a"])
  }

  @Test(
    "Unpaired surrogates are invalid JSON, in a used field and in a skipped one",
    arguments: [#"\ud800"#, #"\udc00"#, #"\ud800\u0041"#, #"\ud800x"#, #"\udfff\ud800"#])
  func unpairedSurrogates(escape: String) {
    #expect(invalidReason(#"[{"id": "a", \#(audio), "title": "\#(escape)"}]"#) != nil)
    #expect(invalidReason(#"[{"id": "a", \#(audio), "other": ["\#(escape)"]}]"#) != nil)
  }

  @Test(
    "Bad escapes, control characters and invalid UTF-8 in strings are invalid JSON",
    arguments: [
      Array(#"["\x"]"#.utf8), Array(#"["\u12"]"#.utf8), Array(#"["\u12G4"]"#.utf8),
      [0x5B, 0x22, 0x61, 0x0A, 0x62, 0x22, 0x5D],  // a raw newline
      [0x5B, 0x22, 0x01, 0x22, 0x5D],  // a raw control character
      [0x5B, 0x22, 0xFF, 0x22, 0x5D],  // not UTF-8
      [0x5B, 0x22, 0xC3, 0x22, 0x5D],  // a sequence cut short
      [0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D],  // a surrogate encoded in UTF-8
      [0x5B, 0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D, 0x5D],  // a key that is not UTF-8
    ])
  func badStrings(bytes: [UInt8]) {
    #expect(invalidReason(bytes: bytes) != nil)
  }

  @Test("Every truncation of a feed is invalid JSON, with the byte where it ends")
  func truncations() throws {
    let json = #"""
      {"songs": [{"id": "a1", "title": "Caf\u00e9 \"Noir\"", "audio_url": "a.mp3",
      "upvote_count": -12.5e1, "is_liked": true, "metadata": {"duration": 3, "tags": [null]}},
      {"clip": {"id": "b2", "audio_url": "b.mp3"}}], "page": 1}
      """#
    let bytes = Array(json.utf8)
    #expect(try decodeBytes(bytes).songs.count == 2)
    for end in 0..<bytes.count {
      let prefix = Array(bytes[..<end])
      // A prefix that ends inside the trailing whitespace of a number is still cut short.
      let why = invalidReason(bytes: prefix)
      #expect(why?.contains("at byte") == true, "prefix of \(end) bytes")
    }
  }

  @Test(
    "Malformed documents are invalid JSON",
    arguments: [
      #"{"songs": []} x"#, #"{"songs": [] "page": 1}"#, #"{"songs" []}"#, #"{songs: []}"#,
      "[01]", "[-]", "[1.]", "[.5]", "[+1]", "[1e]", "[NaN]", "[tru]", "[nul]", "[1,,2]",
      "[,]", "{,}", #"{"a" : 1 : 2}"#, "[1e999]", "[-1e999]", "\u{0C}[]", " ", "[1]\u{0}",
    ])
  func malformed(json: String) {
    #expect(invalidReason(json) != nil)
  }

  @Test("A trailing comma and a UTF-8 byte order mark are accepted, as JSONDecoder did")
  func lenience() throws {
    #expect(try decode(#"{"songs": [{"id": "a", \#(audio),},],}"#).songs.map(\.id) == ["a"])
    #expect(try decodeBytes([0xEF, 0xBB, 0xBF] + Array("[]".utf8)) == FeedPage(songs: []))
  }

  @Test("Where a key repeats the first wins: in the envelope, in an entry and in a clip")
  func repeatedKeys() throws {
    let page = try decode(
      #"""
      {"songs": [{"id": "first", "id": "second", "audio_url": "a.mp3",
                  "clip": {"title": "inner", "title": "later"}, "clip": {"title": "other"}}],
       "songs": [{"id": "other", "audio_url": "b.mp3"}], "page": 3, "page": 4}
      """#)
    #expect(page.songs.map(\.id) == ["first"])
    #expect(page.songs.first?.title == "inner")
    #expect(page.page == 3)
  }

  @Test("A songs key that is not a list falls back to clips, wherever each one is")
  func songsAndClipsOrder() throws {
    let clipsFirst = try decode(
      #"{"clips": [{"id": "c", "audio_url": "c.mp3"}], "songs": [{"id": "s", "audio_url": "s.mp3"}]}"#
    )
    #expect(clipsFirst.songs.map(\.id) == ["s"])
    let notAList = try decode(
      #"{"songs": {"id": "s"}, "clips": [{"id": "c", "audio_url": "c.mp3"}]}"#)
    #expect(notAList.songs.map(\.id) == ["c"])
  }

  @Test("Numbers in exponent form and negative zero read as JSONDecoder read them")
  func numbers() throws {
    let page = try decode(
      #"""
      [{"id": 1e2, "audio_url": "a.mp3", "upvote_count": 12E+1, "duration": 2.5e-1},
       {"id": -0, "audio_url": "b.mp3", "upvote_count": 1.5e15},
       {"id": 9223372036854775808, "audio_url": "c.mp3"}]
      """#)
    #expect(page.songs.map(\.id) == ["100", "0", "9.223372036854776e+18"])
    #expect(page.songs.map(\.likeCount) == [120, 1_500_000_000_000_000, 0])
    #expect(page.songs.first?.duration == 0.25)
  }

  @Test("Values of every type in unknown keys are skipped and the songs still read")
  func unknownKeysSkipped() throws {
    let page = try decode(
      #"""
      {"meta": {"a": [1, -2.5e3, "x\"y", true, false, null, {}, [], {"b": [[{}]]}]},
       "songs": [{"extra": {"nested": [{"deep": ["\u00e9"]}]}, "id": "a", "audio_url": "a.mp3",
                  "list": [], "obj": {}, "n": null}],
       "end": [[], {}]}
      """#)
    #expect(page.songs.map(\.id) == ["a"])
  }

  @Test(
    "Text is trimmed exactly as Foundation trims it, Unicode whitespace included",
    arguments: [
      "Neon Tide", " Neon ", "\tNeon\n", "\u{A0}Neon\u{3000}", "\u{85}x\u{2028}", "a\u{1}",
      "\u{1}a", "\u{A0}", " ", "", "\u{B}\u{C}", "é", "Tide é", "é\u{A0}", "中文\u{3000}",
      "\r\n",
    ])
  func trimming(text: String) {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(JSONValue.string(text).nonEmptyText == (trimmed.isEmpty ? nil : trimmed))
  }

  @Test("A feed of many unusable entries notes each one")
  func manySkipped() throws {
    let entries = Array(repeating: "{}", count: 20_000).joined(separator: ",")
    let page = try decode("[\(entries)]")
    #expect(page.songs.isEmpty)
    #expect(page.skipped.count == 20_000)
    #expect(page.skipped.last == "entry 20000: no id")
  }

  @Test("Random feeds decode exactly as through a whole JSON tree")
  func sameAsTree() throws {
    var random = SeededRandom(seed: 7)
    var withSongs = 0
    for round in 0..<300 {
      let json = RandomFeed.make(&random)
      let streamed = Result { () throws(FeedError) in try decode(json) }
      let tree = Result { () throws(FeedError) in try TreeFeedDecoder.decode(Data(json.utf8)) }
      switch (streamed, tree) {
      case (.success(let a), .success(let b)):
        #expect(a == b, "round \(round): \(json)")
        if !a.songs.isEmpty { withSongs += 1 }
      case (.failure(.notAFeed), .failure(.notAFeed)),
        (.failure(.invalidJSON), .failure(.invalidJSON)):
        break
      default:
        Issue.record("round \(round): streamed \(streamed), tree \(tree): \(json)")
      }
    }
    #expect(withSongs > 100, "the random feeds must give songs often enough to compare them")
  }
}

/// The decoder as it was before it streamed: the whole document as a `JSONValue` tree first.
/// The reference for `sameAsTree`.
private enum TreeFeedDecoder {
  static func decode(_ data: Data) throws(FeedError) -> FeedPage {
    let root: JSONValue
    do { root = try JSONValue.parse(data) } catch { throw .invalidJSON("\(error)") }
    guard
      let entries = root["songs"]?.array ?? root["clips"]?.array ?? root.array
    else { throw .notAFeed(expected: "") }
    var page = FeedPage(
      songs: [], page: root["page"]?.int,
      pageSize: root["per_page"]?.int ?? root["page_size"]?.int,
      totalPages: root["total_pages"]?.int)
    var seen = Set<String>()
    for (offset, entry) in entries.enumerated() {
      switch FeedDecoder.song(from: entry, base: base) {
      case .success(let song) where seen.insert(song.id).inserted: page.songs.append(song)
      case .success(let song): page.skipped.append("entry \(offset + 1): repeats id \(song.id)")
      case .failure(let reason): page.skipped.append("entry \(offset + 1): \(reason.text)")
      }
    }
    return page
  }
}

/// Feeds with every shape, field types chosen at random and values that collide.
private enum RandomFeed {
  static func make(_ random: inout SeededRandom) -> String {
    var entries: [String] = []
    for _ in 0..<random.int(0...6) { entries.append(entry(&random, depth: 0)) }
    let list = "[" + entries.joined(separator: ", ") + "]"
    switch random.int(0...4) {
    case 0: return list
    case 1: return #"{"songs": \#(list), "page": \#(value(&random)), "total_pages": 3}"#
    case 2: return #"{"clips": \#(list), "per_page": \#(value(&random))}"#
    case 3: return #"{"songs": \#(value(&random)), "clips": \#(list), "page_size": "20"}"#
    default: return value(&random)
    }
  }

  static let keys = [
    "id", "title", "handle", "display_name", "image_url", "image_large_url", "is_liked",
    "upvote_count", "like_count", "audio_url", "duration", "album", "album_name", "metadata",
    "clip", "other",
  ]

  static func entry(_ random: inout SeededRandom, depth: Int) -> String {
    if random.int(0...9) == 0 { return value(&random) }
    // Most entries start usable; the random members after them may spoil or repeat that.
    var members =
      random.int(0...3) > 0 ? [#""id": "s\#(random.int(0...9))""#, #""audio_url": "s.mp3""#] : []
    for _ in 0..<random.int(1...8) {
      let key = keys[random.int(0...(keys.count - 1))]
      let member: String
      switch key {
      case "clip" where depth == 0, "metadata":
        member = random.int(0...3) == 0 ? value(&random) : entry(&random, depth: depth + 1)
      case "id": member = ["\"a\"", "\"b\"", "7", "\" \"", "null"][random.int(0...4)]
      case "audio_url", "image_url", "image_large_url":
        member = ["\"a.mp3\"", "\"/x/b.mp3\"", "\"javascript:x\"", "\"\"", "3"][random.int(0...4)]
      default: member = value(&random)
      }
      members.append("\"\(key)\": \(member)")
    }
    return "{" + members.joined(separator: ", ") + "}"
  }

  static func value(_ random: inout SeededRandom) -> String {
    [
      "null", "true", "false", "0", "-3", "12.5", "1e3", "\"\"", "\" text \"", "\"@name\"",
      "\"42\"", "\"yes\"", "[1, \"two\"]", "{\"duration\": 5}", "{}", "\"\\u00e9\\n\"",
      "\"201.5\"", "-0.0",
    ][random.int(0...17)]
  }
}
