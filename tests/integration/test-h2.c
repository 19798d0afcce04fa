/* SPDX-License-Identifier: MIT */
/*
 * HTTP/2 (`version: 1.1 | 2 | auto`) on both transports, proven against
 * nginx with `http2` on and read back through its log ($server_protocol,
 * $connection, $ssl_session_reused): every request of a `version: 2`
 * plan goes over h2, TLS (ALPN) and cleartext (h2c by prior knowledge);
 * each TLS session policy's connection and handshake counts equal
 * nginx's over h2; `auto` falls back to HTTP/1.1 against a server
 * without h2, and `version: 2` fails there with class `protocol`.  The
 * negotiated protocol reaches the reporters per sample (JSON sample
 * lines' "protocol") and per step (the summary's "protocols" counts).
 * The real
 * `throng` binary runs as a subprocess (TLS resumption, see
 * test-tls-policy.c).
 */
#include "test-utils.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define RUN_TIMEOUT 120
#define USERS 5
#define ITERATIONS 10
#define STEPS 2
#define REQUESTS (USERS * ITERATIONS * STEPS)

/* Rows of the csv file at @path whose text holds @fragment. */
static guint
csv_count (const char *path, const char *fragment)
{
    g_autofree char *text = NULL;
    guint n = 0;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    for (const char *p = text; (p = strstr (p, fragment)) != NULL; p += strlen (fragment))
        n++;
    return n;
}

/* The requests over @protocol in the "protocols" of the stats at @path (a name with a dot). */
static gint64
protocol_count (JsonNode *root, const char *path, const char *protocol)
{
    g_autofree char *at = g_strdup_printf ("%s.protocols", path);
    JsonObject *protocols = json_node_get_object (throng_test_json_get (root, at));

    return json_object_has_member (protocols, protocol)
               ? json_object_get_int_member (protocols, protocol)
               : 0;
}

typedef struct {
    const char *transport;
    const char *version;
    const char *policy; /* tls.session */
    gboolean keep_alive;
} H2Plan;

static char *
h2_plan (const char *url, const char *ca_file, const H2Plan *p)
{
    g_autofree char *http = g_strdup_printf (
        "version: %s, keep_alive: %s, tls: { ca_file: '%s', session: %s }", p->version,
        p->keep_alive ? "true" : "false", ca_file, p->policy != NULL ? p->policy : "per-thread");

    return throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "h2",
        .transport = p->transport,
        .base_url = url,
        .http = http,
        .scenario = "h2",
        .users = USERS,
        .iterations = ITERATIONS,
        /* `global`: user 0 must hold a session before user 1 starts, and under
         * the sanitizers on a busy machine a first TLS 1.3 handshake and
         * response (the ticket comes after it) took more than 100 ms, so
         * those runs leave 400 ms between users, as test-tls-policy does. */
        .scenario_extra = p->policy != NULL && strcmp (p->policy, "global") == 0
                              ? "    ramp_up: 2s\n"
                              : "    ramp_up: 500ms\n",
        .steps = "      - http: { url: /first }\n"
                 "      - http: { url: /second }\n",
    });
}

/* Runs @p against @url; returns the summary, *@csv the csv reporter's file. */
static JsonNode *
h2_run (ThrongTestTmpdir *fixture, ThrongTestNginx *nginx, const char *url, const H2Plan *p,
        char **csv)
{
    g_autofree char *plan = h2_plan (url, throng_test_nginx_certs (nginx)->ca_cert, p);
    g_autofree char *out = g_build_filename (fixture->dir, "samples.csv", NULL);
    g_autofree char *arg = throng_test_out_arg ("csv", out);
    const char *extra[] = { "--out", arg, NULL };
    g_autofree char *err = NULL;
    JsonNode *root = throng_test_run_summary (fixture->dir, plan, extra, RUN_TIMEOUT, 0, &err);

    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, REQUESTS);
    *csv = g_steal_pointer (&out);
    return root;
}

/* ------------------------------------------------------------------ */
/* Every request over h2                                               */

typedef struct {
    const char *transport;
    gboolean tls;
} OverH2;

static void
test_version_2 (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const OverH2 *c = data;
    ThrongTestNginxConfig config = { .https = TRUE, .http2 = TRUE };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *csv = NULL;
    ThrongTestNginxLog server;

    if (nginx == NULL)
        return;
    root
        = h2_run (fixture, nginx,
                  c->tls ? throng_test_nginx_https_url (nginx) : throng_test_nginx_http_url (nginx),
                  &(H2Plan){ c->transport, "2", NULL, TRUE }, &csv);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_true (throng_test_nginx_log_wait (nginx, REQUESTS, 5000, &server));
    g_assert_cmpuint (server.lines, ==, REQUESTS);
    g_assert_cmpuint (server.status_2xx, ==, REQUESTS);
    /* nginx's $server_protocol says HTTP/2.0 for every one. */
    g_assert_cmpuint (server.http2, ==, REQUESTS);
    /* One connection per user, every request a stream on it. */
    g_assert_cmpuint (server.connections, ==, USERS);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, USERS);
    g_assert_cmpuint (server.max_connection_requests, ==, ITERATIONS * STEPS);
    /* And the reporters see it on every sample, counted per step. */
    g_assert_cmpint (throng_test_json_int (root, "total.protocols.h2"), ==, REQUESTS);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.protocols.h2"), ==,
                     REQUESTS / STEPS);
    /* No longer in the message. */
    g_assert_cmpuint (csv_count (csv, "(h2)"), ==, 0);
}

/*
 * Cookies and redirects over h2 are HTTP/1.1's (redirect.c, one jar per
 * user): a cookie set by one response goes with the next request (nginx
 * answers 403 without it), and a redirect is followed within the step.
 */
static void
test_cookies_redirects (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const OverH2 *c = data;
    ThrongTestNginxConfig config = {
        .https = TRUE,
        .http2 = TRUE,
        .locations = "location /set-cookie { add_header Set-Cookie \"h2=1; Path=/\"; "
                     "return 200 \"set\\n\"; }\n"
                     "    location /needs-cookie { if ($http_cookie !~ \"h2=1\") { return 403; } "
                     "return 200 \"yes\\n\"; }\n"
                     "    location /redir { return 302 /target; }\n"
                     "    location /target { return 200 \"target\\n\"; }\n",
    };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *plan = NULL;
    g_autofree char *http = NULL;
    g_autofree char *out = NULL;
    g_autofree char *arg = NULL;
    g_autofree char *err = NULL;
    ThrongTestNginxLog server;
    const guint users = 2, iterations = 3;

    if (nginx == NULL)
        return;
    http = g_strdup_printf ("version: 2, tls: { ca_file: '%s' }",
                            throng_test_nginx_certs (nginx)->ca_cert);
    plan = throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "h2-cookies",
        .transport = c->transport,
        .base_url
        = c->tls ? throng_test_nginx_https_url (nginx) : throng_test_nginx_http_url (nginx),
        .http = http,
        .scenario = "cookies",
        .users = users,
        .iterations = iterations,
        .steps = "      - http: { url: /set-cookie }\n"
                 "      - http: { url: /needs-cookie }\n"
                 "      - http: { url: /redir, follow_redirects: true }\n",
    });
    out = g_build_filename (fixture->dir, "samples.csv", NULL);
    arg = throng_test_out_arg ("csv", out);
    root = throng_test_run_summary (fixture->dir, plan, (const char *[]){ "--out", arg, NULL },
                                    RUN_TIMEOUT, 0, &err);
    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, users * iterations * 3);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    /* Four requests per iteration reach nginx: the redirect's target too. */
    g_assert_true (throng_test_nginx_log_wait (nginx, users * iterations * 4, 5000, &server));
    g_assert_cmpuint (server.lines, ==, users * iterations * 4);
    g_assert_cmpuint (server.http2, ==, server.lines);
    g_assert_cmpuint (server.status_2xx, ==, users * iterations * 3);
    g_assert_cmpint (throng_test_json_int (root, "total.protocols.h2"), ==, users * iterations * 3);
}

/*
 * Bodies over h2 as over HTTP/1.1: nginx answers a 1 MB POST at once and
 * stops the upload with RST_STREAM (NO_ERROR), which RFC 9113 §8.1 makes
 * a success; a HEAD has no body; a Content-Length over max_body is
 * `body-limit` at the head, and the connection goes on.
 */
static void
test_bodies (ThrongTestTmpdir *fixture, gconstpointer data)
{
    ThrongTestNginxConfig config = { .https = TRUE, .http2 = TRUE };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *plan = NULL;
    g_autofree char *http = NULL;
    g_autofree char *out = NULL;
    g_autofree char *arg = NULL;
    g_autofree char *err = NULL;
    g_autofree char *body = g_build_filename (fixture->dir, "body.bin", NULL);
    g_autofree char *bytes = g_malloc0 (1000 * 1000);
    ThrongTestNginxLog server;

    if (nginx == NULL)
        return;
    g_assert_true (g_file_set_contents (body, bytes, 1000 * 1000, NULL));
    http = g_strdup_printf ("version: 2, tls: { ca_file: '%s' }",
                            throng_test_nginx_certs (nginx)->ca_cert);
    plan = throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "h2-bodies",
        .transport = "fast",
        .base_url = throng_test_nginx_https_url (nginx),
        .http = http,
        .scenario = "bodies",
        .users = 2,
        .iterations = 3,
        .steps = "      - http: { url: /, method: POST, body_file: body.bin }\n"
                 "      - http: { url: /, method: HEAD }\n"
                 "      - http: { url: /, max_body: 1 }\n",
    });
    out = g_build_filename (fixture->dir, "samples.csv", NULL);
    arg = throng_test_out_arg ("csv", out);
    root = throng_test_run_summary (fixture->dir, plan, (const char *[]){ "--out", arg, NULL },
                                    RUN_TIMEOUT, 0, &err);
    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.errors"), ==, 0);
    g_assert_cmpint (
        throng_test_json_int (root, "scenarios.0.steps.2.stats.errors_by_class.body-limit"), ==, 6);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 2);
    g_assert_true (throng_test_nginx_log_wait (nginx, 18, 5000, &server));
    g_assert_cmpuint (server.http2, ==, 18);
    /* The failures too went over h2. */
    g_assert_cmpint (throng_test_json_int (root, "total.protocols.h2"), ==, 18);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.2.stats.protocols.h2"), ==, 6);
}

/* ------------------------------------------------------------------ */
/* TLS session policies over h2                                        */

typedef struct {
    const char *protocol; /* nginx ssl_protocols */
    const char *policy;
    gboolean keep_alive;
    guint connections; /* what nginx must see */
    guint full;
    guint resumed;
} PolicyCase;

static void
test_policy (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const PolicyCase *c = data;
    ThrongTestNginxConfig config = {
        .https = TRUE,
        .http2 = TRUE,
        .ssl_protocols = c->protocol,
        .session_tickets = TRUE,
    };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *csv = NULL;
    ThrongTestNginxLog server;

    if (nginx == NULL)
        return;
    root = h2_run (fixture, nginx, throng_test_nginx_https_url (nginx),
                   &(H2Plan){ "fast", "2", c->policy, c->keep_alive }, &csv);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_true (throng_test_nginx_log_wait (nginx, REQUESTS, 5000, &server));
    g_test_message ("%s %s keep_alive=%d over h2: nginx %u connections, %u full, %u resumed; "
                    "throng %" G_GINT64_FORMAT " / %" G_GINT64_FORMAT " / %" G_GINT64_FORMAT,
                    c->protocol, c->policy, c->keep_alive, server.connections,
                    server.connections_not_reused, server.connections_reused,
                    throng_test_json_int (root, "total.connections"),
                    throng_test_json_int (root, "total.handshakes.full"),
                    throng_test_json_int (root, "total.handshakes.resumed"));
    g_assert_cmpuint (server.http2, ==, REQUESTS);
    g_assert_cmpuint (server.connections, ==, c->connections);
    g_assert_cmpuint (server.connections_not_reused, ==, c->full);
    g_assert_cmpuint (server.connections_reused, ==, c->resumed);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, server.connections);
    g_assert_cmpint (throng_test_json_int (root, "total.handshakes.full"), ==,
                     server.connections_not_reused);
    g_assert_cmpint (throng_test_json_int (root, "total.handshakes.resumed"), ==,
                     server.connections_reused);
}

static const PolicyCase policy_cases[] = {
    /* The user's connection closes at each iteration's end, its session dropped. */
    { "TLSv1.2", "per-iteration", TRUE, USERS *ITERATIONS, USERS *ITERATIONS, 0 },
    { "TLSv1.3", "per-iteration", TRUE, USERS *ITERATIONS, USERS *ITERATIONS, 0 },
    /* One connection per user for the whole run. */
    { "TLSv1.3", "per-thread", TRUE, USERS, USERS, 0 },
    /* Closed after each request: each user resumes its own session. */
    { "TLSv1.2", "per-thread", FALSE, REQUESTS, USERS, REQUESTS - USERS },
    { "TLSv1.3", "per-thread", FALSE, REQUESTS, USERS, REQUESTS - USERS },
    /* One store for everyone: only the first handshake is full. */
    { "TLSv1.2", "global", TRUE, USERS, 1, USERS - 1 },
    { "TLSv1.3", "global", TRUE, USERS, 1, USERS - 1 },
    { "TLSv1.3", "global", FALSE, REQUESTS, 1, REQUESTS - 1 },
};

/* ------------------------------------------------------------------ */
/* A server without h2                                                 */

static void
test_auto_falls_back (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const char *transport = data;
    ThrongTestNginxConfig config = { .https = TRUE };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *csv = NULL;
    ThrongTestNginxLog server;

    if (nginx == NULL)
        return;
    root = h2_run (fixture, nginx, throng_test_nginx_https_url (nginx),
                   &(H2Plan){ transport, "auto", NULL, TRUE }, &csv);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_true (throng_test_nginx_log_wait (nginx, REQUESTS, 5000, &server));
    g_assert_cmpuint (server.lines, ==, REQUESTS);
    g_assert_cmpuint (server.http2, ==, 0);
    g_assert_cmpuint (server.connections, ==, USERS);
    g_assert_false (throng_test_json_has (root, "total.protocols.h2"));
    g_assert_cmpint (protocol_count (root, "total", "http/1.1"), ==, REQUESTS);
}

static void
test_version_2_refused (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const char *transport = data;
    ThrongTestNginxConfig config = { .https = TRUE };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *csv = NULL;

    if (nginx == NULL)
        return;
    root = h2_run (fixture, nginx, throng_test_nginx_https_url (nginx),
                   &(H2Plan){ transport, "2", NULL, TRUE }, &csv);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, REQUESTS);
    g_assert_cmpint (
        throng_test_json_int (root, "scenarios.0.steps.0.stats.errors_by_class.protocol"), ==,
        REQUESTS / STEPS);
    g_assert_cmpint (
        throng_test_json_int (root, "scenarios.0.steps.1.stats.errors_by_class.protocol"), ==,
        REQUESTS / STEPS);
    /* Each failure says why: in its row's responseMessage and failureMessage. */
    g_assert_cmpuint (csv_count (csv, "version: 2 requires it"), ==, 2 * REQUESTS);
}

/* h2c is what libsoup cannot do: the plan is refused at load, not downgraded. */
static void
test_soup_h2c_refused (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *text = throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "h2c",
        .transport = "soup",
        .base_url = "http://127.0.0.1:9",
        .http = "version: 2",
        .scenario = "h2c",
        .users = 1,
        .iterations = 1,
        .steps = "      - http: { url: / }\n",
    });
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", text);
    g_autofree char *err = NULL;
    int status = throng_test_runv (RUN_TIMEOUT, NULL, &err, "validate", plan, NULL);

    g_assert_cmpint (status, ==, 2);
    g_assert_nonnull (strstr (err, "h2c"));
    g_assert_nonnull (strstr (err, "use transport: fast"));
}

/*
 * libsoup decides HTTP/1.1 or ALPN h2 for the whole process: a soup plan
 * whose https steps ask for both is refused at load, not half honoured.
 */
static void
test_soup_mixed_refused (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *text = throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "mixed",
        .transport = "soup",
        .base_url = "https://127.0.0.1:9",
        .scenario = "mixed",
        .users = 1,
        .iterations = 1,
        .steps = "      - http: { url: /a }\n"
                 "      - http: { url: /b, version: auto }\n",
    });
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", text);
    g_autofree char *err = NULL;
    int status = throng_test_runv (RUN_TIMEOUT, NULL, &err, "validate", plan, NULL);

    g_assert_cmpint (status, ==, 2);
    g_assert_nonnull (strstr (err, "version: auto over https:// on the soup transport"));
    g_assert_nonnull (strstr (err, "use transport: fast"));
}

/* ------------------------------------------------------------------ */
/* Hostile servers (tests/lib/h2-server.c)                             */

/* The summary `throng report` draws from the json reporter's @jsonl file. */
static JsonNode *
report_summary (ThrongTestTmpdir *fixture, const char *jsonl)
{
    g_autofree char *again = g_build_filename (fixture->dir, "again.json", NULL);
    g_autofree char *again_arg = throng_test_out_arg ("json", again);
    g_autoptr (JsonParser) parser = json_parser_new ();
    g_autofree char *err = NULL;
    int status = throng_test_runv (RUN_TIMEOUT, NULL, &err, "report", jsonl, "--out", again_arg,
                                   NULL);

    if (status != 0)
        g_test_message ("throng report: %s", err);
    g_assert_cmpint (status, ==, 0);
    g_assert_true (json_parser_load_from_file (parser, again, NULL));
    return json_node_copy (json_parser_get_root (parser));
}

/* Runs @steps, version 2 over h2c, against @server; *@csv receives the samples' file. */
static JsonNode *
hostile_run (ThrongTestTmpdir *fixture, ThrongTestH2Server *server, const char *steps,
             guint iterations, char **csv)
{
    g_autofree char *reporters = g_strdup_printf (
        "reporters:\n  - json: { path: \"%s/run.jsonl\", mode: jsonl, overwrite: true }\n",
        fixture->dir);
    g_autofree char *plan = throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "hostile",
        .transport = "fast",
        .base_url = throng_test_h2_server_url (server),
        .http = "version: 2, timeout: 2s",
        .scenario = "hostile",
        .users = 1,
        .iterations = iterations,
        .steps = steps,
        .plan_extra = reporters,
    });
    g_autofree char *out = g_build_filename (fixture->dir, "samples.csv", NULL);
    g_autofree char *arg = throng_test_out_arg ("csv", out);
    const char *extra[] = { "--out", arg, NULL };
    g_autofree char *err = NULL;
    JsonNode *root = throng_test_run_summary (fixture->dir, plan, extra, RUN_TIMEOUT, 0, &err);

    throng_test_assert_no_glib_noise (err);
    *csv = g_steal_pointer (&out);
    return root;
}

typedef struct {
    const char *path;
    const char *error_class; /* in errors_by_class */
    const char *fragment;    /* of the message, in each failed row's two message columns */
    const char *method_body; /* extra step keys */
} HostileCase;

static const HostileCase hostile_cases[] = {
    { "/huge-headers", "protocol", "header block over 65536 bytes", NULL },
    { "/push", "protocol", "PUSH_PROMISE although push is disabled", NULL },
    { "/ping-flood", "protocol", "PING flood", NULL },
    { "/settings-flood", "protocol", "SETTINGS flood", NULL },
    { "/h1-reply", "protocol", "the server broke HTTP/2: GOAWAY (", NULL },
    { "/cut", "reset", "HTTP/2 connection closed before the response was complete", NULL },
    /* 200 kB against a 64 KiB window that the server never reopens. */
    { "/window", "timeout", "step timed out", "method: POST, body_file: body.bin" },
};

#define HOSTILE_ITERATIONS 3

/* Each bad server fails each request once, with its class and a message naming the frame. */
static void
test_hostile (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const HostileCase *c = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTestH2Server) server = throng_test_h2_server_new (&error);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *csv = NULL;
    g_autofree char *body = g_build_filename (fixture->dir, "body.bin", NULL);
    g_autofree char *zeros = g_malloc0 (200 * 1000);
    g_autofree char *steps = g_strdup_printf ("      - http: { url: '%s'%s%s }\n", c->path,
                                              c->method_body != NULL ? ", " : "",
                                              c->method_body != NULL ? c->method_body : "");
    g_autofree char *key = g_strdup_printf ("total.errors_by_class.%s", c->error_class);
    gint64 start = g_get_monotonic_time ();

    g_assert_no_error (error);
    g_assert_true (g_file_set_contents (body, zeros, 200 * 1000, NULL));
    root = hostile_run (fixture, server, steps, HOSTILE_ITERATIONS, &csv);
    {
        g_autofree char *text = NULL;
        g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
        g_test_message ("%s", text);
    }
    /* Nothing hangs: three steps of at most `timeout` each. */
    g_assert_cmpint (g_get_monotonic_time () - start, <, 20 * G_USEC_PER_SEC);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, HOSTILE_ITERATIONS);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, HOSTILE_ITERATIONS);
    g_assert_cmpint (throng_test_json_int (root, key), ==, HOSTILE_ITERATIONS);
    g_assert_cmpuint (csv_count (csv, c->fragment), ==, 2 * HOSTILE_ITERATIONS);
}

/* RST_STREAM fails its request only: the next one goes on the same connection. */
static void
test_hostile_rst (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTestH2Server) server = throng_test_h2_server_new (&error);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *csv = NULL;

    g_assert_no_error (error);
    root = hostile_run (fixture, server,
                        "      - http: { url: /rst }\n"
                        "      - http: { url: /ok }\n",
                        3, &csv);
    g_assert_cmpint (
        throng_test_json_int (root, "scenarios.0.steps.0.stats.errors_by_class.protocol"), ==, 3);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 1);
    g_assert_cmpuint (throng_test_h2_server_connections (server), ==, 1);
    g_assert_cmpuint (csv_count (csv, "RST_STREAM (INTERNAL_ERROR) from the server"), ==, 6);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.protocols.h2"), ==, 3);
}

/* The peak RSS (KiB) of `throng run` of @steps for @iterations against @server; asserts it exited 0. */
static glong
run_peak_rss_kib (ThrongTestTmpdir *fixture, ThrongTestH2Server *server, const char *steps,
                  guint iterations)
{
    g_autofree char *yaml = throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "rss",
        .transport = "fast",
        .base_url = throng_test_h2_server_url (server),
        .http = "version: 2, timeout: 2s",
        .scenario = "rss",
        .users = 1,
        .iterations = iterations,
        .steps = steps,
    });
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "rss.yaml", yaml);
    const char *argv[] = { throng_test_exe (), "run", plan, "--quiet", NULL };
    g_autoptr (GError) error = NULL;
    struct rusage usage;
    GPid pid;
    int status;

    /* wait4(): this child's own peak, not the largest of every child the test waited for. */
    g_assert_true (g_spawn_async (NULL, (char **)argv, NULL,
                                  G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                  NULL, &pid, &error));
    g_assert_no_error (error);
    while (wait4 (pid, &status, 0, &usage) < 0)
        g_assert_cmpint (errno, ==, EINTR);
    g_spawn_close_pid (pid);
    g_assert_true (WIFEXITED (status));
    g_assert_cmpint (WEXITSTATUS (status), ==, 0);
    return usage.ru_maxrss;
}

/*
 * A header block that decompresses past the limit is refused without
 * keeping it: 100 responses of 200 header fields of 1,000 bytes each
 * (20 MB of headers in all) leave throng's peak RSS within a few MB of
 * the same run answered with small heads.
 */
static void
test_hostile_huge_headers_rss (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTestH2Server) server = throng_test_h2_server_new (&error);
    glong small, huge;

    g_assert_no_error (error);
    small = run_peak_rss_kib (fixture, server, "      - http: { url: /ok }\n", 100);
    huge = run_peak_rss_kib (fixture, server, "      - http: { url: /huge-headers }\n", 100);
    g_test_message ("peak RSS: %ld KiB with small heads, %ld KiB with 200 kB heads", small, huge);
    g_assert_cmpint (huge - small, <, 8 * 1024);
}

/*
 * GOAWAY whose last stream id is below the request's: the request is
 * retried once on a new connection, counted as retried, and succeeds.
 */
static void
test_hostile_goaway (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTestH2Server) server = throng_test_h2_server_new (&error);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *csv = NULL;

    g_assert_no_error (error);
    root = hostile_run (fixture, server,
                        "      - http: { url: /ok }\n"
                        "      - http: { url: /goaway }\n",
                        3, &csv);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    /* Each iteration's /goaway is a later stream on its connection: refused, retried. */
    g_assert_cmpint (throng_test_json_int (root, "total.retries"), ==, 3);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.retries"), ==, 3);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 4);
    g_assert_cmpuint (throng_test_h2_server_connections (server), ==, 4);
    g_assert_cmpint (throng_test_json_int (root, "total.protocols.h2"), ==, 6);

    /* throng report reads the retries back from the run's jsonl file. */
    g_autofree char *jsonl = g_build_filename (fixture->dir, "run.jsonl", NULL);
    g_autoptr (JsonNode) reread = report_summary (fixture, jsonl);
    g_assert_cmpint (throng_test_json_int (reread, "total.retries"), ==, 3);
    g_assert_cmpint (throng_test_json_int (reread, "scenarios.0.steps.1.stats.retries"), ==, 3);
}

/*
 * A TLS close_notify in the middle of a DATA frame: the response was cut,
 * class `reset`, whatever closed it cleanly underneath.
 */
static void
test_hostile_tls_cut (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTestCerts) certs = throng_test_certs_new (fixture->dir, &error);
    g_autoptr (ThrongTestH2Server) server = NULL;
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *plan = NULL;
    g_autofree char *http = NULL;
    g_autofree char *out = NULL;
    g_autofree char *arg = NULL;
    g_autofree char *err = NULL;

    g_assert_no_error (error);
    server = throng_test_h2_server_new_tls (certs->server_cert, certs->server_key, &error);
    g_assert_no_error (error);
    http = g_strdup_printf ("version: 2, timeout: 2s, tls: { ca_file: '%s' }", certs->ca_cert);
    plan = throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "tls-cut",
        .transport = "fast",
        .base_url = throng_test_h2_server_url (server),
        .http = http,
        .scenario = "tls-cut",
        .users = 1,
        .iterations = HOSTILE_ITERATIONS,
        .steps = "      - http: { url: /ok }\n"
                 "      - http: { url: /tls-cut }\n",
    });
    out = g_build_filename (fixture->dir, "samples.csv", NULL);
    arg = throng_test_out_arg ("csv", out);
    root = throng_test_run_summary (fixture->dir, plan, (const char *[]){ "--out", arg, NULL },
                                    RUN_TIMEOUT, 0, &err);
    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.errors_by_class.reset"),
                     ==, HOSTILE_ITERATIONS);
    g_assert_cmpuint (csv_count (out, "HTTP/2 connection closed before the response was complete"),
                      ==, 2 * HOSTILE_ITERATIONS);
    /* Over h2 through ALPN, a new TLS connection after each cut. */
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.protocols.h2"), ==,
                     HOSTILE_ITERATIONS);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, HOSTILE_ITERATIONS);
}

/* /head-only: a head, then never the body; anything else: 200 "ok". */
static void
stall_or_ok (ThrongTestH2Exchange *exchange, gpointer data)
{
    exchange->status = 200;
    if (strcmp (exchange->path, "/head-only") == 0)
        exchange->stall_body = TRUE;
    else
        exchange->body = "ok";
}

/*
 * soup's step timeout over h2 shuts the reading half of the timed-out
 * stream's connection down (soup/connect.c, http_soup_cancel_step): the
 * step fails with `timeout`, and the user's next request, on a new
 * connection, is neither failed nor sent again by that shutdown.  Before
 * the response (/slow answers 200 ms late) and in the middle of its body
 * (a head, then nothing); the timeout is 100 ms.  Under the sanitizers
 * this is also the case that leaked inside libsoup 3.2.3 when a
 * connection stayed in use at the end (soup/connect.c says how).
 */
static void
test_soup_timeout_then_next (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const char *first = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTestCerts) certs = throng_test_certs_new (fixture->dir, &error);
    g_autoptr (ThrongTestH2Server) server = NULL;
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *plan = NULL;
    g_autofree char *http = NULL;
    g_autofree char *steps = NULL;
    g_autofree char *err = NULL;

    g_assert_no_error (error);
    server = throng_test_h2_server_new_tls (certs->server_cert, certs->server_key, &error);
    g_assert_no_error (error);
    if (strcmp (first, "/head-only") == 0)
        throng_test_h2_server_set_handler (server, stall_or_ok, NULL);
    http = g_strdup_printf ("version: 2, timeout: 100ms, tls: { ca_file: '%s' }", certs->ca_cert);
    /* The next request has a timeout of its own: it is not the one that should fail,
     * and a sanitized build on a busy machine can take 100 ms over it. */
    steps = g_strdup_printf ("      - http: { url: %s }\n"
                             "      - http: { url: /ok, timeout: 10s }\n",
                             first);
    plan = throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "soup-timeout",
        .transport = "soup",
        .base_url = throng_test_h2_server_url (server),
        .http = http,
        .scenario = "soup-timeout",
        .users = 1,
        .iterations = HOSTILE_ITERATIONS,
        .steps = steps,
    });
    root = throng_test_run_summary (fixture->dir, plan, NULL, RUN_TIMEOUT, 0, &err);
    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.errors_by_class.timeout"),
                     ==, HOSTILE_ITERATIONS);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.protocols.h2"), ==,
                     HOSTILE_ITERATIONS);
    g_assert_cmpint (throng_test_json_int (root, "total.retries"), ==, 0);
    /* The first connection, then one after each timeout. */
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, HOSTILE_ITERATIONS + 1);
    g_assert_cmpuint (throng_test_h2_server_connections (server), ==, HOSTILE_ITERATIONS + 1);
}

/* ------------------------------------------------------------------ */
/* A run that mixes versions: protocol per sample and per step         */

#define MIXED_REQUESTS (2 * 3) /* per step: 2 users, 3 iterations */

/*
 * One step over h2, one over HTTP/1.1, on one nginx: the JSON sample
 * lines say "protocol" each, the summary counts them per step ("h2" on
 * the first, "http/1.1" on the second), `throng report` reads the counts
 * back from the jsonl file, and the console's summary lists them per step
 * because the run mixed them.
 */
static void
test_mixed_protocols (ThrongTestTmpdir *fixture, gconstpointer data)
{
    ThrongTestNginxConfig config = { .https = TRUE, .http2 = TRUE };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    g_autofree char *jsonl = g_build_filename (fixture->dir, "run.jsonl", NULL);
    g_autofree char *plan_path = g_build_filename (fixture->dir, "mixed.yaml", NULL);
    g_autofree char *http = NULL, *reporters = NULL, *plan = NULL, *text = NULL;
    g_autofree char *out = NULL, *err = NULL;
    g_autoptr (JsonNode) root = NULL;
    g_autoptr (JsonNode) reread = NULL;

    if (nginx == NULL)
        return;
    http = g_strdup_printf ("tls: { ca_file: '%s' }", throng_test_nginx_certs (nginx)->ca_cert);
    reporters = g_strdup_printf ("reporters:\n  - json: { path: '%s', mode: jsonl, samples: true }\n",
                                 jsonl);
    ThrongTestPlan mixed = {
        .name = "mixed",
        .transport = "fast",
        .base_url = throng_test_nginx_https_url (nginx),
        .http = http,
        .scenario = "mixed",
        .users = 2,
        .iterations = 3,
        .steps = "      - http: { url: /over-h2, version: 2 }\n"
                 "      - http: { url: /over-h1, version: '1.1' }\n",
        .plan_extra = reporters,
    };
    plan = throng_test_plan_yaml (&mixed);
    root = throng_test_run_summary (fixture->dir, plan, NULL, RUN_TIMEOUT, 0, &err);
    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.protocols.h2"), ==,
                     MIXED_REQUESTS);
    g_assert_false (throng_test_json_has (root, "scenarios.0.steps.1.stats.protocols.h2"));
    g_assert_cmpint (protocol_count (root, "scenarios.0.steps.1.stats", "http/1.1"), ==,
                     MIXED_REQUESTS);
    g_assert_cmpint (throng_test_json_int (root, "total.protocols.h2"), ==, MIXED_REQUESTS);
    g_assert_cmpint (protocol_count (root, "total", "http/1.1"), ==, MIXED_REQUESTS);

    /* Each sample line names its protocol. */
    g_assert_true (g_file_get_contents (jsonl, &text, NULL, NULL));
    g_assert_cmpuint (csv_count (jsonl, "\"url\":\"https://"), ==, 2 * MIXED_REQUESTS);
    g_assert_cmpuint (csv_count (jsonl, "/over-h2\",\"protocol\":\"h2\"}"), ==, MIXED_REQUESTS);
    g_assert_cmpuint (csv_count (jsonl, "/over-h1\",\"protocol\":\"http/1.1\"}"), ==,
                      MIXED_REQUESTS);

    /* Read back from the jsonl file, the counts are the same. */
    reread = report_summary (fixture, jsonl);
    g_assert_cmpint (throng_test_json_int (reread, "scenarios.0.steps.0.stats.protocols.h2"), ==,
                     MIXED_REQUESTS);
    g_assert_cmpint (protocol_count (reread, "scenarios.0.steps.1.stats", "http/1.1"), ==,
                     MIXED_REQUESTS);

    /* The console (the reporter of a plan without any) names them per step: the run mixed them. */
    g_free (plan);
    mixed.plan_extra = NULL;
    plan = throng_test_plan_yaml (&mixed);
    g_assert_true (g_file_set_contents (plan_path, plan, -1, NULL));
    g_assert_cmpint (throng_test_runv (RUN_TIMEOUT, &out, NULL, "run", plan_path, NULL),
                     ==, 0);
    g_test_message ("%s", out);
    g_assert_nonnull (strstr (out, "protocols"));
    g_assert_nonnull (strstr (out, "mixed / GET /over-h2: h2 6\n"));
    g_assert_nonnull (strstr (out, "mixed / GET /over-h1: http/1.1 6\n"));
}

/* ------------------------------------------------------------------ */
/* Streams of a `parallel` (tests/lib/h2-server.c)                     */

#define SERVER_DELAY_US (200 * 1000) /* the server's /slow */

/*
 * A server that allows one stream at a time: the children of a parallel
 * wait for a free stream, and the wait is part of their latency (their
 * samples start when the core first tried them).  The third child waits
 * for the first two, each the server's delay: its elapsed time is at
 * least twice that, and the connection stays the only one (no refused
 * stream retried elsewhere).
 */
static void
test_stream_wait (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTestH2Server) server = throng_test_h2_server_new (&error);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *csv = NULL;

    g_assert_no_error (error);
    throng_test_h2_server_set_max_streams (server, 1);
    root = hostile_run (fixture, server,
                        "      - parallel:\n"
                        "          max: 3\n"
                        "          steps:\n"
                        "            - http: { url: /slow }\n"
                        "            - http: { url: /slow }\n"
                        "            - http: { url: /slow }\n",
                        2, &csv);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 6);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 1);
    g_assert_cmpuint (throng_test_h2_server_connections (server), ==, 1);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.latency_us.min"), >=,
                     SERVER_DELAY_US);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.3.stats.latency_us.min"), >=,
                     2 * SERVER_DELAY_US);
    /* The parallel: the three one after the other. */
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.latency_us.min"), >=,
                     3 * SERVER_DELAY_US);
}

/*
 * Three streams at once on one connection, bodies of known, different
 * sizes: each child's bytes are its own stream's frames (docs/http.md):
 * received, its HEADERS (one field, :status, HPACK-coded in a byte or
 * two) and DATA frames with their 9-byte headers, and its share of the
 * connection's own frames (SETTINGS, WINDOW_UPDATE, PING), bounded here
 * by 200 bytes; sent, its HEADERS frame, under 200 bytes.
 */
static void
test_stream_bytes (ThrongTestTmpdir *fixture, gconstpointer data)
{
    static const guint sizes[] = { 100, 20000, 50000 };
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTestH2Server) server = throng_test_h2_server_new (&error);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *csv = NULL;
    guint64 sent = 0, received = 0;

    g_assert_no_error (error);
    root = hostile_run (fixture, server,
                        "      - parallel:\n"
                        "          max: 3\n"
                        "          steps:\n"
                        "            - http: { url: /size/100 }\n"
                        "            - http: { url: /size/20000 }\n"
                        "            - http: { url: /size/50000 }\n",
                        3, &csv);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 1);
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
        g_autofree char *path_r
            = g_strdup_printf ("scenarios.0.steps.%u.stats.bytes_received", i + 1);
        g_autofree char *path_s = g_strdup_printf ("scenarios.0.steps.%u.stats.bytes_sent", i + 1);
        gint64 r = throng_test_json_int (root, path_r) / 3;
        gint64 w = throng_test_json_int (root, path_s) / 3;
        /* the body in 16 KiB DATA frames, each with its 9 bytes, and the HEADERS frame */
        gint64 least = sizes[i] + 9 * (sizes[i] / 16384 + 1) + 9 + 1;

        g_test_message ("child %u: %" G_GINT64_FORMAT " received (least %" G_GINT64_FORMAT
                        "), %" G_GINT64_FORMAT " sent",
                        i, r, least, w);
        g_assert_cmpint (r, >=, least);
        g_assert_cmpint (r, <=, least + 200);
        g_assert_cmpint (w, >, 9);
        g_assert_cmpint (w, <, 200);
        sent += (guint64)w;
        received += (guint64)r;
    }
    /* The parallel's own sample adds its children's. */
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.bytes_received") / 3,
                     >=, received - 3);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.bytes_sent") / 3, >=,
                     sent - 3);
}

int
main (int argc, char **argv)
{
    static const OverH2 over[] = {
        { "fast", TRUE },
        { "fast", FALSE },
        { "soup", TRUE },
    };

    g_test_init (&argc, &argv, NULL);

#define ADD(path, fn, data)                                                                        \
    g_test_add (path, ThrongTestTmpdir, data, throng_test_tmpdir_setup, fn,                        \
                throng_test_tmpdir_teardown)
    for (guint i = 0; i < G_N_ELEMENTS (over); i++) {
        g_autofree char *path
            = g_strdup_printf ("/h2/nginx/%s/%s", over[i].transport, over[i].tls ? "tls" : "h2c");
        ADD (path, test_version_2, &over[i]);
        g_free (path);
        path = g_strdup_printf ("/h2/cookies-redirects/%s/%s", over[i].transport,
                                over[i].tls ? "tls" : "h2c");
        ADD (path, test_cookies_redirects, &over[i]);
    }
    for (guint i = 0; i < G_N_ELEMENTS (policy_cases); i++) {
        const PolicyCase *c = &policy_cases[i];
        g_autofree char *path = g_strdup_printf (
            "/h2/policy/%s/%s%s", strcmp (c->protocol, "TLSv1.2") == 0 ? "tls12" : "tls13",
            c->policy, c->keep_alive ? "" : "/close");
        ADD (path, test_policy, c);
    }
    ADD ("/h2/nginx/fast/bodies", test_bodies, NULL);
    ADD ("/h2/h1-only/fast/auto", test_auto_falls_back, "fast");
    ADD ("/h2/h1-only/soup/auto", test_auto_falls_back, "soup");
    ADD ("/h2/h1-only/fast/version-2", test_version_2_refused, "fast");
    ADD ("/h2/h1-only/soup/version-2", test_version_2_refused, "soup");
    ADD ("/h2/soup/h2c-refused", test_soup_h2c_refused, NULL);
    ADD ("/h2/soup/mixed-versions-refused", test_soup_mixed_refused, NULL);
    for (guint i = 0; i < G_N_ELEMENTS (hostile_cases); i++) {
        g_autofree char *path = g_strdup_printf ("/h2/hostile%s", hostile_cases[i].path);
        ADD (path, test_hostile, &hostile_cases[i]);
    }
    ADD ("/h2/hostile/rst", test_hostile_rst, NULL);
    ADD ("/h2/hostile/huge-headers-rss", test_hostile_huge_headers_rss, NULL);
    ADD ("/h2/hostile/goaway", test_hostile_goaway, NULL);
    ADD ("/h2/hostile/tls-cut", test_hostile_tls_cut, NULL);
    ADD ("/h2/soup/timeout-then-next/head", test_soup_timeout_then_next, "/slow");
    ADD ("/h2/soup/timeout-then-next/body", test_soup_timeout_then_next, "/head-only");
    ADD ("/h2/nginx/fast/mixed-protocols", test_mixed_protocols, NULL);
    ADD ("/h2/streams/wait-in-latency", test_stream_wait, NULL);
    ADD ("/h2/streams/bytes", test_stream_bytes, NULL);
#undef ADD

    return g_test_run ();
}
