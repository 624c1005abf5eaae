import Foundation
import Testing

@testable import RiffleCore

@Suite("Song likes")
struct SongTests {
  static let base = Song(
    id: "c41a7f3e-2d90-4b1a-8e6f-5a3c9d0b7e12", title: "Glass Harbor", displayName: "Lena Wren",
    handle: "lenawren", imageURL: URL(string: "https://cdn1.example.com/image_c41a7f3e.jpeg"),
    audioURL: URL(string: "https://cdn1.example.com/c41a7f3e.mp3")!, likeCount: 41,
    isLiked: false, duration: 203.4)

  @Test("Toggling a like on an unliked song likes it and adds one")
  func togglingLikeLikes() {
    let liked = Self.base.togglingLike()
    #expect(liked.isLiked)
    #expect(liked.likeCount == 42)
  }

  @Test("Toggling a like on a liked song unlikes it and takes one away")
  func togglingLikeUnlikes() {
    var song = Self.base
    song.isLiked = true
    song.likeCount = 42
    let unliked = song.togglingLike()
    #expect(!unliked.isLiked)
    #expect(unliked.likeCount == 41)
  }

  @Test("Toggling a like never takes the count below zero")
  func togglingLikeNeverNegative() {
    var song = Self.base
    song.isLiked = true
    song.likeCount = 0
    let unliked = song.togglingLike()
    #expect(!unliked.isLiked)
    #expect(unliked.likeCount == 0)
  }

  @Test("Toggling a like changes nothing but the like and the count")
  func togglingLikeKeepsOtherFields() {
    var expected = Self.base
    expected.isLiked = true
    expected.likeCount = 42
    #expect(Self.base.togglingLike() == expected)
  }

  @Test("Toggling a like twice gives the song back")
  func togglingLikeTwice() {
    #expect(Self.base.togglingLike().togglingLike() == Self.base)
  }

  @Test("Applying the like a song already has returns it unchanged")
  func applyingSameLike() {
    #expect(Self.base.applyingLocalLike(false) == Self.base)
    let liked = Self.base.togglingLike()
    #expect(liked.applyingLocalLike(true) == liked)
  }

  @Test("Applying a different like flips it and moves the count")
  func applyingDifferentLike() {
    let liked = Self.base.applyingLocalLike(true)
    #expect(liked.isLiked)
    #expect(liked.likeCount == 42)
    let unliked = liked.applyingLocalLike(false)
    #expect(!unliked.isLiked)
    #expect(unliked.likeCount == 41)
  }

  @Test("Local likes apply by id and leave other songs and the order alone")
  func applyingLocalLikes() {
    var second = Self.base
    second.id = "0e7d2b59-93c4-4a1f-b8d6-1c5e7a9f3b20"
    second.title = "Copper Sky"
    second.isLiked = true
    second.likeCount = 7
    var third = Self.base
    third.id = "5a9c3e1d-4f72-4b0e-a6d8-9e2b7c1f0a34"
    third.title = "Low Tide"
    third.likeCount = 0

    let result = [Self.base, second, third].applyingLocalLikes([
      Self.base.id: true,  // flips on
      second.id: false,  // flips off
      "not-in-this-feed": true,
    ])

    #expect(result.map(\.id) == [Self.base.id, second.id, third.id])
    #expect(result.map(\.isLiked) == [true, false, false])
    #expect(result.map(\.likeCount) == [42, 6, 0])
    #expect(result[2] == third)
  }

  @Test("Local likes that agree with the source change nothing")
  func applyingMatchingLocalLikes() {
    let liked = Self.base.togglingLike()
    #expect([Self.base].applyingLocalLikes([:]) == [Self.base])
    #expect([liked].applyingLocalLikes([liked.id: true]) == [liked])
    #expect([Self.base].applyingLocalLikes([Self.base.id: false]) == [Self.base])
  }

  @Test(
    "A song gives back the URLs it was made with (it keeps them as text)",
    arguments: [
      URL(string: "https://cdn1.example.com/a/b%20c.mp3?sig=x%2By&t=1#frag")!,
      URL(string: "http://user@example.com:8080/p;q/%E4%B8%AD.mp3")!,
      URL(string: "HTTPS://CDN.example.com/A.mp3")!,
      URL(fileURLWithPath: "/home/ana/Music/a b/caf\u{e9} 100%.mp3"),
      URL(fileURLWithPath: "/srv/music/[live] #1?.m4a"),
    ])
  func urlsRoundTrip(url: URL) {
    var song = Song(
      id: "a", title: "", displayName: "", handle: "", imageURL: url, audioURL: url)
    for kept in [song.audioURL, song.imageURL] {
      #expect(kept == url)
      #expect(kept?.absoluteString == url.absoluteString)
      #expect(kept?.path == url.path)
      #expect(kept?.isFileURL == url.isFileURL)
    }
    song.imageURL = nil
    #expect(song.imageURL == nil)
    song.audioURL = URL(string: "https://cdn1.example.com/other.mp3")!
    #expect(song.audioURL.absoluteString == "https://cdn1.example.com/other.mp3")
  }
}
