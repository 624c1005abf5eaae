#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine (packages), checks formatting, builds, and runs every
# test: unit tests, the audio tests through libao's wav driver, and the end-to-end tests that
# drive the real binary in tmux against a loopback HTTP server.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-debian.sh

echo "== swift format lint"
swift format lint --strict --recursive Package.swift Sources Tests
# These two are optimized in debug builds too (Package.swift), where `assert` does nothing.
if grep -rnE '\bassert(ionFailure)?\(' Sources/RiffleAudio Sources/RiffleFingerprint; then
  echo "assert in a module built with -O in debug: use precondition (.swiftlint.yml)" >&2
  exit 1
fi

echo "== build"
swift build --build-tests

export RIFFLE_BINARY="$PWD/.build/debug/riffle"
if [ $# -gt 0 ]; then
  swift test --skip-build "$@"
  exit
fi

# The install test's release build (the Swift runtime linked statically) runs in its own
# build folder beside the tests, which mostly wait on real time.
release_pid=""
if [ -z "${RIFFLE_SKIP_INSTALL_TEST:-}" ]; then
  export BUILD_DIR=.build-install
  mkdir -p "$BUILD_DIR"
  echo "== release build for the install test, in the background ($BUILD_DIR/make.log)"
  make build > "$BUILD_DIR/make.log" 2>&1 &
  release_pid=$!
  trap 'kill "$release_pid" 2>/dev/null || true' EXIT
fi

# Unit tests run in parallel. Audio and end-to-end tests play in real time (the binary in
# tmux, audio paced like a sound card), so they run one at a time: under a loaded machine
# their timing stays what a user would see.
echo "== unit tests"
swift test --skip-build --skip "RiffleEndToEndTests|RiffleAudioTests"
echo "== audio and end-to-end tests"
swift test --skip-build --no-parallel --filter "RiffleEndToEndTests|RiffleAudioTests"
# The install: one release build with the Swift runtime linked statically, run with the
# toolchain hidden (RIFFLE_SKIP_INSTALL_TEST=1 skips it on a quick local run).
if [ -n "$release_pid" ]; then
  echo "== install test"
  if ! wait "$release_pid"; then
    tail -n 40 "$BUILD_DIR/make.log"
    echo "the release build failed" >&2
    exit 1
  fi
  trap - EXIT
  scripts/test-install.sh
fi
