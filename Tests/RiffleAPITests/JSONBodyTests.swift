import Foundation
import RiffleAPI
import Testing

@Suite("JSON bodies")
struct JSONBodyTests {
  struct Track: Decodable, Equatable {
    var trackName: String
    var artistName: String?
    var trackTimeMillis: Int
  }

  func response(_ json: String, type: String = "text/javascript; charset=utf-8") -> HTTPResponse {
    HTTPResponse(status: 200, contentType: type, body: Data(json.utf8))
  }

  @Test("snake_case keys decode into camelCase properties, whatever the content type")
  func snakeCase() throws {
    let track = try response(#"{"track_name":"Blue","track_time_millis":30000}"#).decode(Track.self)
    #expect(track == Track(trackName: "Blue", artistName: nil, trackTimeMillis: 30000))
  }

  @Test("a wrong type names the key")
  func wrongType() {
    #expect {
      try response(#"{"track_name":"Blue","track_time_millis":"long"}"#).decode(Track.self)
    } throws: { error in
      (error as? BodyDecodingError)?.path == ["track_time_millis"]
    }
  }

  @Test("a missing key names it; broken JSON says so")
  func missingAndBroken() {
    #expect {
      try response(#"{"track_name":"Blue"}"#).decode(Track.self)
    } throws: { error in
      (error as? BodyDecodingError)?.path == ["track_time_millis"]
        && (error as? BodyDecodingError)?.reason == "missing"
    }
    #expect {
      try response("{not json").decode(Track.self)
    } throws: { error in
      (error as? BodyDecodingError)?.reason == "not valid JSON"
    }
  }
}
