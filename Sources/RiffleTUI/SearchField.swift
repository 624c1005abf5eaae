import RiffleCore

/// Which part of the search line shows in a field of some width, so the cursor stays in view.
enum SearchField {
  /// The visible text and the cursor's column in it; one column is kept for the cursor at the
  /// end of the line.
  static func layout(_ prompt: SearchPrompt, width: Int) -> (text: String, cursorColumn: Int) {
    let characters = prompt.characters
    let widths = characters.map { DisplayWidth.of($0) }
    let room = max(1, width)
    // Scroll right just far enough that the text before the cursor fits with the cursor.
    var start = 0
    var before = widths[0..<prompt.cursor].reduce(0, +)
    while before > room - 1 && start < prompt.cursor {
      before -= widths[start]
      start += 1
    }
    var end = start
    var used = 0
    while end < characters.count && used + widths[end] <= room {
      used += widths[end]
      end += 1
    }
    return (String(characters[start..<end]), before)
  }
}
