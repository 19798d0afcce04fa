#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# throng's HTTP/2 (`fast`, `version: 2`) against h2load, on one nginx with
# http2 on, on loopback.  Not a test: a measurement, printed as a table.
#
#   tests/bench/h2.sh [BUILD_DIR]        (default: build)
#
# CONNS connections (default 50), HTTPS (h2 through ALPN, TLS 1.3) and h2c
# (prior knowledge), each run bounded to DURATION seconds (default 5, at
# most 10), each figure the median of RUNS runs (default 3, the tools'
# runs interleaved): client CPU µs
# per request (user + system of the client process) and requests/s, as
# ratios to h2load's with one stream per connection (-m1).  throng runs
# CONNS users, each with its one connection and one stream in flight.
#
# The "10 streams" rows: h2load -m10, and throng with each user running a
# `parallel` of 10 requests (`throng-p10`: 10 streams at once on the
# user's connection), as a ratio to h2load -m10.  Unlike h2load, which
# keeps 10 in flight all the time, a throng user starts its next 10 when
# the last of the previous 10 has ended.  (tests/bench/h2-instr.sh counts
# instructions and system calls per request instead.)  The client is pinned to CLIENT_CPU and
# nginx to SERVER_CPU (lib.sh); on a shared machine CPU per request is the
# figure to compare.
set -euo pipefail

BUILD_DIR=${1:-build}
DURATION=${DURATION:-5}
RUNS=${RUNS:-3}
CONNS=${CONNS:-50}

if (( DURATION > 10 )); then
    echo "DURATION is capped at 10 s" >&2
    DURATION=10
fi

NGINX_HTTP2=1
. "$(dirname "$0")/lib.sh"
bench_setup h2load

# One measurement: prints "REQUESTS CPU_S" for TOOL (throng, throng-p10, h2load-m1, h2load-m10) against URL.
measure() { # TOOL URL
    local tool=$1 url=$2 out=$WORK/out.txt cpu requests plan errors
    case $tool in
    h2load-m*)
        cpu=$(run_timed "$out" h2load -t1 -c"$CONNS" -m"${tool#h2load-m}" -D"$DURATION" "$url")
        requests=$(awk '/^requests:/ { print $8 }' "$out") ;;
    throng*)
        local streams=1
        [[ $tool == throng-p* ]] && streams=${tool#throng-p}
        plan=$(h2_plan "${url%/}" "$streams" "duration: ${DURATION}s")
        rm -f "$WORK/h2.json"
        cpu=$(run_timed "$out" "$THRONG" run "$plan" --workers 1 --quiet --out "json=$WORK/h2.json")
        read -r requests errors < <(json "$WORK/h2.json" total.requests total.errors)
        (( errors == 0 )) || echo "throng: $errors errors" >&2 ;;
    esac
    echo "$requests $(awk '{ print $1 + $2 }' <<<"$cpu")"
}

bench_header "throng h2 bench: $DURATION s runs, median of $RUNS, $CONNS connections"
echo "# $(uptime)"
printf '%-6s %-11s %12s %10s %12s %10s\n' proto tool 'cpu us/req' 'x h2load' 'req/s' 'x h2load'
declare -A CPU_US RPS CPUS RPSS
TOOLS="h2load-m1 throng h2load-m10 throng-p10"
for proto in https h2c; do
    url=$HTTPS_URL
    [[ $proto == h2c ]] && url=$HTTP_URL
    # Interleaved: run i of every tool, then run i + 1, so that the machine's
    # drift during the bench falls on all tools alike.
    for _ in $(seq "$RUNS"); do
        for tool in $TOOLS; do
            read -r requests cpu < <(measure "$tool" "$url")
            CPUS[$proto.$tool]+="$(awk -v c="$cpu" -v r="$requests" 'BEGIN { printf "%.2f", (r > 0 ? c * 1e6 / r : 0) }') "
            RPSS[$proto.$tool]+="$(awk -v d="$DURATION" -v r="$requests" 'BEGIN { printf "%.0f", r / d }') "
        done
    done
    for tool in $TOOLS; do
        base=h2load-m1
        [[ $tool == *10 ]] && base=h2load-m10
        CPU_US[$proto.$tool]=$(tr ' ' '\n' <<<"${CPUS[$proto.$tool]}" | grep . | median)
        RPS[$proto.$tool]=$(tr ' ' '\n' <<<"${RPSS[$proto.$tool]}" | grep . | median)
        printf '%-6s %-11s %12s %10s %12s %10s   (runs: %sus; %sreq/s)\n' "$proto" "$tool" \
            "${CPU_US[$proto.$tool]}" \
            "$(awk -v a="${CPU_US[$proto.$tool]}" -v b="${CPU_US[$proto.$base]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
            "${RPS[$proto.$tool]}" \
            "$(awk -v a="${RPS[$proto.$tool]}" -v b="${RPS[$proto.$base]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
            "${CPUS[$proto.$tool]}" "${RPSS[$proto.$tool]}"
    done
done
echo "# throng-p10: a parallel of 10 per user, 10 streams at once on its h2 connection; ratio to h2load -m10"
echo "# $(uptime)"
