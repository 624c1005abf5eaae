#!/usr/bin/env bash
# The leak check over a short real playback run (part of scripts/harden.sh): the
# AddressSanitizer build of riffle plays the bundled catalog in tmux into a WAV file, pages
# once, likes, and quits with q; LeakSanitizer then lists every block no longer reachable.
# Passes when it finds none outside Tests/Hardening/lsan.supp (third-party only, each with
# why). valgrind would be the other tool, but valgrind 3.19 crashes inside libdispatch in every
# Swift program here (see docs/hardening.md).
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${RIFFLE_BINARY:-$PWD/.build-asan/debug/riffle}"
dir="$(mktemp -d /tmp/riffle-leaks.XXXXXX)"
socket="$dir/tmux.sock"
trap 'tmux -S "$socket" kill-server 2>/dev/null || true' EXIT

screen() { tmux -S "$socket" capture-pane -p -t riffle 2>/dev/null || true; }
wait_for() { # text, seconds
  for _ in $(seq $(($2 * 10))); do
    screen | grep -q "$1" && return 0
    sleep 0.1
  done
  echo "leak check: '$1' never showed; the screen was:"; screen; return 1
}

tmux -S "$socket" -f /dev/null new-session -d -s riffle -x 80 -y 24 \
  "env SWIFT_BACKTRACE=enable=no TERM=tmux-256color LANG=C.UTF-8 XDG_CONFIG_HOME=$dir/config \
   XDG_DATA_HOME=$dir/data XDG_CACHE_HOME=$dir/cache \
   ASAN_OPTIONS=detect_leaks=1:log_path=$dir/lsan \
   LSAN_OPTIONS=suppressions=$PWD/Tests/Hardening/lsan.supp:print_suppressions=0 \
   $binary $PWD/Resources/Catalog/songs.json --audio wav:$dir/out.wav; echo \$? > $dir/status; sleep 3600"
wait_for "Glass Harbor" 60
sleep 4
tmux -S "$socket" send-keys -t riffle Right
wait_for "Neon Orchard" 30
sleep 3
tmux -S "$socket" send-keys -t riffle l
sleep 1
tmux -S "$socket" send-keys -t riffle q
for _ in $(seq 300); do [ -f "$dir/status" ] && break; sleep 0.1; done
[ -f "$dir/status" ] || { echo "leak check: riffle did not quit"; exit 1; }

if ls "$dir"/lsan.* >/dev/null 2>&1; then
  grep -hE "SUMMARY|Direct leak|Indirect leak" "$dir"/lsan.* | head -20
  echo "leak check: leaks found; reports in $dir/lsan.*"
  exit 1
fi
echo "leak check: no leaks (riffle exited $(cat "$dir/status"))"
