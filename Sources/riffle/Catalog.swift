import Foundation
import RiffleAPI
import RiffleFingerprint

/// Finds the bundled catalog (Resources/Catalog/songs.json) wherever riffle runs from.
enum Catalog {
  static func locate(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> URL? {
    var candidates: [URL] = []
    if let override = environment["RIFFLE_CATALOG"], !override.isEmpty {
      let url = URL(fileURLWithPath: override)
      candidates.append(
        url.pathExtension == "json" ? url : url.appendingPathComponent("songs.json"))
    }
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    let binDir = executable.deletingLastPathComponent()
    // Installed: PREFIX/bin/riffle -> PREFIX/share/riffle/Catalog.
    candidates.append(binDir.appendingPathComponent("../share/riffle/Catalog/songs.json"))
    // A build inside the repo: walk up from .build/<config>/riffle to Resources/.
    var dir = binDir
    for _ in 0..<6 {
      candidates.append(dir.appendingPathComponent("Resources/Catalog/songs.json"))
      dir = dir.deletingLastPathComponent()
    }
    // The source tree this binary was built from.
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Resources/Catalog/songs.json")
    candidates.append(source)
    return candidates.map(\.standardizedFileURL).first {
      FileManager.default.fileExists(atPath: $0.path)
    }
  }
}

extension Catalog {
  /// The store of fingerprints in the cache (feeds, searches, up next... and the bundled
  /// catalog, whose songs it names as the user knows them).
  static func cacheStore(_ paths: AppPaths = .fromEnvironment()) -> FingerprintStore {
    FingerprintStore(
      folder: paths.cache.appendingPathComponent("fingerprints"),
      sourceNames: locate().map { [$0: "the bundled catalog"] } ?? [:])
  }
}
