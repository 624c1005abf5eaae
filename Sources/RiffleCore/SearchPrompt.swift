/// The search prompt's line: text, cursor and a walk through earlier searches.
///
/// Pure editing rules; the view model maps keys to `SearchEdit`s and the reducer applies them.
public struct SearchPrompt: Equatable, Sendable {
  /// What is typed, as characters (a cursor step is one character, never half an emoji).
  public private(set) var characters: [Character] = []
  /// Where the next character goes: 0 ... characters.count.
  public private(set) var cursor = 0
  /// The earlier search shown, counted back from the newest (nil: the line being typed).
  public private(set) var historyIndex: Int?
  /// The line being typed, kept while the user walks through history.
  private var draft: [Character] = []
  /// What Enter searches: the library (previewed as you type) or iTunes.
  public var target: SearchTarget = .itunes

  /// The longest query the prompt takes; iTunes ignores far less than this.
  public static let maximumLength = 200

  public init(text: String = "") {
    characters = Array(TextSanitizer.sanitize(text).prefix(Self.maximumLength))
    cursor = characters.count
  }

  public var text: String { String(characters) }

  /// Applies one edit; `history` is the list of earlier searches, newest last.
  public mutating func apply(_ edit: SearchEdit, history: [String]) {
    switch edit {
    case .insert(let typed):
      let clean = Array(TextSanitizer.sanitize(typed).filter { $0 != "\n" && $0 != "\t" })
      let room = Self.maximumLength - characters.count
      guard room > 0, !clean.isEmpty else { return }
      let taken = clean.prefix(room)
      characters.insert(contentsOf: taken, at: cursor)
      cursor += taken.count
      historyIndex = nil
    case .backspace:
      guard cursor > 0 else { return }
      characters.remove(at: cursor - 1)
      cursor -= 1
    case .deleteForward:
      guard cursor < characters.count else { return }
      characters.remove(at: cursor)
    case .deleteWordBackward:
      var start = cursor
      while start > 0 && characters[start - 1] == " " { start -= 1 }
      while start > 0 && characters[start - 1] != " " { start -= 1 }
      characters.removeSubrange(start..<cursor)
      cursor = start
    case .clear:
      characters.removeSubrange(0..<cursor)
      cursor = 0
    case .left: cursor = max(0, cursor - 1)
    case .right: cursor = min(characters.count, cursor + 1)
    case .home: cursor = 0
    case .end: cursor = characters.count
    case .older:
      guard !history.isEmpty else { return }
      let next = (historyIndex ?? -1) + 1
      guard next < history.count else { return }
      if historyIndex == nil { draft = characters }
      show(Array(history[history.count - 1 - next]), index: next)
    case .newer:
      guard let index = historyIndex else { return }
      if index == 0 {
        show(draft, index: nil)
      } else {
        show(Array(history[history.count - index]), index: index - 1)
      }
    }
  }

  private mutating func show(_ line: [Character], index: Int?) {
    characters = line
    cursor = line.count
    historyIndex = index
  }
}

/// One change to the search prompt's line.
public enum SearchEdit: Equatable, Sendable {
  case insert(String)
  case backspace
  case deleteForward
  /// Ctrl+W: the word before the cursor.
  case deleteWordBackward
  /// Ctrl+U: everything before the cursor.
  case clear
  case left, right, home, end
  /// Up: the search before the one shown.
  case older
  /// Down: the search after the one shown, then back to the line being typed.
  case newer
}

extension Array where Element == String {
  /// The history with `term` added as the newest, without repeats, at most `limit` long.
  public func recording(_ term: String, limit: Int = 100) -> [String] {
    Array((filter { $0 != term } + [term]).suffix(limit))
  }
}
