import Foundation

/// Sends likes to a server: POST to like, DELETE to unlike, at a URL made from a template such
/// as `https://host/api/songs/{id}/like`.
///
/// Each song is settled on its own: a change waits a moment for the user to stop toggling, one
/// request per song is in flight at a time, and when it returns the latest wish is sent if it
/// still differs from what the server has. Ten quick toggles cost at most two requests.
public final class LikeSync: @unchecked Sendable {
  public let template: String
  private let client: HTTPClient
  private let debounce: TimeInterval
  private let queue = DispatchQueue(label: "riffle.likesync")
  private var songs: [String: SongState] = [:]

  private struct SongState {
    /// What the server is known to hold; nil until it has answered once.
    var confirmed: Bool?
    var wanted: Bool
    var inFlight = false
    var pending: DispatchWorkItem?
    var onRejected: (@Sendable (Bool, String) -> Void)?
  }

  /// `template` must contain `{id}`.
  public init(template: String, client: HTTPClient = .shared, debounce: TimeInterval = 0.3) {
    self.template = template
    self.client = client
    self.debounce = debounce
  }

  /// Checks a template before use: it needs `{id}` and an http(s) URL.
  public static func validate(_ template: String) -> String? {
    guard template.contains("{id}") else { return "the likes endpoint must contain {id}" }
    let sample = template.replacingOccurrences(of: "{id}", with: "x")
    guard let url = URL(string: sample), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https", url.host != nil
    else { return "the likes endpoint must be an http(s) URL" }
    return nil
  }

  /// The URL for one song.
  public func url(for songID: String) -> URL? {
    let id = songID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"]))
    return URL(string: template.replacingOccurrences(of: "{id}", with: id ?? songID))
  }

  /// Wants the server to hold `liked` for the song. `onRejected(liked, reason)` runs when the
  /// server refuses a state it was sent (the caller rolls that state back).
  public func set(
    _ songID: String, liked: Bool, onRejected: @escaping @Sendable (Bool, String) -> Void
  ) {
    queue.async { [self] in
      var state = songs[songID] ?? SongState(wanted: liked)
      state.wanted = liked
      state.onRejected = onRejected
      state.pending?.cancel()
      let work = DispatchWorkItem { [weak self] in self?.send(songID) }
      state.pending = work
      songs[songID] = state
      queue.asyncAfter(deadline: .now() + debounce, execute: work)
    }
  }

  /// Waits until nothing is waiting or in flight (for tests and quitting).
  public func settle(timeout: TimeInterval) {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      let busy = queue.sync { songs.values.contains { $0.inFlight || $0.pending != nil } }
      if !busy { return }
      Thread.sleep(forTimeInterval: 0.02)
    }
  }

  /// On the queue: sends the wanted state if the server does not hold it yet.
  private func send(_ songID: String) {
    guard var state = songs[songID] else { return }
    state.pending = nil
    guard !state.inFlight, state.confirmed != state.wanted, let url = url(for: songID) else {
      songs[songID] = state
      return
    }
    let liked = state.wanted
    state.inFlight = true
    songs[songID] = state
    let request = HTTPRequest(
      url: url, method: liked ? "POST" : "DELETE", headers: ["Accept": "application/json"],
      body: Data(), maxBytes: 1_000_000)
    client.fetch(request) { [weak self] result in
      guard let self else { return }
      queue.async {
        guard var state = self.songs[songID] else { return }
        state.inFlight = false
        switch result {
        case .success:
          state.confirmed = liked
          self.songs[songID] = state
          if state.wanted != liked { self.send(songID) }
        case .failure(let error):
          // The server keeps what it had; so does the player.
          if state.wanted == liked { state.wanted = !liked }
          self.songs[songID] = state
          state.onRejected?(liked, error.userMessage)
        }
      }
    }
  }
}
