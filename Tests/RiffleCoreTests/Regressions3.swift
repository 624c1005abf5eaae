import Foundation
import Testing

@testable import RiffleCore

// Bugs found in review, each pinned by the test that first showed it; all fixed, kept so
// they stay fixed.

@Suite("Regressions in RiffleCore (3)")
struct CoreRegressions3 {
  /// `.scheduleFeedRetry(after:)` means "send `.retryFeed` after this many seconds" and the view
  /// model runs each one as its own `asyncAfter`, never cancelled. When the user presses retry
  /// while a retry is already scheduled, `.retry` loads the feed at once; if that fails too,
  /// `.feedFailed` schedules a second retry while the first is still pending. Both later fire
  /// (the feed is `.failed` again each time), so from then on two backoff chains run side by
  /// side: twice the requests, `feedAttempts` counting twice as fast, and a status line whose
  /// "retrying in N s" is wrong. Every further press adds another chain.
  /// (Sources/RiffleCore/Reducer.swift: `.retry` and `.feedFailed` do not know a retry is
  /// pending, and `.retryFeed` cannot tell a stale timer from the current one.)
  @Test("A manual retry while a feed retry is pending leaves only one retry pending")
  func manualRetryDoesNotForkRetries() {
    let url = URL(string: "https://studio-api.example.com/api/feed/v2")!
    var state = PlayerState()
    var now = 0.0
    var timers: [(due: Double, attempt: Int)] = []
    var loads: [Double] = []
    var mostPending = 0

    // Runs an action and its effects; every feed load fails at once (no connection).
    func run(_ action: PlayerAction) {
      var actions = [action]
      while !actions.isEmpty {
        for effect in reduce(&state, actions.removeFirst()) {
          switch effect {
          case .loadPage(let kind, let cursor):
            loads.append(now)
            actions.append(
              .pageFailed(
                kind, cursor: cursor,
                Failure("No connection to studio-api.example.com", isTransient: true)))
          case .after(let after, .retryDue(_, let attempt)):
            timers.append((now + after, attempt))
          default:
            break
          }
        }
        // Timers whose attempt is no longer the latest are stale: they cannot load anything.
        let attempts = state.opening?.retry.attempts
        mostPending = max(mostPending, timers.filter { $0.attempt == attempts }.count)
      }
    }

    run(.open(.feed(url)))
    now = 0.5
    run(.retry)
    while let next = timers.min(by: { $0.due < $1.due }), next.due <= 120 {
      timers.removeAll { $0.due == next.due && $0.attempt == next.attempt }
      now = next.due
      run(.retryDue(.page(.feed(url)), attempt: next.attempt))
    }
    #expect(mostPending <= 1, "\(mostPending) feed retries were pending at once")
    // One chain: the start, the press, then a retry after 2, 4, 8, 16, 30, 30, 30 s.
    #expect(loads.count <= 9, "feed loaded at \(loads)")
  }
}
