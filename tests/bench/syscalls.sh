#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Syscalls per completed request (issue 12), counted by perf's syscall
# tracepoints: unlike `strace -c`, which stops the client at every call
# and so lets events pile up between wake-ups, the count is that of a
# client running at full speed.  throng's `fast` transport on one worker
# and wrk, each pinned to one core, against the nginx of tests/bench/lib.sh.
#
#   tests/bench/syscalls.sh [BUILD_DIR]       (default: build)
#   BEFORE_DIR=other/build tests/bench/syscalls.sh build
#
# Rows: keep-alive with 50 busy users (wrk -t1 -c50 beside it) and 8,000
# users with 1 s think time (ramp 2 s, 15 s).  With BEFORE_DIR, each
# throng row is also run from that build, just before.  Columns: syscalls
# per request in all (start-up included), then the ones a request or a
# wake-up makes, and context switches per request.  One run per row:
# counts, unlike times, barely move between runs.
#
# Needs perf (linux-perf) with access to tracepoints (root), nginx,
# openssl, taskset, python3 and wrk.
set -euo pipefail

BUILD_DIR=${1:-build}
BEFORE_DIR=${BEFORE_DIR:-}
DURATION=${DURATION:-5}

. "$(dirname "$0")/lib.sh"
NGINX_CONNECTIONS=16384
bench_setup perf wrk
ulimit -n "$(ulimit -Hn)"

EVENTS=raw_syscalls:sys_enter,syscalls:sys_enter_poll,syscalls:sys_enter_epoll_wait
EVENTS+=,syscalls:sys_enter_sendto,syscalls:sys_enter_sendmsg,syscalls:sys_enter_write
EVENTS+=,syscalls:sys_enter_recvfrom,syscalls:sys_enter_read,syscalls:sys_enter_epoll_ctl
EVENTS+=,context-switches

# LABEL REQUESTS: the row from $WORK/stat.csv (perf stat -x,).
row() {
    python3 - "$1" "$2" "$WORK/stat.csv" <<'EOF'
import sys
label, requests = sys.argv[1], int(sys.argv[2])
n = {}
for line in open(sys.argv[3]):
    f = line.strip().split(",")
    if len(f) > 2 and f[0].replace(".", "").isdigit():
        n[f[2].split(":")[-1].replace("sys_enter_", "")] = float(f[0])
per = lambda k: n.get(k, 0) / requests if requests else float("nan")
print("%-38s %9d %6.2f %6.3f %7.3f %6.3f %6.3f %6.3f %6.3f %6.3f %7.3f" % (
    label, requests, per("sys_enter"), per("poll"), per("epoll_wait"),
    per("sendto") + per("sendmsg"), per("write"), per("recvfrom"), per("read"),
    per("epoll_ctl"), per("context-switches")))
EOF
}

throng_row() { # LABEL BUILD PLAN
    rm -f "$WORK/run.json"
    # cli/throng since the command left core/; an older build has core/throng
    local bin=$2/cli/throng
    [[ -x $bin ]] || bin=$2/core/throng
    taskset -c "$CLIENT_CPU" perf stat -x, -e "$EVENTS" -o "$WORK/stat.csv" -- \
        "$bin" run "$3" --workers 1 --quiet --out "json=$WORK/run.json" \
        > "$WORK/out.txt" 2>&1 || true
    if [[ ! -s $WORK/run.json ]]; then
        echo "throng failed on $3:" >&2
        tail -n 5 "$WORK/out.txt" >&2
        return
    fi
    row "$1" "$(json "$WORK/run.json" total.requests)"
}

bench_header "throng syscalls per request: ${DURATION} s keep-alive runs, 15 s think runs"
echo
printf '%-38s %9s %6s %6s %7s %6s %6s %6s %6s %6s %7s\n' client requests all poll \
    epoll_w send write recv read ep_ctl ctxsw
ka=$(fast_plan keepalive "$HTTP_URL" 50 "duration: ${DURATION}s")
think=$(fast_plan think "$HTTP_URL" 8000 "duration: 15s" 1s 2s)
for row_plan in "keep-alive 50:$ka" "8000 users, think 1 s:$think"; do
    label=${row_plan%%:*} path=${row_plan#*:}
    if [[ -n $BEFORE_DIR ]]; then
        throng_row "throng $label (before)" "$BEFORE_DIR" "$path"
    fi
    throng_row "throng $label" "$BUILD_DIR" "$path"
    if [[ $label == keep-alive* ]]; then
        taskset -c "$CLIENT_CPU" perf stat -x, -e "$EVENTS" -o "$WORK/stat.csv" -- \
            wrk -t1 -c50 -d"${DURATION}s" "$HTTP_URL" > "$WORK/wrk.txt" 2>&1
        row "wrk -t1 -c50" "$(awk '/requests in/ { print $1 }' "$WORK/wrk.txt")"
    fi
done
