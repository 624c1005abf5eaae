import Foundation
import RiffleAPI

extension DoctorCheck {
  /// Each server of `[[servers]]`: signed in as the player signs in, its API version and how
  /// Riffle signs in, or the server's refusal in words that name the setting to change.
  static func servers(_ servers: [SubsonicServerSettings]) -> [DoctorCheck] {
    let http = HTTPClient(connectTimeout: 5, stallTimeout: 5)
    return servers.map { settings in
      let client = SubsonicClient(settings, http: http)
      let done = DispatchSemaphore(value: 0)
      nonisolated(unsafe) var outcome: Result<SubsonicAuth.ServerInfo, SubsonicLoadError>?
      client.connect { result in
        outcome = result
        done.signal()
      }
      done.wait()
      let name = "server \(settings.name)"
      switch outcome {
      case .success(let info):
        let how: String
        switch settings.credential {
        case .apiKey: how = "an API key"
        case .password where info.version >= SubsonicVersion.tokens: how = "salted tokens"
        case .password: how = "the hex password (too old for tokens)"
        }
        return DoctorCheck(
          level: .ok, name: name,
          finding: "Subsonic API \(info.version), signed in with \(how)")
      case .failure(let error):
        return DoctorCheck(level: .fail, name: name, finding: error.userMessage)
      case nil:
        return DoctorCheck(level: .fail, name: name, finding: "no answer")
      }
    }
  }
}
