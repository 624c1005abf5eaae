import ArgumentParser
import Foundation
import RiffleAPI
import RiffleApp
import RiffleCore
import RiffleLibrary

#if canImport(Glibc)
  import Glibc
#endif

/// `riffle library add|scan|search`: the user's own music, indexed in
/// `$XDG_DATA_HOME/riffle/library.sqlite` from the folders listed in config.toml.
struct Library: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Your own music: the folders you add, indexed and searchable.",
    discussion: """
      Examples:
        riffle library                          # play the library, in album order
        riffle library add ~/Music /mnt/music   # remember folders (config.toml, [library])
        riffle library scan                     # bring the index up to date
        riffle library search bjork             # ARTIST - ALBUM - NN TITLE  PATH, one a line
      """,
    subcommands: [LibraryAdd.self, LibraryScan.self, LibrarySearch.self])

  @OptionGroup var options: PlayerOptions

  /// `riffle library`: every song of the library as pages, in album order.
  func run() throws {
    try options.launch(.library(.all))
  }

  static var configFile: URL {
    AppPaths.fromEnvironment().config.appendingPathComponent("config.toml")
  }

  /// The folders config.toml lists; problems with the file go to stderr.
  static func folders() -> [String] {
    let (config, problems) = Config.load(from: configFile)
    for problem in problems { printError("riffle: \(problem)") }
    return config.libraryFolders
  }

  static func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  /// Prints an error and exits with status 1.
  static func fail(_ message: String) -> Never {
    printError("riffle: " + message)
    Glibc.exit(1)
  }

  /// A path as the terminal may show it: nothing in a file name can reach it as a command.
  static func shown(_ path: String) -> String { TextSanitizer.sanitize(path) }
}

/// `riffle library add PATH...`
struct LibraryAdd: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add",
    abstract: "Remember folders as part of the library (in config.toml); then run 'scan'.")

  @Argument(help: ArgumentHelp("Folders of music.", valueName: "path"))
  var paths: [String]

  func run() throws {
    var folders = Library.folders()
    var added: [String] = []
    for path in paths {
      let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isFolder) else {
        Library.fail("cannot add '\(Library.shown(path))': no such folder")
      }
      guard isFolder.boolValue else {
        Library.fail("cannot add '\(Library.shown(path))': not a folder")
      }
      if !folders.contains(absolute) {
        folders.append(absolute)
        added.append(absolute)
      }
    }
    let file = Library.configFile
    let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    let updated = Config.settingLibraryFolders(folders, in: text)
    do {
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try AtomicFile.write(Data(updated.utf8), to: file)
    } catch {
      Library.fail("cannot write \(file.path): \(error)")
    }
    for path in added { print("Added \(Library.shown(path))") }
    print(
      "\(folders.count) folder\(folders.count == 1 ? "" : "s") in the library; "
        + "'riffle library scan' reads them")
  }
}

/// `riffle library scan`
struct LibraryScan: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "scan",
    abstract: "Bring the library's index up to date with its folders and say what changed.",
    discussion: """
      Only files whose size or modification time changed are read again; files gone are \
      dropped. Each file that cannot be read gets a line; the scan goes on. Songs without \
      ReplayGain tags have their loudness measured once (EBU R128). Exits 1 when the index \
      cannot be written (a full disk, say); what it held before is kept.
      """)

  @Flag(help: "Do not measure the loudness of songs without ReplayGain tags.")
  var noLoudness = false

  @Flag(help: "Print only the summary line, not a line for each file that could not be read.")
  var quiet = false

  @Flag(
    help: """
      Also bring the library's fingerprints (for 'riffle identify') up to date: new and \
      changed songs only. Otherwise they are made at the next identify.
      """)
  var fingerprints = false

  func run() throws {
    let folders = Library.folders()
    guard !folders.isEmpty else {
      Library.fail("the library has no folders: add one with 'riffle library add PATH'")
    }
    do {
      let index = try LibraryIndex()
      let scanner = LibraryScanner(index: index)
      scanner.measuresLoudness = !noLoudness
      let report = try scanner.scan(
        roots: folders.map { URL(fileURLWithPath: $0) }, dropOutside: true,
        waiting: { Library.printError("riffle: " + $0) })
      if !quiet {
        for issue in report.issues {
          print("\(Library.shown(issue.path)): \(issue.message)")
        }
      }
      print(report.summary)
      if fingerprints { LibraryPrints.updateAfterScan(folders: folders) }
    } catch {
      Library.fail("\(error)")
    }
  }
}

/// `riffle library search TERM...`
struct LibrarySearch: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search",
    abstract: "Print the library's songs that match, one a line: ARTIST - ALBUM - NN TITLE  PATH.",
    discussion: """
      Every word must start a word of the title, artist, album artist, album or genre; case \
      and accents do not matter ('bjo' finds Björk). Best matches first. Exits 1 when nothing \
      matches.
      """)

  @Argument(help: ArgumentHelp("Words to search for.", valueName: "term"))
  var words: [String]

  @Option(help: "Print at most this many songs.")
  var limit: Int?

  func run() throws {
    let term = words.joined(separator: " ")
    guard FileManager.default.fileExists(atPath: LibraryIndex.defaultURL().path) else {
      Library.fail("the library is empty: 'riffle library add PATH', then 'riffle library scan'")
    }
    var printed = 0
    do {
      let index = try LibraryIndex()
      let pageSize = 500
      var offset = 0
      while limit.map({ printed < $0 }) ?? true {
        let wanted = min(pageSize, limit.map { $0 - printed } ?? pageSize)
        let page = try index.songs(.search(term), offset: offset, limit: wanted)
        var output = ""
        for entry in page { output += LibrarySearch.line(entry) + "\n" }
        FileHandle.standardOutput.write(Data(output.utf8))
        printed += page.count
        offset += page.count
        if page.count < wanted { break }
      }
    } catch {
      Library.fail("\(error)")
    }
    if printed == 0 {
      Library.printError("riffle: no songs in the library match '\(Library.shown(term))'")
      Glibc.exit(1)
    }
  }

  /// `ARTIST - ALBUM - NN TITLE  PATH`, as `beet ls` prints (the track number when known).
  static func line(_ entry: LibrarySong) -> String {
    let info = entry.info
    let artist = info.artist ?? info.albumArtist ?? "Unknown artist"
    let album = info.album ?? "Unknown album"
    let number = info.track.map { String(format: "%02d ", $0) } ?? ""
    return "\(artist) - \(album) - \(number)\(info.title)  \(Library.shown(entry.path))"
  }
}
