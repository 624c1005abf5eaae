import Foundation

/// Keeps one of each song in a list of an artist's songs: the same song comes back on other
/// albums, compilations, deluxe editions and remasters. Two songs are the same when the artist
/// is the same and the titles match once decorations ("(Remastered 2011)", "- Live",
/// "[Deluxe]", "(feat. …)") are set aside, ignoring case, accents, quote styles and spacing.
/// The first of each is kept, so a list sorted most popular first keeps the popular one.
public enum SongDeduplicator {
  /// The songs without repeats, and how many repeats were dropped.
  public static func unique(_ songs: [Song]) -> (songs: [Song], hidden: Int) {
    var seen = Set<String>()
    var kept: [Song] = []
    for song in songs {
      let key = normalizedArtist(song.displayName) + "\u{1F}" + normalizedTitle(song.title)
      if seen.insert(key).inserted { kept.append(song) }
    }
    return (kept, songs.count - kept.count)
  }

  /// Words that mark a bracketed or dashed part of a title as a decoration of the same song.
  static let decorationWords: Set<String> = [
    "remaster", "remastered", "remasterd", "live", "deluxe", "edition", "version", "mono",
    "stereo", "bonus", "anniversary", "expanded", "explicit", "clean", "edit", "single", "album",
    "feat", "featuring", "ft", "with", "reissue", "digitally",
  ]

  /// The title reduced to what names the song: decorations set aside, case and accents folded.
  public static func normalizedTitle(_ title: String) -> String {
    var text = fold(title)
    // Bracketed parts that are decorations: "(Remastered 2011)", "[Deluxe]", "{Live}".
    text = removeBracketed(text)
    // Dashed tails that are decorations: "Song - Live", "Song - 2011 Remaster".
    var parts = text.components(separatedBy: " - ")
    while parts.count > 1, isDecoration(parts.last!) { parts.removeLast() }
    text = parts.joined(separator: " - ")
    // "Song feat. Someone" without brackets.
    for marker in [" feat. ", " feat ", " ft. ", " featuring "] {
      if let range = text.range(of: marker) { text = String(text[..<range.lowerBound]) }
    }
    return squeeze(text)
  }

  public static func normalizedArtist(_ name: String) -> String {
    squeeze(fold(name))
  }

  /// Lower case, no accents, straight quotes, one kind of dash.
  private static func fold(_ text: String) -> String {
    let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    var out = ""
    for scalar in folded.unicodeScalars {
      switch scalar {
      case "\u{2018}", "\u{2019}", "\u{2032}", "`": out.append("'")
      case "\u{201C}", "\u{201D}": out.append("\"")
      case "\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}": out.append("-")
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  private static func removeBracketed(_ text: String) -> String {
    let pairs: [Character: Character] = ["(": ")", "[": "]", "{": "}"]
    var out = ""
    var index = text.startIndex
    while index < text.endIndex {
      let c = text[index]
      if let close = pairs[c], let end = text[index...].firstIndex(of: close) {
        let inside = text[text.index(after: index)..<end]
        if isDecoration(String(inside)) {
          index = text.index(after: end)
          continue
        }
      }
      out.append(c)
      index = text.index(after: index)
    }
    return out
  }

  /// True when a part of a title only says which edition, recording or mix this is.
  static func isDecoration(_ part: String) -> Bool {
    let words = part.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
    guard !words.isEmpty else { return false }
    return words.contains { decorationWords.contains($0) }
  }

  private static func squeeze(_ text: String) -> String {
    text.split { $0.isWhitespace }.joined(separator: " ")
      .trimmingCharacters(in: CharacterSet(charactersIn: " -.,!?'\""))
  }
}
