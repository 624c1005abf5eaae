#!/usr/bin/env bash
# The install as a user gets it: `make install` into a temporary DESTDIR (one release build,
# Swift runtime linked statically), then the installed binary run with the toolchain hidden
# (env -i, PATH=/usr/bin:/bin, no LD_LIBRARY_PATH): no Swift library from the toolchain is
# linked, --version and --help answer, the completions parse, the man page renders, and the
# installed catalog plays to a WAV file in a real terminal (tmux). Then `make uninstall` must
# leave no file behind. scripts/test.sh runs this after the Swift tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-debian.sh

dest="$(mktemp -d /tmp/riffle-install-XXXXXX)"
tmux_socket="$dest.tmux"
cleanup() {
  tmux -S "$tmux_socket" kill-server 2>/dev/null || true
  rm -rf "$dest" "$tmux_socket"
}
trap cleanup EXIT
prefix=/usr/local
root="$dest$prefix"
fail() { echo "test-install: FAIL: $*" >&2; exit 1; }

echo "== make (release build of the current sources), make install DESTDIR=$dest"
make build
make install DESTDIR="$dest" PREFIX="$prefix"

installed=(
  bin/riffle
  share/man/man1/riffle.1
  share/applications/riffle.desktop
  share/bash-completion/completions/riffle
  share/zsh/site-functions/_riffle
  share/fish/vendor_completions.d/riffle.fish
  share/riffle/Catalog/songs.json
)
for f in "${installed[@]}"; do
  [ -s "$root/$f" ] || fail "$f was not installed"
done
for f in $(cd Resources/Catalog && find . -type f); do
  cmp -s "Resources/Catalog/$f" "$root/share/riffle/Catalog/$f" || fail "catalog file $f differs"
done

bin="$root/bin/riffle"
echo "== the installed binary links no Swift runtime from the toolchain"
ldd "$bin" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|/opt/swift' \
  && fail "the installed binary needs the Swift toolchain's libraries"
echo "== FFmpeg, libcurl, libpulse and libsystemd are not linked (each is loaded when first needed)"
readelf -d "$bin" | grep -E 'NEEDED.*(libav|libswresample|libcurl|libpulse|libsystemd)' \
  && fail "the installed binary links a library it should load on first use (see CLinux.h)"

home="$dest/home"
mkdir -p "$home"
hidden() {
  env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 TERM=tmux-256color \
    XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_CACHE_HOME="$home/cache" \
    XDG_RUNTIME_DIR="$home" PULSE_SERVER="unix:$home/no-pulse" "$@"
}

echo "== --version and --help with the toolchain hidden"
version="$(hidden "$bin" --version)"
echo "$version"
grep -q "^riffle [0-9]" <<<"$version" || fail "--version: $version"
for library in libcurl libmpg123 libavformat libao ncursesw chafa libsystemd; do
  grep -q "^  $library " <<<"$version" || fail "--version does not name $library"
done
# Each answer is taken whole before it is searched: `grep -q` stops reading at its first match,
# and under pipefail the binary's later writes into the closed pipe (SIGPIPE) would fail the
# line however right the text was.
help="$(hidden "$bin" --help)" || fail "--help exited $?"
grep -q "doctor" <<<"$help" || fail "--help does not list doctor"
help="$(hidden "$bin" play --help)" || fail "play --help exited $?"
grep -q -- "--audio <driver>" <<<"$help" || fail "play --help does not list --audio"
help="$(hidden "$bin" doctor --help)" || fail "doctor --help exited $?"
grep -q "USAGE: riffle doctor" <<<"$help" || fail "doctor --help"

echo "== completions parse; the man page renders without warnings"
bash -n "$root/share/bash-completion/completions/riffle" || fail "bash completion"
grep -q "doctor" "$root/share/bash-completion/completions/riffle" || fail "bash: no doctor"
grep -q "'--audio" "$root/share/zsh/site-functions/_riffle" || fail "zsh: no --audio"
grep -q "complete -c 'riffle'" "$root/share/fish/vendor_completions.d/riffle.fish" || fail "fish"
if command -v zsh >/dev/null; then zsh -n "$root/share/zsh/site-functions/_riffle"; fi
if command -v fish >/dev/null; then fish -n "$root/share/fish/vendor_completions.d/riffle.fish"; fi
warnings="$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$root/share/man/man1/riffle.1" 2>&1 >/dev/null)"
[ -z "$warnings" ] || fail "man page warnings: $warnings"

echo "== the installed catalog plays in a terminal, into a WAV file"
wav="$dest/out.wav"
tmux -S "$tmux_socket" -f /dev/null new-session -d -x 80 -y 24 \
  "env -i PATH=/usr/bin:/bin HOME=$home LANG=C.UTF-8 TERM=tmux-256color \
   XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data XDG_CACHE_HOME=$home/cache \
   $bin --audio wav:$wav; echo \$? > $dest/status"
screen=""
for _ in $(seq 1 200); do
  screen="$(tmux -S "$tmux_socket" capture-pane -p 2>/dev/null || true)"
  grep -q "Glass Harbor" <<<"$screen" && grep -q "0:02" <<<"$screen" && break
  sleep 0.1
done
grep -q "Glass Harbor" <<<"$screen" || fail "the installed catalog did not show: $screen"
grep -q "0:02" <<<"$screen" || fail "the song did not play for 2 s: $screen"
tmux -S "$tmux_socket" send-keys q
for _ in $(seq 1 100); do [ -s "$dest/status" ] && break; sleep 0.1; done
[ "$(cat "$dest/status" 2>/dev/null)" = "0" ] || fail "riffle did not exit 0"
# 2 s of 44.1 kHz stereo 16-bit is 352800 bytes after the 44-byte header.
size=$(stat -c %s "$wav")
[ "$size" -gt 352800 ] || fail "the WAV holds $size bytes, less than 2 s"
head -c 4 "$wav" | grep -q RIFF || fail "not a WAV file"

echo "== make uninstall leaves nothing behind"
make uninstall DESTDIR="$dest" PREFIX="$prefix"
left="$(find "$dest" \( -type f -o -type l \) ! -path "$dest/home/*" ! -path "$dest/out.wav" ! -path "$dest/status")"
[ -z "$left" ] || fail "left behind: $left"
[ ! -e "$root/share/riffle" ] || fail "share/riffle is still there"
echo "test-install: OK"
