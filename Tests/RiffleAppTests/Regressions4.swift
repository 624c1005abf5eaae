import Foundation
import RiffleApp
import RiffleCore
import RiffleTUI
import Testing

// Bugs found in review, each pinned by the test that first showed it; all fixed, kept so
// they stay fixed.

@Suite("Regressions of issue 4 in RiffleApp")
struct AppRegressions4Tests {
  /// `Config.lineOf` takes a section header's name by trimming "[", "]" and spaces from both
  /// ends of the line. A comment after the header ("[keys]  # vi keys", valid TOML) is not
  /// trimmed, so the section is named "keys]  # vi keys", no key is ever found in it, and every
  /// problem in that section is reported without a line ("config.toml: unknown action ...").
  @Test("A comment after a section header does not lose the problem's line")
  func commentAfterHeader() {
    let (config, problems) = Config.parse(
      """
      [keys]  # vi keys
      next = "n"
      teleport = "t"
      [theme] # darker
      glow = 3
      """)
    #expect(config.keyMap.action(for: .char("n")) == .next)
    #expect(problems.map(\.line) == [3, 5], "\(problems)")
  }

  /// `Key.displayName` says it is "how the key is written in help and in config.toml", and the
  /// help shows "←", "→", "Shift+←", "Shift+→", "PgUp", "PgDn". `Config.keyFromName` takes none
  /// of those as the key the help meant: "Shift+←", "PgUp" and "PgDn" are refused as unknown,
  /// and the arrows are taken as the characters U+2190 to U+2193, which no arrow key sends, with no
  /// problem reported. A user who copies a key from the help into config.toml gets a dead key.
  @Test(
    "A key name the help shows means that key in config.toml",
    arguments: [Key.left, .right, .up, .down, .shiftLeft, .shiftRight, .pageUp, .pageDown])
  func helpNamesRoundTrip(key: Key) {
    #expect(Config.keyFromName(key.displayName) == key, "\(key.displayName)")
  }
}
