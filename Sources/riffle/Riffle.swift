import ArgumentParser
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

/// `riffle`: the composition root. With no subcommand (or `play`) it runs the player;
/// `riffle identify` names a recording.
@main
struct Riffle: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "riffle",
    abstract: "A full-screen terminal music player: one song a page, arrows to swipe.",
    discussion: """
      With no subcommand Riffle plays: riffle [SOURCE] [--audio DRIVER] [--capture SOURCE], \
      where --audio is auto, pulse, alsa, null or wav:PATH and --capture (what i listens \
      with) is auto or file:PATH. 'riffle help play' has every option.

      Examples:
        riffle                                   # the bundled catalog, offline
        riffle https://apitest.suno.com/api/songs --audio wav:/tmp/out.wav
        riffle identify clip.wav                 # name the song in a recording
      """,
    version: "riffle \(RiffleVersion.string)",
    subcommands: [Play.self, Identify.self],
    defaultSubcommand: Play.self)
}

/// `riffle [play] [SOURCE] [--audio DRIVER]`: builds the live world and runs the player.
struct Play: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Play a feed (the default): one song a page, arrows to swipe.",
    discussion: """
      Keys: Left/Right page between songs, space plays and pauses, l likes, i names the song \
      playing nearby, ? shows help, q quits.

      Examples:
        riffle                                   # the bundled catalog, offline
        riffle https://apitest.suno.com/api/songs
        riffle ~/music/feed.json --audio wav:/tmp/out.wav
      """)

  @Argument(
    help: ArgumentHelp(
      "A feed: an http(s):// or file:// URL, or a path to a feed file. None plays the bundled catalog.",
      valueName: "source"))
  var source: String?

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
    name: .long,
    help: ArgumentHelp(
      "What i listens with: auto (the default capture device) or file:PATH (a recording played in real time). RIFFLE_CAPTURE sets it too.",
      valueName: "source"))
  var capture: String?

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
  }

  /// The capture source as asked for: the option, then RIFFLE_CAPTURE, then auto.
  var captureArgument: String {
    capture ?? ProcessInfo.processInfo.environment["RIFFLE_CAPTURE"].flatMap {
      $0.isEmpty ? nil : $0
    }
      ?? "auto"
  }

  func run() throws {
    let driver = AudioDriverChoice(argument: audio)!
    let captureChoice = CaptureChoice(argument: captureArgument)!
    let feedURL = try Riffle.resolveSource(source)
    guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
      throw ValidationError("riffle needs a terminal (stdin and stdout must be a TTY)")
    }
    let paths = AppPaths.fromEnvironment()
    redirectStandardError(to: paths.logFile)
    MainActor.assumeIsolated {
      do {
        try startPlayer(
          feedURL: feedURL, driver: driver, capture: captureChoice, paths: paths,
          likeSync: likesEndpoint.map { LikeSync(template: $0) })
      } catch {
        FileHandle.standardError.write(Data("riffle: \(error)\n".utf8))
        Foundation.exit(1)
      }
    }
    dispatchMain()
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

@MainActor
private var liveSources: [any DispatchSourceProtocol] = []
@MainActor
private var liveModel: PlayerViewModel?

@MainActor
private func startPlayer(
  feedURL: URL, driver: AudioDriverChoice, capture: CaptureChoice, paths: AppPaths,
  likeSync: LikeSync?
) throws {
  let terminal = try NCursesTerminal()
  let likeStore = LikeStore(file: paths.likesFile)
  let feeds = FeedSource()
  let box = ModelBox()
  let clients = PlayerClients(
    loadFeed: { url, done in feeds.load(url, completion: done) },
    audio: .live(
      cache: DiskCache(folder: paths.cache.appendingPathComponent("audio"), capacity: 512 << 20),
      output: { try AudioOutput.open(driver) },
      events: { event in box.model?.post(event.action) }),
    likes: .live(likeStore, remote: likeSync),
    identify: .live(
      capture: capture,
      store: FingerprintStore(folder: paths.cache.appendingPathComponent("fingerprints"))))
  let (config, problems) = Config.load(from: paths.config.appendingPathComponent("config.toml"))
  let artwork = Artwork(
    mode: Artwork.mode(
      environment: ProcessInfo.processInfo.environment, terminalColors: terminal.colorCount),
    load: Artwork.liveLoader(
      client: .shared,
      cache: DiskCache(folder: paths.cache.appendingPathComponent("images"), capacity: 64 << 20)))
  let model = PlayerViewModel(
    clients: clients, terminal: terminal, ticker: DispatchTicker(), keyMap: config.keyMap,
    view: PageView(theme: config.theme, keyMap: config.keyMap), artwork: artwork,
    onQuit: { Foundation.exit(0) })
  box.model = model
  liveModel = model

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
  model.send(.start(feedURL))
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
