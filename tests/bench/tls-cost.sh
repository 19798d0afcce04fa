#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Instructions (valgrind callgrind Ir) the client spends per full TLS
# handshake and per request on an idle keep-alive connection, HTTPS beside
# HTTP, against the nginx of lib.sh.  Each figure is a run at 3N minus a
# run at N, divided by 2N, so start-up and shutdown drop out.  Counts, not
# times: a loaded machine does not move them.
#
#   tests/bench/tls-cost.sh BUILD_DIR [N]
#
# Rows: connect+request over HTTP and HTTPS (N users, one iteration each:
# every user opens its own connection, so every HTTPS one is a full
# handshake); h2load doing the same (one request per connection); a
# request on an idle keep-alive connection (4 users, N or 3N requests in
# all, 50 ms think time between them).  KEEP=DIR keeps the callgrind files there;
# TLS_PRIORITY sets the plans' tls.priority (lib.sh, fast_plan).
set -euo pipefail
BUILD_DIR=${1:?usage: tls-cost.sh BUILD_DIR [N]}
N=${2:-20}
. "$(dirname "$0")/lib.sh"
bench_setup valgrind
OUT=${KEEP:-$WORK}
mkdir -p "$OUT"

# NAME URL USERS ITERATIONS THINK: one plan of USERS users, ITERATIONS each.
plan() { fast_plan "$1" "$2" "$3" "iterations: $4" "$5"; }

# CACHE_SIM=1: callgrind's cache simulation too, and the D1 and last-level
# data misses (reads + writes) per unit beside the Ir.  VALGRIND_ARGS: more
# options, e.g. "--LL=1048576,16,64" for a last-level cache smaller than
# the idle users' TLS state, as one core's share of it is under load.
CACHE_SIM=${CACHE_SIM:-}
VALGRIND_ARGS=${VALGRIND_ARGS:-}

ir() { # NAME CMD...: "Ir D1-misses LL-misses" of CMD under callgrind
    local name=$1; shift
    # shellcheck disable=SC2086
    valgrind --tool=callgrind ${CACHE_SIM:+--cache-sim=yes} $VALGRIND_ARGS \
        --callgrind-out-file="$OUT/$name.cg" "$@" >"$WORK/$name.log" 2>&1
    # events: Ir [Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw]
    awk '/^(summary|totals):/ { print $2, $6 + $7, $9 + $10; exit }' "$OUT/$name.cg"
}

per() { # NAME MAKE_CMD: per unit between the runs of N and 3N units
    local name=$1 a b
    a=$(ir "$name-1x" $($2 "$N"))
    b=$(ir "$name-3x" $($2 $(( 3 * N ))))
    awk -v a="$a" -v b="$b" -v n="$N" -v name="$name" -v sim="$CACHE_SIM" 'BEGIN {
        split(a, x, " "); split(b, y, " "); u = 2 * n
        printf "%-24s %12.0f", name, (y[1] - x[1]) / u
        if (sim != "") printf " %9.1f %9.1f", (y[2] - x[2]) / u, (y[3] - x[3]) / u
        printf "   (%d at N=%d, %d at 3N)\n", x[1], n, y[1] }'
}

throng_cmd() { echo "$THRONG" run "$1" --workers 1 --quiet; }
connect_http()  { throng_cmd "$(plan c-http "$HTTP_URL" "$1" 1 0)"; }
connect_https() { throng_cmd "$(plan c-https "$HTTPS_URL" "$1" 1 0)"; }
h2load_https()  { echo h2load --h1 -t1 -n "$1" -c "$1" "$HTTPS_URL"; }
h2load_http()   { echo h2load --h1 -t1 -n "$1" -c "$1" "$HTTP_URL"; }
# Requests on idle connections: IDLE_USERS users (4) and N or 3N
# requests in all, the first of each user's opening its connection,
# IDLE_THINK (50ms) between them.
IDLE_USERS=${IDLE_USERS:-4}
IDLE_THINK=${IDLE_THINK:-50ms}
idle_http()  { throng_cmd "$(plan i-http "$HTTP_URL" "$IDLE_USERS" $(( $1 / IDLE_USERS )) "$IDLE_THINK")"; }
idle_https() { throng_cmd "$(plan i-https "$HTTPS_URL" "$IDLE_USERS" $(( $1 / IDLE_USERS )) "$IDLE_THINK")"; }

bench_header "Ir per unit, callgrind, N=$N"
echo "unit                     Ir/unit${CACHE_SIM:+   D1 miss   LL miss}"
for row in ${ROWS:-connect_http connect_https h2load_http h2load_https idle_http idle_https}; do
    per "$row" "$row"
done
