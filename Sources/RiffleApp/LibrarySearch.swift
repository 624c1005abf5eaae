import RiffleCore
import RiffleLibrary

/// Songs a keystroke's preview asks the index for.
let previewSize = 25

extension PlayerClients {
  /// Search as you type over the library's index: the first page of `.search(term)`, read on
  /// the calling thread (the main queue: at 100,000 songs a keystroke's query takes a few
  /// milliseconds, see docs/performance.md), so the frame after the key shows it.
  public static func librarySearch(_ index: @escaping @Sendable () -> LibraryIndex?)
    -> @Sendable (String) -> Result<SourcePage, Failure>
  {
    // One screen's worth: the preview shows its first song and counts "25+"; chosen, the
    // source pages on from there as any library source does.
    { term in libraryPage(index(), .search(term), nil, limit: previewSize) }
  }

  /// A library source's first `count` songs from the index, for the pages after a change.
  public static func libraryReload(_ index: @escaping @Sendable () -> LibraryIndex?)
    -> @Sendable (LibraryQuery, Int) -> Result<SourcePage, Failure>
  {
    { query, count in libraryPage(index(), query, nil, limit: count) }
  }
}
