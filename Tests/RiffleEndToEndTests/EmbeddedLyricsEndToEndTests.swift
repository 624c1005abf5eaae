import Foundation
import RiffleTestSupport
import Testing

// Synced lyrics kept inside an MP3's ID3v2 tag (SYLT), through the real binary in tmux: a
// library folder holding one such MP3 (ffmpeg encodes it, mutagen adds the frame), `y`, and the
// line of the moment drawn bold (`capture-pane -e`) while the clock says it is its time.

@Suite("Synced lyrics from a SYLT frame (tmux, a real MP3)", .serialized)
struct EmbeddedLyricsEndToEndTests {
  private static let words = ["Opening words", "Middle words", "Closing words"]
  private static let times = [1.0, 4.0, 8.0]

  @Test("y on a library MP3 with SYLT shows its lines, each lit at its time, without LRCLIB")
  func syltLinesAtTheirTimes() throws {
    let home = try TemporaryDirectory("riffle-sylt-e2e")
    let music = home.file("Music")
    let folder = music.appendingPathComponent("Paper/Boats")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    // Listed out of order, in UTF-16, as tags in the wild can be.
    try SyncedLyricsFixture.writeMP3(
      folder.appendingPathComponent("01 Folded.mp3").path, seconds: 12,
      tags: ["title": "Folded", "artist": "Paper", "album": "Boats", "track": "1"],
      frames: [
        .init(
          lines: [
            (Self.words[2], Int(Self.times[2] * 1000)), (Self.words[0], Int(Self.times[0] * 1000)),
            (Self.words[1], Int(Self.times[1] * 1000)),
          ], encoding: 1)
      ], unsynced: "Unsynced words that must not show")
    // Nothing answers there: lyrics that came from LRCLIB would be a failure on screen.
    let tmux = try TmuxSession(
      command: [
        TestFiles.riffleBinary, music.path, "--audio", "null", "--lyrics-url",
        "http://127.0.0.1:9/",
      ],
      environment: home.xdgEnvironment.merging(["LANG": "C.UTF-8"]) { $1 }, width: 100,
      height: 30)
    defer { tmux.kill() }
    try tmux.waitFor("Folded", timeout: 15)
    tmux.sendKeys("y")
    let shown = try tmux.waitForAll(Self.words[0], Self.words[1], Self.words[2], timeout: 15)
    #expect(!shown.contains("Unsynced words"))
    // Poll the bold line until the last one is lit; each one seen must be lit while the clock
    // is within its line's time (a second early at most: the lyrics rows are drawn before the
    // clock's row, so a capture may fall between them).
    var lit: [String] = []
    let deadline = Date().addingTimeInterval(20)
    while lit.last != Self.words[2], Date() < deadline {
      let escaped = tmux.captureWithEscapes()
      if let line = boldText(in: escaped, among: Self.words),
        let index = Self.words.firstIndex(of: line),
        let clock = elapsedSeconds(onScreen: stripEscapes(escaped))
      {
        let end = index + 1 < Self.times.count ? Self.times[index + 1] : 12
        #expect(
          Double(clock) >= Self.times[index].rounded(.down) - 1 && Double(clock) < end,
          "\(line) lit at 0:\(clock)")
        if lit.last != line { lit.append(line) }
      }
      usleep(50_000)
    }
    #expect(lit.suffix(2) == [Self.words[1], Self.words[2]], "lines seen lit: \(lit)")
    #expect(lit == lit.sorted { Self.words.firstIndex(of: $0)! < Self.words.firstIndex(of: $1)! })
  }
}
