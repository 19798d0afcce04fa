#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What each reporter adds to the client's CPU (issue 18: at most 2% on the
# keep-alive benchmark): the same keep-alive run against nginx, once with
# only the JSON summary the script reads its counts from (the baseline),
# then once per reporter added beside it, one reporter at a time.  Not a
# test: a measurement, printed as a table for docs/benchmarks.md.
#
#   tests/bench/reporters.sh [BUILD_DIR]        (default: build)
#
# Rows: baseline, csv (a row per request), prometheus (served on a
# loopback port, scraped by nothing: what throng pays to keep the page
# current), junit, influxdb (a real influxd started here on loopback when
# Debian's `influxdb` is installed, else the row is left out).  Each figure
# is the median of RUNS runs (default 5) of DURATION seconds (default 5)
# with USERS users (default 50) on one worker, pinned as lib.sh pins them.
# Runs of the variants are interleaved, so that a change in the machine's
# load falls on all of them alike.
#
# CPU time on a shared machine moves by more than the 2% asked of a
# reporter, and this VM has no hardware counters, so a second table counts
# instructions (user space only, all threads) under valgrind's cachegrind:
# each variant once, for CG_ITERATIONS iterations per user (default 1000;
# 0 leaves the table out), instructions per request and the ratio to the
# baseline's.  The count does not move with the machine's load; it leaves
# out the kernel's share (most of a keep-alive request's CPU), so read it
# beside the first table, not instead of it.  Under valgrind a run takes
# tens of times longer, so work done once a second (snapshots, a
# reporter's interval) weighs that much more per request there than in
# the first table: the count is an upper bound for such reporters.
set -euo pipefail

BUILD_DIR=${1:-build}
DURATION=${DURATION:-5}
RUNS=${RUNS:-5}
# REPORTERS="influxdb" measures only those beside the baseline (default: all).
REPORTERS=${REPORTERS:-}
CG_ITERATIONS=${CG_ITERATIONS:-1000}
USERS=${USERS:-50}
PROM_PORT=${PROM_PORT:-29464}
INFLUX_PORT=${INFLUX_PORT:-28086}

. "$(dirname "$0")/lib.sh"
bench_setup

INFLUXD_PID=
stop_influxd() {
    if [ -n "$INFLUXD_PID" ]; then
        kill "$INFLUXD_PID" 2>/dev/null || true
        wait "$INFLUXD_PID" 2>/dev/null || true
    fi
}
trap 'stop_influxd; bench_cleanup' EXIT

variants=(baseline csv prometheus junit)
if command -v influxd >/dev/null; then
    mkdir -p "$WORK/influx"
    cat > "$WORK/influx/influxdb.conf" <<CONF
reporting-disabled = true
bind-address = "127.0.0.1:$((INFLUX_PORT + 2))"
[meta]
  dir = "$WORK/influx/meta"
[data]
  dir = "$WORK/influx/data"
  wal-dir = "$WORK/influx/wal"
[http]
  bind-address = "127.0.0.1:$INFLUX_PORT"
  log-enabled = false
CONF
    influxd -config "$WORK/influx/influxdb.conf" >"$WORK/influx/log" 2>&1 &
    INFLUXD_PID=$!
    for _ in $(seq 100); do
        curl -fsS -XPOST "http://127.0.0.1:$INFLUX_PORT/query" --data-urlencode \
            "q=CREATE DATABASE throng" >/dev/null 2>&1 && break
        sleep 0.1
    done
    variants+=(influxdb)
fi
if [ -n "$REPORTERS" ]; then
    variants=(baseline $REPORTERS)
fi

plan() { # VARIANT [ITERATIONS]: writes the plan of one variant, prints its path
    local reporters='' length="duration: ${DURATION}s"
    [ -n "${2:-}" ] && length="iterations: $2"
    case $1 in
    csv) reporters="reporters: [ { csv: { path: \"$WORK/out.csv\" } } ]" ;;
    prometheus) reporters="reporters: [ { prometheus: { listen: \"127.0.0.1:$PROM_PORT\", linger: 0s } } ]" ;;
    junit) reporters="reporters: [ { junit: { path: \"$WORK/out.xml\" } } ]" ;;
    influxdb) reporters="reporters: [ { influxdb: { url: \"http://127.0.0.1:$INFLUX_PORT\", database: throng } } ]" ;;
    esac
    cat > "$WORK/$1.yaml" <<PLAN
name: reporters-$1
$reporters
scenarios:
  - name: $1
    users: $USERS
    $length
    http: { base_url: "${HTTP_URL%/}", transport: fast }
    steps:
      - http: { url: / }
PLAN
    echo "$WORK/$1.yaml"
}

bench_header "throng reporter overhead: $DURATION s runs, median of $RUNS, $USERS users, 1 worker"
echo
declare -A RUNS_US
for _ in $(seq "$RUNS"); do
    for variant in "${variants[@]}"; do
        rm -f "$WORK/out.json" "$WORK/out.csv" "$WORK/out.xml"
        cpu=$(run_timed "$WORK/out.txt" "$THRONG" run "$(plan "$variant")" --workers 1 --quiet \
            --overwrite --out "json=$WORK/out.json")
        requests=$(json "$WORK/out.json" total.requests)
        RUNS_US[$variant]+="$(awk -v c="$(awk '{ print $1 + $2 }' <<<"$cpu")" -v r="$requests" \
            'BEGIN { printf "%.3f", (r > 0 ? c * 1e6 / r : 0) }') "
    done
done
printf '%-11s %12s %12s   %s\n' reporter 'cpu us/req' 'x baseline' 'runs (us/req)'
base=$(tr ' ' '\n' <<<"${RUNS_US[baseline]}" | grep . | median)
for variant in "${variants[@]}"; do
    med=$(tr ' ' '\n' <<<"${RUNS_US[$variant]}" | grep . | median)
    printf '%-11s %12s %12s   %s\n' "$variant" "$med" \
        "$(awk -v a="$med" -v b="$base" 'BEGIN { printf "%.3f", a / b }')" "${RUNS_US[$variant]}"
done
echo
echo "target: each reporter at most 1.02 x baseline"

if (( CG_ITERATIONS > 0 )) && command -v valgrind >/dev/null; then
    echo
    printf '%-11s %12s %12s   (cachegrind, %s iterations x %s users, user-space instructions)\n' \
        reporter 'instr/req' 'x baseline' "$CG_ITERATIONS" "$USERS"
    base_ir=
    for variant in "${variants[@]}"; do
        rm -f "$WORK/out.json" "$WORK/out.csv" "$WORK/out.xml" "$WORK/cg.out"
        taskset -c "$CLIENT_CPU" valgrind --tool=cachegrind --cache-sim=no \
            --cachegrind-out-file="$WORK/cg.out" "$THRONG" run "$(plan "$variant" "$CG_ITERATIONS")" \
            --workers 1 --quiet --overwrite --out "json=$WORK/out.json" >"$WORK/cg.txt" 2>&1
        requests=$(json "$WORK/out.json" total.requests)
        ir=$(awk '/^summary:/ { print $2 }' "$WORK/cg.out")
        per=$(awk -v i="$ir" -v r="$requests" 'BEGIN { printf "%.0f", (r > 0 ? i / r : 0) }')
        [ -z "$base_ir" ] && base_ir=$per
        printf '%-11s %12s %12s\n' "$variant" "$per" \
            "$(awk -v a="$per" -v b="$base_ir" 'BEGIN { printf "%.3f", a / b }')"
    done
fi
