#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# How close the capacity search lands to a known capacity, and how long it
# takes: RUNS (default 5) runs of the proof's plan (docs/capacity.md:
# slo p99 < 50ms, rate 50/s to 5000/s, step 5s) against the test target of
# 4 slots of 20 ms (200/s exactly), through test-capacity's
# /capacity/accuracy case (-m perf).  Prints each run and the medians of
# the rate found, its error and the search's wall time.
#
#   BUILD_DIR=build RUNS=5 tests/bench/capacity.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=$(cd "${BUILD_DIR:-build}" && pwd)
RUNS=${RUNS:-5}
export THRONG_EXE=$BUILD_DIR/cli/throng THRONG_SOURCE_DIR=$PWD THRONG_BUILD_DIR=$BUILD_DIR \
       THRONG_TEST_PLUGIN_DIR=$BUILD_DIR/tests/plugins
lines=()
for ((i = 1; i <= RUNS; i++)); do
    line=$("$BUILD_DIR/tests/test-capacity" -m perf -p /capacity/accuracy | grep '^capacity-bench:')
    echo "run $i: ${line#capacity-bench: }"
    lines+=("$line")
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { for l in "${lines[@]}"; do awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$l"; done; }
echo "median of $RUNS: found $(field found | median)/s (expected 200/s), error $(field error | tr -d '%+' | median)%," \
     "search $(field time | median) s, levels $(field levels | median)"
