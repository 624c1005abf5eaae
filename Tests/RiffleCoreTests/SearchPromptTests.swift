import Testing

@testable import RiffleCore

@Suite("Search prompt editing")
struct SearchPromptTests {
  private func typed(_ edits: [SearchEdit], history: [String] = []) -> SearchPrompt {
    var prompt = SearchPrompt()
    for edit in edits { prompt.apply(edit, history: history) }
    return prompt
  }

  @Test("typing inserts at the cursor; left, home and end move it")
  func insertAndMove() {
    let prompt = typed([.insert("blue"), .home, .insert("the "), .end, .insert("s"), .left])
    #expect(prompt.text == "the blues")
    #expect(prompt.cursor == 8)
  }

  @Test("backspace and delete remove around the cursor, and do nothing at the ends")
  func deleting() {
    #expect(typed([.backspace, .deleteForward]).text == "")
    let prompt = typed([.insert("abcd"), .left, .left, .backspace, .deleteForward])
    #expect(prompt.text == "ad")
    #expect(prompt.cursor == 1)
    #expect(typed([.insert("ab"), .deleteForward]).text == "ab")
  }

  @Test("Ctrl+W deletes the word before the cursor, Ctrl+U the whole start of the line")
  func wordAndLine() {
    #expect(typed([.insert("daft punk  "), .deleteWordBackward]).text == "daft ")
    #expect(typed([.insert("daft punk"), .left, .left, .clear]).text == "nk")
  }

  @Test("a cursor step is one character: an emoji or an accented letter is never split")
  func graphemes() {
    let prompt = typed([.insert("e\u{301}🎸x"), .left, .left, .backspace])
    #expect(prompt.text == "🎸x")
    #expect(prompt.cursor == 0)
  }

  @Test("control characters and escape sequences typed or pasted never reach the line")
  func sanitized() {
    #expect(typed([.insert("a\u{1B}[31mb\u{7}c")]).text == "abc")
  }

  @Test("the line stops at 200 characters")
  func limit() {
    let prompt = typed([.insert(String(repeating: "x", count: 250)), .insert("y")])
    #expect(prompt.text.count == SearchPrompt.maximumLength)
    #expect(!prompt.text.contains("y"))
  }

  @Test("Up walks back through history, Down forward and then back to the typed line")
  func history() {
    let history = ["first", "second", "third"]
    var prompt = typed([.insert("dra")], history: history)
    prompt.apply(.older, history: history)
    #expect(prompt.text == "third")
    prompt.apply(.older, history: history)
    prompt.apply(.older, history: history)
    prompt.apply(.older, history: history)
    #expect(prompt.text == "first", "Up stops at the oldest")
    prompt.apply(.newer, history: history)
    #expect(prompt.text == "second")
    prompt.apply(.newer, history: history)
    prompt.apply(.newer, history: history)
    #expect(prompt.text == "dra", "the line being typed comes back")
    #expect(prompt.cursor == 3)
    prompt.apply(.newer, history: history)
    #expect(prompt.text == "dra")
  }

  @Test("Up with no history leaves the line alone")
  func emptyHistory() {
    #expect(typed([.insert("x"), .older]).text == "x")
  }

  @Test("recording a search puts it last, once, and keeps at most the limit")
  func recording() {
    #expect(["a", "b", "c"].recording("a") == ["b", "c", "a"])
    #expect(["a", "b"].recording("c", limit: 2) == ["b", "c"])
  }
}
