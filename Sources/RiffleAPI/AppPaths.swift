import Foundation

/// Where Riffle keeps a user's files, following the XDG base directory rules.
public struct AppPaths: Sendable, Equatable {
  /// `$XDG_CONFIG_HOME/riffle` (default ~/.config/riffle): config.toml.
  public var config: URL
  /// `$XDG_DATA_HOME/riffle` (default ~/.local/share/riffle): likes, listens to scrobble.
  public var data: URL
  /// `$XDG_CACHE_HOME/riffle` (default ~/.cache/riffle): images, audio, the log.
  public var cache: URL

  public init(config: URL, data: URL, cache: URL) {
    self.config = config
    self.data = data
    self.cache = cache
  }

  /// Paths from the environment; relative XDG values are ignored, as the spec says.
  public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment)
    -> AppPaths
  {
    let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    func base(_ key: String, _ fallback: String) -> URL {
      if let value = env[key], value.hasPrefix("/") {
        return URL(fileURLWithPath: value, isDirectory: true)
      }
      return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(fallback)
    }
    return AppPaths(
      config: base("XDG_CONFIG_HOME", ".config").appendingPathComponent("riffle"),
      data: base("XDG_DATA_HOME", ".local/share").appendingPathComponent("riffle"),
      cache: base("XDG_CACHE_HOME", ".cache").appendingPathComponent("riffle"))
  }

  public var likesFile: URL { data.appendingPathComponent("likes.json") }
  /// The shows the user follows.
  public var podcastsFile: URL { data.appendingPathComponent("podcasts.json") }
  /// The radio stations the user keeps (`FavouriteStations`).
  public var stationsFile: URL { data.appendingPathComponent("stations.json") }
  /// Where each podcast episode was left.
  public var episodePositionsFile: URL { data.appendingPathComponent("episode-positions.json") }
  public var logFile: URL { cache.appendingPathComponent("riffle.log") }
  /// The session a start without arguments picks up.
  public var sessionFile: URL { data.appendingPathComponent("session.json") }
  /// Playlists saved with `w`.
  public var playlists: URL { data.appendingPathComponent("playlists", isDirectory: true) }
  /// Listens waiting to be scrobbled (`Scrobbler`).
  public var scrobbleQueueFile: URL { data.appendingPathComponent("scrobbles.json") }
}
