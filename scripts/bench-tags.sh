#!/usr/bin/env bash
# FFmpeg's libavformat and TagLib reading the tags of the same files (the benchmark's generated
# library, or the folder given), twice each so the second round reads from the page cache.
# Figures for docs/dependencies.md; TagLib is installed for this comparison only.
set -euo pipefail
cd "$(dirname "$0")/.."
RIFFLE_EXTRA_PACKAGES="libtagc0-dev libtag1-dev" source scripts/setup-debian.sh
folder=${1:-.build-bench/library-10k}
[ -d "$folder" ] || { echo "no $folder: run scripts/bench.sh library first, or name a folder" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -O2 -o "$out/bench-tags" scripts/bench-tags.c \
  $(pkg-config --cflags --libs libavformat libavutil taglib_c)
find "$folder" -type f \( -name '*.mp3' -o -name '*.m4a' -o -name '*.flac' -o -name '*.ogg' \
  -o -name '*.opus' -o -name '*.wav' \) | sort | "$out/bench-tags" 2
