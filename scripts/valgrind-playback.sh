#!/usr/bin/env bash
# valgrind's leak check over a short real playback run (part of scripts/harden.sh): the debug
# binary in tmux plays the bundled catalog into a WAV file, pages once, and quits with q.
# Passes when valgrind finds no definitely lost block; Tests/Hardening/valgrind.supp lists the
# third-party one-time allocations it ignores, each with why.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${RIFFLE_BINARY:-$PWD/.build/debug/riffle}"
dir="$(mktemp -d /tmp/riffle-valgrind.XXXXXX)"
socket="$dir/tmux.sock"
log="${VALGRIND_LOG:-$dir/valgrind.log}"
trap 'tmux -S "$socket" kill-server 2>/dev/null || true' EXIT

screen() { tmux -S "$socket" capture-pane -p -t riffle 2>/dev/null || true; }
wait_for() { # text, seconds
  for _ in $(seq $(($2 * 10))); do
    screen | grep -q "$1" && return 0
    sleep 0.1
  done
  echo "valgrind run: '$1' never showed; the screen was:"; screen; return 1
}

tmux -S "$socket" -f /dev/null new-session -d -s riffle -x 80 -y 24 \
  "env TERM=tmux-256color LANG=C.UTF-8 XDG_CONFIG_HOME=$dir/config XDG_DATA_HOME=$dir/data \
   XDG_CACHE_HOME=$dir/cache valgrind --leak-check=full --show-leak-kinds=definite \
   --errors-for-leak-kinds=definite --num-callers=30 \
   --suppressions=$PWD/Tests/Hardening/valgrind.supp --gen-suppressions=all \
   --log-file=$log $binary --audio wav:$dir/out.wav; echo \$? > $dir/status; sleep 3600"
wait_for "Glass Harbor" 120
sleep 4
tmux -S "$socket" send-keys -t riffle Right
wait_for "Neon Orchard" 60
sleep 3
tmux -S "$socket" send-keys -t riffle l
sleep 1
tmux -S "$socket" send-keys -t riffle q
for _ in $(seq 600); do [ -f "$dir/status" ] && break; sleep 0.1; done
[ -f "$dir/status" ] || { echo "valgrind run: riffle did not quit"; exit 1; }

sed -n '/LEAK SUMMARY/,/suppressed/p' "$log"
grep -E "ERROR SUMMARY" "$log" || true
if grep -q "definitely lost: [1-9]" "$log"; then
  echo "valgrind run: definite leaks; details in $log"
  exit 1
fi
echo "valgrind run: no definite leaks (log: $log)"
