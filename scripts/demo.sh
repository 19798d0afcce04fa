#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The demo from a fresh clone on Debian 12: installs what is missing,
# builds, and runs configs/demo.yaml against throng's built-in target (an
# HTTP and HTTPS server on 127.0.0.1 that throng starts and stops itself).
set -euo pipefail

cd "$(dirname "$0")/.."
. scripts/deps.sh
throng_install_deps

build="${BUILD_DIR:-build}"
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build"
fi
meson compile -C "$build" ${JOBS:+-j "$JOBS"}
exec "$build/cli/throng" run configs/demo.yaml "$@"
