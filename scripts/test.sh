#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite from a fresh clone on Debian 12: installs what is
# missing, configures build/ (or $BUILD_DIR) if it is not configured yet,
# builds, and runs every suite with meson but the slow one (the soak and
# the container image, which take minutes; `scripts/test.sh --suite slow`
# runs them).  Extra arguments go to `meson test` instead (e.g.
# `scripts/test.sh --suite unit`).
set -euo pipefail

cd "$(dirname "$0")/.."
. scripts/deps.sh
throng_install_deps

build="${BUILD_DIR:-build}"
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build"
fi
meson compile -C "$build" ${JOBS:+-j "$JOBS"}
if [ "$#" -eq 0 ]; then
    set -- --no-suite slow
fi
meson test -C "$build" --print-errorlogs "$@"
