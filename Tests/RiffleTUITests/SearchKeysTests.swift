import RiffleCore
import Testing

@testable import RiffleTUI

@Suite("Keys in the search prompt")
struct SearchKeysTests {
  @Test("letters, q and space type; Enter searches; Esc and Ctrl+C cancel")
  func typing() {
    #expect(SearchKeys.action(for: .char("q")) == .editSearch(.insert("q")))
    #expect(SearchKeys.action(for: .char(" ")) == .editSearch(.insert(" ")))
    #expect(SearchKeys.action(for: .char("é")) == .editSearch(.insert("é")))
    #expect(SearchKeys.action(for: .enter) == .submitSearch)
    #expect(SearchKeys.action(for: .escape) == .cancelSearch)
    #expect(SearchKeys.action(for: .char("\u{03}")) == .cancelSearch)
  }

  @Test("arrows move and walk history; shell control keys edit; other controls type nothing")
  func editing() {
    #expect(SearchKeys.action(for: .up) == .editSearch(.older))
    #expect(SearchKeys.action(for: .down) == .editSearch(.newer))
    #expect(SearchKeys.action(for: .backspace) == .editSearch(.backspace))
    #expect(SearchKeys.action(for: .char("\u{17}")) == .editSearch(.deleteWordBackward))
    #expect(SearchKeys.action(for: .char("\u{15}")) == .editSearch(.clear))
    #expect(SearchKeys.action(for: .char("\u{01}")) == .editSearch(.home))
    #expect(SearchKeys.action(for: .char("\u{05}")) == .editSearch(.end))
    #expect(SearchKeys.action(for: .char("\u{0E}")) == nil)
    #expect(SearchKeys.action(for: .pageDown) == nil)
  }

  @Test("a long line scrolls so the cursor stays in view; wide characters are never cut")
  func fieldLayout() {
    let prompt = SearchPrompt(text: "abcdefghij")
    let tail = SearchField.layout(prompt, width: 5)
    #expect(tail.text == "ghij")
    #expect(tail.cursorColumn == 4)
    var start = prompt
    start.apply(.home, history: [])
    let head = SearchField.layout(start, width: 5)
    #expect(head.text == "abcde")
    #expect(head.cursorColumn == 0)
    let wide = SearchField.layout(SearchPrompt(text: "東京東京"), width: 5)
    #expect(wide.text == "東京")
    #expect(wide.cursorColumn == 4)
  }
}
