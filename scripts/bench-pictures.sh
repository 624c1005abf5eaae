#!/usr/bin/env bash
# bench-pictures.sh: the figures for covers as pictures and the visualizer (docs/performance.md).
#
#   scripts/bench-pictures.sh            # release build first (swift build -c release)
#   RIFFLE_BINARY=PATH scripts/bench-pictures.sh
#
# Runs the bundled catalog in a private tmux server with pictures forced (kitty, then sixel)
# at 200x60 and reads the player's milestone trace (RIFFLE_TRACE): "input" when a key arrives,
# "picture ID BYTES" when a cover picture has been written out. tmux drops the picture's bytes,
# so what is timed is the player's side (slide, encoding, writing), not the terminal's drawing.
# Then: bytes written per second while a song plays under a picture (/proc/PID/io), and the
# CPU the visualizer costs at 100x32 (/proc/PID/stat, 10 s with and without it).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${RIFFLE_BINARY:-.build/release/riffle}
if [ -z "${RIFFLE_BINARY:-}" ]; then
  scripts/setup-debian.sh >/dev/null
  swift build -c release --product riffle >/dev/null
fi
dir=$(mktemp -d)
sock="$dir/tmux.sock"
cleanup() { tmux -S "$sock" kill-server 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
hz=$(getconf CLK_TCK)

# start NAME PICTURES COLS ROWS: the player in a detached session; prints its PID.
start() {
  local name=$1 pictures=$2 cols=$3 rows=$4 home="$dir/$1"
  mkdir -p "$home/config/riffle"
  printf '[display]\npictures = "%s"\ncolor = "truecolor"\n' "$pictures" \
    >"$home/config/riffle/config.toml"
  tmux -S "$sock" -f /dev/null new-session -d -s "$name" -x "$cols" -y "$rows" \
    env -u TMUX TERM=xterm-256color COLORTERM=truecolor RIFFLE_TRACE="$home/trace" \
    XDG_CONFIG_HOME="$home/config" XDG_CACHE_HOME="$home/cache" XDG_DATA_HOME="$home/data" \
    "$bin" --audio null
  tmux -S "$sock" display -p -t "$name" '#{pane_pid}'
}

# pictures_in NAME: how many picture marks the trace holds.
pictures_in() {
  local n
  n=$(grep -c ' picture ' "$dir/$1/trace" 2>/dev/null || true)
  echo "${n:-0}"
}

# wait_pictures NAME N: waits (up to 20 s) until the trace holds N picture marks.
wait_pictures() {
  for _ in $(seq 200); do [ "$(pictures_in "$1")" -ge "$2" ] && return 0; sleep 0.1; done
  echo "bench-pictures: no picture in $1's trace" >&2
  return 1
}

# page_changes NAME: pages on four times and back twice; one line per change: the time from
# the key's arrival to the picture written, and the bytes written for it.
page_changes() {
  local name=$1 trace="$dir/$1/trace"
  wait_pictures "$name" 1
  sleep 1
  for key in Right Right Right Right Left Left; do
    local before
    before=$(pictures_in "$name")
    tmux -S "$sock" send-keys -t "$name" "$key"
    wait_pictures "$name" $((before + 1))
    awk -v key="$key" '
      / input$/ { input = $1 }
      / picture / { n++; if (n == want) printf "  %-5s %6.0f ms  %9d bytes\n", key, ($1 - input) / 1e6, $4 }
    ' want=$((before + 1)) "$trace"
    sleep 0.6
  done
}

# cpu_ticks PID / written PID: CPU (user + system clock ticks) and bytes written so far.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
written() { awk '/^wchar/ { print $2 }' "/proc/$1/io"; }

for pictures in kitty sixel; do
  pid=$(start "page-$pictures" "$pictures" 200 60)
  echo "page change at 200x60, $pictures (key to picture written; bytes for it):"
  page_changes "page-$pictures"
  tmux -S "$sock" kill-session -t "page-$pictures"
done

for pictures in kitty sixel symbols; do
  pid=$(start "play-$pictures" "$pictures" 200 60)
  # The first song (31 s) plays on through the window: no page change within it.
  if [ "$pictures" = symbols ]; then sleep 3; else wait_pictures "play-$pictures" 1; fi
  sleep 2
  w0=$(written "$pid")
  sleep 10
  w1=$(written "$pid")
  echo "playing under a $pictures cover at 200x60: $(((w1 - w0) / 10)) bytes/s written"
  tmux -S "$sock" kill-session -t "play-$pictures"
done

pid=$(start vis symbols 100 32)
sleep 3
c0=$(cpu_ticks "$pid")
sleep 10
c1=$(cpu_ticks "$pid")
tmux -S "$sock" send-keys -t vis v
sleep 1
c2=$(cpu_ticks "$pid")
w2=$(written "$pid")
sleep 10
c3=$(cpu_ticks "$pid")
w3=$(written "$pid")
awk -v off=$((c1 - c0)) -v on=$((c3 - c2)) -v hz="$hz" -v bytes=$((w3 - w2)) 'BEGIN {
  printf "visualizer at 100x32, 30 frames/s: playing %.1f%% of a core, with the visualizer %.1f%% (+%.1f%%), %d bytes/s written\n",
    100 * off / hz / 10, 100 * on / hz / 10, 100 * (on - off) / hz / 10, bytes / 10 }'
