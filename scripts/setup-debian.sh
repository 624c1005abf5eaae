#!/usr/bin/env bash
# Installs the Debian packages Riffle builds, runs and tests with (only those missing), and
# checks that a Swift 6 toolchain is on PATH. Safe to run again; needs root or sudo to install.
set -euo pipefail

packages=(
  pkg-config          # SwiftPM finds the C libraries through their .pc files
  libncurses-dev      # ncursesw: the screen
  libcurl4-openssl-dev ca-certificates  # libcurl: every transfer, TLS verified
  libmpg123-dev       # MP3 decoding
  libavformat-dev libavcodec-dev libswresample-dev libavutil-dev  # FFmpeg: AAC in M4A and the rest
  libao-dev           # audio output (pulse, alsa, null, wav)
  libchafa-dev        # cover art: pixels to terminal symbols and colours
  libglib2.0-dev      # chafa.pc requires glib-2.0; without it SwiftPM drops chafa's flags
  libturbojpeg0-dev   # JPEG covers
  libpng-dev          # PNG covers
  libwebp-dev         # WebP covers
  libsystemd-dev      # sd-bus: MPRIS and notifications on the D-Bus session bus
  make                # make install / uninstall
  libfftw3-dev        # fingerprints: the short-time spectra (FFTW, single precision)
  libsqlite3-dev      # the music library's index (SQLite with FTS5)
  libebur128-dev      # the music library: EBU R128 loudness of songs without ReplayGain
  libtag1-dev         # the music library: synced lyrics in ID3v2 tags (SYLT), which FFmpeg skips
  libpulse-dev        # PulseAudio's simple API: playback, and recording for "name that song"
  libxml2-dev         # podcast feeds: FoundationXML (XMLParser) links libxml2; a static build needs its .so
  icecast2            # tests play a live station from a private Icecast server (ffmpeg is its source)
  python3-venv curl   # tests install Supysonic (a Subsonic server) from PyPI into a venv and query it
  ncurses-term        # terminfo for tmux-256color, xterm-direct, ...
  tmux                # the end-to-end tests drive the real screen through it
  pulseaudio pulseaudio-utils  # tests play through a private PulseAudio server (pactl, parec)
  mpg123              # tests compare Riffle's decoded audio with mpg123's own
  ffmpeg              # tests compare decoded M4A with ffmpeg's own; encodes test audio
  python3-mutagen     # tests write SYLT frames (synced lyrics in ID3v2) into MP3s ffmpeg made
  dbus                # tests start a private dbus-daemon --session
  playerctl           # tests drive MPRIS as a user's media keys do
  man-db              # the install test renders the man page
  binutils            # the install test reads the binary's links (readelf)
  xvfb xterm kitty imagemagick fonts-dejavu-core xdotool  # real-terminal tests under Xvfb
)

# Scripts that need more (the benchmark, the hardening suite) name it here.
# shellcheck disable=SC2206
packages+=(${RIFFLE_EXTRA_PACKAGES:-})

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "riffle setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [ -x "$dir/swift" ] && export PATH="$dir:$PATH" && break
  done
fi
command -v swift >/dev/null 2>&1 || {
  echo "riffle setup: no Swift toolchain found; install Swift 6 from swift.org and put it on PATH" >&2
  exit 1
}
