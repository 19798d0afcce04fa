#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The false-alarm rate of `throng compare` (docs/compare.md, "Measured"):
# PAIRS (default 20) pairs of runs of one plan against the built-in
# target (two steps, /delay/10 and /delay/20, USERS users, DURATION s
# each), each pair compared; counts the pairs whose verdict is "no
# significant change" on every step, those called different (a false
# alarm: a step regressed or improved), and those not comparable (a run
# saturated: the built-in target runs inside throng, so on a busy machine
# throng's lag can pass its limit).  With SLOW=1 the second run of each
# pair has the /delay/20 step slowed by 20% (/delay/24) and it counts
# the pairs where that step, and only that step, regressed.
#
#   BUILD_DIR=build PAIRS=20 DURATION=15 tests/bench/compare.sh
#   SLOW=1 PAIRS=5 tests/bench/compare.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
PAIRS=${PAIRS:-20}; DURATION=${DURATION:-15}; USERS=${USERS:-4}; SLOW=${SLOW:-0}
throng=$(realpath "$BUILD_DIR/cli/throng")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/plan.yaml" <<PLAN
name: compare-bench
target: builtin
scenarios:
  - name: s
    users: $USERS
    duration: ${DURATION}s
    http: { base_url: "\${builtin.http}" }
    steps:
      - name: fast
        http: { url: /delay/10 }
      - name: slow
        http: { url: "/delay/\${env.SLOW_MS}" }
reporters:
  - json: { path: "\${env.OUT}", mode: jsonl, overwrite: true }
PLAN
second_ms=20
(( SLOW )) && second_ms=24
good=0; different=0; refused=0
for ((i = 1; i <= PAIRS; i++)); do
    "$throng" run -q "$work/plan.yaml" -e SLOW_MS=20 -e OUT="$work/a.jsonl" > /dev/null
    "$throng" run -q "$work/plan.yaml" -e SLOW_MS=$second_ms -e OUT="$work/b.jsonl" > /dev/null
    "$throng" compare -q "$work/a.jsonl" "$work/b.jsonl" --out json="$work/c.json" || true
    verdicts=$(python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
print(" ".join(r["title"].replace(" ", "") + "=" + r["verdict"].replace(" ", "-") for r in rows if r["kind"] == "step"))
' "$work/c.json")
    if (( SLOW )); then
        [[ $verdicts == "s/fast=no-significant-change s/slow=regressed" ]] && good=$((good + 1))
    else
        [[ $verdicts == "s/fast=no-significant-change s/slow=no-significant-change" ]] && good=$((good + 1))
    fi
    [[ $verdicts == *regressed* || $verdicts == *improved* ]] && different=$((different + 1))
    [[ $verdicts == *not-comparable* ]] && refused=$((refused + 1))
    echo "pair $i: $verdicts"
done
if (( SLOW )); then
    echo "slowed step flagged alone in $good of $PAIRS pairs ($refused not comparable)"
else
    echo "no significant change in $good of $PAIRS pairs; called different (false alarms): $different; not comparable (a run saturated): $refused"
fi
