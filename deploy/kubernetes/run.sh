#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs PLAN as N shards on Kubernetes and merges them (docs/distributed.md):
#
#   deploy/kubernetes/run.sh PLAN N            apply, wait, collect, merge
#   deploy/kubernetes/run.sh --render PLAN N   print the Job it would apply
#
# The plan goes into a ConfigMap; job.yaml, rendered for N shards and a
# start instant THRONG_START_DELAY seconds ahead (default 60: time for
# every pod to be scheduled and pull the image), runs one pod per shard;
# their summaries are collected into THRONG_OUT_DIR (default
# ./throng-NAME) and merged there with `throng merge` into run.json and
# run.html.  The exit status is the merge's (99: thresholds failed).
#
# Environment: THRONG_IMAGE (default localhost/throng:latest),
# THRONG_NAMESPACE (default: kubectl's), THRONG_START_DELAY,
# THRONG_RESULTS_PVC (a ReadWriteMany claim for the results; default: the
# pods' logs), THRONG (the local throng that merges; default: throng),
# THRONG_TIMEOUT (seconds to wait for the Job; default 3600).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage () {
    echo "usage: $0 [--render] PLAN N" >&2
    exit 2
}

render=0
if [ "${1:-}" = "--render" ]; then
    render=1
    shift
fi
[ $# -eq 2 ] || usage
plan=$1
shards=$2
case $shards in
    ''|*[!0-9]*|0) echo "$0: N must be a positive number, got '$shards'" >&2; exit 2 ;;
esac

image=${THRONG_IMAGE:-localhost/throng:latest}
delay=${THRONG_START_DELAY:-60}
pvc=${THRONG_RESULTS_PVC:-}
name=throng-$(date -u +%Y%m%d-%H%M%S)
start_at=$(date -u -d "+${delay} seconds" +%Y-%m-%dT%H:%M:%SZ)

# job.yaml with N, the start instant, the image, the run's name and where results go.
render_job () {
    local results_sed
    if [ -n "$pvc" ]; then
        results_sed="s|emptyDir: {} *# run.sh: THRONG_RESULTS_PVC|persistentVolumeClaim: { claimName: $pvc }|"
    else
        # shellcheck disable=SC2016 # $(JOB_COMPLETION_INDEX) is the Job's, not the shell's
        results_sed='s|json=/results/shard-$(JOB_COMPLETION_INDEX).json|json=-|'
    fi
    sed -e "s|^\\( *completions:\\) 4 .*|\\1 $shards|" \
        -e "s|^\\( *parallelism:\\) 4 .*|\\1 $shards|" \
        -e "s|- k8s/4 .*|- k8s/$shards|" \
        -e "s|\"2026-01-01T00:00:00Z\" .*|\"$start_at\"|" \
        -e "s|localhost/throng:latest .*|$image|" \
        -e "s|throng-run|$name|g" \
        -e "$results_sed" \
        "$here/job.yaml"
}

if [ "$render" -eq 1 ]; then
    render_job
    exit 0
fi

[ -r "$plan" ] || { echo "$0: cannot read $plan" >&2; exit 2; }
kubectl=(kubectl)
if [ -n "${THRONG_NAMESPACE:-}" ]; then
    kubectl+=(--namespace "$THRONG_NAMESPACE")
fi
throng=${THRONG:-throng}
out_dir=${THRONG_OUT_DIR:-./$name}
mkdir -p "$out_dir"

# Fails before any load: the plan must be valid here first.
"$throng" validate "$plan" >/dev/null

"${kubectl[@]}" create configmap "$name-plan" --from-file=plan.yaml="$plan"
render_job | "${kubectl[@]}" apply -f -
echo "$name: $shards shards start at $start_at"

deadline=$(( $(date +%s) + ${THRONG_TIMEOUT:-3600} ))
while :; do
    succeeded=$("${kubectl[@]}" get job "$name" -o jsonpath='{.status.succeeded}')
    failed=$("${kubectl[@]}" get job "$name" -o jsonpath='{.status.failed}')
    if [ "${succeeded:-0}" -ge "$shards" ] || [ "${failed:-0}" -gt 0 ]; then
        break
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
        echo "$0: $name did not finish in time; delete it with: kubectl delete job $name" >&2
        exit 1
    fi
    sleep 5
done

files=()
for (( i = 0; i < shards; i++ )); do
    file=$out_dir/shard-$i.json
    if [ -n "$pvc" ]; then
        echo "$name: shard $i wrote /results/shard-$i.json on claim $pvc"
        continue
    fi
    pod=$("${kubectl[@]}" get pods -l "job-name=$name,batch.kubernetes.io/job-completion-index=$i" \
          -o jsonpath='{.items[0].metadata.name}')
    # The summary is the log's last JSON document: from a "{" line to the next "}" line.
    "${kubectl[@]}" logs "$pod" \
        | awk '/^\{$/ { doc = ""; inside = 1 } inside { doc = doc $0 "\n" } /^\}$/ { inside = 0; last = doc } END { printf "%s", last }' \
        > "$file"
    if [ -s "$file" ]; then
        files+=("$file")
    else
        echo "$0: shard $i left no summary in its log" >&2
        rm -f "$file"
    fi
done

if [ -n "$pvc" ]; then
    echo "merge them where the claim is mounted: throng merge /results/shard-*.json --out json=run.json"
    exit 0
fi
[ "${#files[@]}" -gt 0 ] || { echo "$0: no shard left a summary" >&2; exit 1; }
status=0
"$throng" merge "${files[@]}" --out "json=$out_dir/run.json" --out "html=$out_dir/run.html" \
    || status=$?
echo "$name: merged into $out_dir/run.json and $out_dir/run.html"
exit "$status"
