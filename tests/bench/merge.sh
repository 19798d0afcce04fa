#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `throng merge` against its targets (issue 14): the time to merge
#   1. 64 shard summaries of a 20-step plan (mode: summary): at most 1 s;
#   2. 64 jsonl files of 3,600 interval lines each, a 2-step plan, each
#      ending with its summary: at most 10 s.
# The shards are written by throng-bench-shard-synth through the json
# reporter itself; only the merges are timed (wall and CPU seconds, and
# peak memory, from /usr/bin/time).  No load is sent.
#
#   BUILD_DIR=build tests/bench/merge.sh
set -euo pipefail

BUILD_DIR=${BUILD_DIR:-build}
THRONG=$BUILD_DIR/cli/throng
SYNTH=$BUILD_DIR/tests/throng-bench-shard-synth
[[ -x $THRONG && -x $SYNTH ]] || { echo "no throng or shard-synth in $BUILD_DIR (build first)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/throng-bench-merge-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

timed () {
    local label=$1 limit=$2
    shift 2
    local start end
    start=$(date +%s.%N)
    /usr/bin/time -f '%U %S %M' -o "$WORK/time" "$@" >/dev/null
    end=$(date +%s.%N)
    read -r user system rss < "$WORK/time"
    awk -v l="$label" -v s="$start" -v e="$end" -v u="$user" -v y="$system" -v m="$rss" -v t="$limit" \
        'BEGIN { w = e - s; printf "%-34s wall %.2f s  cpu %.2f s  peak %.0f MB  (target <= %s s: %s)\n", l, w, u + y, m / 1024, t, w <= t ? "met" : "MISSED" }'
}

mkdir -p "$WORK/summaries" "$WORK/intervals"
"$SYNTH" "$WORK/summaries" 64 20 1000
timed "64 summaries x 20 steps" 1 \
    "$THRONG" merge "$WORK"/summaries/shard-*.json --out "json=$WORK/run.json"

"$SYNTH" "$WORK/intervals" 64 2 1000 3600
du -sh "$WORK/intervals" | awk '{ print "64 jsonl files of 3600 intervals: " $1 }'
timed "64 x 3600 interval lines" 10 \
    "$THRONG" merge "$WORK"/intervals/shard-*.jsonl --out "json=$WORK/run-intervals.json"
