import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What a shell command prints (at most 64 KB), for asking tmux about itself at start; empty
/// when it cannot run.
enum CommandOutput {
  static func read(_ command: String) -> String {
    guard let pipe = popen(command, "r") else { return "" }
    var output = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while output.count < 65536 {
      let count = fread(&buffer, 1, buffer.count, pipe)
      if count <= 0 { break }
      output += buffer[0..<count]
    }
    pclose(pipe)
    return String(decoding: output, as: UTF8.self)
  }
}
