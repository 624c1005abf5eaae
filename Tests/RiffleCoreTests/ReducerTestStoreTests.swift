import Testing

@testable import RiffleCore

/// The test store must fail when a test forgets a change or an effect; these tests prove it.
@Suite("ReducerTestStore itself")
struct ReducerTestStoreTests {
  @Test("The store fails and names the field when a changed field is not asserted")
  func failsOnUnassertedField() {
    var store = ReducerTestStore(PlayerState())
    withKnownIssue {
      // Forgets that quitting sets isQuitting.
      store.send(.quit, effects: [.quit])
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("isQuitting: expected false, actual true") }
    }
    #expect(store.state.isQuitting, "the store keeps the state the reducer produced")
  }

  @Test("The store names a changed field inside a song in the list")
  func namesNestedField() {
    var store = ReducerTestStore(Fixture.loaded(at: 0))
    withKnownIssue {
      store.send(
        .toggleLike,
        effects: [.persistLike(songID: Fixture.first.id, liked: true, sync: .likesEndpoint)]
      ) {
        $0.songs[0].isLiked = true
        $0.likePulse = 6
        // likeCount deliberately not asserted
      }
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue.contains("songs[0].likeCount: expected 12, actual 13")
      }
    }
  }

  @Test("The store fails when a field is asserted to change but does not")
  func failsOnWrongExpectation() {
    var store = ReducerTestStore(Fixture.loaded(at: 2))
    withKnownIssue {
      store.send(.next) { $0.index = 3 }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("index: expected 3, actual 2") }
    }
  }

  @Test("The store fails when an effect is missing")
  func failsOnMissingEffect() {
    var store = ReducerTestStore(PlayerState())
    withKnownIssue {
      store.send(.open(.feed(Fixture.feedURL))) {
        $0.opening = PageSource(kind: .feed(Fixture.feedURL), phase: .loading)
      }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("Effects of") }
    }
  }

  @Test("The store fails when an unexpected effect is expected")
  func failsOnExtraEffect() {
    var store = ReducerTestStore(Fixture.loaded(at: 0))
    withKnownIssue {
      store.send(.toggleHelp, effects: [.pause]) { $0.overlay = .help }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("expected: [RiffleCore.PlayerEffect.pause]") }
    }
  }

  @Test("The store returns the effects the reducer produced")
  func returnsEffects() {
    var store = ReducerTestStore(PlayerState())
    let effects = store.send(
      .open(.feed(Fixture.feedURL)), effects: [.loadPage(.feed(Fixture.feedURL), cursor: nil)]
    ) {
      $0.opening = PageSource(kind: .feed(Fixture.feedURL), phase: .loading)
    }
    #expect(effects == [.loadPage(.feed(Fixture.feedURL), cursor: nil)])
  }

  @Test("The diff lists nothing for equal values and one line per differing field")
  func diffLines() {
    let a = Fixture.loaded(at: 0)
    var b = a
    b.index = 1
    b.message = .init(.error, "x")
    let diff = StateDiff.lines(expected: a, actual: b)
    let lines = diff.split(separator: "\n")
    #expect(lines.count == 2)
    #expect(lines.first?.contains("index: expected 0, actual 1") == true)
    #expect(lines.last?.hasPrefix("  message: expected nil, actual Optional(") == true)
    #expect(StateDiff.lines(expected: a, actual: a) == "  (no field-level difference found)")
  }
}
