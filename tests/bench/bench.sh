#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# throng's `fast` transport against wrk, h2load and ab, on one nginx, on
# loopback.  Not a test: a measurement, printed as a table.
#
#   tests/bench/bench.sh [BUILD_DIR]        (default: build)
#
# What it measures, each run bounded to DURATION seconds (default 5, at
# most 10), each figure the median of RUNS runs (default 3):
#   1. keep-alive HTTP and HTTPS (TLS 1.3), CONNS connections (default 50):
#      client CPU µs per request (user + system of the client process, from
#      bash's `time`) and requests/s, as ratios to wrk's;
#   2. the three TLS session policies at USERS users (default 500), HTTPS;
#   3. full TLS handshakes per client CPU-second: throng with keep_alive off
#      and resumption off, against `openssl s_time -new`.
# The client is pinned to CLIENT_CPU (default 0) and nginx to SERVER_CPU
# (default 1), so what one costs does not steal from the other.
# SECTIONS="keep-alive policies handshakes" chooses what runs.  The
# machine may be shared: CPU per request is the figure to compare, since
# requests/s also depends on what else runs.
#
# Needs nginx, openssl, taskset and python3 (for the JSON summary); wrk,
# h2load and ab are skipped when absent.  nginx is started from a config
# written to a temporary directory and stopped by its PID on exit.
set -euo pipefail

BUILD_DIR=${1:-build}
DURATION=${DURATION:-5}
RUNS=${RUNS:-3}
CONNS=${CONNS:-50}
USERS=${USERS:-500}
SECTIONS=${SECTIONS:-"keep-alive policies handshakes"}

if (( DURATION > 10 )); then
    echo "DURATION is capped at 10 s" >&2
    DURATION=10
fi

# CLIENT_CPU, SERVER_CPU, the ports, nginx, run_timed, median, json: lib.sh.
. "$(dirname "$0")/lib.sh"
bench_setup

# --- helpers ------------------------------------------------------------------

# PRIORITY "" or "default" leaves tls.priority to throng's default.
throng_plan() { # NAME URL USERS KEEP_ALIVE SESSION RESUMPTION [PRIORITY [RAMP_UP]]
    local priority=${7:-default} ramp_up=${8:-0s}
    cat > "$WORK/$1.yaml" <<EOF
name: $1
scenarios:
  - name: $1
    users: $3
    duration: ${DURATION}s
    ramp_up: $ramp_up
    http:
      base_url: $2
      transport: fast
      keep_alive: $4
      tls: { ca_file: '$WORK/ca.pem', session: $5, resumption: $6$([[ $priority == default ]] || echo ", priority: '$priority'") }
    steps:
      - http: { url: / }
      - http: { url: /second }
EOF
    echo "$WORK/$1.yaml"
}

# One measurement: prints "REQUESTS CPU_S" for TOOL against URL.
measure() { # TOOL URL
    local tool=$1 url=$2 out=$WORK/out.txt cpu requests
    case $tool in
    wrk)
        cpu=$(run_timed "$out" wrk -t1 -c"$CONNS" -d"${DURATION}s" "$url")
        requests=$(awk '/requests in/ { print $1 }' "$out") ;;
    h2load)
        cpu=$(run_timed "$out" h2load --h1 -t1 -c"$CONNS" -D"$DURATION" "$url")
        requests=$(awk '/^requests:/ { print $8 }' "$out") ;;
    ab)
        cpu=$(run_timed "$out" ab -k -q -c"$CONNS" -t"$DURATION" -n 100000000 "$url")
        requests=$(awk '/^Complete requests:/ { print $3 }' "$out") ;;
    throng)
        local plan
        plan=$(throng_plan ka "${url%/}" "$CONNS" true per-thread true)
        rm -f "$WORK/ka.json"
        cpu=$(run_timed "$out" "$THRONG" run "$plan" --workers 1 --quiet --out "json=$WORK/ka.json")
        requests=$(json "$WORK/ka.json" total.requests) ;;
    esac
    echo "$requests $(awk '{ print $1 + $2 }' <<<"$cpu")"
}

bench_header "throng bench: $DURATION s runs, median of $RUNS"

want() { [[ " $SECTIONS " == *" $1 "* ]]; }

# --- 1. keep-alive ----------------------------------------------------------------

declare -A CPU_US RPS
if want keep-alive; then
echo
echo "## keep-alive, $CONNS connections, 1 client thread"
printf '%-6s %-7s %12s %10s %12s %10s\n' proto tool 'cpu us/req' 'x wrk' 'req/s' 'x wrk'
for proto in http https; do
    url=$HTTP_URL
    [[ $proto == https ]] && url=$HTTPS_URL
    for tool in wrk throng h2load ab; do
        if [[ $tool != throng ]] && ! command -v "$tool" >/dev/null; then
            continue
        fi
        cpus=() rpss=()
        for _ in $(seq "$RUNS"); do
            read -r requests cpu < <(measure "$tool" "$url")
            cpus+=("$(awk -v c="$cpu" -v r="$requests" 'BEGIN { printf "%.2f", (r > 0 ? c * 1e6 / r : 0) }')")
            rpss+=("$(awk -v d="$DURATION" -v r="$requests" 'BEGIN { printf "%.0f", r / d }')")
        done
        CPU_US[$proto.$tool]=$(printf '%s\n' "${cpus[@]}" | median)
        RPS[$proto.$tool]=$(printf '%s\n' "${rpss[@]}" | median)
        printf '%-6s %-7s %12s %10s %12s %10s   (runs: %s us; %s req/s)\n' "$proto" "$tool" \
            "${CPU_US[$proto.$tool]}" \
            "$(awk -v a="${CPU_US[$proto.$tool]}" -v b="${CPU_US[$proto.wrk]:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
            "${RPS[$proto.$tool]}" \
            "$(awk -v a="${RPS[$proto.$tool]}" -v b="${RPS[$proto.wrk]:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
            "${cpus[*]}" "${rpss[*]}"
    done
done
# Issue 3 asks for >= 0.8.  The same ratio for wrk says how much of it is the
# machine (TLS record cost on this CPU), not throng.
printf 'HTTPS / HTTP throughput, per-thread sessions: throng %s, wrk %s (same run)\n' \
    "$(awk -v a="${RPS[https.throng]}" -v b="${RPS[http.throng]}" 'BEGIN { printf "%.2f", a / b }')" \
    "$(awk -v a="${RPS[https.wrk]:-0}" -v b="${RPS[http.wrk]:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
fi

# --- 2. the policies at $USERS users ----------------------------------------------

if want policies; then
echo
echo "## TLS session policies, $USERS users (ramp-up 1 s), 2 requests per iteration, HTTPS (TLS 1.3), 1 worker"
printf '%-26s %10s %12s %8s %8s %8s %12s\n' policy 'req/s' 'cpu us/req' conns full resumed 'cpu us/conn'
for variant in "per-iteration true" "per-thread true" "global true" "per-thread false" "global false"; do
    read -r policy keep <<<"$variant"
    label=$policy
    [[ $keep == false ]] && label="$policy, keep_alive off"
    rows=()
    for _ in $(seq "$RUNS"); do
        plan=$(throng_plan pol "${HTTPS_URL%/}" "$USERS" "$keep" "$policy" true default 1s)
        rm -f "$WORK/pol.json"
        cpu=$(run_timed "$WORK/out.txt" "$THRONG" run "$plan" --workers 1 --quiet --out "json=$WORK/pol.json")
        read -r requests conns full resumed duration < <(json "$WORK/pol.json" total.requests \
            total.connections total.handshakes.full total.handshakes.resumed duration_s)
        rows+=("$(awk -v c="$(awk '{ print $1 + $2 }' <<<"$cpu")" -v r="$requests" -v d="$duration" \
            -v n="$conns" -v f="$full" -v s="$resumed" \
            'BEGIN { printf "%.0f %.2f %d %d %d %.1f", r / d, c * 1e6 / r, n, f, s, (n > 0 ? c * 1e6 / n : 0) }')")
    done
    # the run whose CPU per request is the median
    row=$(printf '%s\n' "${rows[@]}" | sort -k2 -g | sed -n "$(( (RUNS + 1) / 2 ))p")
    read -r a b c d e f <<<"$row"
    printf '%-26s %10s %12s %8s %8s %8s %12s\n' "$label" "$a" "$b" "$c" "$d" "$e" "$f"
done
fi

# --- 3. full handshakes per client CPU-second ------------------------------------

if want handshakes; then
echo
echo "## full TLS 1.3 handshakes (+ one request each) per client CPU-second"
printf '%-58s %12s %14s\n' client handshakes 'per cpu-second'
hs_row() { # LABEL then "COUNT CPU" lines on stdin
    local label=$1 best
    best=$(awk '{ if ($2 > 0) printf "%d %.0f\n", $1, $1 / $2 }' | sort -k2 -g | sed -n "$(( (RUNS + 1) / 2 ))p")
    printf '%-58s %12s %14s\n' "$label" ${best}
}
# The default sends an X25519 key share; GnuTLS's NORMAL a P-256 one.
for priority in default NORMAL; do
    for _ in $(seq "$RUNS"); do
        plan=$(throng_plan hs "${HTTPS_URL%/}" 50 false per-thread false "$priority")
        rm -f "$WORK/hs.json"
        cpu=$(run_timed "$WORK/out.txt" "$THRONG" run "$plan" --workers 1 --quiet --out "json=$WORK/hs.json")
        echo "$(json "$WORK/hs.json" total.handshakes.full) $(awk '{ print $1 + $2 }' <<<"$cpu")"
    done | hs_row "throng, 50 users, priority $priority"
done
for _ in $(seq "$RUNS"); do
    cpu=$(run_timed "$WORK/out.txt" openssl s_time -connect "127.0.0.1:$HTTPS_PORT" -new \
        -time "$DURATION" -www / -CAfile "$WORK/ca.pem")
    echo "$(awk '/connections in [0-9.]+s;/ { print $1; exit }' "$WORK/out.txt") $(awk '{ print $1 + $2 }' <<<"$cpu")"
done | hs_row "openssl s_time -new -www / (1 connection at a time)"
fi
