import ArgumentParser
import CLinux
import Foundation
import RiffleAPI
import RiffleApp
import RiffleAudio
import RiffleCore
import RiffleFingerprint
import RiffleLibrary
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
        riffle charts rock --country gb          # Apple's most-played songs (--list: genres)
        riffle https://feeds.example/show.rss    # a podcast: episodes newest first
        riffle podcast add https://feeds.example/show.rss
        riffle podcasts                          # the newest episodes of every show followed
        riffle radio search jazz                 # stations from Radio Browser, one a page
        riffle radio                             # the stations you keep (l on a station)
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
      Play.self, Search.self, Artist.self, Charts.self, Podcast.self, Podcasts.self,
      Library.self, Playlists.self, Identify.self, Doctor.self, Server.self, Radio.self,
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
    name: .customLong("charts-url"),
    help: ArgumentHelp(
      "Base URL of Apple's marketing-tools RSS feeds, the charts (also RIFFLE_CHARTS_URL); default https://rss.applemarketingtools.com",
      valueName: "url"))
  var chartsURL: String?

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

  @Flag(name: .long, help: "Play in a random order, each song once a round.")
  var shuffle = false

  @Option(
    name: .long,
    help: ArgumentHelp("Repeat: off, all (the pages again), or one (this song).", valueName: "mode")
  )
  var `repeat`: String?

  @Flag(name: .long, help: "Start afresh instead of where the last session stopped.")
  var fresh = false

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
    if let mode = `repeat`, RepeatMode(rawValue: mode) == nil {
      throw ValidationError("--repeat must be off, all or one, not '\(mode)'")
    }
    guard AudioDriverChoice(argument: audio) != nil else {
      throw ValidationError("--audio must be auto, pulse, alsa, null or wav:PATH, not '\(audio)'")
    }
    for (flag, value) in [
      ("--itunes-url", itunesURL), ("--lyrics-url", lyricsURL), ("--charts-url", chartsURL),
    ] {
      if let value, Config.serviceURL(value) == nil {
        throw ValidationError("\(flag) must be an http:// or https:// URL, not '\(value)'")
      }
    }
  }

  /// Starts the player on what `first` asks for (nil: where the last session stopped, else the
  /// bundled catalog); `Riffle.main` then runs it.
  func launch(_ first: SourceKind?) throws {
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
    SubsonicServers.shared.register(config.servers)
    // Each service's base URL: the flag, then the environment, then config.toml, then the default.
    let services: (itunes: URL, lyrics: URL, charts: URL)
    do {
      services = (
        try Config.resolveServiceURL(
          flag: ("--itunes-url", itunesURL),
          environment: ("RIFFLE_ITUNES_URL", environment("RIFFLE_ITUNES_URL")),
          file: config.itunesURL, fallback: ITunesCatalog.defaultBase),
        try Config.resolveServiceURL(
          flag: ("--lyrics-url", lyricsURL),
          environment: ("RIFFLE_LYRICS_URL", environment("RIFFLE_LYRICS_URL")),
          file: config.lyricsURL, fallback: LyricsSource.defaultBaseURL),
        try Config.resolveServiceURL(
          flag: ("--charts-url", chartsURL),
          environment: ("RIFFLE_CHARTS_URL", environment("RIFFLE_CHARTS_URL")),
          file: nil, fallback: AppleCharts.defaultBase)
      )
    } catch {
      throw ValidationError(error.message)
    }
    var start: Start
    var sessionProblem: String?
    if let first {
      start = .open(first)
    } else {
      let (session, problem) = fresh ? (nil, nil) : SessionStore.load(from: paths.sessionFile)
      sessionProblem = problem
      if let session {
        start = .resume(session)
      } else {
        start = .open(.feed(try Riffle.resolveSource(nil)))
      }
    }
    // The command line wins over what the session had.
    if case .resume(var session) = start {
      if shuffle { session.shuffle = true }
      if let mode = `repeat`.flatMap(RepeatMode.init(rawValue:)) { session.repeatMode = mode }
      start = .resume(session)
    }
    let settings = (shuffle: shuffle, repeatMode: `repeat`.flatMap(RepeatMode.init(rawValue:)))
    // The sign-in token goes to the feed opened here, on its own host only.
    var token: FeedToken?
    let feedURL: URL? = {
      switch start {
      case .open(.feed(let url)): return url
      case .resume(let session):
        if case .feed(let url) = session.source { return url }
        return nil
      default: return nil
      }
    }()
    if let feedURL {
      let fromEnvironment = environment("RIFFLE_TOKEN").flatMap { $0.isEmpty ? nil : $0 }
      token = FeedToken(fromEnvironment ?? config.token, for: feedURL)
    }
    redirectStandardError(to: paths.logFile)
    if let sessionProblem {
      FileHandle.standardError.write(Data("session: \(sessionProblem)\n".utf8))
    }
    MainActor.assumeIsolated {
      do {
        try startPlayer(
          start, settings: settings, driver: driver, capture: captureChoice, paths: paths,
          config: (config, problems), services: services, token: token,
          likeSync: likesEndpoint.map { LikeSync(template: $0) },
          notices: [sessionProblem].compactMap { $0 })
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
    guard let source, !source.isEmpty else {
      try options.launch(nil)
      return
    }
    try options.launch(try Riffle.resolveKind(source))
  }
}

/// How the player starts: a source, or a saved session picked up.
enum Start {
  case open(SourceKind)
  case resume(SavedSession)
}

extension Riffle {

  /// What a `riffle SOURCE` argument opens: a folder of music (the library's songs under
  /// it, scanned behind the screen), a playlist file (by its name), else a feed.
  static func resolveKind(_ source: String) throws -> SourceKind {
    let path = URL(fileURLWithPath: source).standardizedFileURL
    var isFolder: ObjCBool = false
    if !source.contains("://"),
      FileManager.default.fileExists(atPath: path.path, isDirectory: &isFolder),
      isFolder.boolValue,
      !FileManager.default.fileExists(atPath: path.appendingPathComponent("songs.json").path)
    {
      // Scanned behind the screen (LibraryLive), its songs shown as they come.
      return .library(.folder(path.path))
    }
    let url = try resolveSource(source)
    return PlaylistFile.looksLikePlaylist(url) ? .playlist(url) : .feed(url)
  }

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

/// `riffle charts [GENRE] [--country CC]`: starts on Apple's most-played songs.
struct Charts: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Apple's most-played songs of a country, in chart order (30 s previews).")

  @Argument(help: ArgumentHelp("A genre, e.g. rock or hip-hop (see --list).", valueName: "genre"))
  var genre: [String] = []

  @Option(
    name: .long, help: ArgumentHelp("The country's chart: a two-letter code.", valueName: "cc"))
  var country: String = "us"

  @Flag(name: .long, help: "List the genres and exit.")
  var list = false

  @OptionGroup var options: PlayerOptions

  func validate() throws {
    if list { return }
    if AppleCharts.country(country) == nil {
      throw ValidationError("--country takes a two-letter country code, not '\(country)'")
    }
    let named = words(genre)
    if !named.isEmpty && AppleCharts.genre(named: named) == nil {
      throw ValidationError("no genre '\(named)'; 'riffle charts --list' names them")
    }
  }

  func run() throws {
    if list {
      for genre in AppleCharts.genres { print(genre.name) }
      return
    }
    let named = words(genre)
    try options.launch(
      .charts(
        genre: named.isEmpty ? nil : AppleCharts.genre(named: named)?.name,
        country: AppleCharts.country(country)!))
  }
}

/// `riffle playlists`: the playlists saved with `w`, one a line (open one with `riffle PATH`).
struct Playlists: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the playlists saved with w (open one with 'riffle PATH').")

  func run() throws {
    let saved = PlaylistFile.saved(in: AppPaths.fromEnvironment().playlists)
    if saved.isEmpty { print("No playlists saved yet: w in the player saves up next as one") }
    for file in saved { print(TextSanitizer.sanitize(file.path)) }
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
  _ start: Start, settings: (shuffle: Bool, repeatMode: RepeatMode?), driver: AudioDriverChoice,
  capture: CaptureChoice, paths: AppPaths,
  config: (config: Config, problems: [Config.Problem]),
  services: (itunes: URL, lyrics: URL, charts: URL), token: FeedToken?, likeSync: LikeSync?,
  notices: [String] = []
) throws {
  let (config, problems) = config
  let environment = ProcessInfo.processInfo.environment
  let colors = ColorChoice.choose(
    term: environment["TERM"] ?? "", environment: environment, setting: config.color,
    colors: { TerminalProbe.describe(term: $0)?.colors }, tmux: TmuxColorQuery.ask)
  FileHandle.standardError.write(Data("colour: \(colors.reason)\n".utf8))
  let pictures = TerminalPictures.choose(
    setting: config.pictures, environment: environment,
    tmux: { TmuxPassthrough.ask(environment: environment) },
    ask: { TerminalPictures.ask(through: $0) })
  FileHandle.standardError.write(Data("pictures: \(pictures.reason)\n".utf8))
  let terminal = try NCursesTerminal(
    entry: colors.entry, pictures: pictures.protocol, passthrough: pictures.passthrough,
    askTmux: { TmuxPassthrough.ask(environment: environment) })
  terminal.onPicture = { id, bytes in Trace.mark("picture \(id) \(bytes)") }
  let likeStore = LikeStore(file: paths.likesFile)
  let box = ModelBox()
  let openOutput = OpenOutput()
  let historyFile = paths.searchHistoryFile
  let sessionFile = paths.sessionFile
  let playlistFolder = paths.playlists
  let clients = PlayerClients(
    pages: .live(
      feeds: FeedSource(token: token), itunes: ITunesCatalog(base: services.itunes),
      charts: AppleCharts(base: services.charts, itunes: ITunesCatalog(base: services.itunes)),
      podcasts: PodcastFeeds.live(paths), library: { LibraryIndexHolder.shared.index },
      radio: RadioBrowser(base: radioBrowserBase(config)),
      stations: FavouriteStations(file: paths.stationsFile)),
    audio: .live(
      cache: DiskCache.audio(paths),
      output: {
        let output = try driver.open()
        openOutput.set(output)
        return output
      },
      events: { event in box.model?.post(event.action) },
      positions: EpisodePositions(file: paths.episodePositionsFile)),
    likes: LikesClient.live(likeStore, remote: likeSync).sendingStars(to: .shared),
    saveSearchHistory: { terms in
      do {
        try SearchHistory.save(terms, to: historyFile)
      } catch {
        FileHandle.standardError.write(Data("search history: \(error)\n".utf8))
      }
    },
    lyrics: LyricsClient.live(
      LyricsSource(
        baseURL: services.lyrics,
        cache: DiskCache(folder: paths.cache.appendingPathComponent("lyrics"), capacity: 8 << 20))
    )
    .readingFileTags(index: {
      // A local song outside the library (the bundled catalog) does not create the index.
      FileManager.default.fileExists(atPath: LibraryIndex.defaultURL(paths).path)
        ? LibraryIndexHolder.shared.index : nil
    })
    .askingServers(.shared),
    identify: .live(
      capture: capture,
      store: Catalog.cacheStore(paths),
      library: LibraryPrintsAccess(
        store: LibraryPrints.store(paths), key: LibraryPrints.key,
        songs: { [libraryFolders = config.libraryFolders] in
          (try? LibraryPrints.songs(configured: libraryFolders)) ?? nil
        })),
    saveSession: { session in
      // On quit: written before the process exits.
      do {
        try SessionStore.save(session, to: sessionFile)
      } catch {
        FileHandle.standardError.write(Data("session: \(error)\n".utf8))
      }
    },
    savePlaylist: { title, songs, done in
      BackgroundWork.run("riffle.playlists") {
        do {
          let file = try PlaylistFile.save(songs, title: title, in: playlistFolder)
          done(.success(file.lastPathComponent))
        } catch {
          done(.failure(Failure(String(describing: error))))
        }
      }
    },
    copyToClipboard: { text in Clipboard.copy(text) },
    scrobble: (Scrobbler.start(
      settings: config.scrobble, paths: paths,
      onProblem: { problem in box.model?.post(.notify(problem)) }
    ).map(ScrobbleClient.live) ?? .none).reportingPlays(to: .shared),
    keepStation: keepStationClient(paths))
  var clientsWithLibrary = clients
  clientsWithLibrary.searchLibrary = PlayerClients.librarySearch {
    LibraryIndexHolder.shared.index
  }
  let cellPixels: (() -> (width: Int, height: Int))? =
    pictures.protocol == .symbols ? nil : { terminal.cellPixels }
  let artwork = Artwork(
    mode: colors.artMode,
    pictures: pictures.protocol, cellPixels: cellPixels,
    load: Artwork.liveLoader(
      client: .shared,
      cache: DiskCache(folder: paths.cache.appendingPathComponent("images"), capacity: 64 << 20)))
  var state = PlayerState()
  // A library shown follows its folders; a folder never scanned shows its songs as they come.
  let library = libraryToFollow(start, folders: config.libraryFolders)
  if let library, library.scanFirst, case .open(let kind) = start {
    state.source = PageSource(kind: kind)
  }
  clientsWithLibrary.reloadLibrary = PlayerClients.libraryReload {
    LibraryIndexHolder.shared.index
  }
  clientsWithLibrary.nameHeard = NameHeard.live(
    output: { openOutput.current }, paths: paths,
    library: {
      FileManager.default.fileExists(atPath: LibraryIndex.defaultURL(paths).path)
        ? LibraryIndexHolder.shared.index : nil
    })
  clientsWithLibrary.keepHeard = { openOutput.keepingRecent = $0 }
  state.searchHistory = SearchHistory.load(from: historyFile)
  state.randomState = UInt64.random(in: 1...UInt64.max)
  state.shuffle = settings.shuffle
  state.repeatMode = settings.repeatMode ?? .off
  let model = PlayerViewModel(
    clients: clientsWithLibrary, terminal: terminal, ticker: DispatchTicker(),
    keyMap: config.keyMap,
    view: PageView(theme: config.theme, keyMap: config.keyMap), state: state, artwork: artwork,
    visualizer: Visualizer(
      samples: { openOutput.current?.heardSamples(count: $0) },
      enable: { openOutput.tapping = $0 }),
    onQuit: { Foundation.exit(0) })
  box.model = model
  liveModel = model
  startDesktop(model: model, notifications: config.notifications)

  let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
  var emptyReads = 0
  input.setEventHandler {
    Trace.mark("input")
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
  switch start {
  case .open where library?.scanFirst == true: break
  case .open(let kind): model.send(.open(kind))
  case .resume(let session): model.send(.resume(session))
  }
  if let library {
    liveLibrary = LibraryLive(
      roots: library.roots, scanAtStart: library.scanAtStart, showingProgress: library.scanFirst,
      post: { box.model?.post($0) })
  }
  for problem in problems {
    FileHandle.standardError.write(Data("\(problem)\n".utf8))
  }
  if let first = problems.first {
    let more = problems.count > 1 ? " (and \(problems.count - 1) more in the log)" : ""
    model.send(.notify("\(first)\(more)"))
  } else if let notice = notices.first {
    model.send(.notify(notice))
  }
}

@MainActor
private var liveLibrary: LibraryLive?

/// The folders a library source at start follows (`riffle FOLDER`: that folder, scanned
/// first when the index has none of its songs; `riffle library` or a library session: the
/// folders config.toml lists); nil for any other source.
private func libraryToFollow(_ start: Start, folders: [String]) -> (
  roots: [URL], scanAtStart: Bool, scanFirst: Bool
)? {
  let kind: SourceKind
  switch start {
  case .open(let opened): kind = opened
  case .resume(let session): kind = session.source
  }
  guard case .library(let query) = kind else { return nil }
  if case .folder(let path) = query {
    let folder = URL(fileURLWithPath: path)
    // A folder seen before is brought up to date behind the screen too, quietly.
    if case .resume = start { return ([folder], true, false) }
    let first = LibraryLive.firstScan(of: folder, in: LibraryIndexHolder.shared.index)
    return ([folder], true, first)
  }
  guard !folders.isEmpty else { return nil }
  return (folders.map { URL(fileURLWithPath: $0) }, false, false)
}

/// The library's index, opened when a library page is first asked for.
private final class LibraryIndexHolder: @unchecked Sendable {
  static let shared = LibraryIndexHolder()
  private let lock = NSLock()
  private var opened: LibraryIndex??

  var index: LibraryIndex? {
    lock.withLock {
      if let opened { return opened }
      let index: LibraryIndex?
      do {
        index = try LibraryIndex()
      } catch {
        FileHandle.standardError.write(Data("library: \(error)\n".utf8))
        index = nil
      }
      opened = .some(index)
      return index
    }
  }
}

/// The output the engine opened, for the visualizer's tap (the engine opens it on first play).
private final class OpenOutput: @unchecked Sendable {
  private let lock = NSLock()
  private var output: (any AudioOutput)?
  private var tap = false
  private var recent = false

  var current: (any AudioOutput)? { lock.withLock { output } }

  func set(_ output: any AudioOutput) {
    lock.withLock {
      self.output = output
      output.tap.isEnabled = tap
      output.tap.keepsRecent = recent
    }
  }

  /// Whether the output keeps its last seconds for a station's `i`.
  var keepingRecent: Bool {
    get { lock.withLock { recent } }
    set {
      lock.withLock {
        recent = newValue
        output?.tap.keepsRecent = newValue
      }
    }
  }

  /// Whether the output keeps what it plays for the visualizer.
  var tapping: Bool {
    get { lock.withLock { tap } }
    set {
      lock.withLock {
        tap = newValue
        output?.tap.isEnabled = newValue
      }
    }
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
