import ArgumentParser
import Foundation
import RiffleAPI
import RiffleApp
import RiffleAudio
import RiffleCore
import RiffleDesktop
import RiffleTUI

#if canImport(Glibc)
  import Glibc
#endif

/// `riffle doctor`: checks what Riffle needs on this machine and says what to fix.
struct Doctor: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "doctor",
    abstract: "Check the terminal, audio, network, config, folders and session bus.",
    discussion: """
      Prints one line per check: OK, WARN (Riffle works, with less) or FAIL (something the \
      user asked for will not work), and what to do about it. Exits with 1 when a check fails.
      """)

  @Argument(
    help: ArgumentHelp(
      "A feed whose reach to check (an http(s):// or file:// URL or a path). Default: the bundled catalog.",
      valueName: "source"))
  var source: String?

  func run() throws {
    let environment = ProcessInfo.processInfo.environment
    let paths = AppPaths.fromEnvironment(environment)
    let (config, problems) = Config.load(from: paths.config.appendingPathComponent("config.toml"))
    var checks: [DoctorCheck] = []
    checks += DoctorCheck.terminal(environment: environment, color: config.color)
    checks.append(DoctorCheck.pictures(environment: environment, setting: config.pictures))
    checks.append(DoctorCheck.audio())
    checks.append(DoctorCheck.curl())
    checks.append(DoctorCheck.ffmpeg())
    checks.append(DoctorCheck.source(source))
    checks += DoctorCheck.services(config: config, environment: environment)
    checks += DoctorCheck.servers(config.servers)
    checks += DoctorCheck.config(problems, file: paths.config.appendingPathComponent("config.toml"))
    checks.append(DoctorCheck.folder("data", paths.data, variable: "XDG_DATA_HOME"))
    checks.append(DoctorCheck.folder("cache", paths.cache, variable: "XDG_CACHE_HOME"))
    checks += DoctorCheck.sessionBus(notifications: config.notifications)
    for check in checks { print(check.line) }
    if checks.contains(where: { $0.level == .fail }) { throw ExitCode(1) }
  }
}

/// One finding of `riffle doctor`.
struct DoctorCheck {
  enum Level: String {
    case ok = "OK"
    case warn = "WARN"
    case fail = "FAIL"
  }
  var level: Level
  var name: String
  var finding: String
  var fix: String? = nil

  var line: String {
    let head = "\(level.rawValue.padding(toLength: 4, withPad: " ", startingAt: 0))  \(name): "
    return head + finding + (fix.map { " -> \($0)" } ?? "")
  }

  /// How covers will be shown: the same decision (and the same question to the terminal,
  /// when stdin and stdout are one) as the player's at start.
  static func pictures(environment: [String: String], setting: PictureSetting) -> DoctorCheck {
    let choice = TerminalPictures.choose(
      setting: setting, environment: environment,
      tmux: { TmuxPassthrough.ask(environment: environment) },
      ask: { TerminalPictures.ask(through: $0) })
    return DoctorCheck(level: .ok, name: "pictures", finding: choice.reason)
  }

  static func terminal(environment: [String: String], color: ColorSetting = .auto)
    -> [DoctorCheck]
  {
    var checks: [DoctorCheck] = []
    let term = environment["TERM"] ?? ""
    if term.isEmpty {
      checks.append(
        DoctorCheck(
          level: .fail, name: "terminal", finding: "TERM is not set",
          fix: "run riffle in a terminal, or set TERM (e.g. xterm-256color)"))
    } else if let entry = TerminalProbe.describe(term: term) {
      if !entry.canAddress {
        checks.append(
          DoctorCheck(
            level: .fail, name: "terminal", finding: "\(term) cannot move the cursor",
            fix: "use a full-screen terminal type such as xterm-256color"))
      } else if entry.colors < 256 {
        let colours = entry.colors > 0 ? "only \(entry.colors) colours" : "no colours"
        checks.append(
          DoctorCheck(
            level: .warn, name: "terminal", finding: "\(term) has \(colours); covers look coarse",
            fix: "use a 256-colour type such as xterm-256color or tmux-256color"))
      } else {
        // The same decision the player makes at start (ColorChoice), so this line is what
        // the screen will do.
        let choice = ColorChoice.choose(
          term: term, environment: environment, setting: color,
          colors: { TerminalProbe.describe(term: $0)?.colors }, tmux: TmuxColorQuery.ask)
        checks.append(
          DoctorCheck(level: .ok, name: "terminal", finding: "\(term), \(choice.reason)"))
      }
    } else {
      checks.append(
        DoctorCheck(
          level: .fail, name: "terminal", finding: "no terminfo entry for TERM=\(term)",
          fix: "install ncurses-term, or set TERM to a known type such as xterm-256color"))
    }

    setlocale(LC_ALL, "")
    let codeset = String(cString: nl_langinfo(nl_item(CODESET)))
    checks.append(
      codeset == "UTF-8"
        ? DoctorCheck(level: .ok, name: "locale", finding: "UTF-8")
        : DoctorCheck(
          level: .warn, name: "locale",
          finding: "the character set is \(codeset); Riffle switches to C.UTF-8 where it can",
          fix: "set LANG to a UTF-8 locale, e.g. LANG=C.UTF-8"))

    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
      let text = "\(size.ws_col)x\(size.ws_row)"
      checks.append(
        size.ws_col >= 30 && size.ws_row >= 8
          ? DoctorCheck(level: .ok, name: "size", finding: text)
          : DoctorCheck(
            level: .warn, name: "size", finding: "\(text) is too small for the page",
            fix: "make the window at least 30x8"))
    } else {
      checks.append(
        DoctorCheck(
          level: .warn, name: "size", finding: "standard output is not a terminal",
          fix: "run riffle in a terminal"))
    }
    return checks
  }

  /// Opens each sound device `auto` tries (no sound is played) with C libraries' chatter kept
  /// off the report; the null output, where `auto` ends, always opens.
  static func audio() -> DoctorCheck {
    var opened: [String] = []
    var refused: [String] = []
    withStandardErrorSilenced {
      for (name, choice) in [("pulse", AudioDriverChoice.pulse), ("alsa", .alsa)] {
        do {
          try choice.open().close()
          opened.append(name)
        } catch {
          refused.append("\(name): \(error)")
        }
      }
    }
    let notes = refused.isEmpty ? "" : " (\(refused.joined(separator: "; ")))"
    guard opened.isEmpty else {
      return DoctorCheck(
        level: .ok, name: "audio", finding: "\(opened.joined(separator: ", ")) open" + notes)
    }
    return DoctorCheck(
      level: .warn, name: "audio",
      finding: "no sound device, only null opens: songs play silently" + notes,
      fix: "start PulseAudio or PipeWire, or check ALSA (aplay -l)")
  }

  /// libcurl is loaded by the first http(s) transfer; this says now whether it will load.
  static func curl() -> DoctorCheck {
    let name = NetworkLibraries.curlSoname
    if let problem = NetworkLibraries.curlProblem() {
      return DoctorCheck(
        level: .warn, name: "libcurl",
        finding: "cannot load: \(problem); local files play, nothing online does",
        fix: "install libcurl (\(name), Debian's libcurl4)")
    }
    return DoctorCheck(level: .ok, name: "libcurl", finding: "\(name) loads (http and https)")
  }

  /// FFmpeg is loaded only when a song needs it; this says now whether it will load.
  static func ffmpeg() -> DoctorCheck {
    let names = FFmpegLibraries.sonames
    if let problem = FFmpegLibraries.problem() {
      return DoctorCheck(
        level: .warn, name: "ffmpeg", finding: "cannot load: \(problem); MP3 plays, AAC does not",
        fix: "install FFmpeg's libraries (\(names.joined(separator: ", ")))")
    }
    return DoctorCheck(
      level: .ok, name: "ffmpeg",
      finding: "\(names.joined(separator: ", ")) load (AAC previews, FLAC, Ogg, WAV)")
  }

  /// Loads the feed (or the bundled catalog) through the HTTP client with short time-outs.
  static func source(_ source: String?) -> DoctorCheck {
    let url: URL
    do {
      url = try Riffle.resolveSource(source)
    } catch {
      return DoctorCheck(
        level: .fail, name: "source", finding: Play.message(for: error),
        fix: "pass an http(s):// or file:// URL or the path of a feed")
    }
    let feeds = FeedSource(client: HTTPClient(connectTimeout: 5, stallTimeout: 5))
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var outcome: Result<FeedPage, FeedLoadError>?
    feeds.load(url) { result in
      outcome = result
      done.signal()
    }
    done.wait()
    switch outcome {
    case .success(let page):
      return DoctorCheck(
        level: .ok, name: "source",
        finding: "\(url.absoluteString) answers with \(page.songs.count) songs")
    case .failure(let error):
      return DoctorCheck(
        level: .fail, name: "source", finding: "\(url.absoluteString): \(error.userMessage)",
        fix: url.isFileURL ? "check the path" : "check the address and the network connection")
    case nil:
      return DoctorCheck(level: .fail, name: "source", finding: "no answer")
    }
  }

  /// The search and lyrics servers, found as the player finds them (variable, config, default).
  static func services(config: Config, environment: [String: String]) -> [DoctorCheck] {
    let services: [(name: String, variable: String, file: URL?, fallback: URL)] = [
      ("search", "RIFFLE_ITUNES_URL", config.itunesURL, ITunesCatalog.defaultBase),
      ("lyrics", "RIFFLE_LYRICS_URL", config.lyricsURL, LyricsSource.defaultBaseURL),
    ]
    return services.map { service in
      do {
        let base = try Config.resolveServiceURL(
          flag: ("", nil), environment: (service.variable, environment[service.variable]),
          file: service.file, fallback: service.fallback)
        return reach(service.name, base, variable: service.variable)
      } catch {
        return DoctorCheck(
          level: .fail, name: service.name,
          finding: "\(error)",
          fix: "set \(service.variable) to an http(s) URL, or unset it")
      }
    }
  }

  /// Any HTTP answer (even an error status) means the server is there; the player works
  /// without search and lyrics, so not reaching one is a warning.
  static func reach(_ name: String, _ base: URL, variable: String) -> DoctorCheck {
    let client = HTTPClient(connectTimeout: 5, stallTimeout: 5)
    switch client.fetchSync(HTTPRequest(url: base, maxBytes: 1 << 20)) {
    case .success(let response):
      return DoctorCheck(
        level: .ok, name: name, finding: "\(base.absoluteString) answers (HTTP \(response.status))")
    case .failure(.status(let code, _, _, _)):
      return DoctorCheck(
        level: .ok, name: name, finding: "\(base.absoluteString) answers (HTTP \(code))")
    case .failure(.tooLarge):
      return DoctorCheck(level: .ok, name: name, finding: "\(base.absoluteString) answers")
    case .failure(let error):
      return DoctorCheck(
        level: .warn, name: name, finding: "\(base.absoluteString): \(error.userMessage)",
        fix: "check the network connection, or point \(variable) at a server that answers")
    }
  }

  static func config(_ problems: [Config.Problem], file: URL) -> [DoctorCheck] {
    guard !problems.isEmpty else {
      let exists = FileManager.default.fileExists(atPath: file.path)
      return [
        DoctorCheck(
          level: .ok, name: "config",
          finding: exists ? "\(file.path) is valid" : "no \(file.path); the defaults apply")
      ]
    }
    return problems.map {
      DoctorCheck(
        level: .fail, name: "config", finding: $0.description,
        fix: "edit \(file.path) (see man riffle, CONFIGURATION)")
    }
  }

  /// The folder exists (or can be made) and a file can be written in it.
  static func folder(_ name: String, _ url: URL, variable: String) -> DoctorCheck {
    let probe = url.appendingPathComponent(".riffle-doctor-\(getpid())")
    do {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      try Data("ok".utf8).write(to: probe)
      try FileManager.default.removeItem(at: probe)
      return DoctorCheck(level: .ok, name: name, finding: "\(url.path) is writable")
    } catch {
      let reason = (error as NSError).localizedFailureReason ?? "\(error.localizedDescription)"
      return DoctorCheck(
        level: .fail, name: name, finding: "cannot write in \(url.path) (\(reason))",
        fix: "make it writable (chmod u+w), or point \(variable) elsewhere")
    }
  }

  static func sessionBus(notifications: Bool) -> [DoctorCheck] {
    let finding = SessionBusProbe.check()
    guard finding.problem == nil else {
      return [
        DoctorCheck(
          level: .warn, name: "session bus",
          finding: "\(finding.problem ?? ""): media keys, playerctl and notifications are off",
          fix: "run riffle inside a desktop session")
      ]
    }
    var checks = [
      DoctorCheck(
        level: .ok, name: "session bus",
        finding: finding.mprisNameTaken
          ? "answers; another Riffle owns the MPRIS name, this one will add .instance<pid>"
          : "answers; MPRIS as \(MediaPlayerService.busName)")
    ]
    if notifications {
      checks.append(
        finding.hasNotificationServer
          ? DoctorCheck(level: .ok, name: "notifications", finding: "a notification server runs")
          : DoctorCheck(
            level: .warn, name: "notifications",
            finding: "enabled in the config, but no notification server runs",
            fix: "start one (your desktop's, or dunst/mako)"))
    }
    return checks
  }
}

/// Runs `body` with fd 2 pointed at /dev/null: ALSA and PulseAudio print when they fail to open.
private func withStandardErrorSilenced(_ body: () -> Void) {
  let saved = dup(STDERR_FILENO)
  let null = open("/dev/null", O_WRONLY)
  if saved >= 0 && null >= 0 { dup2(null, STDERR_FILENO) }
  body()
  if saved >= 0 {
    dup2(saved, STDERR_FILENO)
    close(saved)
  }
  if null >= 0 { close(null) }
}
