#!/usr/bin/env bash
# Builds Riffle in release mode and prints its benchmark table (see docs/performance.md).
# Figures, not pass/fail: the tests check behaviour, this measures.
set -euo pipefail
cd "$(dirname "$0")/.."
RIFFLE_EXTRA_PACKAGES="cmus bsdutils mpd mpc" source scripts/setup-debian.sh
# The binary measured is the one `make install` puts in place: release, Swift runtime linked
# statically (which saves about 10 ms of start and 6 MB of memory over the shared runtime). The
# build folder is the one the install test uses, so the two share their build.
build=(swift build -c release --static-swift-stdlib --scratch-path .build-install)
"${build[@]}" --product riffle >&2
"${build[@]}" --product riffle-bench >&2
exec .build-install/release/riffle-bench "$@"
