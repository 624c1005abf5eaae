import Testing

@testable import RiffleApp

@Suite("config.toml: [library] folders, read and written")
struct LibraryConfigTests {
  @Test("folders are read; relative paths and other keys are named with their line")
  func parse() {
    let (config, problems) = Config.parse(
      """
      [library]
      folders = ["/music", "relative", "/music", "/other"]
      depth = 3
      """)
    #expect(config.libraryFolders == ["/music", "/other"])
    #expect(
      problems == [
        Config.Problem(line: 3, message: "unknown library setting 'depth'"),
        Config.Problem(
          line: 2, message: "'folders' holds something not an absolute path (ignored)"),
      ])
    #expect(Config.parse("[library]\nfolders = 3\n").1.count == 1)
  }

  @Test("written into an empty file, then into one with other sections, comments kept")
  func write() {
    let first = Config.settingLibraryFolders(["/m/a"], in: "")
    #expect(first == "[library]\nfolders = [\n  \"/m/a\",\n]\n")
    #expect(Config.parse(first).0.libraryFolders == ["/m/a"])

    let text = """
      # my settings
      [keys]
      next = "n"

      [library]
      folders = [
        "/old",
      ]

      [theme]
      accent = 33
      """
    let updated = Config.settingLibraryFolders(["/old", "/new \"quoted\" \\ path"], in: text)
    let (config, problems) = Config.parse(updated)
    #expect(problems == [])
    #expect(config.libraryFolders == ["/old", "/new \"quoted\" \\ path"])
    #expect(updated.hasPrefix("# my settings\n[keys]\nnext = \"n\"\n"))
    #expect(updated.contains("[theme]\naccent = 33"))
    #expect(updated.components(separatedBy: "[library]").count == 2)
  }
}
