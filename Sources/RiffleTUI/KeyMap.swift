import RiffleCore

/// One thing a key can ask for: its name in config.toml, its default keys, and how the help
/// overlay, the hint line and `--help` speak of it.
///
/// `Command.all` is the one table of key bindings: the key map, config parsing, the help
/// overlay, the hint line and `riffle --help` all read it, so what is on screen is always what
/// is bound.
public struct Command: Sendable {
  /// How the hint line shows a command (its keys, then the label), and when it gives way.
  public struct Hint: Sendable {
    public var label: String
    /// A shorter label, used from `shortFrom` on.
    public var short: (label: String, from: Int)?
    /// The step at which the command leaves the hint line when the line does not fit; nil:
    /// it never does.
    public var dropAt: Int?
  }

  /// The name in config.toml's `[keys]` ("like").
  public var name: String
  public var action: PlayerAction
  public var defaultKeys: [Key]
  /// The line in the help overlay and `--help`, beside every key bound to the command; commands
  /// side by side with the same line share it ("- + =  volume down / up"). Nil: not listed
  /// (keys that only act inside a panel, such as scrolling the lyrics).
  public var help: String?
  /// On the hint line; commands side by side with the same label share an entry ("←/→ page").
  public var hint: Hint?

  init(
    _ name: String, _ action: PlayerAction, keys: [Key], help: String? = nil, hint: Hint? = nil
  ) {
    self.name = name
    self.action = action
    self.defaultKeys = keys
    self.help = help
    self.hint = hint
  }
}

extension Command {
  /// Every command, in the order help lists them.
  public static let all: [Command] = [
    Command(
      "previous", .previous, keys: [.left], help: "previous song",
      hint: Hint(label: "page", dropAt: 5)),
    Command(
      "next", .next, keys: [.right], help: "next song",
      hint: Hint(label: "page", dropAt: 5)),
    Command(
      "play_pause", .togglePlay, keys: [.char(" ")], help: "play / pause",
      hint: Hint(label: "play/pause", short: ("play", 4), dropAt: 6)),
    Command(
      "like", .toggleLike, keys: [.char("l"), .char("L")], help: "like / unlike",
      hint: Hint(label: "like", dropAt: 6)),
    Command(
      "seek_back", .seek(by: -10), keys: [.char("["), .shiftLeft], help: "back 10 s"),
    Command(
      "seek_forward", .seek(by: 10), keys: [.char("]"), .shiftRight],
      help: "forward 10 s"),
    Command("restart", .seekTo(0), keys: [.home], help: "start of the song"),
    Command(
      "search", .openSearch, keys: [.char("/")], help: "search iTunes / library",
      hint: Hint(label: "search", dropAt: 3)),
    Command(
      "artist", .showArtist, keys: [.char("a")], help: "the artist's songs",
      hint: Hint(label: "artist", dropAt: 1)),
    Command("album", .showAlbum, keys: [.char("b")], help: "album (library, server)"),
    Command(
      "lyrics", .toggleLyrics, keys: [.char("y")], help: "show / hide lyrics",
      hint: Hint(label: "lyrics", dropAt: 2)),
    Command("cancel", .cancelSearch, keys: [], help: "stop what is loading"),
    Command("retry", .retry, keys: [.char("r")], help: "retry what failed"),
    Command("identify", .identify, keys: [.char("i")], help: "name a song heard nearby"),
    Command("visualizer", .toggleVisualizer, keys: [.char("v")], help: "show / hide the spectrum"),
    Command("enqueue", .enqueue, keys: [.char("e")], help: "up next: add / play next"),
    Command("play_next", .playNext, keys: [.char("E")], help: "up next: add / play next"),
    Command("show_queue", .showQueue, keys: [.char("u")], help: "show up next"),
    Command("queue_up", .moveInQueue(-1), keys: [.char("K")], help: "up next: move up / down"),
    Command("queue_down", .moveInQueue(1), keys: [.char("J")], help: "up next: move up / down"),
    Command("queue_remove", .removeFromQueue, keys: [.char("d")], help: "up next: remove / clear"),
    Command("queue_clear", .clearQueue, keys: [.char("D")], help: "up next: remove / clear"),
    Command("shuffle", .toggleShuffle, keys: [.char("S")], help: "shuffle on / off"),
    Command("repeat", .cycleRepeat, keys: [.char("R")], help: "repeat off / all / one"),
    Command("volume_down", .changeVolume(-5), keys: [.char("-")], help: "volume down / up"),
    Command(
      "volume_up", .changeVolume(5), keys: [.char("+"), .char("=")], help: "volume down / up"),
    Command("mute", .toggleMute, keys: [.char("m")], help: "mute / unmute"),
    Command("share", .share, keys: [.char("s")], help: "copy the song's link"),
    Command("save_playlist", .savePlaylist, keys: [.char("w")], help: "save as a playlist"),
    Command("lyrics_up", .scrollLyrics(-1), keys: [.up]),
    Command("lyrics_down", .scrollLyrics(1), keys: [.down]),
    Command("lyrics_page_up", .pageLyrics(-1), keys: [.pageUp]),
    Command("lyrics_page_down", .pageLyrics(1), keys: [.pageDown]),
    Command(
      "help", .toggleHelp, keys: [.char("?")], help: "show / hide this help",
      hint: Hint(label: "help")),
    Command(
      "quit", .quit, keys: [.char("q"), .char("Q")], help: "quit", hint: Hint(label: "quit")),
  ]

  /// The command with this name in config.toml.
  public static func named(_ name: String) -> Command? {
    all.first { $0.name == name }
  }
}

/// Which action each key asks for: the table's defaults, with config.toml's `[keys]` applied.
public struct KeyMap: Sendable {
  public var bindings: [Key: PlayerAction]

  public init(bindings: [Key: PlayerAction]) {
    self.bindings = bindings
  }

  /// Every command on its default keys.
  public static let standard = KeyMap(
    bindings: Dictionary(
      Command.all.flatMap { command in command.defaultKeys.map { ($0, command.action) } },
      uniquingKeysWith: { first, _ in first }))

  public func action(for key: Key) -> PlayerAction? {
    bindings[key]
  }

  /// Binds `keys` to `action` instead of its keys until now; each key leaves whatever it was
  /// bound to before.
  public mutating func rebind(_ action: PlayerAction, to keys: [Key]) {
    bindings = bindings.filter { $0.value != action && !keys.contains($0.key) }
    for key in keys { bindings[key] = action }
  }

  /// The names of the keys bound to an action, the plainest first ("l", then "Shift+Left").
  public func names(for action: PlayerAction) -> [String] {
    bindings.filter { $0.value == action }.map(\.key).sorted { a, b in
      (a.sortRank, a.displayName) < (b.sortRank, b.displayName)
    }.map(\.displayName)
  }

  /// The help's rows as bound now: every key of each command, and what it does. A command
  /// bound to no key is left out.
  public func helpRows() -> [(keys: String, text: String)] {
    var rows: [(keys: [String], text: String)] = []
    for command in Command.all {
      let keys = names(for: command.action)
      guard let text = command.help, !keys.isEmpty else { continue }
      if let last = rows.last, last.text == text {
        rows[rows.count - 1].keys += keys
      } else {
        rows.append((keys, text))
      }
    }
    return rows.map { ($0.keys.joined(separator: " "), $0.text) }
  }

  /// The longest hint line that fits in `width` columns, with the keys as bound now.
  public func hints(fitting width: Int) -> String {
    let steps = Command.all.compactMap { $0.hint?.dropAt }.max() ?? 0
    var line = ""
    for step in 0...steps + 1 {
      line = hintLine(step: step)
      if DisplayWidth.of(line) <= width { return line }
    }
    return line
  }

  /// The hint line once the commands dropping at or before `step` have left it.
  private func hintLine(step: Int) -> String {
    var entries: [(keys: [String], label: String)] = []
    for command in Command.all {
      guard let hint = command.hint, (hint.dropAt ?? Int.max) > step,
        let key = names(for: command.action).first
      else { continue }
      let label = hint.short.map { step >= $0.from ? $0.label : hint.label } ?? hint.label
      if let last = entries.last, last.label == label {
        entries[entries.count - 1].keys.append(key)
      } else {
        entries.append(([key], label))
      }
    }
    return entries.map { $0.keys.joined(separator: "/") + " " + $0.label }
      .joined(separator: "  ")
  }
}

extension Key {
  /// How the key is written in help and in config.toml.
  public var displayName: String {
    switch self {
    case .char(" "): return "space"
    case .char(let c): return String(c)
    case .left: return "←"
    case .right: return "→"
    case .up: return "↑"
    case .down: return "↓"
    case .shiftLeft: return "Shift+←"
    case .shiftRight: return "Shift+→"
    case .home: return "Home"
    case .end: return "End"
    case .pageUp: return "PgUp"
    case .pageDown: return "PgDn"
    case .enter: return "Enter"
    case .escape: return "Esc"
    case .backspace: return "Backspace"
    case .tab: return "Tab"
    case .resize: return "resize"
    case .mouse, .mousePrefix: return "mouse"
    case .function(let n): return "F\(n)"
    case .unknown(let code): return "key \(code)"
    }
  }

  /// Arrows and plain characters come before modified and named keys in listings.
  fileprivate var sortRank: Int {
    switch self {
    case .left, .right, .up, .down: return 0
    case .char(let c) where c.isLowercase || c.isPunctuation || c == " ": return 1
    case .char: return 2
    default: return 3
    }
  }
}
