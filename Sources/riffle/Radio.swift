import ArgumentParser
import Foundation
import RiffleAPI
import RiffleApp
import RiffleCore

/// `riffle radio search TERM`, `riffle radio` (or `riffle radio favourites`): live stations as
/// pages, one station a page.
struct Radio: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Live radio: search Radio Browser's stations (search TERM) or play the ones you keep.",
    discussion: """
      On a station's page, l keeps the station (riffle radio plays the ones kept); the page
      shows the song the station names, and pause and play rejoin the live stream. The
      directory is https://www.radio-browser.info; RIFFLE_RADIO_BROWSER_URL or
      radio_browser_url in config.toml name another server.
      """,
    subcommands: [Favourites.self, Search.self],
    defaultSubcommand: Favourites.self)

  struct Search: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Play the stations whose name holds TERM, most listened to first.")

    @Argument(help: ArgumentHelp("Words of the station's name.", valueName: "term"))
    var words: [String]

    @OptionGroup var options: PlayerOptions

    func validate() throws {
      let term = words.joined(separator: " ").trimmingCharacters(in: .whitespaces)
      if term.isEmpty { throw ValidationError("Say what to search for: riffle radio search TERM") }
      _ = try radioBrowserBaseChecked()
    }

    func run() throws {
      try options.launch(.radioSearch(words.joined(separator: " ")))
    }
  }

  struct Favourites: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "favourites", abstract: "Play the stations you keep (l on a station's page).",
      aliases: ["favorites"])

    @OptionGroup var options: PlayerOptions

    func run() throws {
      try options.launch(.radioFavourites)
    }
  }
}

/// The Radio Browser server: RIFFLE_RADIO_BROWSER_URL, then config.toml's `radio_browser_url`,
/// then the public directory.
func radioBrowserBase(_ config: Config) -> URL {
  (try? radioBrowserBaseChecked(config)) ?? RadioBrowser.defaultBase
}

/// As `radioBrowserBase`, with a variable that is not an http(s) URL an error.
func radioBrowserBaseChecked(_ config: Config? = nil) throws -> URL {
  let name = "RIFFLE_RADIO_BROWSER_URL"
  do {
    return try Config.resolveServiceURL(
      flag: ("", nil), environment: (name, ProcessInfo.processInfo.environment[name]),
      file: config?.radioBrowserURL, fallback: RadioBrowser.defaultBase)
  } catch {
    throw ValidationError(error.message)
  }
}

/// Keeps stations in `$XDG_DATA_HOME/riffle/stations.json`, off the main queue.
func keepStationClient(_ paths: AppPaths)
  -> @Sendable (
    Song, Bool, @escaping @Sendable (String?) -> Void
  ) -> Void
{
  let stations = FavouriteStations(file: paths.stationsFile)
  return { song, kept, done in
    BackgroundWork.run("riffle.stations") {
      do {
        try stations.set(
          FavouriteStation(
            url: song.audioURL.absoluteString, name: song.title, genre: song.displayName),
          kept: kept)
        done(nil)
      } catch {
        done(String(describing: error))
      }
    }
  }
}
