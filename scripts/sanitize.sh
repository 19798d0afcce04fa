#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The unit and integration suites under AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer, in a build directory of their own (default
# build-asan; $SANITIZE_BUILD_DIR picks another).  Any sanitizer report is
# fatal: the process that hits it exits non-zero, so the test that ran it
# fails.  Suppressions, for third-party libraries only, are in
# tests/sanitizers/.  Extra arguments go to `meson test`, e.g.
# `scripts/sanitize.sh --suite unit`.  By default it runs the unit and
# integration suites but the tests that run 'alone' (tests/meson.build
# says which and why: they measure time or CPU, which the sanitizers
# distort).  Tests run side by side ($SANITIZE_JOBS at a time, default 3:
# most of a test's time is waiting on its servers).
#
# The build is gcc's: clang's static ASan runtime cannot intercept
# __cxa_throw in a C program, and libproxy (C++, loaded by GIO for a
# SoupSession's default proxy resolver) throws, which aborts the process.
#
# The SDK test (`scripts/sanitize.sh sdk` alone) installs this sanitized
# build, builds the example plugins of docs/examples/ with the same
# sanitizers (-fsanitize=$THRONG_SANITIZED, through cc and pkg-config and
# through the guide's meson recipe) and runs them against their test
# servers, so a shipped example that misuses memory fails here.
#
# SANITIZE_FRESH=1 removes the build directory first (CI does).
set -euo pipefail

cd "$(dirname "$0")/.."
build="${SANITIZE_BUILD_DIR:-build-asan}"
source_dir="$(pwd)"

if [ "${SANITIZE_FRESH:-0}" = 1 ]; then
    rm -rf "$build"
fi
if [ ! -f "$build/build.ninja" ]; then
    # b_lundef=false: the plugins leave the sanitizer runtime's symbols to
    # the executable that loads them.
    # Frame pointers: the leak reports' stacks come from the fast unwinder.
    meson setup "$build" -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debug -Doptimization=1 -Dc_args=-fno-omit-frame-pointer
fi
meson compile -C "$build" ${JOBS:+-j "$JOBS"}

supp="$source_dir/tests/sanitizers"
# halt_on_error/abort: the first report ends the process with a failure.
# detect_leaks: LeakSanitizer at exit.  G_SLICE=always-malloc: GLib's
# slice allocator would hide leaks of its blocks from LeakSanitizer.
# fast_unwind_on_malloc=1: the frame-pointer unwinder for the stack of
# every allocation; the DWARF one made the suite three times slower (the
# nginx test 100 s against 8 s).  A leak's stack then ends at the first
# library frame, enough for throng's own leaks; tests/sanitizers/lsan.supp
# says why it needs no entry for the libraries'.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:exitcode=86:detect_leaks=1:print_stacktrace=1:detect_stack_use_after_return=1:check_initialization_order=1:fast_unwind_on_malloc=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="exitcode=87:print_suppressions=0:suppressions=$supp/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=88:suppressions=$supp/ubsan.supp${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export G_SLICE=always-malloc
# For tests whose figures mean nothing under ASan (resident-set bounds,
# tight timings): they may skip those assertions when this is set.
export THRONG_SANITIZED=address,undefined

if [ "$#" -eq 0 ]; then
    set -- --suite unit --suite integration --no-suite alone
fi
# Sanitized code is 2-5 times slower: give every test three times its timeout.
meson test -C "$build" --print-errorlogs --timeout-multiplier 3 \
    --num-processes "${SANITIZE_JOBS:-3}" "$@"
