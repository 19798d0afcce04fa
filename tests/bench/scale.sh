#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Does a request cost more when a worker holds more users?  (issue 12)
# throng's `fast` transport on one worker against one nginx, on loopback,
# from 50 busy users to 15,000 mostly idle ones and open-model arrival
# rates, beside wrk (busy keep-alive) and h2load (8,000 idle connections,
# 5,000 idle HTTPS ones) on the same nginx in the same run.  Not a test: a
# measurement, printed as one table.
#
#   tests/bench/scale.sh [BUILD_DIR]        (default: build)
#
# Each row is the median of RUNS runs (default 3) by client CPU per
# request, each run DURATION seconds (default 10, at most 20; the 8000 and
# 15000-user rows 15 s, the HTTPS 5000-user row 20 s with a 10 s ramp).
# Columns:
#   cpu us/req   user + system CPU of the client process per completed request
#   x ref        that over the reference row (HTTPS rows: over the HTTPS reference)
#   paired       the median, over the row's runs, of its CPU per request over
#                that of a reference run made just before it: the machine's
#                speed drifts over the minutes between the reference row
#                and the others, not within a pair (PAIRED=0: no pairs)
#   p50, p99     latency of that run, ms (wrk: its --latency figures; h2load: -)
#   steady       the rows with think time, after their ramp (from the end of
#                the ramp plus 3 s to the end of the duration, from the run's
#                once-a-second jsonl intervals): CPU us per request, that over
#                the reference, and the worst of the intervals' p99 (an upper
#                bound of the p99 over those seconds).  What a user costs
#                once it is connected, without the ramp's connects and
#                handshakes.
#   KiB/user     (RSS at N users - RSS at N/10) / (0.9 N), peak RSS, one extra
#                run at N/10; only for the rows with think time
#   saturated    throng's own verdict (cpu_share or schedule lag past their limits);
#                for each flagged run a line on stderr says which criterion, how
#                long the worker waited for a CPU (other processes holding its core)
#                and how late its loop woke after a timeout at worst (the machine
#                not running it at all: a virtual CPU its host had not scheduled)
# The header and the last line say how late the idle client CPU wakes a
# 1 ms sleeper (20,000 sleeps, 22 s), the machine's own share of any lag.
# The client is pinned to CLIENT_CPU (default 0) and nginx to SERVER_CPU
# (default 1).  ROWS="ref closed-2000 …" chooses rows (names as printed).
# A shared machine makes every figure noisy: compare rows of one run,
# and read the load average in the header.
#
# Needs nginx, openssl, taskset, python3 and GNU time; wrk and h2load rows
# are skipped when the tool is absent.
set -euo pipefail

BUILD_DIR=${1:-build}
DURATION=${DURATION:-10}
RUNS=${RUNS:-3}
PAIRED=${PAIRED:-1}
ROWS=${ROWS:-"ref closed-2000 think-500 think-8000 think-15000 arrival-10k arrival-20k arrival-50k https-ref https-think-5000 wrk-http wrk-https wrk-http-2000 h2load-8000 h2load-https-5000"}
# Thousands of arrivals per second, for the arrival-NNk rows (add a rate here and its row to ROWS).
ARRIVAL_RATES=${ARRIVAL_RATES:-"10 20 50"}
# nginx holds every connection of the largest row, and h2load's 8,000.
NGINX_CONNECTIONS=${NGINX_CONNECTIONS:-16384}

if (( DURATION > 20 )); then
    echo "DURATION is capped at 20 s" >&2
    DURATION=20
fi

. "$(dirname "$0")/lib.sh"
[[ -x /usr/bin/time ]] || { echo "GNU time (/usr/bin/time) is required" >&2; exit 2; }
bench_setup

want() { [[ " $ROWS " == *" $1 "* ]]; }

# A closed-model plan: NAME URL USERS THINK [RAMP_UP [DURATION]]
closed_plan() { fast_plan "$1" "$2" "$3" "duration: ${6:-${DURATION}s}" "$4" "${5:-0s}" jsonl; }

# An open-model plan: NAME URL RATE MAX_USERS
arrival_plan() {
    cat > "$WORK/$1.yaml" <<EOF
name: $1
scenarios:
  - name: $1
    executor: constant-arrival-rate
    rate: $3/s
    max_users: $4
    duration: ${DURATION}s
    http:
      base_url: $2
      transport: fast
      keep_alive: true
      tls: { ca_file: '$WORK/ca.pem' }
    steps:
      - http: { url: / }
EOF
    echo "$WORK/$1.yaml"
}

# CPU us per request and the worst interval p99 (ms) of a jsonl file's
# intervals that lie within [FROM, TO] seconds of the run: "- -" without any.
steady() { # FILE FROM TO
    python3 -c 'import json, sys
cpu = requests = 0; p99 = None
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d["type"] != "interval" or d["elapsed_s"] - d["interval_s"] < float(sys.argv[2]) \
            or d["elapsed_s"] > float(sys.argv[3]) or d["total"]["requests"] == 0:
        continue
    cpu += d["cpu"]["user_s"] + d["cpu"]["system_s"]
    requests += d["total"]["requests"]
    p99 = max(p99 or 0, d["total"]["latency_us"]["p99"])
print("- -" if requests == 0 else "%.2f %.2f" % (cpu * 1e6 / requests, p99 / 1000))' "$@" 2>/dev/null \
        || echo "- -"
}

# On stderr, for a run with saturated intervals: how many, by which
# criterion, and the most the worker waited for a CPU in one of them (the
# engine's debug lines): hundreds of ms a second is the machine, not throng.
saturation_note() { # PLAN OUT
    awk -v plan="$(basename "$1" .yaml)" '/engine: interval .* saturated:/ {
            n++; if ($0 ~ /lag over/) lag++; if ($0 ~ /CPU over/) cpu++; if ($0 ~ /did not answer/) late++
            if (match($0, /waited [0-9.-]+ ms/)) { w = substr($0, RSTART + 7, RLENGTH - 10) + 0; if (w > wait) wait = w }
            if (match($0, /woke [0-9.-]+ ms late/)) { w = substr($0, RSTART + 5, RLENGTH - 13) + 0; if (w > woke) woke = w; if (w > 10) stalled++ }
        }
        END { if (n > 0) printf "# %s: %d interval(s) saturated (lag %d, CPU %d, unanswered %d; %d woke > 10 ms late); worker waited up to %.0f ms for a CPU, woke up to %.0f ms late in one\n", plan, n, lag, cpu, late, stalled, wait, woke }' "$2"
}

# One throng run of PLAN on one worker: prints "CPU_US_PER_REQ P50_MS P99_MS
# SATURATED MAX_RSS_KIB REQUESTS STEADY_CPU STEADY_P99"; the steady figures
# from STEADY_FROM to STEADY_TO seconds (environment), "-" without them.
throng_once() {
    local plan=$1 out=$WORK/out.txt cpu rss steady_figures="- -"
    rm -f "$WORK/run.json" "$WORK/run.jsonl"
    read -r user sys rss < <(G_MESSAGES_DEBUG=throng-core run_timed_rss "$out" "$THRONG" run \
        "$plan" --workers 1 --quiet --out "json=$WORK/run.json")
    if [[ ! -s $WORK/run.json ]]; then
        echo "throng failed on $plan:" >&2
        tail -n 5 "$out" >&2
        echo "nan nan nan refused 0 0 - -"
        return
    fi
    read -r requests p50 p99 saturated < <(json "$WORK/run.json" total.requests \
        total.latency_us.p50 total.latency_us.p99 saturated)
    saturation_note "$plan" "$out" >&2
    if [[ -n ${STEADY_FROM:-} && -s $WORK/run.jsonl ]]; then
        steady_figures=$(steady "$WORK/run.jsonl" "$STEADY_FROM" "$STEADY_TO")
    fi
    awk -v u="$user" -v s="$sys" -v r="$requests" -v a="$p50" -v b="$p99" -v t="$saturated" \
        -v m="$rss" -v st="$steady_figures" \
        'BEGIN { printf "%.2f %.2f %.2f %s %d %d %s\n", (r > 0 ? (u + s) * 1e6 / r : 0),
                 a / 1000, b / 1000, (t == "True" ? "yes" : "no"), m, r, st }'
}

# The run whose CPU per request is the median, of RUNS runs of "CMD..." printing rows like throng_once's.
# With PAIR_PLAN set, a run of that reference plan goes before each, and the
# median of the runs' ratios to it is left in $WORK/paired for print_row.
median_run() {
    local i rows=() ratios=() ref_cpu row
    for i in $(seq "$RUNS"); do
        if [[ -n ${PAIR_PLAN:-} ]]; then
            ref_cpu=$(STEADY_FROM= throng_once "$PAIR_PLAN" 2>/dev/null | awk '{ print $1 }')
        fi
        row=$("$@")
        rows+=("$row")
        [[ -n ${PAIR_PLAN:-} ]] && ratios+=("$(over "${row%% *}" "$ref_cpu")")
    done
    if [[ -n ${PAIR_PLAN:-} ]]; then
        printf '%s\n' "${ratios[@]}" | grep -v -- - | median > "$WORK/paired"
    fi
    printf '%s\n' "${rows[@]}" | sort -k1 -g | sed -n "$(( (RUNS + 1) / 2 ))p"
}

# wrk, CONNS connections (default 50), one thread: a row like throng_once's (its own p50/p99).
wrk_once() { # URL [CONNS]
    local url=$1 conns=${2:-50} out=$WORK/wrk.txt
    read -r user sys rss < <(run_timed_rss "$out" bash -c \
        'ulimit -n "$(ulimit -Hn)"; exec wrk -t1 -c"$1" -d"$2" --latency "$3"' \
        wrk "$conns" "${DURATION}s" "$url")
    local requests p50 p99
    requests=$(awk '/requests in/ { print $1 }' "$out")
    p50=$(awk '$1 == "50%" { print $2 }' "$out")
    p99=$(awk '$1 == "99%" { print $2 }' "$out")
    awk -v u="$user" -v s="$sys" -v r="$requests" -v a="$(to_ms "$p50")" -v b="$(to_ms "$p99")" \
        -v m="$rss" 'BEGIN { printf "%.2f %.2f %.2f - %d %d - -\n", (r > 0 ? (u + s) * 1e6 / r : 0), a, b, m, r }'
}

# wrk's "123.45us" / "1.20ms" / "2.00s" in ms.
to_ms() {
    awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0;
                           else if (v ~ /s$/) n *= 1000; printf "%.3f", n }'
}

# h2load: CONNS connections at 1 request/s each, one thread, DURATION_S
# seconds (default DURATION).
h2load_once() { # URL CONNS [DURATION_S]
    local url=$1 conns=$2 duration=${3:-$DURATION} out=$WORK/h2load.txt
    read -r user sys rss < <(run_timed_rss "$out" bash -c \
        'ulimit -n "$(ulimit -Hn)"; exec h2load --h1 -t1 -c"$1" --rps=1 -D"$2" "$3"' \
        h2load "$conns" "$duration" "$url")
    local requests
    requests=$(awk '/^requests:/ { print $8 }' "$out")
    awk -v u="$user" -v s="$sys" -v r="$requests" -v m="$rss" \
        'BEGIN { printf "%.2f - - - %d %d - -\n", (r > 0 ? (u + s) * 1e6 / r : 0), m, r }'
}

# KiB of RSS per user between N/10 and N users (one run at N/10, whose peak RSS is taken).
rss_per_user() { # PLAN_AT_N_OVER_10 RSS_AT_N N
    local small
    small=$(throng_once "$1" | awk '{ print $5 }')
    awk -v a="$2" -v b="$small" -v n="$3" 'BEGIN { printf "%.1f", (a - b) / (0.9 * n) }'
}

# Rows are read from stdin by redirection, never through a pipe: CPU[] must
# outlive the call for the ratios.
declare -A CPU
over() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a == a + 0 && a > 0) printf "%.2f", a / b; else print "-" }'; }
declare -A PAIRED_RATIO
print_row() { # NAME REF_NAME RSS_PER_USER then a row on stdin
    local name=$1 ref=$2 per_user=$3 cpu p50 p99 sat rss requests steady_cpu steady_p99 paired=-
    read -r cpu p50 p99 sat rss requests steady_cpu steady_p99
    CPU[$name]=$cpu
    if [[ -s $WORK/paired ]]; then
        paired=$(awk '{ printf "%.2f", $1 }' "$WORK/paired")
        PAIRED_RATIO[$name]=$paired
        rm -f "$WORK/paired"
    fi
    printf '%-18s %10s %6s %6s %9s %9s %10s %6s %9s %8s %9s %9s\n' "$name" "$cpu" \
        "$(over "$cpu" "${CPU[$ref]:-0}")" "$paired" "$p50" "$p99" "$steady_cpu" \
        "$(over "$steady_cpu" "${CPU[$ref]:-0}")" "$steady_p99" "$per_user" "$sat" "$requests"
}

# The floor under every row's schedule lag: how late the client's CPU,
# idle, wakes a 1 ms sleeper (tests/bench/wake-latency.c), before and after.
machine_wake() {
    local wake=$BUILD_DIR/tests/throng-bench-wake-latency
    [[ -x $wake ]] && printf '# the machine, CPU %s idle: %s\n' "$CLIENT_CPU" "$(taskset -c "$CLIENT_CPU" "$wake" 20000)"
    return 0
}

bench_header "throng scale: $DURATION s runs, median of $RUNS, 1 client thread or worker"
machine_wake
echo
printf '%-18s %10s %6s %6s %9s %9s %10s %6s %9s %8s %9s %9s\n' row 'cpu us/req' 'x ref' paired 'p50 ms' \
    'p99 ms' 'steady us' 'x ref' 'st. p99' 'KiB/user' saturated requests

# name, URL, users, think time, ramp-up (whole seconds), duration: the closed rows.
closed_row() { # NAME REF URL USERS THINK RAMP [DURATION_S]
    local name=$1 ref=$2 url=${3%/} users=$4 think=$5 ramp=$6 duration=${7:-$DURATION} plan row
    local per_user=-
    plan=$(closed_plan "$name" "$url" "$users" "$think" "$ramp" "${duration}s")
    pair "$ref"
    [[ $name == "$ref" ]] && PAIR_PLAN=
    if [[ $think != 0 ]]; then
        # 3 s: the last users' first exchange, and a backlog the ramp's last connects left
        row=$(STEADY_FROM=$(( ${ramp%s} + 3 )) STEADY_TO=$duration median_run throng_once "$plan")
    else
        row=$(median_run throng_once "$plan")
    fi
    if [[ $think != 0 && $(awk '{ print $4 }' <<<"$row") != refused ]]; then
        local small
        small=$(closed_plan "$name-small" "$url" "$(( users / 10 ))" "$think" "$ramp" "${duration}s")
        per_user=$(rss_per_user "$small" "$(awk '{ print $5 }' <<<"$row")" "$users")
    fi
    print_row "$name" "$ref" "$per_user" <<<"$row"
}

# The reference plans a paired run goes before: pair REF_NAME sets PAIR_PLAN.
REF_PLAN=$(closed_plan pair-ref "${HTTP_URL%/}" 50 0 0s)
HTTPS_REF_PLAN=$(closed_plan pair-https-ref "${HTTPS_URL%/}" 50 0 0s)
pair() {
    PAIR_PLAN=
    if (( PAIRED )); then
        case $1 in
        ref) PAIR_PLAN=$REF_PLAN ;;
        https-ref) PAIR_PLAN=$HTTPS_REF_PLAN ;;
        esac
    fi
}

want ref && closed_row ref ref "$HTTP_URL" 50 0 0s
want closed-2000 && closed_row closed-2000 ref "$HTTP_URL" 2000 0 1s
want think-500 && closed_row think-500 ref "$HTTP_URL" 500 1s 1s
# 15 s, so that some 10 s are steady.  Connecting the last of 15,000 users
# to one nginx port is slow in the kernel (docs/benchmarks.md).
want think-8000 && closed_row think-8000 ref "$HTTP_URL" 8000 1s 2s 15
want think-15000 && closed_row think-15000 ref "$HTTP_URL" 15000 1s 3s 15
for rate in $ARRIVAL_RATES; do
    want "arrival-${rate}k" || continue
    plan=$(arrival_plan "arrival-${rate}k" "${HTTP_URL%/}" "$(( rate * 1000 ))" 1000)
    pair ref
    print_row "arrival-${rate}k" ref - < <(median_run throng_once "$plan")
done
want https-ref && closed_row https-ref https-ref "$HTTPS_URL" 50 0 0s
# 5,000 full handshakes: one client core makes about 1,100 a second on a
# quiet machine (benchmarks.md), so they are spread over a 10 s ramp and
# the run lasts 20 s, whatever DURATION says, to leave a steady part.
want https-think-5000 && closed_row https-think-5000 https-ref "$HTTPS_URL" 5000 1s 10s 20
if command -v wrk >/dev/null; then
    pair ref
    want wrk-http && print_row wrk-http ref - < <(median_run wrk_once "$HTTP_URL")
    pair https-ref
    want wrk-https && print_row wrk-https https-ref - < <(median_run wrk_once "$HTTPS_URL")
    # what 2000 busy connections cost a client that is not throng (the kernel's share)
    pair none
    want wrk-http-2000 && print_row wrk-http-2000 wrk-http - < <(median_run wrk_once "$HTTP_URL" 2000)
fi
if command -v h2load >/dev/null && want h2load-8000; then
    pair ref
    print_row h2load-8000 ref - < <(median_run h2load_once "$HTTP_URL" 8000)
fi
# The peer's figure for https-think-5000: 5,000 full handshakes (all at the
# start: h2load has no ramp) and a request a second on each, 20 s.
if command -v h2load >/dev/null && want h2load-https-5000; then
    pair https-ref
    print_row h2load-https-5000 https-ref - < <(median_run h2load_once "$HTTPS_URL" 5000 20)
fi

echo
ratio() { awk -v a="${CPU[$1]:-}" -v b="${CPU[$2]:-}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }'; }
printf 'throng / wrk, keep-alive: HTTP %s, HTTPS %s\n' "$(ratio ref wrk-http)" "$(ratio https-ref wrk-https)"
inverse() { awk -v a="${PAIRED_RATIO[$1]:-}" 'BEGIN { if (a > 0) printf "%.2f", 1 / a; else print "-" }'; }
printf 'the same, paired (each wrk run just after a throng one): HTTP %s, HTTPS %s\n' \
    "$(inverse wrk-http)" "$(inverse wrk-https)"
printf '2000 busy connections over 50: throng %s, wrk %s\n' "$(ratio closed-2000 ref)" \
    "$(ratio wrk-http-2000 wrk-http)"
printf 'throng / h2load at 8000 idle connections (1 request/s each): %s\n' "$(ratio think-8000 h2load-8000)"
printf 'throng / h2load, 5000 HTTPS connections (1 request/s each, 20 s): %s\n' \
    "$(ratio https-think-5000 h2load-https-5000)"
printf '# load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
machine_wake
