import RiffleCore
import Testing

@Suite("LazyLibrary: how Swift reads a lazily loaded C library's answers")
struct LazyLibraryTests {
  @Test("A failure gives the loader's words, or says it does not know")
  func failure() {
    #expect(LazyLibrary.failure(nil) == "unknown error")
    "libcurl.so.4: cannot open shared object file".withCString {
      #expect(LazyLibrary.failure($0) == "libcurl.so.4: cannot open shared object file")
    }
  }

  @Test("A probe that succeeds is no problem; one that fails gives what it wrote, up to the NUL")
  func probe() {
    #expect(LazyLibrary.probeProblem { _, _ in 0 } == nil)
    let problem = LazyLibrary.probeProblem { buffer, size in
      #expect(size >= 256)
      for (i, byte) in "no curl_global_init".utf8.enumerated() {
        buffer[i] = CChar(bitPattern: byte)
      }
      buffer[19] = 0
      buffer[20] = 65  // after the NUL: not part of the message
      return -1
    }
    #expect(problem == "no curl_global_init")
  }
}
