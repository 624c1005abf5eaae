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
# CPU the visualizer costs at 100x32 (/proc/PID/stat, windows with and without it in turn).
#
# For a busy machine: every figure is a median over repeats (ROUNDS, default 3: page changes
# run ROUNDS times, byte and CPU windows are taken ROUNDS times each), and the load average is
# printed before and after. RIFFLE_BINARY_BEFORE=PATH measures the visualizer with that binary
# too, in turn with this one (side by side under the same load). PARTS picks what runs
# (default "pages bytes visualizer").
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
rounds=${ROUNDS:-3}
before_bin=${RIFFLE_BINARY_BEFORE:-}
parts=" ${PARTS:-pages bytes visualizer} "

# median: the median of the numbers on stdin (one a line).
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "load average at start: $(load) ($(nproc) cores)"

# start NAME PICTURES COLS ROWS [BINARY]: the player in a detached session; prints its PID.
start() {
  local name=$1 pictures=$2 cols=$3 rows=$4 binary=${5:-$bin} home="$dir/$1"
  mkdir -p "$home/config/riffle"
  printf '[display]\npictures = "%s"\ncolor = "truecolor"\n' "$pictures" \
    >"$home/config/riffle/config.toml"
  tmux -S "$sock" -f /dev/null new-session -d -s "$name" -x "$cols" -y "$rows" \
    env -u TMUX TERM=xterm-256color COLORTERM=truecolor RIFFLE_TRACE="$home/trace" \
    XDG_CONFIG_HOME="$home/config" XDG_CACHE_HOME="$home/cache" XDG_DATA_HOME="$home/data" \
    "$binary" --audio null
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

# page_changes NAME: pages on four times (new pages) and back twice (pages seen); one line per
# change: "new|seen MS BYTES", the time from the key's arrival to the picture written and the
# bytes written for it.
page_changes() {
  local name=$1 trace="$dir/$1/trace"
  wait_pictures "$name" 1
  sleep 1
  for key in Right Right Right Right Left Left; do
    local before
    before=$(pictures_in "$name")
    tmux -S "$sock" send-keys -t "$name" "$key"
    wait_pictures "$name" $((before + 1))
    awk -v kind="$([ "$key" = Right ] && echo new || echo seen)" '
      / input$/ { input = $1 }
      / picture / { n++; if (n == want) printf "%s %.0f %d\n", kind, ($1 - input) / 1e6, $4 }
    ' want=$((before + 1)) "$trace"
    sleep 0.6
  done
}

# written PID: bytes written so far.
# cpu_ns PID: CPU time of its threads in nanoseconds (schedstat: finer than clock ticks, which
# are 10 ms; 1% of a core in a 4 s window is 4 of them).
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'; }
written() { awk '/^wchar/ { print $2 }' "/proc/$1/io"; }

# summary KIND FILE: "median ms (min to max), median bytes" of the lines of one kind.
summary() {
  local ms bytes
  ms=$(awk -v k="$1" '$1 == k { print $2 }' "$2" | median)
  bytes=$(awk -v k="$1" '$1 == k { print $3 }' "$2" | median)
  awk -v k="$1" -v ms="$ms" -v bytes="$bytes" '$1 == k { n++; if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 }
    END { printf "median %.0f ms (%d to %d, %d changes), median %d bytes", ms, min, max, n, bytes }' "$2"
}

for pictures in kitty sixel; do
  [[ $parts == *" pages "* ]] || break
  : >"$dir/changes-$pictures"
  for round in $(seq "$rounds"); do
    start "page-$pictures-$round" "$pictures" 200 60 >/dev/null
    page_changes "page-$pictures-$round" >>"$dir/changes-$pictures"
    tmux -S "$sock" kill-session -t "page-$pictures-$round"
  done
  echo "page change at 200x60, $pictures (key to picture written; bytes for it):"
  echo "  a new page:  $(summary new "$dir/changes-$pictures")"
  echo "  a page seen: $(summary seen "$dir/changes-$pictures")"
done

for pictures in kitty sixel symbols; do
  [[ $parts == *" bytes "* ]] || break
  pid=$(start "play-$pictures" "$pictures" 200 60)
  # The first song (31 s) plays on through the windows: no page change within them.
  if [ "$pictures" = symbols ]; then sleep 3; else wait_pictures "play-$pictures" 1; fi
  sleep 2
  rates=$(for _ in $(seq "$rounds"); do
    w0=$(written "$pid"); sleep 5; w1=$(written "$pid"); echo $(((w1 - w0) / 5))
  done)
  echo "playing under a $pictures cover at 200x60: median $(echo "$rates" | median) bytes/s written ($(echo $rates | tr ' ' '/'))"
  tmux -S "$sock" kill-session -t "play-$pictures"
done

# visualizer NAME BINARY: CPU per cent of a core over windows of 4 s, playing alone and with the
# visualizer in turn (v toggles it), ROUNDS of each; prints "off on bytes/s" medians.
visualizer() {
  local name=$1 binary=$2 pid off="" on="" bytes=""
  pid=$(start "$name" symbols 100 32 "$binary")
  sleep 3
  for _ in $(seq "$rounds"); do
    c0=$(cpu_ns "$pid"); sleep 4; c1=$(cpu_ns "$pid")
    off="$off $((c1 - c0))"
    tmux -S "$sock" send-keys -t "$name" v
    sleep 0.5
    c2=$(cpu_ns "$pid"); w2=$(written "$pid"); sleep 4; c3=$(cpu_ns "$pid"); w3=$(written "$pid")
    on="$on $((c3 - c2))"
    bytes="$bytes $(((w3 - w2) / 4))"
    tmux -S "$sock" send-keys -t "$name" v
    sleep 0.5
  done
  tmux -S "$sock" kill-session -t "$name"
  # The song is 31 s: the windows above fit in it at ROUNDS=3.
  printf '%s %s %s\n' "$(echo $off | tr ' ' '\n' | median)" "$(echo $on | tr ' ' '\n' | median)" \
    "$(echo $bytes | tr ' ' '\n' | median)"
}

report() {
  awk -v label="$1" -v off="$2" -v on="$3" -v bytes="$4" 'BEGIN {
    printf "visualizer at 100x32, 30 frames/s, %s: playing %.2f%% of a core, with the visualizer %.2f%% (+%.2f%%), %d bytes/s written (medians of 4 s windows)\n",
      label, 100 * off / 4e9, 100 * on / 4e9, 100 * (on - off) / 4e9, bytes }'
}

if [[ $parts != *" visualizer "* ]]; then
  :
elif [ -n "$before_bin" ]; then
  # In turn, so both see the same load: before, this, before, this.
  for pass in 1 2; do
    # shellcheck disable=SC2046
    report "before (pass $pass)" $(visualizer "vis-before-$pass" "$before_bin")
    # shellcheck disable=SC2046
    report "this build (pass $pass)" $(visualizer "vis-$pass" "$bin")
  done
else
  # shellcheck disable=SC2046
  report "this build" $(visualizer vis "$bin")
fi
echo "load average at end: $(load)"
