import ArgumentParser
import CLinux
import Foundation
import RiffleAPI
import RiffleApp
import RiffleAudio
import RiffleCore
import RiffleFingerprint
import RiffleTUI

#if canImport(Glibc)
  import Glibc
#endif

/// `riffle [SOURCE]`, `riffle search TERM`, `riffle artist NAME`, `riffle identify FILE`,
/// `riffle doctor`: the composition root. Builds the live world and runs it.
@main
struct Riffle: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "riffle",
    abstract: "A full-screen terminal music player: one song a page, arrows to swipe.",
    discussion: keysHelp + """

      Examples:
        riffle                                   # the bundled catalog, offline
        riffle https://apitest.suno.com/api/songs
        riffle ~/music/feed.json --audio wav:/tmp/out.wav
        riffle search daft punk
        riffle artist Björk
        riffle https://feeds.example/show.rss    # a podcast: episodes newest first
        riffle podcast add https://feeds.example/show.rss
        riffle podcasts                          # the newest episodes of every show followed
        riffle identify clip.wav                 # name the song in a recording
        riffle doctor                            # what to fix on this machine

      Options of play, search and artist (see 'riffle help play'):
        --audio DRIVER          auto (pulse, then alsa, then silent in real time), pulse, alsa,
                                null, or wav:PATH
        --likes-endpoint URL    send likes to a server ({id} in the URL)
        --itunes-url URL        the iTunes Search API's base URL
        --lyrics-url URL        LRCLIB's base URL
        --capture SOURCE        what i listens with: auto or file:PATH
      """,
    // ArgumentParser lists --version in the help and the completions; `main()` answers it with
    // the full report, which reads /proc/self/maps and so must not run on every start.
    version: RiffleVersion.string,
    subcommands: [
      Play.self, Search.self, Artist.self, Podcast.self, Podcasts.self, Identify.self, Doctor.self,
    ],
    defaultSubcommand: Play.self)

  static func main() {
    if CommandLine.arguments.dropFirst().first == "--version" {
      print(VersionReport.text())
      Glibc.exit(0)
    }
    main(nil)
    // play, search and artist return once the player is started; the main queue then runs
    // it. Called here, after every frame of the command line has returned and released its
    // values: dispatchMain ends the main thread's frames (pthread_exit) without releasing
    // anything still held in them, which leak checks then report as lost.
    if MainActor.assumeIsolated({ liveModel != nil }) {
      dispatchMain()
    }
  }
}

/// The keys as `--help` lists them: the same table the key map, the help overlay and
/// config.toml read (config.toml's `[keys]` rebinds them by these names).
private let keysHelp: String = {
  let rows = KeyMap.standard.helpRows()
  let width = rows.map { $0.keys.count }.max() ?? 0
  let lines = rows.map { row in
    "  " + row.keys + String(repeating: " ", count: width - row.keys.count + 2) + row.text
  }
  let names = Command.all.map(\.name).joined(separator: ", ")
  return "Keys:\n" + lines.joined(separator: "\n")
    + "\n  (rebind in config.toml's [keys]: \(names))\n"
}()

/// Options every way of starting the player takes.
struct PlayerOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "Audio output: auto (pulse, then alsa, then silent in real time), pulse, alsa, null, or wav:PATH.",
      valueName: "driver"))
  var audio: String = "auto"

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Send likes to a server: POST to like, DELETE to unlike, e.g. https://host/api/songs/{id}/like",
      valueName: "template"))
  var likesEndpoint: String?

  @Option(
    name: .customLong("itunes-url"),
    help: ArgumentHelp(
      "Base URL of the iTunes Search API (also RIFFLE_ITUNES_URL or itunes_url in config.toml).",
      valueName: "url"))
  var itunesURL: String?

  @Option(
    name: .customLong("lyrics-url"),
    help: ArgumentHelp(
      "The LRCLIB server lyrics come from (also RIFFLE_LYRICS_URL or lyrics_url in config.toml); default https://lrclib.net",
      valueName: "url"))
  var lyricsURL: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "What i listens with: auto (the default capture device) or file:PATH (a recording played in real time). RIFFLE_CAPTURE sets it too.",
      valueName: "source"))
  var capture: String?

  /// The capture source as asked for: the option, then RIFFLE_CAPTURE, then auto.
  var captureArgument: String {
    capture ?? ProcessInfo.processInfo.environment["RIFFLE_CAPTURE"].flatMap {
      $0.isEmpty ? nil : $0
    }
      ?? "auto"
  }

  func validate() throws {
    if CaptureChoice(argument: captureArgument) == nil {
      throw ValidationError("--capture must be auto or file:PATH, not '\(captureArgument)'")
    }
    if let likesEndpoint, let problem = LikeSync.validate(likesEndpoint) {
      throw ValidationError("--likes-endpoint: \(problem)")
    }
    guard AudioDriverChoice(argument: audio) != nil else {
      throw ValidationError("--audio must be auto, pulse, alsa, null or wav:PATH, not '\(audio)'")
    }
    for (flag, value) in [("--itunes-url", itunesURL), ("--lyrics-url", lyricsURL)] {
      if let value, Config.serviceURL(value) == nil {
        throw ValidationError("\(flag) must be an http:// or https:// URL, not '\(value)'")
      }
    }
  }

  /// Starts the player on what `first` asks for; `Riffle.main` then runs it.
  func launch(_ first: SourceKind) throws {
    // Two malloc arenas serve the player's threads (glibc would make one per allocating
    // thread), and blocks of 128 KB and more are always mapped on their own so that a finished
    // song's buffer goes back to the system (see CLinux.h).
    riffle_tune_malloc(2, 128 * 1024)
    let driver = AudioDriverChoice(argument: audio)!
    let captureChoice = CaptureChoice(argument: captureArgument)!
    guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
      throw ValidationError("riffle needs a terminal (stdin and stdout must be a TTY)")
    }
    let environment = { (name: String) in ProcessInfo.processInfo.environment[name] }
    let paths = AppPaths.fromEnvironment()
    let (config, problems) = Config.load(from: paths.config.appendingPathComponent("config.toml"))
    // Each service's base URL: the flag, then the environment, then config.toml, then the default.
    let services: (itunes: URL, lyrics: URL)
    do {
      services = (
        try Config.resolveServiceURL(
          flag: ("--itunes-url", itunesURL),
          environment: ("RIFFLE_ITUNES_URL", environment("RIFFLE_ITUNES_URL")),
          file: config.itunesURL, fallback: ITunesCatalog.defaultBase),
        try Config.resolveServiceURL(
          flag: ("--lyrics-url", lyricsURL),
          environment: ("RIFFLE_LYRICS_URL", environment("RIFFLE_LYRICS_URL")),
          file: config.lyricsURL, fallback: LyricsSource.defaultBaseURL)
      )
    } catch {
      throw ValidationError(error.message)
    }
    redirectStandardError(to: paths.logFile)
    MainActor.assumeIsolated {
      do {
        try startPlayer(
          first, driver: driver, capture: captureChoice, paths: paths, config: (config, problems),
          services: services, likeSync: likesEndpoint.map { LikeSync(template: $0) })
      } catch {
        FileHandle.standardError.write(Data("riffle: \(error)\n".utf8))
        Foundation.exit(1)
      }
    }
  }
}

/// `riffle [SOURCE]`: a feed, or the bundled catalog.
struct Play: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Play a feed (the default): a URL, a feed file, or the bundled catalog.")

  @Argument(
    help: ArgumentHelp(
      "A feed: an http(s):// or file:// URL, or a path to a feed file. None plays the bundled catalog.",
      valueName: "source"))
  var source: String?

  @OptionGroup var options: PlayerOptions

  func run() throws {
    try options.launch(.feed(try Riffle.resolveSource(source)))
  }
}

extension Riffle {

  /// The feed to open: the argument as a URL or path, or the bundled catalog.
  static func resolveSource(_ source: String?) throws -> URL {
    guard let source, !source.isEmpty else {
      guard let catalog = Catalog.locate() else {
        throw ValidationError(
          "cannot find the bundled catalog; pass a feed URL or set RIFFLE_CATALOG")
      }
      return catalog
    }
    if let url = URL(string: source), let scheme = url.scheme?.lowercased(),
      ["http", "https", "file"].contains(scheme)
    {
      return url
    }
    if source.contains("://") {
      throw ValidationError("unsupported address '\(source)': use http://, https:// or file://")
    }
    var isDirectory: ObjCBool = false
    let path = URL(fileURLWithPath: source).standardizedFileURL
    guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
      throw ValidationError("no feed at '\(source)'")
    }
    return isDirectory.boolValue ? path.appendingPathComponent("songs.json") : path
  }
}

/// `riffle search TERM`: starts on iTunes search results.
struct Search: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Search the iTunes catalog and page through the results (30 s previews).")

  @Argument(help: ArgumentHelp("What to search for.", valueName: "term"))
  var term: [String]

  @OptionGroup var options: PlayerOptions

  func validate() throws {
    if words(term).isEmpty { throw ValidationError("give something to search for") }
  }

  func run() throws {
    try options.launch(.search(words(term)))
  }
}

/// `riffle artist NAME`: starts on an artist's top songs.
struct Artist: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show an artist's top songs, most popular first, each song once.")

  @Argument(help: ArgumentHelp("The artist's name.", valueName: "name"))
  var name: [String]

  @OptionGroup var options: PlayerOptions

  func validate() throws {
    if words(name).isEmpty { throw ValidationError("give an artist's name") }
  }

  func run() throws {
    try options.launch(.artist(words(name)))
  }
}

/// `riffle podcasts`: the newest episodes of every show followed.
struct Podcasts: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Play the newest episodes of every podcast you follow, newest first.")

  @OptionGroup var options: PlayerOptions

  func run() throws {
    try options.launch(.podcasts)
  }
}

/// `riffle podcast add URL`, `riffle podcast list`: the shows followed.
struct Podcast: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Follow podcasts (add URL) and list them (list).",
    subcommands: [Add.self, List.self, Download.self])

  struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Follow a podcast: its RSS or Atom feed's URL (or a feed file).")

    @Argument(help: ArgumentHelp("The feed's URL.", valueName: "url"))
    var url: String

    func run() throws {
      let feedURL = try Riffle.resolveSource(url)
      let feeds = PodcastFeeds.live(AppPaths.fromEnvironment())
      let done = DispatchSemaphore(value: 0)
      nonisolated(unsafe) var outcome: Result<PodcastFeed, Error>?
      feeds.subscribe(feedURL) {
        outcome = $0
        done.signal()
      }
      done.wait()
      switch outcome! {
      case .success(let feed):
        print("Following \(TextSanitizer.sanitize(feed.title)): \(feed.episodes.count) episodes")
      case .failure(let error):
        let message = (error as? FeedLoadError)?.userMessage ?? String(describing: error)
        FileHandle.standardError.write(Data("riffle: \(TextSanitizer.sanitize(message))\n".utf8))
        throw ExitCode(2)
      }
    }
  }

  struct Download: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract:
        "Keep a podcast's newest episodes for offline listening (in the audio cache, at most 512 MB)."
    )

    @Argument(help: ArgumentHelp("The feed's URL.", valueName: "url"))
    var url: String

    @Option(name: .long, help: "How many of the newest episodes.")
    var newest: Int = 1

    func run() throws {
      let feedURL = try Riffle.resolveSource(url)
      let paths = AppPaths.fromEnvironment()
      let cache = DiskCache.audio(paths)
      func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("riffle: \(TextSanitizer.sanitize(message))\n".utf8))
        return ExitCode(2)
      }
      let answer = HTTPClient.shared.fetchSync(
        HTTPRequest(
          url: feedURL, headers: ["Accept": FeedSource.accept], maxBytes: FeedSource.maxFeedBytes))
      let feed: PodcastFeed
      do {
        feed = try PodcastFeedParser.parse(try answer.get().body, base: feedURL)
      } catch let error as HTTPError {
        throw fail(error.userMessage)
      } catch let error as PodcastFeedError {
        throw fail(error.userMessage)
      }
      var failed = false
      for episode in feed.episodes.prefix(max(1, newest)) {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<Int64, HTTPError>?
        cache.download(episode.audioURL) {
          outcome = $0
          done.signal()
        }
        done.wait()
        let title = TextSanitizer.sanitize(episode.title)
        switch outcome! {
        case .success(let size):
          print("Kept \(title) (\(megabytes(size)))")
        case .failure(let error):
          failed = true
          FileHandle.standardError.write(
            Data("riffle: \(title): \(TextSanitizer.sanitize(error.userMessage))\n".utf8))
        }
      }
      print("Audio cache: \(megabytes(cache.size)) of \(megabytes(cache.capacity))")
      if failed { throw ExitCode(2) }
    }

    private func megabytes(_ bytes: Int64) -> String {
      String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }
  }

  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the podcasts you follow.")

    func run() throws {
      let list = try PodcastSubscriptions(file: AppPaths.fromEnvironment().podcastsFile).all()
      if list.isEmpty { print("No podcasts followed: riffle podcast add URL") }
      for show in list {
        print("\(TextSanitizer.sanitize(show.title))\n  \(TextSanitizer.sanitize(show.url))")
      }
    }
  }
}

extension DiskCache {
  /// The audio cache the player plays copies from (songs it played whole, episodes kept).
  static func audio(_ paths: AppPaths) -> DiskCache {
    DiskCache(folder: paths.cache.appendingPathComponent("audio"), capacity: 512 << 20)
  }
}

extension PodcastFeeds {
  /// The shows followed, in the data folder, their last answers in the cache (at most 64 MB).
  static func live(_ paths: AppPaths) -> PodcastFeeds {
    PodcastFeeds(
      subscriptions: PodcastSubscriptions(file: paths.podcastsFile),
      cache: DiskCache(folder: paths.cache.appendingPathComponent("podcasts"), capacity: 64 << 20))
  }
}

/// Words given as separate arguments, as one line.
private func words(_ parts: [String]) -> String {
  TextSanitizer.sanitize(parts.joined(separator: " ")).trimmingCharacters(in: .whitespaces)
}

@MainActor
private var liveSources: [any DispatchSourceProtocol] = []
@MainActor
private var liveModel: PlayerViewModel?

@MainActor
private func startPlayer(
  _ first: SourceKind, driver: AudioDriverChoice, capture: CaptureChoice, paths: AppPaths,
  config: (config: Config, problems: [Config.Problem]), services: (itunes: URL, lyrics: URL),
  likeSync: LikeSync?
) throws {
  let (config, problems) = config
  let terminal = try NCursesTerminal()
  let likeStore = LikeStore(file: paths.likesFile)
  let box = ModelBox()
  let historyFile = paths.searchHistoryFile
  let clients = PlayerClients(
    pages: .live(
      feeds: FeedSource(), itunes: ITunesCatalog(base: services.itunes),
      podcasts: PodcastFeeds.live(paths)),
    audio: .live(
      cache: DiskCache.audio(paths),
      output: { try driver.open() },
      events: { event in box.model?.post(event.action) },
      positions: EpisodePositions(file: paths.episodePositionsFile)),
    likes: .live(likeStore, remote: likeSync),
    saveSearchHistory: { terms in
      do {
        try SearchHistory.save(terms, to: historyFile)
      } catch {
        FileHandle.standardError.write(Data("search history: \(error)\n".utf8))
      }
    },
    lyrics: .live(
      LyricsSource(
        baseURL: services.lyrics,
        cache: DiskCache(folder: paths.cache.appendingPathComponent("lyrics"), capacity: 8 << 20))),
    identify: .live(
      capture: capture,
      store: FingerprintStore(folder: paths.cache.appendingPathComponent("fingerprints"))))
  let artwork = Artwork(
    mode: Artwork.mode(
      environment: ProcessInfo.processInfo.environment, terminalColors: terminal.colorCount),
    load: Artwork.liveLoader(
      client: .shared,
      cache: DiskCache(folder: paths.cache.appendingPathComponent("images"), capacity: 64 << 20)))
  var state = PlayerState()
  state.searchHistory = SearchHistory.load(from: historyFile)
  let model = PlayerViewModel(
    clients: clients, terminal: terminal, ticker: DispatchTicker(), keyMap: config.keyMap,
    view: PageView(theme: config.theme, keyMap: config.keyMap), state: state, artwork: artwork,
    onQuit: { Foundation.exit(0) })
  box.model = model
  liveModel = model
  startDesktop(model: model, notifications: config.notifications)

  let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
  var emptyReads = 0
  input.setEventHandler {
    MainActor.assumeIsolated {
      // Readable again and again with nothing to read means the terminal is gone (EOF):
      // quit rather than spin.
      if model.handleInput() == 0 && bytesWaiting(on: STDIN_FILENO) == 0 {
        emptyReads += 1
        if emptyReads >= 3 { model.send(.quit) }
      } else {
        emptyReads = 0
      }
    }
  }
  input.resume()
  liveSources.append(input)

  for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] {
    signal(signalNumber, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
    source.setEventHandler {
      MainActor.assumeIsolated {
        if signalNumber == SIGWINCH { model.handleResize() } else { model.send(.quit) }
      }
    }
    source.resume()
    liveSources.append(source)
  }
  if let problem = likeStore.loadProblem {
    FileHandle.standardError.write(Data("likes: \(problem)\n".utf8))
  }
  model.render()
  model.send(.open(first))
  for problem in problems {
    FileHandle.standardError.write(Data("\(problem)\n".utf8))
  }
  if let first = problems.first {
    let more = problems.count > 1 ? " (and \(problems.count - 1) more in the log)" : ""
    model.send(.notify("\(first)\(more)"))
  }
}

/// Lets engine callbacks reach the model, which is built after the clients.
private final class ModelBox: @unchecked Sendable {
  weak var model: PlayerViewModel?
}

/// Bytes the kernel holds for reading on a descriptor.
private func bytesWaiting(on fd: Int32) -> Int32 {
  var count: Int32 = 0
  return ioctl(fd, UInt(FIONREAD), &count) == 0 ? count : 0
}

/// Sends stderr to the log while the screen is up: C libraries must not print over it.
private func redirectStandardError(to log: URL) {
  try? FileManager.default.createDirectory(
    at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
  let fd = open(log.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
  guard fd >= 0 else { return }
  dup2(fd, STDERR_FILENO)
  close(fd)
}
