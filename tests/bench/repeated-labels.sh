#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 33's proof: one plan whose scenario has two steps of one label
# (GET /, as a HAR import has two GET /static/app.css), run with every
# reporter by each throng given, and what each reporter kept of its 198
# requests, against a real Prometheus and InfluxDB started here on
# loopback ports.  Usage:
#   tests/bench/repeated-labels.sh NAME=path/to/throng [NAME=path/to/throng ...]
# e.g. before=/work/main/build/cli/throng after=build/cli/throng.  Prints a
# table: each row a reporter, each column a throng.
set -eu
work=$(mktemp -d)
trap 'kill $prom_pid $influx_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# One exporter port per throng, all scraped by one Prometheus every second.
targets=
for arg in "$@"; do
    p=$(port)
    echo "$p" >"$work/${arg%%=*}.port"
    targets="$targets\"127.0.0.1:$p\","
done
prom=$(port)
cat >"$work/prometheus.yml" <<EOF
global: { scrape_interval: 1s, scrape_timeout: 1s }
scrape_configs:
  - job_name: throng
    static_configs: [ { targets: [ ${targets%,} ] } ]
EOF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom" \
    --web.listen-address="127.0.0.1:$prom" --log.level=error >"$work/prom.log" 2>&1 &
prom_pid=$!
influx=$(port)
cat >"$work/influxdb.conf" <<EOF
reporting-disabled = true
bind-address = "127.0.0.1:$(port)"
[meta]
  dir = "$work/influx/meta"
[data]
  dir = "$work/influx/data"
  wal-dir = "$work/influx/wal"
  query-log-enabled = false
[monitor]
  store-enabled = false
[http]
  bind-address = "127.0.0.1:$influx"
  log-enabled = false
[logging]
  level = "error"
EOF
influxd run -config "$work/influxdb.conf" >"$work/influx.log" 2>&1 &
influx_pid=$!
for i in $(seq 100); do
    curl -sf "http://127.0.0.1:$prom/-/ready" >/dev/null && curl -sf "http://127.0.0.1:$influx/ping" >/dev/null && break
    sleep 0.2
done

promql() { # QUERY TIME → the value, or 0 when nothing matched
    curl -sfG "http://127.0.0.1:$prom/api/v1/query" --data-urlencode "query=$1" --data-urlencode "time=$2" |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(int(float(r[0]["value"][1])) if r else 0)'
}
influxql() { # DATABASE QUERY → the first value
    curl -sfG "http://127.0.0.1:$influx/query" --data-urlencode "db=$1" --data-urlencode "q=$2" |
        python3 -c 'import json,sys; s=json.load(sys.stdin)["results"][0].get("series"); print(s[0]["values"][0][1] if s else 0)'
}

for arg in "$@"; do
    name=${arg%%=*}
    throng=$(realpath "${arg#*=}")
    dir="$work/$name"
    mkdir -p "$dir"
    curl -sf -XPOST "http://127.0.0.1:$influx/query" --data-urlencode "q=CREATE DATABASE $name" >/dev/null
    cat >"$dir/plan.yaml" <<EOF
name: repeated
target: builtin
defaults:
  http: { base_url: "\${builtin.http}" }
scenarios:
  - name: page
    users: 2
    iterations: 33
    think_time: 30ms
    steps:
      - http: { url: / }
      - http: { url: /bytes/1024, check: [ { body_contains: "no such text" } ] }
      - http: { url: / }
reporters:
  - console: {}
  - json: { path: run.json }
  - json: { path: run.jsonl, mode: jsonl, samples: true }
  - csv: { path: run.csv }
  - junit: { path: run.xml }
  - html: { path: run.html }
  - prometheus: { listen: "127.0.0.1:$(cat "$work/$name.port")", linger: 20s }
  - influxdb: { url: "http://127.0.0.1:$influx", database: $name, flush_timeout: 10s }
EOF
    (cd "$dir" && "$throng" validate plan.yaml >/dev/null 2>"$dir/validate.err"; "$throng" run plan.yaml >"$dir/console.txt" 2>"$dir/run.err") || true
    (cd "$dir" && "$throng" report run.jsonl --out csv=report.csv >/dev/null 2>&1) || true
    instance="127.0.0.1:$(cat "$work/$name.port")"
    # The instant Prometheus had the final page: the queries are evaluated there.
    at=$(date +%s.%N)
    for i in $(seq 60); do
        at=$(date +%s.%N)
        [ "$(promql "max(throng_run_finished{instance=\"$instance\"})" "$at")" = 1 ] && break
        sleep 0.5
    done
    {
        echo "json summary total.requests|$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"]["requests"])' "$dir/run.json")"
        echo "json summary, steps' requests summed|$(python3 -c 'import json,sys; print(sum(s["stats"]["requests"] for s in json.load(open(sys.argv[1]))["scenarios"][0]["steps"]))' "$dir/run.json")"
        echo "prometheus (stored): sum(throng_requests_total)|$(promql "sum(throng_requests_total{instance=\"$instance\"})" "$at")"
        echo "prometheus (stored): series of throng_requests_total|$(promql "count(throng_requests_total{instance=\"$instance\"})" "$at")"
        echo "influxdb (stored): sum(requests) FROM throng_step|$(influxql "$name" 'SELECT sum(requests) FROM throng_step')"
        echo "csv rows|$(($(wc -l <"$dir/run.csv") - 1))"
        echo "csv from throng report, rows of step 2 (step_id)|$(python3 -c '
import csv,sys
rows=list(csv.DictReader(open(sys.argv[1])))
print(sum(1 for r in rows if r.get("step_id")=="2") if rows and "step_id" in rows[0] else "no step_id column")' "$dir/report.csv")"
        echo "junit requests property|$(xmllint --xpath 'string(//testsuite[1]/properties/property[@name="requests"]/@value)' "$dir/run.xml")"
        echo "junit failed check names its step|$(xmllint --xpath 'string(//failure[@type="check"]/@message)' "$dir/run.xml" | grep -cE 'step_id 1|GET / \[1\]' || true)"
        echo "junit tests|$(xmllint --xpath 'string(/testsuites/@tests)' "$dir/run.xml")"
        echo "console rows of the two GET / steps told apart|$(grep -cE 'GET / (\(step_id|\[[0-9])' "$dir/console.txt" || true)"
        echo "html summary rows labelled GET /|$(grep -o '<td>GET /</td>\|>GET /<' "$dir/run.html" | wc -l)"
        echo "validate warnings|$(grep -c warning "$dir/validate.err" || true)"
        # junit of a plan with neither thresholds nor checks: no suite may say tests="0".
        sed -e 's/, check: .* }/ }/' -e '/^reporters:/,$d' "$dir/plan.yaml" >"$dir/plain.yaml"
        (cd "$dir" && "$throng" run plain.yaml --quiet --out junit=plain.xml >/dev/null 2>&1) || true
        echo "junit tests, a plan without thresholds or checks|$(xmllint --xpath 'string(/testsuites/@tests)' "$dir/plain.xml")"
    } >"$work/$name.tsv"
done

# The table: a row per figure, a column per throng.
python3 - "$work" "$@" <<'EOF'
import sys
work, names = sys.argv[1], [a.split("=", 1)[0] for a in sys.argv[2:]]
cols = [dict(l.rstrip("\n").split("|", 1) for l in open(f"{work}/{n}.tsv")) for n in names]
print("| figure | " + " | ".join(names) + " |")
print("| --- |" + " --- |" * len(names))
for key in cols[0]:
    print(f"| {key} | " + " | ".join(c.get(key, "") for c in cols) + " |")
EOF
