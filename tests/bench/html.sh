#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The html report's cost.  Not a test: a measurement, printed as a table.
#
#   tests/bench/html.sh [BUILD_DIR]        (default: build)
#
#   1. report: a one-hour run's jsonl file (INTERVALS one-second intervals,
#      default 3600, of STEPS steps, default 20), written through the json
#      reporter by throng-bench-html-synth, drawn by `throng report`: wall
#      and CPU seconds, peak memory, and the page's size (issue 13's targets:
#      at most 2 s and 3 MB).
#   2. overhead: a keep-alive run against nginx (CONNS connections, default
#      50, DURATION seconds, default 5, at most 10, one worker), without the
#      html reporter, with it as it comes (`samples: true`: the workers
#      collect samples for the codes and outcomes charts), and with
#      `samples: false` (nothing per request): client CPU µs per request (user + system of the throng
#      process, from bash's `time`) and the differences (target: at most
#      2%), each the median of the rounds' own differences.  Client pinned to CLIENT_CPU (default 0), nginx to
#      SERVER_CPU (default 1), as tests/bench/bench.sh does.
#   3. instructions: the same three, as instructions per request counted by
#      callgrind (ITERATIONS per user, default 200, then twice as many), a
#      figure a shared machine does not blur; not run unless asked for.
# Each figure is the median of RUNS runs (default 3).  SECTIONS="report
# overhead instructions" chooses what runs (default: report overhead).  The machine may be shared: CPU per request
# is the figure to compare, and the load average is printed with it.
#
# Needs /usr/bin/time, and for the overhead nginx, taskset and python3
# (and valgrind for the instructions).
# nginx is started from a config written to a temporary directory and
# stopped by its PID on exit.
set -euo pipefail

BUILD_DIR=${1:-build}
RUNS=${RUNS:-3}
INTERVALS=${INTERVALS:-3600}
STEPS=${STEPS:-20}
DURATION=${DURATION:-5}
CONNS=${CONNS:-50}
CLIENT_CPU=${CLIENT_CPU:-0}
SERVER_CPU=${SERVER_CPU:-1}
HTTP_PORT=${HTTP_PORT:-28180}
SECTIONS=${SECTIONS:-"report overhead"}

if (( DURATION > 10 )); then
    echo "DURATION is capped at 10 s" >&2
    DURATION=10
fi
THRONG=$BUILD_DIR/cli/throng
SYNTH=$BUILD_DIR/tests/throng-bench-html-synth
[[ -x $THRONG && -x $SYNTH ]] || { echo "no throng or html-synth in $BUILD_DIR (build first)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/throng-bench-html-XXXXXX)
NGINX_PID=
cleanup() {
    if [[ -n $NGINX_PID ]]; then
        kill "$NGINX_PID" 2>/dev/null || true
        wait "$NGINX_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
want() { [[ " $SECTIONS " == *" $1 "* ]]; }

printf '# throng html bench: median of %s, %s\n' "$RUNS" "$(date -u +%FT%TZ)"
printf '# %s; %s cores; load average %s\n' "$($THRONG --version)" "$(nproc)" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"

# --- 1. throng report on an hour ----------------------------------------------------------

if want report; then
    "$SYNTH" "$WORK/hour.jsonl" "$INTERVALS" "$STEPS"
    echo
    echo "## throng report, $INTERVALS intervals of $STEPS steps ($(du -m "$WORK/hour.jsonl" | cut -f1) MB of jsonl)"
    walls=() cpus=() rss=()
    for _ in $(seq "$RUNS"); do
        read -r wall cpu kb < <(/usr/bin/time -f '%e %U %S %M' "$THRONG" report "$WORK/hour.jsonl" \
            --out "html=$WORK/hour.html" --overwrite 2>&1 >/dev/null | tail -1 |
            awk '{ print $1, $2 + $3, $4 }')
        walls+=("$wall") cpus+=("$cpu") rss+=("$kb")
    done
    printf '%-22s %s s\n' 'wall' "$(printf '%s\n' "${walls[@]}" | median)"
    printf '%-22s %s s\n' 'CPU (user + system)' "$(printf '%s\n' "${cpus[@]}" | median)"
    printf '%-22s %s MB\n' 'peak memory' "$(printf '%s\n' "${rss[@]}" | median | awk '{ printf "%.0f", $1 / 1024 }')"
    printf '%-22s %s kB\n' 'page' "$(( $(stat -c %s "$WORK/hour.html") / 1024 ))"
    printf '%-22s %s\n' 'points per series' "$(grep -o 'data-points="[0-9]*"' "$WORK/hour.html" | head -1 | tr -dc 0-9)"
fi

# --- 2. the reporter's CPU during a keep-alive run ------------------------------------------

if want overhead || want instructions; then
    for tool in nginx taskset python3; do
        command -v "$tool" >/dev/null || { echo "$tool is required for the overhead" >&2; exit 2; }
    done
    mkdir -p "$WORK/tmp"
    cat > "$WORK/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/tmp;
  keepalive_requests 10000000;
  keepalive_timeout 60s;
  server {
    listen 127.0.0.1:$HTTP_PORT;
    location / { return 200 "ok\n"; }
  }
}
EOF
    taskset -c "$SERVER_CPU" "$(command -v nginx)" -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" &
    NGINX_PID=$!
    for _ in $(seq 100); do
        if (exec 3<>/dev/tcp/127.0.0.1/$HTTP_PORT) 2>/dev/null; then break; fi
        sleep 0.05
    done
    # plan NAME LENGTH VARIANT: the keep-alive plan, LENGTH its scenario's
    # "duration: …" or "iterations: …", VARIANT none, html (as it comes:
    # samples collected) or lean (html with samples: false); written to
    # $WORK/NAME.yaml.
    plan() {
        local reporter=
        case $3 in
        html) reporter="  - html: { path: \"$WORK/ka.html\", overwrite: true }" ;;
        lean) reporter="  - html: { path: \"$WORK/ka.html\", overwrite: true, samples: false }" ;;
        esac
        cat > "$WORK/$1.yaml" <<EOF
name: html-overhead
scenarios:
  - name: ka
    users: $CONNS
    $2
    http: { base_url: "http://127.0.0.1:$HTTP_PORT", transport: fast, keep_alive: true }
    steps:
      - http: { url: / }
reporters:
  - json: { path: "$WORK/ka.json", overwrite: true }
$reporter
EOF
    }
fi

if want overhead; then
    for variant in none html lean; do
        plan "$variant" "duration: ${DURATION}s" "$variant"
    done
    # One run of PLAN: prints its client CPU µs per request.
    measure() {
        local TIMEFORMAT='%3U %3S' cpu requests
        cpu=$({ time taskset -c "$CLIENT_CPU" "$THRONG" run "$1" --workers 1 --quiet \
            >/dev/null 2>&1; } 2>&1)
        requests=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["total"]["requests"])' "$WORK/ka.json")
        awk -v c="$cpu" -v r="$requests" 'BEGIN { split(c, t, " "); printf "%.3f\n", (t[1] + t[2]) * 1e6 / r }'
    }
    none=() html=() lean=() html_ratio=() lean_ratio=()
    # Interleaved, and compared within each round, so that the machine's
    # changing load falls on all three alike.
    for _ in $(seq "$RUNS"); do
        a=$(measure "$WORK/none.yaml")
        b=$(measure "$WORK/html.yaml")
        c=$(measure "$WORK/lean.yaml")
        none+=("$a") html+=("$b") lean+=("$c")
        html_ratio+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", (b - a) * 100 / a }')")
        lean_ratio+=("$(awk -v a="$a" -v c="$c" 'BEGIN { printf "%.1f", (c - a) * 100 / a }')")
    done
    echo
    echo "## keep-alive against nginx, $CONNS connections, ${DURATION} s, 1 worker: client CPU per request"
    printf '%-34s %8s µs   (runs: %s)\n' 'no html reporter' "$(printf '%s\n' "${none[@]}" | median)" "${none[*]}"
    printf '%-34s %8s µs   (runs: %s)\n' 'html' "$(printf '%s\n' "${html[@]}" | median)" "${html[*]}"
    printf '%-34s %8s µs   (runs: %s)\n' 'html, samples: false' "$(printf '%s\n' "${lean[@]}" | median)" "${lean[*]}"
    printf '%-34s %8s %%    (rounds: %s)\n' 'html vs none, median of rounds' "$(printf '%s\n' "${html_ratio[@]}" | median)" "${html_ratio[*]}"
    printf '%-34s %8s %%    (rounds: %s)\n' 'samples: false vs none' "$(printf '%s\n' "${lean_ratio[@]}" | median)" "${lean_ratio[*]}"
fi

# --- 3. the same in instructions, which a busy machine does not blur ---------------------

if want instructions; then
    command -v valgrind >/dev/null || { echo "valgrind is required for the instructions" >&2; exit 2; }
    # Instructions of a whole run under callgrind; the difference between
    # ITERATIONS and twice as many, over the requests added, leaves out
    # start-up and the page's writing: what each request costs.  Under
    # valgrind a run lasts ~50 times longer, so the once-a-second work
    # (snapshots) weighs ~50 times more per request than it does natively.
    ITERATIONS=${ITERATIONS:-200}
    count() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$THRONG" run "$1" --workers 1 \
            --quiet 2>&1 | awk '/Collected/ { print $4 }'
    }
    echo
    echo "## instructions per request (callgrind), $CONNS users × $ITERATIONS iterations more, 1 worker"
    declare -A per_request
    for variant in none html lean; do
        plan "$variant-1" "iterations: $ITERATIONS" "$variant"
        plan "$variant-2" "iterations: $(( ITERATIONS * 2 ))" "$variant"
        one=$(count "$WORK/$variant-1.yaml")
        two=$(count "$WORK/$variant-2.yaml")
        per_request[$variant]=$(awk -v a="$one" -v b="$two" -v n="$(( CONNS * ITERATIONS ))" 'BEGIN { printf "%.0f", (b - a) / n }')
    done
    printf '%-34s %8s\n' 'no html reporter' "${per_request[none]}"
    printf '%-34s %8s  (%s%%)\n' 'html' "${per_request[html]}" \
        "$(awk -v a="${per_request[none]}" -v b="${per_request[html]}" 'BEGIN { printf "%+.1f", (b - a) * 100 / a }')"
    printf '%-34s %8s  (%s%%)\n' 'html, samples: false' "${per_request[lean]}" \
        "$(awk -v a="${per_request[none]}" -v b="${per_request[lean]}" 'BEGIN { printf "%+.1f", (b - a) * 100 / a }')"
fi
