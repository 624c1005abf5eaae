#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine (packages), checks formatting, builds, and runs every
# test: unit tests, the audio tests through libao's wav driver, and the end-to-end tests that
# drive the real binary in tmux against a loopback HTTP server.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-debian.sh

echo "== swift format lint"
swift format lint --strict --recursive Package.swift Sources Tests

echo "== build"
swift build --build-tests

echo "== tests"
export RIFFLE_BINARY="$PWD/.build/debug/riffle"
swift test --skip-build "$@"
