#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes the golden inputs from real runs of plan.yaml against the built-in
# target: shard-0.jsonl … shard-2.jsonl (`--shard I/3`, one --start-at) for
# `throng merge`, and samples.jsonl (one unsharded run with its samples) for
# `throng report`.  Only when the inputs must change (a new run-file field):
# then rewrite the expected outputs from them with
#   THRONG_GOLDEN_UPDATE=1 meson test -C build golden
# and read the diff.  Usage: tests/data/golden/make-inputs.sh build/cli/throng
set -eu
throng=$(realpath "$1")
cd "$(dirname "$0")"
export LC_ALL=C.UTF-8 TZ=UTC
pids=
for i in 0 1 2; do
    "$throng" run plan.yaml --quiet --shard "$i/3" --start-at +2s \
        --set reporters.0.json.path="shard-$i.jsonl" --overwrite >/dev/null &
    pids="$pids $!"
done
for pid in $pids; do wait "$pid"; done
# Thresholds fail on purpose (shop.errors < 1): exit 99 is the expected one.
status=0
"$throng" run plan.yaml --quiet --set reporters.0.json.path=samples.jsonl \
    --set reporters.0.json.samples=true --set scenarios.0.users=2 \
    --set scenarios.0.duration=1500ms --overwrite >/dev/null || status=$?
[ "$status" -eq 99 ]
