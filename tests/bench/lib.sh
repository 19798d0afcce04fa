# SPDX-License-Identifier: MIT
#
# What the benchmarks in tests/bench share, sourced (not run) by them:
# the throng binary of a build directory, a scratch directory removed on
# exit, a CA and server certificate for 127.0.0.1, one nginx pinned to
# its own CPU (stopped by its PID on exit), and helpers to time a client
# pinned to another CPU and to read throng's JSON summary.
#
#   BUILD_DIR=build; . tests/bench/lib.sh; bench_setup
#
# Settings (environment, with defaults): CLIENT_CPU (0), SERVER_CPU (1),
# HTTP_PORT (28080), HTTPS_PORT (28443), NGINX_CONNECTIONS (8192): nginx's
# worker_connections, raised by a benchmark that opens more; NGINX_LOCATIONS
# (empty): more `location` blocks for nginx's server, set by a benchmark
# that needs other answers than "ok".
#
# NGINX_HTTP2 (empty): when set, both listeners speak HTTP/2 (h2 through
# ALPN on HTTPS; nginx 1.22's plain listener then speaks h2c only).
#
# After bench_setup: THRONG, NGINX, WORK, HTTP_URL, HTTPS_URL (with a
# trailing slash) and $WORK/ca.pem, the CA a client trusts.

CLIENT_CPU=${CLIENT_CPU:-0}
SERVER_CPU=${SERVER_CPU:-1}
HTTP_PORT=${HTTP_PORT:-28080}
HTTPS_PORT=${HTTPS_PORT:-28443}
NGINX_CONNECTIONS=${NGINX_CONNECTIONS:-8192}
NGINX_LOCATIONS=${NGINX_LOCATIONS:-}

NGINX_PID=
WORK=

bench_cleanup() {
    if [[ -n $NGINX_PID ]]; then
        kill "$NGINX_PID" 2>/dev/null || true
        wait "$NGINX_PID" 2>/dev/null || true
    fi
    if [[ -n $WORK ]]; then
        rm -rf "$WORK"
    fi
}

# bench_setup [TOOL...]: checks the build and the tools (nginx, openssl,
# taskset, python3 and TOOL...), makes $WORK and the certificates, starts nginx.
bench_setup() {
    THRONG=$BUILD_DIR/cli/throng
    [[ -x $THRONG ]] || { echo "no throng at $THRONG (build first)" >&2; exit 2; }
    local tool
    for tool in nginx openssl taskset python3 "$@"; do
        command -v "$tool" >/dev/null || { echo "$tool is required" >&2; exit 2; }
    done
    NGINX=$(command -v nginx)

    WORK=$(mktemp -d /tmp/throng-bench-XXXXXX)
    trap bench_cleanup EXIT
    trap 'exit 130' INT TERM

    bench_certificates
    bench_start_nginx
    HTTP_URL=http://127.0.0.1:$HTTP_PORT/
    HTTPS_URL=https://127.0.0.1:$HTTPS_PORT/
}

bench_certificates() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
        -subj "/CN=throng bench CA" -keyout "$WORK/ca.key" -out "$WORK/ca.pem" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -subj "/CN=127.0.0.1" -keyout "$WORK/server.key" -out "$WORK/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' > "$WORK/ext.cnf"
    openssl x509 -req -in "$WORK/server.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" \
        -CAcreateserial -days 2 -extfile "$WORK/ext.cnf" -out "$WORK/server.pem" 2>/dev/null
}

bench_start_nginx() {
    # Descriptors: one per connection and a margin, within the hard limit.
    local nofile=$(( NGINX_CONNECTIONS + 512 )) hard
    hard=$(ulimit -Hn)
    if [[ $hard != unlimited ]] && (( nofile > hard )); then
        nofile=$hard
    fi
    local h2=${NGINX_HTTP2:+ http2}
    mkdir -p "$WORK/tmp"
    cat > "$WORK/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile $nofile;
pid $WORK/nginx.pid;
error_log $WORK/error.log warn;
events { worker_connections $NGINX_CONNECTIONS; }
http {
  access_log off;
  client_body_temp_path $WORK/tmp;
  keepalive_requests 10000000;
  keepalive_timeout 60s;
  server {
    listen 127.0.0.1:$HTTP_PORT backlog=4096$h2;
    listen 127.0.0.1:$HTTPS_PORT ssl backlog=4096$h2;
    ssl_certificate $WORK/server.pem;
    ssl_certificate_key $WORK/server.key;
    ssl_protocols TLSv1.3;
    ssl_session_cache shared:SSL:20m;
    ssl_session_tickets on;
    location / { return 200 "ok\n"; }
    $NGINX_LOCATIONS
  }
}
EOF
    taskset -c "$SERVER_CPU" "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" &
    NGINX_PID=$!
    local _
    for _ in $(seq 100); do
        if (exec 3<>/dev/tcp/127.0.0.1/$HTTPS_PORT) 2>/dev/null; then break; fi
        sleep 0.05
    done
    (exec 3<>/dev/tcp/127.0.0.1/$HTTP_PORT) 2>/dev/null \
        || { echo "nginx did not start:" >&2; cat "$WORK/error.log" >&2; exit 3; }
}

# run_timed OUT CMD...: runs CMD pinned to the client CPU with stdout+stderr
# in OUT, and prints "USER SYS" (seconds of CPU of the client process).
run_timed() {
    local out=$1; shift
    local TIMEFORMAT='%3U %3S'
    { time taskset -c "$CLIENT_CPU" "$@" >"$out" 2>&1; } 2>&1
}

# run_timed_rss OUT CMD...: the same, printing "USER SYS MAX_RSS_KIB" (GNU time).
run_timed_rss() {
    local out=$1; shift
    /usr/bin/time -o "$out.time" -f '%U %S %M' taskset -c "$CLIENT_CPU" "$@" >"$out" 2>&1 || true
    tail -n 1 "$out.time"
}

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# json FILE PATH...: the values at the dotted PATHs of a JSON file, on one line.
json() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for path in sys.argv[2:]:
    v = d
    for k in path.split("."):
        v = v[int(k)] if isinstance(v, list) else v[k]
    print(v, end=" ")
print()' "$@"; }

# fast_plan NAME URL USERS LENGTH [THINK [RAMP [jsonl]]]: writes
# $WORK/NAME.yaml, USERS keep-alive users of the `fast` transport, each
# iteration one GET of URL's `/`; LENGTH is the scenario's "duration: 5s"
# or "iterations: N", THINK a think time (0: none), RAMP a ramp-up
# (default 0s); "jsonl" adds the once-a-second intervals in
# $WORK/run.jsonl.  TLS_PRIORITY in the environment sets tls.priority
# (TLS_PRIORITY=NORMAL: GnuTLS's order, a P-256 key share).  Prints the
# plan's path.
fast_plan() {
    local think="" reporters=""
    [[ ${5:-0} != 0 ]] && think="think_time: $5"
    [[ ${7:-} == jsonl ]] && reporters="reporters:
  - json: { path: '$WORK/run.jsonl', mode: jsonl }"
    cat > "$WORK/$1.yaml" <<PLAN
name: $1
$reporters
scenarios:
  - name: $1
    users: $3
    $4
    ramp_up: ${6:-0s}
    $think
    http:
      base_url: ${2%/}
      transport: fast
      keep_alive: true
      tls: { ca_file: '$WORK/ca.pem'${TLS_PRIORITY:+, priority: '$TLS_PRIORITY'} }
    steps:
      - http: { url: / }
PLAN
    echo "$WORK/$1.yaml"
}

# h2_plan URL STREAMS LENGTH: writes $WORK/h2.yaml, CONNS users of `fast`
# HTTP/2 against URL, each iteration one request, or a `parallel` of STREAMS
# (its streams at once on the user's connection); LENGTH is the scenario's
# "duration: 5s" or "iterations: N".  Prints the plan's path.
h2_plan() {
    local streams=$2 steps="      - http: { url: / }"
    if (( streams > 1 )); then
        steps="      - parallel:
          max: $streams
          steps:"
        for _ in $(seq "$streams"); do
            steps+="
            - http: { url: / }"
        done
    fi
    cat > "$WORK/h2.yaml" <<PLAN
name: h2
scenarios:
  - name: h2
    users: $CONNS
    $3
    http:
      base_url: $1
      transport: fast
      version: 2
      tls: { ca_file: '$WORK/ca.pem' }
    steps:
$steps
PLAN
    echo "$WORK/h2.yaml"
}

# The header lines every benchmark prints: when, where, and how busy the machine was.
bench_header() { # TITLE
    printf '# %s, client on CPU %s, nginx on CPU %s, %s\n' "$1" "$CLIENT_CPU" "$SERVER_CPU" \
        "$(date -u +%FT%TZ)"
    printf '# %s; nginx %s; load average %s\n' "$($THRONG --version)" \
        "$("$NGINX" -v 2>&1 | sed 's/.*\///')" "$(cut -d' ' -f1-3 /proc/loadavg)"
}
