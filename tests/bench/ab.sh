#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Keep-alive client CPU per request of two throng builds and wrk,
# interleaved run by run against one nginx (tests/bench/lib.sh): 50
# connections, one worker, median of RUNS (default 3) runs of DURATION s
# (default 3).
#
#   BEFORE_DIR=/tmp/before/build BUILD_DIR=build tests/bench/ab.sh
#
# BEFORE_DIR is a build of the baseline (git archive REV | tar -x -C DIR,
# meson setup, compile the throng command and the plugins).  Prints each median,
# its ratio to wrk's, and the runs; on a shared machine report the ratios.
#
# THINK (a think time, "1s") makes the users mostly idle, with RAMP
# (default 0s) as their ramp-up, and leaves wrk out: the two builds only,
# with the median of their run-by-run ratios.  PROTOS picks "http",
# "https" or both (default).  Many idle users:
#
#   BEFORE_DIR=… CONNS=8000 THINK=1s RAMP=2s DURATION=15 RUNS=5 PROTOS=http tests/bench/ab.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
: "${BEFORE_DIR:?BEFORE_DIR: the build directory of the baseline}"
DURATION=${DURATION:-3}; RUNS=${RUNS:-3}; CONNS=${CONNS:-50}
THINK=${THINK:-}; RAMP=${RAMP:-0s}; PROTOS=${PROTOS:-http https}
TOOLS="wrk before after"
[[ -n $THINK ]] && TOOLS="before after"
if (( CONNS + 1024 > ${NGINX_CONNECTIONS:-8192} )); then NGINX_CONNECTIONS=$(( CONNS + 1024 )); fi
. tests/bench/lib.sh
if [[ -n $THINK ]]; then bench_setup; else bench_setup wrk; fi
plan() { cat > "$WORK/ka.yaml" <<P
name: ka
scenarios:
  - name: ka
    users: $CONNS
    duration: ${DURATION}s
${THINK:+    think_time: $THINK
    ramp_up: $RAMP
}    http:
      base_url: ${1%/}
      transport: fast
      keep_alive: true
      tls: { ca_file: '$WORK/ca.pem', session: per-thread, resumption: true }
    steps:
      - http: { url: / }
      - http: { url: /second }
P
echo "$WORK/ka.yaml"; }
measure() { local tool=$1 url=$2 out=$WORK/out.txt cpu requests p
  case $tool in
  wrk) cpu=$(run_timed "$out" wrk -t1 -c"$CONNS" -d"${DURATION}s" "$url"); requests=$(awk '/requests in/ { print $1 }' "$out");;
  before|after) local dir=$BEFORE_DIR; [[ $tool == after ]] && dir=$BUILD_DIR
     # cli/throng since the command left core/; an older "before" built core/throng
     local bin=$dir/cli/throng; [[ -x $bin ]] || bin=$dir/core/throng
     p=$(plan "$url"); rm -f "$WORK/ka.json"
     cpu=$(run_timed "$out" "$bin" run "$p" --workers 1 --quiet --out "json=$WORK/ka.json"); requests=$(json "$WORK/ka.json" total.requests);;
  esac
  awk -v c="$(awk '{print $1+$2}' <<<"$cpu")" -v r="$requests" 'BEGIN { printf "%.2f\n", c*1e6/r }'; }
uptime
for proto in $PROTOS; do
  url=$HTTP_URL; [[ $proto == https ]] && url=$HTTPS_URL
  declare -A all=()
  for i in $(seq "$RUNS"); do
    for tool in $TOOLS; do all[$tool]+="$(measure $tool "$url") "; done
  done
  for tool in $TOOLS; do
    m=$(tr ' ' '\n' <<<"${all[$tool]}" | grep . | median)
    if [[ -z $THINK ]]; then
      w=$(tr ' ' '\n' <<<"${all[wrk]}" | grep . | median)
      printf '%-5s %-6s median %7s us/req  x wrk %s   (runs: %s)\n' $proto $tool "$m" "$(awk -v a=$m -v b=$w 'BEGIN{printf "%.2f", a/b}')" "${all[$tool]}"
    else
      printf '%-5s %-6s median %7s us/req   (runs: %s)\n' $proto $tool "$m" "${all[$tool]}"
    fi
  done
  # Each after run over the before run just ahead of it: the machine drifts between pairs, not within one.
  ratios=$(paste <(tr ' ' '\n' <<<"${all[after]}" | grep .) <(tr ' ' '\n' <<<"${all[before]}" | grep .) | awk '{ printf "%.2f\n", $1 / $2 }')
  printf '%-5s after / before, run by run: median %s   (pairs: %s)\n' $proto "$(median <<<"$ratios")" "$(tr '\n' ' ' <<<"$ratios")"
  unset all
done
uptime
