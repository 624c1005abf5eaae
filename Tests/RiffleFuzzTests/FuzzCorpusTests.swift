import Foundation
import RiffleFuzzTargets
import RiffleTestSupport
import Testing

/// The committed seed corpora, replayed through every fuzz target in the normal suite: an input
/// that once crashed (saved here after the fix) keeps being checked without libFuzzer.
@Suite struct FuzzCorpusTests {
  static let corpus = TestFiles.repoRoot.appendingPathComponent("Tests/Fuzz/corpus")

  static func inputs(of target: FuzzTarget) throws -> [(name: String, data: Data)] {
    let folder = corpus.appendingPathComponent(target.name)
    return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map {
      ($0, try Data(contentsOf: folder.appendingPathComponent($0)))
    }
  }

  @Test(arguments: FuzzTarget.all.map(\.name))
  func everySeedPassesItsTarget(_ name: String) throws {
    let target = try #require(FuzzTarget.named(name))
    let inputs = try Self.inputs(of: target)
    #expect(!inputs.isEmpty, "Tests/Fuzz/corpus/\(name) has no seeds")
    for input in inputs { target.body(input.data) }
  }

  @Test func targetNamesAreUnique() {
    let names = FuzzTarget.all.map(\.name)
    #expect(Set(names).count == names.count)
  }
}
