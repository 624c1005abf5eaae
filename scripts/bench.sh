#!/usr/bin/env bash
# Builds Riffle in release mode and prints its benchmark table (see docs/performance.md).
# Figures, not pass/fail: the tests check behaviour, this measures.
set -euo pipefail
cd "$(dirname "$0")/.."
RIFFLE_EXTRA_PACKAGES="pulseaudio pulseaudio-utils cmus dbus ffmpeg bsdutils" source scripts/setup-debian.sh
swift build -c release --product riffle >&2
swift build -c release --product riffle-bench >&2
exec .build/release/riffle-bench "$@"
