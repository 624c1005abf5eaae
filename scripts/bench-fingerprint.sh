#!/usr/bin/env bash
# Builds the fingerprint benchmark in release mode and prints its tables (docs/fingerprinting.md).
#
#   scripts/bench-fingerprint.sh                 real recorded music (game soundtracks from Debian)
#   scripts/bench-fingerprint.sh --quick         the same on 24 songs, one excerpt each: minutes
#   scripts/bench-fingerprint.sh --held-out      other soundtracks, never used for tuning: a check
#                                                that the rules hold beyond the benchmark's music
#   scripts/bench-fingerprint.sh --synthesized   the synthesized songs (--songs N, --index-songs N)
#
# Other options pass through: --only TEXT (conditions whose name contains it), --seed N,
# --queries-per-song N, --max-songs N, --scale 1000,10000 (that many songs' prints written to a
# cache folder; riffle identify builds and maps their table: time, peak memory, size; then the
# query time on the mapped table, and the false matches at that size). RIFFLE_BENCH_SCORES=1
# logs every query's candidates (and a catalog query's song where the query was cut from it:
# its evidence there, and its rank and votes by hashes); RIFFLE_BENCH_DUMP=DIR writes the audio, prints and candidate
# alignments for tuning outside the benchmark (docs/fingerprinting.md).
# The real-music run installs the soundtrack packages, sox (the room, the phone line, speed
# changes), espeak-ng (babble) and lame through RIFFLE_EXTRA_PACKAGES.
set -euo pipefail
cd "$(dirname "$0")/.."

# Game soundtracks in Ogg Vorbis and MP3 (the wesnoth music packages are left for an independent
# check).
music_packages=(drascula-music asc-music fretsonfire-songs-muldjord fretsonfire-songs-sectoid
  hyperrogue-music colobot-common-sounds)
# Others, in Opus and Ogg Vorbis, that no parameter or rule was chosen on: their music/ folders.
held_out_packages=(warzone2100-music singularity-music planetblupi-music-ogg megaglest-data)

mode=real
args=()
for arg in "$@"; do
  case "$arg" in
    --synthesized) mode=synthesized ;;
    --held-out) mode=held-out ;;
    --quick) args+=(--max-songs 24 --queries-per-song 1) ;;
    *) args+=("$arg") ;;
  esac
done
packages=("${music_packages[@]}")
if [ "$mode" = held-out ]; then packages=("${held_out_packages[@]}"); fi
export RIFFLE_EXTRA_PACKAGES="${RIFFLE_EXTRA_PACKAGES:-} lame sox libsox-fmt-all espeak-ng ${packages[*]}"
source scripts/setup-debian.sh

swift build -c release --product riffle-fingerprint-bench >&2
if [ "$mode" = synthesized ]; then
  exec .build/release/riffle-fingerprint-bench "${args[@]}"
fi
swift build -c release --product riffle >&2

# The music: each package's soundtrack files of a minute or more (drascula ships the same
# tracks once per language: its audio/ folder only; fretsonfire songs are song.ogg, beside the
# separate guitar part; the held-out packages' music/ folders).
list=$(mktemp)
trap 'rm -f "$list"' EXIT
for p in "${packages[@]}"; do
  if [ "$mode" = held-out ]; then
    dpkg -L "$p" | grep -E '/music/.*\.(ogg|mp3|opus)$' || true
  else
    dpkg -L "$p" | grep -E '\.(ogg|mp3)$' | grep -vE '/sounds/|/drascula/(de|en|es|fr|it)/|guitar\.ogg$' || true
  fi
done | while IFS= read -r f; do
  # sox reads some Vorbis headers ffprobe refuses; ffprobe reads Opus, which sox may not.
  d=$(soxi -D "$f" 2>/dev/null || ffprobe -v error -show_entries format=duration -of csv=p=0 "$f" 2>/dev/null || echo 0)
  if awk -v d="$d" 'BEGIN { exit !(d >= 60) }'; then printf '%s\n' "$f"; fi
done >"$list"
echo "bench-fingerprint: $(wc -l <"$list") recordings" >&2
.build/release/riffle-fingerprint-bench --music "$list" --riffle .build/release/riffle "${args[@]}"
