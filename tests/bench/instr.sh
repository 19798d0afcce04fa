#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Client instructions per request of two or more throng builds side by
# side, counted by callgrind (user space, every thread of the throng
# process and nothing else; repeatable where the machine has no hardware
# counters for `perf stat`).  Not a test: a measurement, printed as a table.
#
#   tests/bench/instr.sh BUILD_DIR [BUILD_DIR...]
#
# PROTO=h1 (default): the `fast` transport, HTTP/1.1 keep-alive over
# http://; PROTO=h2: `fast` with `version: 2`, h2c by prior knowledge
# (nginx's plain listener then speaks h2c only, so one protocol a run).
# CONNS users (default 50) on one worker, each running ITER iterations of
# one GET (default 20); every build runs N = CONNS x ITER and 2N requests
# and the difference of the two counts over N is the cost of one request
# without start-up and shutdown.  Each figure is the median of RUNS
# (default 3), the builds' runs interleaved.  The builds are of the same
# buildtype (meson's default, debugoptimized) for the figures to compare.
set -euo pipefail

(( $# >= 1 )) || { echo "usage: $0 BUILD_DIR [BUILD_DIR...]" >&2; exit 2; }
BUILD_DIR=$1
PROTO=${PROTO:-h1}
CONNS=${CONNS:-50}
ITER=${ITER:-20}
RUNS=${RUNS:-3}
case $PROTO in
h1) ;;
h2) NGINX_HTTP2=1 ;;
*) echo "PROTO is h1 or h2" >&2; exit 2 ;;
esac
HTTP_PORT=${HTTP_PORT:-18180}
HTTPS_PORT=${HTTPS_PORT:-18543}
. "$(dirname "$0")/lib.sh"
bench_setup valgrind

# The plan of PROTO for ITERATIONS per user.
plan_of() { # ITERATIONS
    if [[ $PROTO == h2 ]]; then
        h2_plan "${HTTP_URL%/}" 1 "iterations: $1"
    else
        fast_plan h1 "$HTTP_URL" "$CONNS" "iterations: $1"
    fi
}

# Instructions (callgrind's Ir) of one run of the throng of BUILD.
instructions() { # BUILD ITERATIONS
    local out=$WORK/cg.out plan
    plan=$(plan_of "$2")
    rm -f "$out"
    valgrind --tool=callgrind --callgrind-out-file="$out" "$1/cli/throng" run "$plan" \
        --workers 1 --quiet >"$WORK/run.log" 2>&1 \
        || { echo "throng of $1 failed:" >&2; cat "$WORK/run.log" >&2; exit 3; }
    awk '/^summary:/ { print $2 }' "$out"
}

n=$(( CONNS * ITER ))
bench_header "instructions per request, $PROTO, $CONNS users, $n and $(( 2 * n )) requests, median of $RUNS"
declare -A per
for _ in $(seq "$RUNS"); do
    for build in "$@"; do
        a=$(instructions "$build" "$ITER")
        b=$(instructions "$build" $(( 2 * ITER )))
        per[$build]+="$(( (b - a) / n )) "
    done
done
printf '%-40s %12s %8s   %s\n' build 'Ir/request' ratio runs
first=
for build in "$@"; do
    m=$(tr ' ' '\n' <<<"${per[$build]}" | grep . | median)
    [[ -n $first ]] || first=$m
    printf '%-40s %12s %8s   %s\n' "$build ($(git -C "$build/.." rev-parse --short HEAD 2>/dev/null || echo ?))" \
        "$m" "$(awk -v a="$m" -v b="$first" 'BEGIN { printf "%.3f", a / b }')" "${per[$build]}"
done
