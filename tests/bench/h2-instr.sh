#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Client instructions per request over h2c, throng against h2load, counted
# by callgrind (user space; noise-robust where the machine has no hardware
# counters for `perf stat`).  Not a test: a measurement.
#
#   tests/bench/h2-instr.sh [BUILD_DIR]      (default: build)
#
# Each tool runs twice, with N and 2N requests (CONNS connections; N =
# CONNS x ITER x STREAMS); the difference of the two counts over N is the
# cost of one request without start-up and shutdown.  throng-pS: CONNS
# users, each running ITER iterations of a `parallel` of S requests
# (max: S); h2load-mS: -c CONNS -m S -n N.  Also the syscalls per request
# (strace -c -f, same difference).
set -euo pipefail

BUILD_DIR=${1:-build}
CONNS=${CONNS:-50}
ITER=${ITER:-4}
STREAMS_LIST=${STREAMS_LIST:-"1 10"}

NGINX_HTTP2=1
HTTP_PORT=${HTTP_PORT:-18080}
HTTPS_PORT=${HTTPS_PORT:-18443}
. "$(dirname "$0")/lib.sh"
bench_setup h2load valgrind strace

# The command line of TOOL (throng-pS or h2load-mS) for ITERATIONS per connection.
command_of() { # TOOL ITERATIONS
    local tool=$1 it=$2 s
    case $tool in
    h2load-m*)
        s=${tool#h2load-m}
        echo h2load -t1 -c"$CONNS" -m"$s" -n$(( CONNS * it * s )) "${HTTP_URL%/}/" ;;
    throng-p*)
        s=${tool#throng-p}
        echo "$THRONG" run "$(h2_plan "${HTTP_URL%/}" "$s" "iterations: $it")" --workers 1 --quiet ;;
    esac
}

# Instructions (callgrind's Ir) of one run of TOOL.
instructions() { # TOOL ITERATIONS
    local out=$WORK/cg.out
    rm -f "$out"
    # shellcheck disable=SC2046
    valgrind --tool=callgrind --callgrind-out-file="$out" $(command_of "$1" "$2") \
        >"$WORK/run.log" 2>&1
    awk '/^summary:/ { print $2 }' "$out"
}

# Syscalls of one run of TOOL.
syscalls() { # TOOL ITERATIONS
    # shellcheck disable=SC2046
    strace -c -f -o "$WORK/strace.txt" $(command_of "$1" "$2") >"$WORK/run.log" 2>&1
    awk '$NF == "total" { print $4 }' "$WORK/strace.txt"
}

echo "# h2c instructions and syscalls per request, $CONNS connections, $ITER and $(( 2 * ITER )) rounds"
echo "# $(uptime)"
printf '%-12s %14s %12s\n' tool 'instr/req' 'syscalls/req'
for s in $STREAMS_LIST; do
    for tool in "h2load-m$s" "throng-p$s"; do
        n=$(( CONNS * ITER * s ))
        a=$(instructions "$tool" "$ITER")
        b=$(instructions "$tool" $(( 2 * ITER )))
        c=$(syscalls "$tool" "$ITER")
        d=$(syscalls "$tool" $(( 2 * ITER )))
        printf '%-12s %14s %12s\n' "$tool" "$(( (b - a) / n ))" \
            "$(awk -v c="$c" -v d="$d" -v n="$n" 'BEGIN { printf "%.2f", (d - c) / n }')"
    done
done
echo "# $(uptime)"
