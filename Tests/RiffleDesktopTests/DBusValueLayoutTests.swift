import Testing

@testable import RiffleDesktop

/// How a `DBusValue` holds the storage of a nested dictionary or list.
///
/// LeakSanitizer (the playback leak check) finds what is still in use by scanning memory for
/// words equal to a block's address. An `indirect` enum boxed every value and stored the box's
/// address with the case number in its top bits, so the boxes of the MPRIS properties a live
/// service still held were reported as leaked at exit (docs/hardening.md). These tests keep the
/// layout one whose references are plain addresses.
@Suite("DBusValue layout")
struct DBusValueLayoutTests {
  /// The first word of a value's bytes.
  private func firstWord(_ value: DBusValue) -> UInt {
    withUnsafeBytes(of: value) { $0.load(as: UInt.self) }
  }

  @Test("a dictionary value holds the dictionary's storage at its plain address")
  func dictionaryStorageIsUntagged() {
    let entries: [String: DBusValue] = ["mpris:trackid": .objectPath("/a"), "rate": .double(1)]
    let storage = unsafeBitCast(entries, to: UInt.self)
    #expect(firstWord(.dictionary(entries)) == storage)
  }

  @Test("a string list value holds the array's storage at its plain address")
  func arrayStorageIsUntagged() {
    let items = ["Artist 1", "Artist 2"]
    let storage = unsafeBitCast(items, to: UInt.self)
    #expect(firstWord(.stringArray(items)) == storage)
  }

  @Test("scalar cases are held inline, not boxed")
  func scalarsAreInline() {
    #expect(MemoryLayout<DBusValue>.size > MemoryLayout<UInt>.size)
    #expect(firstWord(.double(1)) == UInt(1.0.bitPattern))
    #expect(firstWord(.int64(42)) == 42)
  }
}
