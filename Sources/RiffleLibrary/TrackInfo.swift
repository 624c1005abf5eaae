import Foundation
import RiffleAudio
import RiffleCore

/// Everything the index keeps about one file, taken from its tags (and what lies beside it).
public struct TrackInfo: Equatable, Sendable {
  public var title: String
  public var artist: String?
  public var albumArtist: String?
  public var album: String?
  public var track: Int?
  public var disc: Int?
  public var year: Int?
  public var genre: String?
  public var duration: Double?
  public var hasEmbeddedCover = false
  /// Unsynced or synced lyrics from the tags (USLT, LYRICS, ©lyr), line breaks kept.
  public var lyrics: String?
  /// ReplayGain in dB (an Opus R128 gain is turned into the same reference, -18 LUFS).
  public var trackGain: Double?
  public var albumGain: Double?

  public init(title: String) {
    self.title = title
  }
}

/// Turns the tags a container holds into `TrackInfo`: the names each format uses, numbers as
/// "3/12", gains as "-6.20 dB", and text made safe to draw and of a sane length.
public enum TagMapping {
  /// Longest title, artist or album kept (a tag of 10,000 characters is cut here).
  public static let longestText = 500
  /// Longest lyrics kept, in characters.
  public static let longestLyrics = 65_536

  /// The info for a file named `fileName`, with what was wrong in its tags (report lines).
  public static func info(from tags: FileTags, fileName: String) -> (TrackInfo, [String]) {
    var notes: [String] = []
    func text(_ keys: String...) -> String? {
      for key in keys {
        guard let raw = tags.value(key) else { continue }
        if let clean = cleaned(raw, name: key, notes: &notes) { return clean }
      }
      return nil
    }
    let fallback = (fileName as NSString).deletingPathExtension
    var info = TrackInfo(
      title: text("title") ?? cleaned(fallback, name: "file name", notes: &notes) ?? fileName)
    info.artist = text("artist", "performer")
    info.albumArtist = text("album_artist", "albumartist", "album artist")
    info.album = text("album")
    info.track = (tags.value("track") ?? tags.value("tracknumber")).flatMap(leadingNumber)
    info.disc = (tags.value("disc") ?? tags.value("discnumber")).flatMap(leadingNumber)
    info.year = (tags.value("date") ?? tags.value("year") ?? tags.value("originaldate"))
      .flatMap(year)
    info.genre = text("genre")
    info.duration = tags.duration
    info.hasEmbeddedCover = tags.hasEmbeddedPicture
    info.lyrics = lyrics(in: tags)
    info.trackGain =
      tags.value("replaygain_track_gain").flatMap(decibels)
      ?? tags.value("r128_track_gain").flatMap(r128Gain)
    info.albumGain =
      tags.value("replaygain_album_gain").flatMap(decibels)
      ?? tags.value("r128_album_gain").flatMap(r128Gain)
    return (info, notes)
  }

  /// Text made safe to draw (escape sequences and controls removed), trimmed and cut to
  /// `longestText`; nil when nothing is left.
  static func cleaned(_ raw: String, name: String, notes: inout [String]) -> String? {
    var text = TextSanitizer.sanitize(raw)
    if text != raw && raw.unicodeScalars.contains(where: { $0.value == 0x1B || $0.value == 0x9B }) {
      notes.append("escape sequences removed from the \(name) tag")
    }
    text = text.trimmingCharacters(in: .whitespaces)
    if text.count > longestText {
      notes.append("\(name) tag cut from \(text.count) to \(longestText) characters")
      text = String(text.prefix(longestText))
    }
    return text.isEmpty ? nil : text
  }

  /// Lyrics from whichever tag holds them (FFmpeg names an ID3 USLT frame "lyrics-LANG").
  static func lyrics(in tags: FileTags) -> String? {
    let names = ["lyrics", "unsyncedlyrics", "unsynced lyrics", "uslt"]
    guard
      let raw = tags.tags.first(where: { tag in
        let key = tag.key.lowercased()
        return names.contains(key) || key.hasPrefix("lyrics-")
      })?.value
    else { return nil }
    // Line by line, so the line breaks LRC and plain lyrics need survive the sanitizer.
    let lines = raw.prefix(longestLyrics).split(
      omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
    )
    .map { TextSanitizer.sanitize(String($0)) }
    let text = lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    return text.isEmpty ? nil : text
  }

  /// "3/12" -> 3, "07" -> 7; nil when there is no number, or it is absurd.
  static func leadingNumber(_ text: String) -> Int? {
    let digits = text.trimmingCharacters(in: .whitespaces).prefix { $0.isASCII && $0.isNumber }
    guard !digits.isEmpty, digits.count < 6, let number = Int(digits), number > 0 else {
      return nil
    }
    return number
  }

  /// The first four-digit run in a date ("2004-05-01", "May 1999") as a year.
  static func year(_ text: String) -> Int? {
    let scalars = Array(text.unicodeScalars)
    var index = 0
    while index + 4 <= scalars.count {
      let run = scalars[index..<index + 4]
      if run.allSatisfy({ ("0"..."9").contains($0) }),
        index == 0 || !("0"..."9").contains(scalars[index - 1]),
        index + 4 == scalars.count || !("0"..."9").contains(scalars[index + 4])
      {
        let year = Int(String(String.UnicodeScalarView(run)))!
        return (1000...2999).contains(year) ? year : nil
      }
      index += 1
    }
    return nil
  }

  /// "-6.54 dB" -> -6.54; gains outside +-60 dB are not gains.
  static func decibels(_ text: String) -> Double? {
    var number = text.trimmingCharacters(in: .whitespaces)
    if number.lowercased().hasSuffix("db") { number = String(number.dropLast(2)) }
    number = number.trimmingCharacters(in: .whitespaces)
    if number.hasPrefix("+") { number.removeFirst() }
    guard let value = Double(number), value.isFinite, abs(value) <= 60 else { return nil }
    return value
  }

  /// An Opus R128 gain (Q7.8 dB relative to -23 LUFS) as a ReplayGain (reference -18 LUFS).
  static func r128Gain(_ text: String) -> Double? {
    guard let raw = Int(text.trimmingCharacters(in: .whitespaces)), abs(raw) < 32_768 else {
      return nil
    }
    return Double(raw) / 256 + 5
  }
}
