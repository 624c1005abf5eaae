import Foundation
import Testing

@testable import RiffleCore

@Suite("Reducer: the search prompt")
struct SearchPromptReducerTests {
  @Test("/ opens the prompt empty; edits change its line; Esc closes it")
  func openEditCancel() {
    var store = ReducerTestStore(Fixture.loaded())
    store.send(.openSearch) {
      $0.overlay = .search
      $0.search = SearchPrompt()
    }
    store.send(.editSearch(.insert("neon"))) { $0.search = SearchPrompt(text: "neon") }
    store.send(.cancelSearch) {
      $0.overlay = nil
      $0.search = nil
    }
  }

  @Test("an edit with the prompt closed does nothing")
  func editClosed() {
    var store = ReducerTestStore(Fixture.loaded())
    store.send(.editSearch(.insert("x")))
  }

  @Test("Enter searches, records the term first in history, and keeps the pages meanwhile")
  func submit() {
    var store = ReducerTestStore(
      Fixture.state {
        $0 = Fixture.loaded()
        $0.overlay = .search
        $0.search = SearchPrompt(text: "  neon tide ")
        $0.searchHistory = ["neon tide", "older"]
      })
    store.send(
      .submitSearch,
      effects: [
        .saveSearchHistory(["older", "neon tide"]),
        .loadPage(.search("neon tide"), cursor: nil),
      ]
    ) {
      $0.overlay = nil
      $0.search = nil
      $0.searchHistory = ["older", "neon tide"]
      $0.opening = PageSource(kind: .search("neon tide"), phase: .loading)
    }
  }

  @Test("Enter on an empty line just closes the prompt")
  func submitEmpty() {
    var store = ReducerTestStore(
      Fixture.state {
        $0.overlay = .search
        $0.search = SearchPrompt(text: "   ")
      })
    store.send(.submitSearch) {
      $0.overlay = nil
      $0.search = nil
    }
  }

  @Test("the prompt replaces the help")
  func replacesHelp() {
    var store = ReducerTestStore(Fixture.state { $0.overlay = .help })
    store.send(.openSearch) {
      $0.overlay = .search
      $0.search = SearchPrompt()
    }
  }
}
