#!/usr/bin/env bash
# Builds the fingerprint benchmark in release mode and prints its tables: top-1 accuracy per
# query condition, false matches, index build speed and query time (docs/fingerprinting.md).
# Options pass through: --songs N (default 100), --index-songs N (default 1000), --seed N.
# Needs `lame` for the MP3 round trips.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-debian.sh
swift build -c release --product riffle-fingerprint-bench >&2
exec .build/release/riffle-fingerprint-bench "$@"
