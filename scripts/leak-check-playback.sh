#!/usr/bin/env bash
# The leak checks over a short real playback run (parts "leaks" and "valgrind" of
# scripts/harden.sh): riffle plays the bundled catalog in tmux into a WAV file (the first song
# over loopback HTTP through libcurl, the second from disk), on a private session bus of its
# own so MPRIS and song notifications run too; playerctl reads its MPRIS properties and pauses
# and plays it, the player pages once, likes, and quits with q.
#
#   scripts/leak-check-playback.sh            # LeakSanitizer: the ASan build (.build-asan)
#   scripts/leak-check-playback.sh valgrind   # valgrind memcheck: the plain debug build with
#                                             # DWARF 4 for the C targets (.build-valgrind)
#
# LeakSanitizer lists every block no longer reachable; the run passes when it finds none
# outside Tests/Hardening/lsan.supp. Under valgrind the run passes when memcheck counts no
# block definitely lost outside Tests/Hardening/valgrind.supp (third-party leaks, and Data
# storage it cannot see held; each with why) and no memory error at all.
# RIFFLE_BINARY runs another riffle; VALGRIND_SLOWDOWN scales the waits under valgrind (8);
# VALGRIND_OPTIONS adds or overrides memcheck options, e.g. --show-leak-kinds=all.
set -euo pipefail
cd "$(dirname "$0")/.."
tool="${1:-lsan}"
case "$tool" in
  lsan) binary="${RIFFLE_BINARY:-$PWD/.build-asan/debug/riffle}" slow=1 ;;
  valgrind) binary="${RIFFLE_BINARY:-$PWD/.build-valgrind/debug/riffle}" slow="${VALGRIND_SLOWDOWN:-8}" ;;
  *) echo "usage: $0 [lsan|valgrind]"; exit 2 ;;
esac
# The check means nothing on the wrong build: without AddressSanitizer no LeakSanitizer runs
# (and no report is "no leaks"), and valgrind cannot run a sanitizer's build at all.
[ -x "$binary" ] || { echo "leak check: no riffle at $binary"; exit 1; }
if [ "$tool" = lsan ] && ! grep -aq __asan_init "$binary"; then
  echo "leak check: $binary is not built with AddressSanitizer"; exit 1
fi
if [ "$tool" = valgrind ] && grep -aqE "__(asan|tsan)_init" "$binary"; then
  echo "leak check: $binary is a sanitizer's build, which valgrind cannot run"; exit 1
fi
dir="$(mktemp -d /tmp/riffle-leaks.XXXXXX)"
socket="$dir/tmux.sock"
bus_pid=""
http_pid=""
cleanup() {
  tmux -S "$socket" kill-server 2>/dev/null || true
  if [ -n "$http_pid" ]; then kill "$http_pid" 2>/dev/null || true; fi
  # dbus-daemon --nofork does not end on SIGTERM here.
  if [ -n "$bus_pid" ]; then kill -9 "$bus_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

screen() { tmux -S "$socket" capture-pane -p -t riffle 2>/dev/null || true; }
wait_for() { # text, seconds (times the slowdown)
  for _ in $(seq $(($2 * slow * 10))); do
    screen | grep -q "$1" && return 0
    sleep 0.1
  done
  echo "leak check: '$1' never showed; the screen was:"; screen; return 1
}

# A session bus of the run's own (never the user's), as the end-to-end tests do.
mkdir -p "$dir/bus" "$dir/config/riffle"
dbus-daemon --session --nofork --print-address=1 --address="unix:dir=$dir/bus" \
  >"$dir/bus.address" 2>/dev/null </dev/null &
bus_pid=$!
for _ in $(seq 100); do [ -s "$dir/bus.address" ] && break; sleep 0.1; done
bus="$(head -1 "$dir/bus.address")"
[[ "$bus" == unix:* ]] || { echo "leak check: dbus-daemon did not start"; exit 1; }
playerctl() { DBUS_SESSION_BUS_ADDRESS="$bus" command playerctl --player=riffle "$@" 2>&1; }
wait_mpris() { # status, seconds (times the slowdown)
  for _ in $(seq $(($2 * slow * 10))); do
    [ "$(playerctl status)" = "$1" ] && return 0
    sleep 0.1
  done
  echo "leak check: MPRIS never said $1 (playerctl: $(playerctl status))"; return 1
}
# Song notifications as well: with no notification server on this bus each one comes back as
# an error reply, which is the path that must free its pending call.
printf '[notifications]\nenabled = true\n' >"$dir/config/riffle/config.toml"

# The bundled catalog as a feed file of the run's own: the first song's cover and audio come
# over loopback HTTP (a plain HTTP server on 127.0.0.1 serving the catalog folder), so they go
# through libcurl; the rest are local files (the second, played after one page, from disk).
python3 -u -m http.server --bind 127.0.0.1 --directory Resources/Catalog 0 \
  >"$dir/http.log" 2>&1 </dev/null &
http_pid=$!
for _ in $(seq 100); do grep -q "port [0-9]" "$dir/http.log" && break; sleep 0.1; done
port="$(grep -o "port [0-9]*" "$dir/http.log" | head -1 | cut -d' ' -f2)"
[ -n "$port" ] || { echo "leak check: the HTTP server did not start"; exit 1; }
sed -e "s#\"\(audio\|covers\)/riffle-001#\"http://127.0.0.1:$port/\1/riffle-001#" \
  -e "s#\"\(audio\|covers\)/#\"file://$PWD/Resources/Catalog/\1/#" \
  Resources/Catalog/songs.json >"$dir/songs.json"

if [ "$tool" = lsan ]; then
  launcher="env ASAN_OPTIONS=detect_leaks=1:log_path=$dir/lsan \
    LSAN_OPTIONS=suppressions=$PWD/Tests/Hardening/lsan.supp:print_suppressions=0"
else
  # The shim that keeps valgrind 3.19 from crashing in libdispatch (see its source).
  clang -shared -fPIC -O2 -o "$dir/sigsuspend-copy.so" Tests/Hardening/sigsuspend-copy.c -ldl
  launcher="env LD_PRELOAD=$dir/sigsuspend-copy.so valgrind --tool=memcheck \
    --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    --num-callers=40 --suppressions=$PWD/Tests/Hardening/valgrind.supp \
    --log-file=$dir/valgrind.log ${VALGRIND_OPTIONS:-}"
fi
tmux -S "$socket" -f /dev/null new-session -d -s riffle -x 80 -y 24 \
  "env SWIFT_BACKTRACE=enable=no TERM=tmux-256color LANG=C.UTF-8 XDG_CONFIG_HOME=$dir/config \
   DBUS_SESSION_BUS_ADDRESS=$bus \
   XDG_DATA_HOME=$dir/data XDG_CACHE_HOME=$dir/cache \
   $launcher $binary $dir/songs.json --audio wav:$dir/out.wav; echo \$? > $dir/status; sleep 3600"
wait_for "Glass Harbor" 60
wait_mpris Playing 30
playerctl metadata >/dev/null
playerctl play-pause
wait_mpris Paused 10
playerctl play-pause
wait_mpris Playing 10
sleep 2
tmux -S "$socket" send-keys -t riffle Right
wait_for "Neon Orchard" 30
sleep 3
tmux -S "$socket" send-keys -t riffle l
sleep 1
tmux -S "$socket" send-keys -t riffle q
# Under valgrind the leak search at exit takes a while too.
for _ in $(seq $((300 * slow))); do [ -f "$dir/status" ] && break; sleep 0.1; done
[ -f "$dir/status" ] || { echo "leak check: riffle did not quit"; exit 1; }

for path in /covers/riffle-001.png /audio/riffle-001.mp3; do
  grep -q "GET $path" "$dir/http.log" ||
    { echo "leak check: $path was never fetched over HTTP"; exit 1; }
done

if [ "$tool" = valgrind ]; then
  log="$dir/valgrind.log"
  # Every definite leak is an error (--errors-for-leak-kinds), and so is every invalid read or
  # write and every use of an uninitialised value memcheck saw during the run: all must be 0.
  if ! grep -q "definitely lost: 0 bytes in 0 blocks" "$log" ||
    ! grep -q "ERROR SUMMARY: 0 errors" "$log"; then
    grep -E "impossible|definitely lost|ERROR SUMMARY" "$log" || tail -20 "$log"
    echo "leak check (valgrind): definite leaks or memory errors, or valgrind did not finish; see $log"
    exit 1
  fi
  grep -E "definitely lost|indirectly lost|possibly lost|suppressed:|ERROR SUMMARY" "$log" |
    sed 's/^==[0-9]*== *//'
  echo "leak check (valgrind): no definite leaks, MPRIS included (riffle exited $(cat "$dir/status"))"
  exit 0
fi
if ls "$dir"/lsan.* >/dev/null 2>&1; then
  grep -hE "SUMMARY|Direct leak|Indirect leak" "$dir"/lsan.* | head -20
  echo "leak check: leaks found; reports in $dir/lsan.*"
  exit 1
fi
echo "leak check: no leaks, MPRIS included (riffle exited $(cat "$dir/status"))"
