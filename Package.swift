// swift-tools-version: 6.0
import PackageDescription

#if canImport(Glibc)
  import Glibc
#endif

/// The player links with lld and packed relative relocations (DT_RELR) where the C library it
/// will run with reads them (glibc 2.36 and later): the static binary's 88,000 relative
/// relocations took a 2.1 MB table that the loader read at every start and that stayed
/// resident; packed, they take 15 KB (start 9.4 -> 7.6 ms to `--help`, 1 MB less resident).
/// lld ships with the Swift toolchain. On an older glibc the binary is linked as before.
let packedRelocations: [LinkerSetting] = {
  #if os(Linux)
    var text = [CChar](repeating: 0, count: 64)
    guard confstr(Int32(_CS_GNU_LIBC_VERSION), &text, text.count) > 0 else { return [] }
    // "glibc 2.36"
    let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    let version = String(decoding: bytes, as: UTF8.self).split(separator: " ").last ?? ""
    let parts = version.split(separator: ".").compactMap { Int($0) }
    guard parts.count >= 2, (parts[0], parts[1]) >= (2, 36) else { return [] }
    return [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"])]
  #else
    return []
  #endif
}()

/// The modules that work on every sample (decoding, gain, fingerprints) are optimized in debug
/// builds too: unoptimized, `riffle identify` took 7.9 s instead of 1.2 s to fingerprint the
/// bundled catalog, and the tests that run it through the debug binary were three to four
/// times slower (docs/development.md, "Testing"). Overflow checks and preconditions stay; these
/// modules use no `assert`, which -O drops.
let optimizedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

/// Riffle: a full-screen terminal music player. See docs/architecture.md for how the
/// targets below depend on each other (arrows point down only).
let package = Package(
  name: "Riffle",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "riffle", targets: ["riffle"]),
    .executable(name: "riffle-bench", targets: ["riffle-bench"]),
    .executable(name: "riffle-fingerprint-bench", targets: ["riffle-fingerprint-bench"]),
    .executable(name: "riffle-fuzz", targets: ["riffle-fuzz"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
  ],
  targets: [
    // C libraries from Debian, each wrapped by a module map and a shim header.
    .systemLibrary(
      name: "CNCurses", pkgConfig: "ncursesw",
      providers: [.apt(["libncurses-dev"])]),
    .systemLibrary(
      name: "CAO", pkgConfig: "ao",
      providers: [.apt(["libao-dev"])]),
    .systemLibrary(
      name: "CMPG123", pkgConfig: "libmpg123",
      providers: [.apt(["libmpg123-dev"])]),
    // FFmpeg: AAC in MP4/M4A (iTunes previews) and the other formats mpg123 cannot decode.
    // Compiled against its headers, loaded with dlopen on first use (see CFFmpeg.h): linked, it
    // pulled some 120 libraries into every start.
    // glibc calls Swift's Glibc module does not show: thread names, malloc arenas, and the
    // loader for C libraries opened on first use.
    .target(name: "CLinux", linkerSettings: [.linkedLibrary("dl")]),
    // libcurl (libcurl4-openssl-dev): compiled against its headers, loaded with dlopen by the
    // first transfer (see CCurl.h): linked, it brought 30 libraries into every start.
    .target(name: "CCurl", dependencies: ["CLinux"]),
    .target(name: "CFFmpeg", dependencies: ["CLinux"]),
    // Cover art: chafa turns pixels into cells (it needs glib's headers too); the decoders.
    .systemLibrary(
      name: "CChafa", pkgConfig: "chafa",
      providers: [.apt(["libchafa-dev", "libglib2.0-dev"])]),
    .systemLibrary(
      name: "CTurboJPEG", pkgConfig: "libturbojpeg",
      providers: [.apt(["libturbojpeg0-dev"])]),
    .systemLibrary(
      name: "CPNG", pkgConfig: "libpng",
      providers: [.apt(["libpng-dev"])]),
    .systemLibrary(
      name: "CWebP", pkgConfig: "libwebp",
      providers: [.apt(["libwebp-dev"])]),
    // sd-bus (libsystemd-dev): the D-Bus session bus (MPRIS, desktop notifications). Compiled
    // against its headers, loaded with dlopen when a bus is first opened (see CSystemd.h).
    .target(name: "CSystemd", dependencies: ["CLinux"]),
    // PulseAudio's simple API (libpulse-dev): playback and recording for "name that song".
    // Compiled against its headers, loaded with dlopen by the first stream (see CPulseSimple.h).
    .target(name: "CPulseSimple", dependencies: ["CLinux"]),
    // The library's index: Debian's SQLite (FTS5 for search), linked (one small library).
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]),
    // EBU R128 loudness, measured at scan for files without ReplayGain tags.
    .systemLibrary(
      name: "CEBUR128", pkgConfig: "libebur128",
      providers: [.apt(["libebur128-dev"])]),
    // Synced lyrics in ID3v2 tags (SYLT), which FFmpeg does not read: TagLib's C++ API behind
    // a C header (see CTagLyrics.h), linked (libtag1-dev).
    .target(name: "CTagLyrics", linkerSettings: [.linkedLibrary("tag")]),
    // Fingerprints: FFTW's single-precision transforms.
    .systemLibrary(
      name: "CFFTW", pkgConfig: "fftw3f",
      providers: [.apt(["libfftw3-dev"])]),

    // Pure Swift: songs, player state, the reducer, formatting, text rules.
    .target(name: "RiffleCore"),
    // The shared API client (libcurl), feed decoding, likes, scrobbling, XDG paths.
    .target(name: "RiffleAPI", dependencies: ["RiffleCore", "CCurl", "CLinux"]),
    // The audio decoder module: bytes -> mpg123 or FFmpeg -> libao, and the playback engine;
    // recording through PulseAudio for "name that song".
    .target(
      name: "RiffleAudio",
      dependencies: [
        "RiffleCore", "RiffleAPI", "CMPG123", "CFFmpeg", "CAO", "CPulseSimple", "CLinux",
      ],
      swiftSettings: optimizedInDebug),
    // Audio fingerprints: spectrogram peaks -> landmark hashes -> index -> match.
    .target(
      name: "RiffleFingerprint",
      dependencies: ["RiffleCore", "RiffleAPI", "RiffleAudio", "CFFTW", "CLinux"],
      swiftSettings: optimizedInDebug),
    // The user's library: folder scanner, tags (through RiffleAudio's FFmpeg), loudness, the
    // SQLite index and its search.
    .target(
      name: "RiffleLibrary",
      dependencies: [
        "RiffleCore", "RiffleAPI", "RiffleAudio", "CSQLite", "CEBUR128", "CTagLyrics", "CLinux",
      ]),
    // Cell screen, views, terminals (ncurses and in-memory), key map, cover art.
    .target(
      name: "RiffleTUI",
      dependencies: ["RiffleCore", "CNCurses", "CChafa", "CTurboJPEG", "CPNG", "CWebP"]),
    // The view model: state store, effects, timer, input and screen wiring.
    .target(
      name: "RiffleApp",
      dependencies: [
        "RiffleCore", "RiffleAPI", "RiffleAudio", "RiffleTUI", "RiffleFingerprint",
        "RiffleLibrary", "CLinux", .product(name: "TOMLKit", package: "TOMLKit"),
      ]),
    // The desktop: MPRIS 2 and notifications on the D-Bus session bus (sd-bus).
    .target(name: "RiffleDesktop", dependencies: ["RiffleCore", "CSystemd", "CLinux"]),
    .executableTarget(
      name: "riffle",
      dependencies: [
        "RiffleApp", "RiffleCore", "RiffleAPI", "RiffleAudio", "RiffleTUI", "RiffleDesktop",
        "RiffleFingerprint", "RiffleLibrary", "CLinux",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      linkerSettings: packedRelocations),

    // Figures for docs/performance.md: scripts/bench.sh runs it from a release build.
    .executableTarget(
      name: "riffle-bench",
      dependencies: [
        "RiffleCore", "RiffleAPI", "RiffleAudio", "RiffleTUI", "RiffleLibrary", "RiffleTestSupport",
      ]),

    // Fuzz targets (docs/hardening.md): each takes arbitrary bytes. riffle-fuzz runs one under
    // libFuzzer when built with -sanitize=fuzzer (scripts/harden.sh), or replays files.
    .target(
      name: "RiffleFuzzTargets",
      dependencies: ["RiffleCore", "RiffleAPI", "RiffleAudio", "RiffleApp"]),
    .executableTarget(name: "riffle-fuzz", dependencies: ["RiffleFuzzTargets"]),

    // Fingerprint accuracy and speed on synthesized songs (scripts/bench-fingerprint.sh).
    .executableTarget(
      name: "riffle-fingerprint-bench",
      dependencies: ["RiffleFingerprint", "RiffleAudio", "RiffleTestSupport"]),

    // Loopback HTTP server, tmux driver and other helpers shared by the tests.
    .target(name: "RiffleTestSupport", dependencies: ["RiffleCore"]),

    .testTarget(name: "RiffleCoreTests", dependencies: ["RiffleCore"]),
    .testTarget(
      name: "RiffleFingerprintTests",
      dependencies: ["RiffleFingerprint", "RiffleAudio", "RiffleAPI", "RiffleTestSupport"]),
    .testTarget(
      name: "RiffleLibraryTests",
      dependencies: ["RiffleLibrary", "RiffleAudio", "RiffleCore", "RiffleTestSupport"]),
    .testTarget(name: "RiffleAPITests", dependencies: ["RiffleAPI", "RiffleTestSupport"]),
    .testTarget(
      name: "RiffleAudioTests", dependencies: ["RiffleAudio", "RiffleAPI", "RiffleTestSupport"]),
    .testTarget(
      name: "RiffleTUITests", dependencies: ["RiffleTUI", "RiffleCore"],
      exclude: ["__Snapshots__"]),
    .testTarget(
      name: "RiffleAppTests",
      dependencies: [
        "RiffleApp", "RiffleCore", "RiffleAPI", "RiffleAudio", "RiffleTUI", "RiffleTestSupport",
      ]),
    .testTarget(
      name: "RiffleDesktopTests",
      dependencies: ["RiffleDesktop", "RiffleCore", "RiffleTestSupport"]),
    .testTarget(
      name: "RiffleFuzzTests", dependencies: ["RiffleFuzzTargets", "RiffleTestSupport"]),
    .testTarget(
      name: "RiffleEndToEndTests",
      dependencies: [
        "RiffleTestSupport", "RiffleCore", "RiffleAudio", "RiffleDesktop", "RiffleLibrary",
      ]),
  ],
  swiftLanguageModes: [.v6]
)
