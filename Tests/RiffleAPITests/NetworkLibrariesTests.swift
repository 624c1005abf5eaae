import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleAPI

@Suite("libcurl is loaded by the first http(s) transfer")
struct NetworkLibrariesTests {
  @Test("The installed libcurl loads and has every function Riffle calls")
  func loads() {
    #expect(NetworkLibraries.curlSoname == "libcurl.so.4")
    #expect(NetworkLibraries.curlProblem() == nil)
    let curl = NetworkLibraries.linked.first
    #expect(curl?.name == "libcurl")
    #expect(curl?.version?.first?.isNumber == true, "\(String(describing: curl?.version))")
    #expect(curl?.address != 0)
  }

  @Test("A folder without it gives the loader's reason, naming the library")
  func missing() throws {
    let empty = try TemporaryDirectory("riffle-no-curl")
    let problem = try #require(NetworkLibraries.curlProblem(loadingFrom: empty.url.path))
    #expect(problem.contains("libcurl.so.4"))
    #expect(problem.contains("No such file"))
  }

  @Test("A library by that name without curl's functions names the first one missing")
  func notCurl() throws {
    let folder = try TemporaryDirectory("riffle-not-curl")
    // zlib is a real shared library, and no libcurl.
    let zlib = try #require(
      [
        "/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1",
        "/lib64/libz.so.1",
      ]
      .first { FileManager.default.fileExists(atPath: $0) })
    try FileManager.default.createSymbolicLink(
      atPath: folder.file("libcurl.so.4").path, withDestinationPath: zlib)
    let problem = try #require(NetworkLibraries.curlProblem(loadingFrom: folder.url.path))
    #expect(problem == "libcurl.so.4 has no curl_global_init")
  }
}
