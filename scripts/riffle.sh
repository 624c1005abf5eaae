#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine (packages), builds Riffle in release mode and runs it.
# Arguments go to riffle: `scripts/riffle.sh` plays the bundled catalog.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-debian.sh
swift build -c release --product riffle >&2
exec .build/release/riffle "$@"
