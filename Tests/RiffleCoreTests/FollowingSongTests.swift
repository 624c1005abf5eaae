import Foundation
import Testing

@testable import RiffleCore

/// The song told to the engine ahead (gapless) must be the one the reducer plays when the
/// current one ends: checked against `.trackFinished` itself, state by state.
@Suite("The song that follows (gapless)")
struct FollowingSongTests {
  /// What `.trackFinished` asks to play, if anything.
  private func playedAtEnd(_ state: PlayerState) -> Song? {
    var after = state
    for effect in reduce(&after, .trackFinished(playID: state.playID)) {
      if case .play(let song, _) = effect { return song }
    }
    return nil
  }

  private func check(_ state: PlayerState, _ expected: Song?, _ comment: Comment) {
    #expect(state.followingSong?.id == expected?.id, comment)
    // Never a song other than the one played at the end (nil may stand for a drawn one).
    if let following = state.followingSong {
      #expect(following == playedAtEnd(state), comment)
    } else if expected == nil {
      #expect(state.shuffle || playedAtEnd(state) == nil, comment)
    }
  }

  @Test("in order: the next page; on the last, nothing, or the first when repeating all")
  func inOrder() {
    check(Fixture.loaded(at: 0), Fixture.second, "first page")
    check(Fixture.loaded(at: 2), nil, "last page")
    var all = Fixture.loaded(at: 2)
    all.repeatMode = .all
    check(all, Fixture.first, "repeat all on the last page")
  }

  @Test("repeat one: the same song again; up next before the pages; shuffle: none ahead")
  func modes() {
    var one = Fixture.loaded(at: 1)
    one.repeatMode = .one
    check(one, Fixture.second, "repeat one")
    var queued = Fixture.loaded(at: 0)
    queued.queue = [Fixture.third]
    check(queued, Fixture.third, "up next")
    var shuffled = Fixture.loaded(at: 0)
    shuffled.shuffle = true
    check(shuffled, nil, "shuffle")
  }

  @Test("ReplayGain as the song will be played: the album's in order")
  func gain() {
    var state = Fixture.loaded(at: 0)
    state.songs[1].trackGain = -3
    state.songs[1].albumGain = -5
    #expect(state.followingSong?.replayGain == -5)
    #expect(state.followingSong == playedAtEnd(state))
  }

  @Test("a station is never opened ahead, nor followed into")
  func stations() {
    var state = Fixture.loaded(at: 0)
    state.songs[1].id = "station:abc"
    #expect(state.followingSong == nil)
    state.songs[0].id = "station:def"
    state.songs[1] = Fixture.second
    #expect(state.followingSong == nil)
  }
}
