import Foundation
import RiffleAudio
import Testing

@Suite("FFmpeg is loaded on first use")
struct FFmpegLibrariesTests {
  @Test("The sonames come from the headers built against, dependencies first")
  func sonames() {
    let names = FFmpegLibraries.sonames
    #expect(names.count == 4)
    for (name, prefix) in zip(names, ["libavutil", "libswresample", "libavcodec", "libavformat"]) {
      #expect(name.hasPrefix(prefix + ".so."))
      #expect(Int(name.dropFirst(prefix.count + 4)) != nil, "\(name) ends in a major version")
    }
  }

  @Test("The installed libraries load and have every function the decoder calls")
  func loads() {
    #expect(FFmpegLibraries.problem() == nil)
  }

  @Test("A folder without them gives the loader's reason, naming the first library")
  func missing() throws {
    let empty = FileManager.default.temporaryDirectory
      .appendingPathComponent("riffle-no-ffmpeg-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: empty) }
    let problem = try #require(FFmpegLibraries.problem(loadingFrom: empty.path))
    #expect(problem.contains(FFmpegLibraries.sonames[0]))
    #expect(problem.contains("No such file"))
  }

  @Test("A song that needs FFmpeg when it cannot be loaded says so plainly")
  func missingMessage() {
    let error = DecodeError.missingLibrary(
      .mp4, reason: "libavformat.so.59: cannot open shared object file")
    #expect(error.description.contains("needs FFmpeg, which could not be loaded"))
    #expect(error.description.contains("libavformat.so.59"))
  }
}
