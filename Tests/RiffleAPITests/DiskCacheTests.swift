import Foundation
import RiffleTestSupport
import Testing

@testable import RiffleAPI

/// Lets the file clock move on, so modification times order the operations.
private func tick() { Thread.sleep(forTimeInterval: 0.05) }

/// Every name in a folder, hidden ones included.
private func names(in folder: URL) throws -> Set<String> {
  Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
}

/// The standard 64-bit FNV-1a of some bytes with a given offset basis.
private func fnv1a(_ text: String, basis: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
  text.utf8.reduce(basis) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
}

@Suite("DiskCache")
struct DiskCacheTests {
  static let a = URL(string: "https://cdn1.example.com/audio/a.mp3")!
  static let b = URL(string: "https://cdn1.example.com/audio/b.mp3")!
  static let c = URL(string: "https://cdn1.example.com/audio/c.mp3")!
  static let d = URL(string: "https://cdn1.example.com/audio/d.mp3")!

  static func bytes(_ count: Int, _ value: UInt8) -> Data { Data(repeating: value, count: count) }

  @Test("A stored body comes back from file(for:) under its hashed name")
  func roundTrip() throws {
    let dir = try TemporaryDirectory()
    let cache = DiskCache(folder: dir.file("audio"), capacity: 10_000)
    #expect(cache.file(for: Self.a) == nil)
    let body = Data((0..<3_000).map { UInt8(truncatingIfNeeded: $0 * 31) })
    cache.store(body, for: Self.a)
    let file = try #require(cache.file(for: Self.a))
    #expect(file.lastPathComponent == DiskCache.name(for: Self.a))
    #expect(file.deletingLastPathComponent().standardizedFileURL.path == dir.file("audio").path)
    #expect(try Data(contentsOf: file) == body)
    #expect(cache.file(for: Self.b) == nil)
    #expect(cache.size == 3_000)
  }

  @Test("Storing a URL again replaces its copy")
  func storeReplaces() throws {
    let dir = try TemporaryDirectory()
    let cache = DiskCache(folder: dir.url, capacity: 10_000)
    cache.store(Self.bytes(500, 1), for: Self.a)
    cache.store(Self.bytes(200, 2), for: Self.a)
    let file = try #require(cache.file(for: Self.a))
    #expect(try Data(contentsOf: file) == Self.bytes(200, 2))
    #expect(try names(in: dir.url) == [DiskCache.name(for: Self.a)])
    #expect(cache.size == 200)
  }

  @Test("A half-written copy a killed player left is cleared at the first store")
  func staleTemporaryCleared() throws {
    let dir = try TemporaryDirectory()
    let stale = ".\(DiskCache.name(for: Self.b)).\(try endedProcessID()).tmp"
    try Self.bytes(900, 3).write(to: dir.file(stale))
    let cache = DiskCache(folder: dir.url, capacity: 10_000)
    cache.store(Self.bytes(100, 1), for: Self.a)
    #expect(try names(in: dir.url) == [DiskCache.name(for: Self.a)])
  }

  @Test("Names are FNV-1a hashes of the URL plus its extension")
  func namesAreFNV() {
    // Published FNV-1a 64 test vectors: "a" and "foobar".
    #expect(fnv1a("a") == 0xaf63_dc4c_8601_ec8c)
    #expect(fnv1a("foobar") == 0x8594_4171_f739_67e8)
    let second = String(fnv1a("a", basis: 0x8422_2325_cbf2_9ce4), radix: 16)
    #expect(DiskCache.name(for: URL(string: "a")!) == "af63dc4c8601ec8c" + second)
    let url = URL(string: "https://cdn1.example.com/x/song.mp3")!
    #expect(
      DiskCache.name(for: url)
        == String(fnv1a(url.absoluteString), radix: 16)
        + String(fnv1a(url.absoluteString, basis: 0x8422_2325_cbf2_9ce4), radix: 16) + ".mp3")
  }

  @Test("Names are stable and keep a short, safe extension")
  func namesStable() {
    #expect(DiskCache.name(for: Self.a) == DiskCache.name(for: Self.a))
    #expect(
      DiskCache.name(for: URL(string: "https://cdn1.example.com/audio/a.mp3")!)
        == DiskCache.name(for: Self.a))
    #expect(DiskCache.name(for: URL(string: "https://h/img.jpeg?w=400")!).hasSuffix(".jpeg"))
    #expect(DiskCache.name(for: URL(string: "https://h/x.verylongext")!).hasSuffix(".veryl"))
    #expect(!DiskCache.name(for: URL(string: "https://h/stream")!).contains("."))
    for url in [
      URL(string: "https://h/a%2F..%2Fb.mp3")!, URL(string: "https://h/..")!,
      URL(string: "https://h/x.m$p3")!,
    ] {
      let name = DiskCache.name(for: url)
      #expect(!name.contains("/"), "\(name)")
      #expect(!name.hasPrefix("."), "\(name)")
      #expect(name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." }, "\(name)")
    }
  }

  @Test("Different URLs get different names")
  func namesDistinct() {
    var seen: [String: URL] = [:]
    var urls: [URL] = [
      URL(string: "https://cdn1.example.com/feed?page=1")!,
      URL(string: "https://cdn1.example.com/feed?page=2")!,
      URL(string: "http://cdn1.example.com/feed?page=1")!,
      URL(string: "https://cdn1.example.com/Feed?page=1")!,
    ]
    for index in 0..<2_000 {
      urls.append(URL(string: "https://cdn1.example.com/audio/\(index).mp3")!)
    }
    for url in urls {
      let name = DiskCache.name(for: url)
      #expect(seen[name] == nil, "\(url) and \(seen[name]!) share \(name)")
      seen[name] = url
    }
  }

  @Test("Over capacity, the least recently used file goes first; a hit counts as use")
  func lruEviction() throws {
    let dir = try TemporaryDirectory()
    let cache = DiskCache(folder: dir.url, capacity: 300)
    cache.store(Self.bytes(100, 1), for: Self.a)
    tick()
    cache.store(Self.bytes(100, 2), for: Self.b)
    tick()
    cache.store(Self.bytes(100, 3), for: Self.c)
    tick()
    #expect(cache.size == 300)
    // Use a: b is now the oldest.
    #expect(cache.file(for: Self.a) != nil)
    tick()
    cache.store(Self.bytes(100, 4), for: Self.d)
    #expect(cache.file(for: Self.b) == nil)
    #expect(cache.file(for: Self.a) != nil)
    #expect(cache.file(for: Self.c) != nil)
    #expect(cache.file(for: Self.d) != nil)
    #expect(cache.size == 300)
  }

  @Test("Without hits, the oldest stored file goes first, and as many as needed")
  func evictsSeveral() throws {
    let dir = try TemporaryDirectory()
    let cache = DiskCache(folder: dir.url, capacity: 300)
    cache.store(Self.bytes(100, 1), for: Self.a)
    tick()
    cache.store(Self.bytes(100, 2), for: Self.b)
    tick()
    cache.store(Self.bytes(100, 3), for: Self.c)
    tick()
    cache.store(Self.bytes(250, 4), for: Self.d)
    #expect(cache.file(for: Self.a) == nil)
    #expect(cache.file(for: Self.b) == nil)
    #expect(cache.file(for: Self.c) == nil)
    #expect(try Data(contentsOf: #require(cache.file(for: Self.d))) == Self.bytes(250, 4))
    #expect(cache.size == 250)
  }

  @Test("An item larger than the capacity is not stored and evicts nothing")
  func tooLargeNotStored() throws {
    let dir = try TemporaryDirectory()
    let cache = DiskCache(folder: dir.url, capacity: 300)
    cache.store(Self.bytes(100, 1), for: Self.a)
    cache.store(Self.bytes(301, 2), for: Self.b)
    #expect(cache.file(for: Self.b) == nil)
    #expect(cache.file(for: Self.a) != nil)
    #expect(cache.size == 100)
    // Exactly the capacity fits.
    tick()
    cache.store(Self.bytes(300, 3), for: Self.c)
    #expect(cache.file(for: Self.c) != nil)
    #expect(cache.file(for: Self.a) == nil)
    #expect(cache.size == 300)
  }

  @Test("Stores leave no temporary files behind")
  func noTempFiles() throws {
    let dir = try TemporaryDirectory()
    let cache = DiskCache(folder: dir.url, capacity: 1_000)
    for (index, url) in [Self.a, Self.b, Self.c, Self.d, Self.a].enumerated() {
      cache.store(Self.bytes(300, UInt8(index)), for: url)
    }
    let all = try names(in: dir.url)
    #expect(all.allSatisfy { !$0.hasPrefix(".") && !$0.hasSuffix(".tmp") }, "\(all)")
    #expect(all.count == 3)
    #expect(cache.size <= 1_000)
  }

  @Test("Stores from many threads at once stay within the capacity, every file whole")
  func concurrentStores() throws {
    let dir = try TemporaryDirectory()
    let cache = DiskCache(folder: dir.url, capacity: 5_000)
    DispatchQueue.concurrentPerform(iterations: 40) { index in
      let url = URL(string: "https://cdn1.example.com/audio/\(index % 20).mp3")!
      cache.store(Data(repeating: UInt8(index % 20), count: 1_000), for: url)
    }
    #expect(cache.size <= 5_000)
    let all = try names(in: dir.url)
    #expect(all.allSatisfy { !$0.hasPrefix(".") }, "\(all)")
    for index in 0..<20 {
      let url = URL(string: "https://cdn1.example.com/audio/\(index).mp3")!
      if let file = cache.file(for: url) {
        #expect(try Data(contentsOf: file) == Data(repeating: UInt8(index), count: 1_000))
      }
    }
  }
}
