#!/usr/bin/env bash
# The hardening suite (docs/hardening.md): the tests under AddressSanitizer and
# ThreadSanitizer, every libFuzzer target for a while, leak checks over a real playback run
# (LeakSanitizer, and valgrind's memcheck), and kill -9 at random moments while liking and
# caching.
#
#   scripts/harden.sh                    # everything (about an hour on 2 busy cores)
#   scripts/harden.sh fuzz leaks         # some parts: asan tsan fuzz leaks valgrind crash
#   FUZZ_SECONDS=3600 scripts/harden.sh fuzz   # longer fuzzing
#
# Separate from scripts/test.sh (CI): each sanitizer builds into its own folder (.build-asan,
# .build-tsan, .build-fuzz, and .build-valgrind), so nothing here disturbs the normal build.
set -euo pipefail
cd "$(dirname "$0")/.."
RIFFLE_EXTRA_PACKAGES="valgrind python3" source scripts/setup-debian.sh

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(fuzz leaks valgrind crash asan tsan)
wants() { [[ " ${parts[*]} " == *" $1 "* ]]; }

FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
CRASH_ROUNDS="${CRASH_ROUNDS:-40}"
failed=()
# The Swift runtime's own crash reporter waits on the crashed process; libFuzzer and the
# sanitizers print their own reports.
export SWIFT_BACKTRACE=enable=no

# Unit tests in parallel; audio and end-to-end tests one at a time (they run in real time),
# against the riffle binary of the same sanitized build.
# RIFFLE_BINARY is set for these commands only: exported, it outlived the function and the leak
# checks after it ran the ThreadSanitizer build's riffle.
run_tests() {
  local scratch="$1"
  shift
  local binary="$PWD/$scratch/debug/riffle"
  RIFFLE_BINARY="$binary" swift test --skip-build --scratch-path "$scratch" "$@" \
    --skip "RiffleEndToEndTests|RiffleAudioTests" &&
    RIFFLE_BINARY="$binary" swift test --skip-build --scratch-path "$scratch" "$@" --no-parallel \
      --filter "RiffleEndToEndTests|RiffleAudioTests" ${SERIAL_SKIP:+--skip "$SERIAL_SKIP"}
}

if wants asan; then
  echo "== tests under AddressSanitizer (.build-asan)"
  swift build --build-tests --sanitize=address --scratch-path .build-asan
  # Leaks are the playback leak check's part below: at the end of a test process LeakSanitizer
  # would also count what the Swift runtime and Foundation keep for the life of the process.
  ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1" \
    run_tests .build-asan --sanitize=address || failed+=(asan)
fi

if wants tsan; then
  echo "== tests under ThreadSanitizer (.build-tsan)"
  swift build --build-tests --sanitize=thread --scratch-path .build-tsan
  # ThreadSanitizer's runtime keeps a thread of its own that wakes ten times a second, which
  # the wake-up tests would count; they run in the plain suite and under AddressSanitizer.
  SERIAL_SKIP=IdleWakeupsEndToEndTests \
    TSAN_OPTIONS="halt_on_error=1:suppressions=$PWD/Tests/Hardening/tsan.supp" \
    run_tests .build-tsan --sanitize=thread || failed+=(tsan)
fi

if wants fuzz; then
  echo "== libFuzzer targets, ${FUZZ_SECONDS} s each (.build-fuzz)"
  # lld: gold fails on the sanitizer runtime's symbols. RIFFLE_FUZZ makes riffle-fuzz hand its
  # arguments to libFuzzer instead of replaying files. Optimized, as fuzz targets usually are:
  # the debug build ran the decoder target 3 to 4 times slower (-O keeps Swift's bounds and
  # overflow checks; there is no assert in Sources to lose).
  swift build -c release --product riffle-fuzz --scratch-path .build-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DRIFFLE_FUZZ -Xswiftc -use-ld=lld
  fuzzer=.build-fuzz/release/riffle-fuzz
  for target in $($fuzzer --list); do
    work=".build-fuzz/corpus/$target"
    artifacts=".build-fuzz/artifacts/$target/"
    mkdir -p "$work" "$artifacts"
    echo "-- $target"
    # config: TOMLKit leaks an error record on every parse (suppressed, third-party, see
    # lsan.supp), so every input leaves more mallocs than frees and libFuzzer runs a
    # LeakSanitizer pass after each one: 27 inputs a second instead of 3,400. Its corpus (the
    # seeds and every input found before) is checked for leaks input by input first; the
    # fuzzing itself then runs without the per-input pass.
    leaks=1
    if [ "$target" = config ]; then
      leaks=0
      if ! ASAN_OPTIONS="detect_leaks=1" LSAN_OPTIONS="suppressions=$PWD/Tests/Hardening/lsan.supp" \
        "$fuzzer" "$target" -runs=0 -detect_leaks=1 -artifact_prefix="$artifacts" \
        "$work" "Tests/Fuzz/corpus/$target" >".build-fuzz/$target-leaks.log" 2>&1; then
        echo "fuzz target $target: its corpus leaks; see .build-fuzz/$target-leaks.log"
        failed+=("fuzz:$target")
        continue
      fi
      echo "corpus checked for leaks: $(find "$work" "Tests/Fuzz/corpus/$target" -type f | wc -l) inputs"
    fi
    # New inputs go to the work folder (the committed seeds stay as they are); a crash, hang
    # (-timeout), leak, or a single allocation over 256 MB (a size taken from the input at its
    # word) leaves its input in the artifacts folder and fails the run.
    if ASAN_OPTIONS="detect_leaks=$leaks" LSAN_OPTIONS="suppressions=$PWD/Tests/Hardening/lsan.supp" \
      "$fuzzer" "$target" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=3072 \
      -malloc_limit_mb=256 -detect_leaks="$leaks" \
      -artifact_prefix="$artifacts" -print_final_stats=1 \
      "$work" "Tests/Fuzz/corpus/$target" >".build-fuzz/$target.log" 2>&1; then
      grep -E "^Done|stat::number_of_executed_units" ".build-fuzz/$target.log" | head -1
    else
      echo "fuzz target $target failed; see .build-fuzz/$target.log and $artifacts"
      grep -E "ERROR|SUMMARY|fuzz check failed" ".build-fuzz/$target.log" | head -5 || true
      failed+=("fuzz:$target")
    fi
  done
fi

if wants leaks; then
  echo "== leak check (LeakSanitizer) over a short playback run"
  swift build --product riffle --sanitize=address --scratch-path .build-asan
  scripts/leak-check-playback.sh || failed+=(leaks)
fi

if wants valgrind; then
  echo "== leak check (valgrind memcheck) over a short playback run (.build-valgrind)"
  # The plain debug build, with DWARF 4 for the C and C++ targets: clang writes DWARF 5, which
  # valgrind 3.19 (Debian 12) cannot read; Swift writes DWARF 4 already.
  swift build --product riffle -Xcc -gdwarf-4 -Xcxx -gdwarf-4 --scratch-path .build-valgrind
  scripts/leak-check-playback.sh valgrind || failed+=(valgrind)
fi

if wants crash; then
  echo "== kill -9 while liking and caching, ${CRASH_ROUNDS} rounds"
  swift build --build-tests
  RIFFLE_BINARY="$PWD/.build/debug/riffle" RIFFLE_CRASH_ROUNDS="$CRASH_ROUNDS" \
    swift test --skip-build --filter CrashSafetyEndToEndTests || failed+=(crash)
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "hardening: FAILED: ${failed[*]}"
  exit 1
fi
echo "hardening: all clean (${parts[*]})"
