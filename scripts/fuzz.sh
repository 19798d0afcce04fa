#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the plan loader's libFuzzer target (tests/fuzz/fuzz-plan.c) with
# clang, AddressSanitizer and UndefinedBehaviorSanitizer in its own build
# directory (default build-fuzz; $FUZZ_BUILD_DIR picks another) and runs it
# for N seconds (first argument, default 60) from a seed corpus of every
# plan in tests/plans/ and configs/ plus tests/fuzz/seeds/.  New inputs
# the fuzzer finds accumulate in BUILD/fuzz-corpus/ between runs; a crash,
# leak, sanitizer report, GLib critical or timeout stops it, leaves the
# input in BUILD/fuzz-artifacts/ and makes this script exit non-zero.
# Turn such an input into a case of tests/plans/bad/ (or tests/fuzz/seeds/
# when the plan is valid) once it is fixed.
#
#   scripts/fuzz.sh          # 60 s
#   scripts/fuzz.sh 600      # ten minutes
#   FUZZ_FRESH=1 scripts/fuzz.sh 60   # reconfigure from scratch (CI)
set -euo pipefail

cd "$(dirname "$0")/.."
seconds="${1:-60}"
build="${FUZZ_BUILD_DIR:-build-fuzz}"
source_dir="$(pwd)"

if ! command -v clang >/dev/null; then
    echo "fuzz: clang is missing (Debian: apt-get install clang libclang-rt-14-dev)" >&2
    exit 1
fi
if [ "${FUZZ_FRESH:-0}" = 1 ]; then
    rm -rf "$build"
fi
if [ ! -f "$build/build.ninja" ]; then
    # b_lundef=false: the plugins leave the sanitizer runtime's symbols to
    # the executable that loads them.
    CC=clang meson setup "$build" -Dfuzzing=true -Db_sanitize=address,undefined \
        -Db_lundef=false -Dbuildtype=debug -Doptimization=1
fi

# Only what the target runs: itself and the plugins it loads.
plugins=$(ninja -C "$build" -t targets all | sed -n 's/^\([^:]*libthrong-[a-z0-9_-]*\.so\): .*/\1/p' \
          | grep -v '/bad/' | sort -u)
ninja -C "$build" ${JOBS:+-j "$JOBS"} tests/fuzz/fuzz-plan $plugins

corpus="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
seeds="$build/fuzz-seeds"
mkdir -p "$corpus" "$artifacts"
rm -rf "$seeds"
mkdir -p "$seeds"
# Flattened copies: the same file name appears in several directories.
for f in tests/fuzz/seeds/* tests/plans/*/*.yaml configs/*.yaml; do
    [ -f "$f" ] || continue
    cp "$f" "$seeds/$(echo "$f" | tr '/' '_')"
done

export THRONG_TEST_PLUGIN_DIR="$source_dir/$build/tests/plugins"
[ -d "$THRONG_TEST_PLUGIN_DIR" ] || THRONG_TEST_PLUGIN_DIR="$build/tests/plugins"
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:print_stacktrace=1:allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export G_SLICE=always-malloc
export G_DEBUG=gc-friendly

echo "fuzz: $(ls "$seeds" | wc -l) seeds, $(ls "$corpus" | wc -l) inputs in $corpus, ${seconds}s"
# -max_len: plans are small, and the loader's byte limit is tested on its own.
# -timeout: a plan that takes seconds to load is a bug too.
"$build/tests/fuzz/fuzz-plan" \
    -max_total_time="$seconds" \
    -max_len=8192 \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -print_final_stats=1 \
    -error_exitcode=1 \
    -dict="$source_dir/tests/fuzz/plan.dict" \
    -artifact_prefix="$artifacts/" \
    "$corpus" "$seeds"
