#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Where an idle user's memory goes (docs/memory.md).  throng's `fast`
# transport on one worker against one nginx (tests/bench/lib.sh), N users
# with a 1 s think time, keep-alive, and N/10 users the same way: the
# resident set of each run (VmRSS, the mean of six samples once every
# user has connected), and the difference per user, for HTTP and HTTPS.
# With HEAPTRACK=1, one more run of N users under heaptrack prints the
# heap held per user at the peak, by allocation site (sites called about
# once a user or more; start-up's one-off allocations are left out).  Not a test: a
# measurement.
#
#   tests/bench/memory.sh [BUILD_DIR]      (default: build)
#
# USERS (default 4000; HTTPS: HTTPS_USERS, default 2000), SCHEMES
# ("http https"), DURATION (10 s; the samples are taken from 5 s to 8 s,
# after a 2 s ramp).  Needs nginx, openssl, taskset, python3; heaptrack
# and heaptrack_print for HEAPTRACK=1.
set -euo pipefail

BUILD_DIR=${1:-build}
USERS=${USERS:-4000}
HTTPS_USERS=${HTTPS_USERS:-2000}
SCHEMES=${SCHEMES:-"http https"}
DURATION=${DURATION:-10}
NGINX_CONNECTIONS=${NGINX_CONNECTIONS:-16384}

. "$(dirname "$0")/lib.sh"
bench_setup
if [[ -n ${HEAPTRACK:-} ]]; then
    command -v heaptrack_print >/dev/null || { echo "heaptrack is required" >&2; exit 2; }
fi

plan() { fast_plan "idle-$2" "$1" "$2" "duration: ${DURATION}s" 1s 2s; } # URL USERS

# Mean VmRSS (KiB) from 5 s to 8 s of a run of PLAN, CMD... before throng.
rss_of() { # PLAN [WRAPPER...]
    local plan=$1 pid sum=0 i
    shift
    taskset -c "$CLIENT_CPU" "$@" "$THRONG" run "$plan" --workers 1 --quiet \
        --out "json=$WORK/run.json" --overwrite >"$WORK/out.txt" 2>&1 &
    pid=$!
    sleep 5
    for i in 1 2 3 4 5 6; do
        sum=$(( sum + $(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status") ))
        sleep 0.5
    done
    wait "$pid" || { echo "throng failed:" >&2; tail -n 5 "$WORK/out.txt" >&2; exit 1; }
    echo $(( sum / 6 ))
}

bench_header "throng memory per idle user: think 1 s, keep-alive, one worker"
for scheme in $SCHEMES; do
    url=$HTTP_URL n=$USERS
    [[ $scheme == https ]] && url=$HTTPS_URL n=$HTTPS_USERS
    big=$(rss_of "$(plan "$url" "$n")")
    small=$(rss_of "$(plan "$url" $(( n / 10 )))")
    printf '%-5s %6d users %8d KiB, %6d users %8d KiB: %.1f KiB per user\n' "$scheme" "$n" \
        "$big" $(( n / 10 )) "$small" "$(awk -v a="$big" -v b="$small" -v n="$n" \
        'BEGIN { print (a - b) / (0.9 * n) }')"
    if [[ -n ${HEAPTRACK:-} ]]; then
        # heaptrack's pid is the one sampled; the figures wanted are its file's.
        rss_of "$(plan "$url" "$n")" heaptrack -o "$WORK/heap-$scheme" >/dev/null
        heaptrack_print -f "$WORK/heap-$scheme.zst" -a 0 -T 0 -l 0 -p 1 -n 60 -s 12 2>/dev/null \
            | python3 -c '
import re, sys
n = int(sys.argv[1]); unit = {"K": 1e3, "M": 1e6, "G": 1e9}
rows, frames, size, calls = [], None, 0, 0
def flush():
    # per user: at least 16 B a user, from about one call a user or more (not start-up)
    if frames is not None and size / n >= 16 and calls >= n / 2:
        rows.append((size / n, " < ".join(frames[:4])))
for line in sys.stdin:
    m = re.match(r"^(\S+) consumed over (\d+) calls from:$", line)
    if m:
        flush()
        s = m.group(1); calls = int(m.group(2)); size = float(s[:-1]) * unit[s[-1]] if s[-1] in unit else float(s.rstrip("B"))
        frames = []
    elif frames is not None and line.startswith("      at "):
        frames[-1] += "@" + line.strip()[3:].replace("../", "")
    elif frames is not None and line.startswith("    ") and not line.startswith("      "):
        frames.append(line.strip())
    elif not line.startswith(" "):
        flush(); frames = None
flush()
for per_user, where in sorted(rows, reverse=True):
    print("  %6.0f B/user  %s" % (per_user, where))
print("  %6.0f B/user  in all (sites of 16 B/user or more, a call per user or more)" % sum(r[0] for r in rows))
' "$n"
    fi
done
printf '# load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
