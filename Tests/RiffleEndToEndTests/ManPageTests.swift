import Foundation
import RiffleTestSupport
import Testing

@Suite("The man page and completions match the command line")
struct ManPageTests {
  static let manPage =
    (try? String(
      contentsOf: TestFiles.repoRoot.appendingPathComponent("dist/riffle.1"), encoding: .utf8))
    ?? ""

  /// Every `--option` a help text lists.
  static func options(inHelp text: String) -> Set<String> {
    let regex = try! NSRegularExpression(pattern: "--[a-z][a-z-]*")
    let range = NSRange(text.startIndex..., in: text)
    return Set(
      regex.matches(in: text, range: range).map { String(text[Range($0.range, in: text)!]) })
  }

  @Test("every option of every command's --help is in the man page, and every command")
  func optionsDocumented() throws {
    var text = ""
    for command in [
      [], ["play"], ["search"], ["artist"], ["charts"], ["identify"], ["doctor"], ["library"],
      ["library", "add"], ["library", "scan"], ["library", "search"], ["playlists"],
      ["server"], ["server", "add"], ["server", "list"],
      ["radio"], ["radio", "search"], ["radio", "favourites"],
    ] {
      let help = try runProgram(TestFiles.riffleBinary, command + ["--help"])
      #expect(help.status == 0)
      text += help.stdout
    }
    let options = Self.options(inHelp: text)
    for option in [
      "--audio", "--likes-endpoint", "--itunes-url", "--lyrics-url", "--capture", "--version",
      "--charts-url", "--country", "--list", "--shuffle", "--repeat", "--fresh",
    ] {
      #expect(options.contains(option))
    }
    // roff writes a literal hyphen as \-.
    let page = Self.manPage.replacingOccurrences(of: "\\-", with: "-")
    for option in options {
      #expect(page.contains(option), "the man page does not mention \(option)")
    }
    for command in [
      "play", "search", "artist", "charts", "identify", "doctor", "library", "playlists", "radio",
    ] {
      #expect(text.contains("  \(command) "), "--help does not list \(command)")
      #expect(page.contains(".B riffle \(command)") || page.contains(".BR \(command) "))
    }
    for command in ["add", "scan", "search"] {
      #expect(page.contains(".B riffle library \(command)"))
    }
    for command in ["server add", "server list"] {
      #expect(page.contains(".B riffle \(command)") || page.contains(".BI \"riffle \(command)\""))
    }
  }

  @Test("every setting of docs/configuration.md is in the man page")
  func settingsDocumented() throws {
    let guide = try String(
      contentsOf: TestFiles.repoRoot.appendingPathComponent("docs/configuration.md"),
      encoding: .utf8)
    let block = guide.components(separatedBy: "```toml")[1].components(separatedBy: "```")[0]
    var names: [String] = []
    for line in block.split(separator: "\n") {
      let text = line.trimmingCharacters(in: .whitespaces)
      if text.hasPrefix("[") {
        names.append(text)
      } else if !text.hasPrefix("#"), let key = text.split(separator: "=").first {
        names.append(key.trimmingCharacters(in: .whitespaces))
      }
    }
    #expect(names.count > 15 && names.contains("[notifications]") && names.contains("enabled"))
    for name in names {
      #expect(Self.manPage.contains(name), "the man page does not mention \(name)")
    }
  }

  @Test("the completion scripts are generated from the parser and know every option")
  func completions() throws {
    let help = try runProgram(TestFiles.riffleBinary, ["play", "--help"])
    for shell in ["bash", "zsh", "fish"] {
      let script = try runProgram(
        TestFiles.riffleBinary, ["--generate-completion-script", shell])
      #expect(script.status == 0)
      for option in Self.options(inHelp: help.stdout) where option != "--help" {
        let bare = String(option.dropFirst(2))
        #expect(script.stdout.contains(bare), "\(shell) completion lacks \(option)")
      }
      #expect(script.stdout.contains("doctor"), "\(shell) completion lacks doctor")
    }
    let bash = try runProgram(TestFiles.riffleBinary, ["--generate-completion-script", "bash"])
    let dir = try TemporaryDirectory()
    try Data(bash.stdout.utf8).write(to: dir.file("riffle.bash"))
    #expect(try runProgram("/bin/bash", ["-n", dir.file("riffle.bash").path]).status == 0)
  }
}
