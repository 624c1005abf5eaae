import ArgumentParser
import Foundation
import RiffleAPI
import RiffleApp
import RiffleCore

#if canImport(Glibc)
  import Glibc
#endif

/// `riffle server NAME`, `riffle server add NAME URL USER`, `riffle server list`: the
/// Subsonic-compatible servers of config.toml's `[[servers]]`.
struct Server: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Play from a Subsonic-compatible server (Navidrome, Airsonic, Gonic, Supysonic...).",
    discussion: """
      Examples:
        riffle server add home https://music.example.org me   # asks for the password
        riffle server list
        riffle server home          # its albums, newest first: b or Space opens one
      """,
    subcommands: [ServerOpen.self, ServerAdd.self, ServerList.self],
    defaultSubcommand: ServerOpen.self)

  static var configFile: URL {
    AppPaths.fromEnvironment().config.appendingPathComponent("config.toml")
  }

  /// The servers config.toml names; problems with the file go to stderr.
  static func servers() -> [SubsonicServerSettings] {
    let (config, problems) = Config.load(from: configFile)
    for problem in problems { Library.printError("riffle: \(problem)") }
    return config.servers
  }
}

/// `riffle server NAME`
struct ServerOpen: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "open",
    abstract: "Open a server: its albums newest first, one page each (b or Space opens one).")

  @Argument(help: ArgumentHelp("The server's name in config.toml.", valueName: "name"))
  var name: String

  @OptionGroup var options: PlayerOptions

  func run() throws {
    let servers = Server.servers()
    guard let server = servers.first(where: { $0.name.lowercased() == name.lowercased() }) else {
      let known = servers.map(\.name).joined(separator: ", ")
      throw ValidationError(
        "no server named '\(TextSanitizer.sanitize(name))' in config.toml"
          + (known.isEmpty ? "; add one with riffle server add NAME URL USER" : " (\(known))"))
    }
    try options.launch(.server(server.name, .albums))
  }
}

/// `riffle server add NAME URL USER`: the password is read from the terminal without echo (or
/// a line of stdin), never from the command line, which shells keep in their history.
struct ServerAdd: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add",
    abstract:
      "Add a server to config.toml (written 0600); the password is asked for, or read from stdin.")

  @Argument(help: ArgumentHelp("A name for it: letters, digits and -.", valueName: "name"))
  var name: String

  @Argument(help: ArgumentHelp("Its base URL (http:// or https://).", valueName: "url"))
  var url: String

  @Argument(help: ArgumentHelp("The user to sign in as.", valueName: "user"))
  var user: String

  func validate() throws {
    guard SubsonicServerSettings.isValidName(name), !["add", "list", "open"].contains(name)
    else {
      throw ValidationError("a server's name is letters, digits and - (and not add, list or open)")
    }
    guard Config.serviceURL(url) != nil else {
      throw ValidationError("the URL must be http:// or https://, not '\(url)'")
    }
    if user.isEmpty { throw ValidationError("give the user to sign in as") }
  }

  func run() throws {
    if Server.servers().contains(where: { $0.name.lowercased() == name.lowercased() }) {
      throw ValidationError("there is a server named '\(name)' already in config.toml")
    }
    guard let password = Self.readPassword(prompt: "Password for \(user) at \(name): "),
      !password.isEmpty
    else {
      throw ValidationError("no password given")
    }
    let file = Server.configFile
    let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    let updated = Config.addingServer(
      name: name, url: url, user: user, password: password, to: text)
    let (_, problems) = Config.parse(updated)
    if let problem = problems.first(where: { $0.message.contains(name) }) {
      throw ValidationError("config.toml would not take it: \(problem.message)")
    }
    do {
      try AtomicFile.write(Data(updated.utf8), to: file, mode: 0o600)
    } catch {
      throw ValidationError("cannot write \(file.path): \(error)")
    }
    print("Added \(name): riffle server \(name)")
  }

  /// A line from the terminal with echo off, or from stdin when it is not a terminal.
  static func readPassword(prompt: String) -> String? {
    guard isatty(STDIN_FILENO) == 1 else { return readLine(strippingNewline: true) }
    FileHandle.standardError.write(Data(prompt.utf8))
    var saved = termios()
    tcgetattr(STDIN_FILENO, &saved)
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
    defer {
      tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
      FileHandle.standardError.write(Data("\n".utf8))
    }
    return readLine(strippingNewline: true)
  }
}

/// `riffle server list`: NAME  URL  USER  how it signs in, one a line (never a secret).
struct ServerList: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List the servers of config.toml (never their passwords).")

  func run() throws {
    let servers = Server.servers()
    if servers.isEmpty { print("No servers yet: riffle server add NAME URL USER") }
    for server in servers {
      var shown = URLComponents(url: server.url, resolvingAgainstBaseURL: true)
      shown?.user = nil
      shown?.password = nil
      let how: String
      switch server.credential {
      case .password: how = server.allowPlainPassword ? "password (plain allowed)" : "password"
      case .apiKey: how = "API key"
      }
      let url = shown?.url?.absoluteString ?? ""
      print(
        TextSanitizer.sanitize("\(server.name)  \(url)  \(server.user)  \(how)"))
    }
  }
}
