import Foundation
import RiffleFuzzTargets

#if canImport(Glibc)
  import Glibc
#endif

/// `riffle-fuzz TARGET [libFuzzer options] [CORPUS...]`: runs one fuzz target
/// (`riffle-fuzz --list` names them).
///
/// Built with `-sanitize=fuzzer` and `-DRIFFLE_FUZZ` (scripts/harden.sh does this) it is a
/// libFuzzer binary: everything after the target name goes to libFuzzer. Built normally it
/// replays files (or every file in folders) through the target once, which is how a crash
/// libFuzzer found is reproduced under a debugger.
@main
enum RiffleFuzz {
  static func main() {
    let arguments = CommandLine.arguments
    if arguments.count == 2 && arguments[1] == "--list" {
      print(FuzzTarget.all.map(\.name).joined(separator: "\n"))
      exit(0)
    }
    guard arguments.count >= 2, let target = FuzzTarget.named(arguments[1]) else {
      let names = FuzzTarget.all.map { "  \($0.name): \($0.summary)" }.joined(separator: "\n")
      FileHandle.standardError.write(
        Data("usage: riffle-fuzz TARGET [options] [corpus...]\ntargets:\n\(names)\n".utf8))
      exit(2)
    }
    selected = target
    #if RIFFLE_FUZZ
      // libFuzzer sees the program name and what follows the target name.
      var argc = CommandLine.argc - 1
      let argv = CommandLine.unsafeArgv
      argv[1] = argv[0]
      var shifted = argv + 1
      exit(fuzzerRunDriver(&argc, &shifted, fuzzerTestOneInput))
    #else
      exit(replay(target, paths: arguments.dropFirst(2).filter { !$0.hasPrefix("-") }))
    #endif
  }

  nonisolated(unsafe) static var selected: FuzzTarget?

  /// Runs every file under `paths` through `target`; returns the exit status.
  static func replay(_ target: FuzzTarget, paths: some Sequence<String>) -> Int32 {
    var count = 0
    for path in paths {
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
        FileHandle.standardError.write(Data("riffle-fuzz: no such file \(path)\n".utf8))
        return 1
      }
      let files =
        isFolder.boolValue
        ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map {
          "\(path)/\($0)"
        } : [path]
      for file in files {
        guard let data = FileManager.default.contents(atPath: file) else { continue }
        target.body(data)
        count += 1
      }
    }
    print("\(target.name): \(count) inputs replayed")
    return 0
  }
}

/// The function libFuzzer calls with each input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
  guard let target = RiffleFuzz.selected else { return 0 }
  target.body(bytes.map { Data(bytes: $0, count: count) } ?? Data())
  return 0
}

#if RIFFLE_FUZZ
  /// libFuzzer's entry for a program with its own main (from libclang_rt.fuzzer).
  @_silgen_name("LLVMFuzzerRunDriver")
  func fuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
  ) -> Int32
#endif
