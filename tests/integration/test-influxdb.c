/* SPDX-License-Identifier: MIT */
/*
 * The influxdb reporter against a real InfluxDB 1.x: the test starts
 * influxd from a generated configuration (its own directories, loopback
 * ports, no systemd), runs throng with the reporter and queries what was
 * stored.  The counts stored equal throng's JSON summary; when the
 * database is stopped mid-run and started again, what throng reports as
 * dropped plus what was stored is exactly the run's count, and what was
 * dropped is bounded by what the outage produced.  Skipped with a message
 * (failed under CI) when influxd is not installed.  The 2.x write API is
 * checked against its documented contract, played by an in-process
 * SoupServer (below: there is no 2.x server to run).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "http-client.h"
#include "test-utils.h"

typedef struct {
    char *dir;
    char *program;
    char *config;
    guint16 port;               /* HTTP */
    guint16 rpc_port;           /* the backup/restore service, which influxd always opens */
    ThrongTestProcess *influxd;
} Fixture;

static void
fixture_setup (Fixture *fixture, gconstpointer data)
{
    fixture->dir = throng_test_tmpdir_new ();
}

static void
stop_influxd (Fixture *fixture)
{
    /* It may have been stopped (SIGSTOP) by /influxdb/hung: the helper sends SIGCONT first. */
    throng_test_daemon_stop (&fixture->influxd, 10000);
}

static void
fixture_teardown (Fixture *fixture, gconstpointer data)
{
    stop_influxd (fixture);
    g_free (fixture->program);
    g_free (fixture->config);
    throng_test_tmpdir_free (fixture->dir);
}

/*
 * Starts influxd on the fixture's ports and directories (again, after a
 * stop); TRUE when it answers.  With @last_try, not answering fails the
 * test with influxd's log.
 */
static gboolean
spawn_influxd (Fixture *fixture, gboolean last_try)
{
    g_autofree char *log = g_build_filename (fixture->dir, "influxd.log", NULL);
    g_autofree char *ping = g_strdup_printf ("http://127.0.0.1:%u/ping", fixture->port);
    ThrongTestDaemon daemon = {
        .name = "influxd",
        .argv = (const char *const[]) { fixture->program, "run", "-config", fixture->config,
                                        NULL },
        .log_path = log,
        .ready_url = ping,
    };

    fixture->influxd = throng_test_daemon_start (&daemon);
    if (fixture->influxd == NULL && last_try)
        throng_test_daemon_fail (&daemon);
    return fixture->influxd != NULL;
}

static gboolean
start_influxd (Fixture *fixture)
{
    fixture->program = throng_test_require_program ("influxd");
    if (fixture->program == NULL)
        return FALSE;

    for (guint attempt = 0; attempt < 3; attempt++) {
        fixture->port = throng_test_free_port ();
        fixture->rpc_port = throng_test_free_port ();
        g_autofree char *text = g_strdup_printf (
            "reporting-disabled = true\n"
            "bind-address = \"127.0.0.1:%u\"\n"
            "[meta]\n  dir = \"%s/meta\"\n"
            "[data]\n  dir = \"%s/data\"\n  wal-dir = \"%s/wal\"\n  query-log-enabled = false\n"
            "[monitor]\n  store-enabled = false\n"
            "[http]\n  bind-address = \"127.0.0.1:%u\"\n  log-enabled = false\n"
            "[continuous_queries]\n  enabled = false\n"
            "[logging]\n  level = \"warn\"\n",
            fixture->rpc_port, fixture->dir, fixture->dir, fixture->dir, fixture->port);
        g_free (fixture->config);
        fixture->config = throng_test_write_file (fixture->dir, "influxdb.conf", text);
        if (spawn_influxd (fixture, attempt == 2))
            break;
    }

    guint status = 0;
    g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/query", fixture->port);
    g_autoptr (GError) error = NULL;
    g_free (throng_test_http_request ("POST", url, "application/x-www-form-urlencoded",
                                      "q=CREATE%20DATABASE%20throng", &status, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (status, ==, 200);
    return TRUE;
}

/* The number a query yields (its first series' first value), 0 when it yields no series. */
static gint64
query_int (Fixture *fixture, const char *influxql)
{
    g_autofree char *escaped = throng_test_http_escape (influxql);
    g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/query?db=throng&q=%s",
                                            fixture->port, escaped);
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) answer = throng_test_http_get_json (url, &error);

    g_assert_no_error (error);
    g_assert_false (throng_test_json_has (answer, "results.0.error"));
    if (!throng_test_json_has (answer, "results.0.series"))
        return 0;
    gint64 value = throng_test_json_int (answer, "results.0.series.0.values.0.1");
    g_test_message ("%s = %" G_GINT64_FORMAT, influxql, value);
    return value;
}

static char *
plan_yaml (Fixture *fixture, const char *duration, guint buffer)
{
    return g_strdup_printf ("name: stored\n"
                            "target: builtin\n"
                            "defaults:\n"
                            "  http: { base_url: \"${builtin.http}\", transport: soup }\n"
                            "metrics: { pages: { type: counter } }\n"
                            "scenarios:\n"
                            "  - name: browse\n"
                            "    users: 2\n"
                            "    duration: %s\n"
                            "    think_time: 2ms\n"
                            "    steps:\n"
                            "      - name: \"home, page\"\n"
                            "        http: { url: / }\n"
                            "        record: { pages: }\n"
                            "      - http: { url: /status/404 }\n"
                            "reporters:\n"
                            "  - influxdb:\n"
                            "      url: \"http://127.0.0.1:%u\"\n"
                            "      database: throng\n"
                            "      tags: { env: \"test run\" }\n"
                            "      buffer: %u\n"
                            "      backoff_max: 1s\n"
                            "      flush_timeout: 10s\n",
                            duration, fixture->port, buffer);
}

static void
test_stored (Fixture *fixture, gconstpointer data)
{
    if (!start_influxd (fixture))
        return;
    g_autofree char *yaml = plan_yaml (fixture, "3s", 10000);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = throng_test_run_summary (fixture->dir, yaml, NULL, 60, 0, &err);

    throng_test_assert_no_glib_noise (err);
    g_assert_null (strstr (err, "influxdb"));
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), >, 0);
    g_assert_cmpint (query_int (fixture, "SELECT sum(requests) FROM throng_step"), ==,
                     throng_test_json_int (summary, "total.requests"));
    g_assert_cmpint (query_int (fixture, "SELECT sum(errors_status) FROM throng_step"), ==,
                     throng_test_json_int (summary, "total.errors_by_class.status"));
    g_assert_cmpint (query_int (fixture,
                                "SELECT sum(requests) FROM throng_step WHERE step = 'home, page' "
                                "AND step_id = '0' AND env = 'test run' AND scenario = 'browse'"),
                     ==, throng_test_json_int (summary, "scenarios.0.steps.0.stats.requests"));
    g_assert_cmpint (
        query_int (fixture, "SELECT sum(requests) FROM throng_step WHERE step_id = '1'"), ==,
        throng_test_json_int (summary, "scenarios.0.steps.1.stats.requests"));
    g_assert_cmpint (query_int (fixture, "SELECT sum(iterations) FROM throng_scenario"), ==,
                     throng_test_json_int (summary, "scenarios.0.iterations"));
    /* A point per interval for the run: about one a second. */
    gint64 intervals = query_int (fixture, "SELECT count(requests) FROM throng_run");
    g_assert_cmpint (intervals, >=, 2);
    g_assert_cmpint (intervals, <=, 5);
}

/*
 * Two steps of a scenario with one label (a HAR import has them): their
 * points of one snapshot have the same time, so without the step_id tag
 * the second overwrote the first and the stored requests fell short of
 * the summary (issue 33).  Each step's sum is read by its step_id.
 */
static void
test_repeated_labels (Fixture *fixture, gconstpointer data)
{
    if (!start_influxd (fixture))
        return;
    g_autofree char *yaml = g_strdup_printf (
        "name: repeated\n"
        "target: builtin\n"
        "defaults:\n"
        "  http: { base_url: \"${builtin.http}\", transport: soup }\n"
        "scenarios:\n"
        "  - name: browse\n"
        "    users: 2\n"
        "    duration: 3s\n"
        "    think_time: 2ms\n"
        "    steps:\n"
        "      - http: { url: / }\n"
        "      - http: { url: /status/404 }\n"
        "      - http: { url: / }\n"
        "reporters:\n"
        "  - influxdb: { url: \"http://127.0.0.1:%u\", database: throng, flush_timeout: 10s }\n",
        fixture->port);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = throng_test_run_summary (fixture->dir, yaml, NULL, 60, 0, &err);

    throng_test_assert_no_glib_noise (err);
    g_assert_null (strstr (err, "influxdb"));
    g_assert_cmpstr (throng_test_json_string (summary, "scenarios.0.steps.0.label"), ==,
                     throng_test_json_string (summary, "scenarios.0.steps.2.label"));
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.steps.2.stats.requests"), >, 0);
    g_assert_cmpint (query_int (fixture, "SELECT sum(requests) FROM throng_step"), ==,
                     throng_test_json_int (summary, "total.requests"));
    for (guint i = 0; i < 3; i++) {
        g_autofree char *query
            = g_strdup_printf ("SELECT sum(requests) FROM throng_step WHERE step_id = '%u'", i);
        g_autofree char *path = g_strdup_printf ("scenarios.0.steps.%u.stats.requests", i);

        g_assert_cmpint (query_int (fixture, query), ==, throng_test_json_int (summary, path));
    }
}

/*
 * Steps that never went out are stored as not_sent, not requests, and a
 * step's retry attempts as retry_attempts, adding up to the summary's
 * (docs/reporters.md, "What a request is").
 */
static void
test_not_sent (Fixture *fixture, gconstpointer data)
{
    if (!start_influxd (fixture))
        return;
    g_autofree char *yaml = g_strdup_printf (
        "name: not-sent\n"
        "target: builtin\n"
        "defaults:\n"
        "  http: { base_url: \"${builtin.http}\" }\n"
        "scenarios:\n"
        "  - name: s\n"
        "    users: 2\n"
        "    iterations: 5\n"
        "    steps:\n"
        "      - name: login\n"
        "        http: { url: /, extract: { tok: { regex: \"NO-SUCH-(x)\" } } }\n"
        "      - name: use\n"
        "        http: { url: \"/?t=${vars.tok}\" }\n"
        "      - name: flaky\n"
        "        http: { url: /status/503 }\n"
        "        retry: { max: 2 }\n"
        "reporters:\n"
        "  - influxdb: { url: \"http://127.0.0.1:%u\", database: throng, flush_timeout: 10s }\n",
        fixture->port);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = throng_test_run_summary (fixture->dir, yaml, NULL, 60, 0, &err);

    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (summary, "total.not_sent"), ==, 10);
    g_assert_cmpint (throng_test_json_int (summary, "total.retry_attempts"), ==, 20);
    g_assert_cmpint (query_int (fixture, "SELECT sum(requests) FROM throng_step"), ==,
                     throng_test_json_int (summary, "total.requests"));
    g_assert_cmpint (query_int (fixture, "SELECT sum(not_sent) FROM throng_step WHERE step = 'use'"),
                     ==, 10);
    g_assert_cmpint (query_int (fixture, "SELECT sum(retry_attempts) FROM throng_step"), ==, 20);
}

/*
 * Every panel of deploy/grafana/throng-influxdb.json returns a number for
 * a run, its variables set as a user would set them.
 */
static void
test_dashboard (Fixture *fixture, gconstpointer data)
{
    if (!start_influxd (fixture))
        return;
    g_autofree char *yaml = plan_yaml (fixture, "3s", 10000);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = throng_test_run_summary (fixture->dir, yaml, NULL, 60, 0, &err);
    g_autofree char *path = throng_test_source_path ("deploy/grafana/throng-influxdb.json");
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) dashboard = throng_test_json_load (path, &error);
    guint n_queries = 0;

    g_assert_no_error (error);
    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), >, 0);
    for (guint p = 0; p < throng_test_json_length (dashboard, "panels"); p++) {
        g_autofree char *targets_path = g_strdup_printf ("panels.%u.targets", p);
        g_autofree char *title_path = g_strdup_printf ("panels.%u.title", p);

        for (guint t = 0; t < throng_test_json_length (dashboard, targets_path); t++) {
            g_autofree char *query_path = g_strdup_printf ("%s.%u.query", targets_path, t);
            g_autoptr (GString) influxql
                = g_string_new (throng_test_json_string (dashboard, query_path));

            g_string_replace (influxql, "$timeFilter", "time > now() - 1h", 0);
            g_string_replace (influxql, "$__interval", "1s", 0);
            g_string_replace (influxql, "$plan", "stored", 0);
            /* What is left is the regex's anchor ("/^stored$/"), never a variable. */
            for (const char *d = strchr (influxql->str, '$'); d != NULL; d = strchr (d + 1, '$'))
                g_assert_false (g_ascii_isalpha (d[1]) || d[1] == '_' || d[1] == '{');

            g_autofree char *escaped = throng_test_http_escape (influxql->str);
            g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/query?db=throng&q=%s",
                                                    fixture->port, escaped);
            g_autoptr (JsonNode) answer = throng_test_http_get_json (url, &error);
            guint numbers = 0;

            g_assert_no_error (error);
            g_assert_false (throng_test_json_has (answer, "results.0.error"));
            for (guint s = 0; s < throng_test_json_length (answer, "results.0.series"); s++) {
                g_autofree char *values_path = g_strdup_printf ("results.0.series.%u.values", s);
                for (guint v = 0; v < throng_test_json_length (answer, values_path); v++) {
                    g_autofree char *value_path = g_strdup_printf ("%s.%u.1", values_path, v);
                    JsonNode *value = throng_test_json_get (answer, value_path);
                    numbers += value != NULL && !JSON_NODE_HOLDS_NULL (value);
                }
            }
            g_test_message ("panel '%s': %u numbers from %s",
                            throng_test_json_string (dashboard, title_path), numbers,
                            influxql->str);
            if (numbers == 0)
                g_error ("panel '%s' returns no data: %s",
                         throng_test_json_string (dashboard, title_path), influxql->str);
            n_queries++;
        }
    }
    g_assert_cmpuint (n_queries, >=, 10);

    /* The plan variable's query lists the run's plan. */
    g_autofree char *escaped = throng_test_http_escape (
        "SHOW TAG VALUES FROM \"throng_run\" WITH KEY = \"plan\"");
    g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/query?db=throng&q=%s",
                                            fixture->port, escaped);
    g_autoptr (JsonNode) plans = throng_test_http_get_json (url, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (throng_test_json_string (plans, "results.0.series.0.values.0.1"), ==,
                     "stored");
}

/* The summary's warning of the influxdb reporter's losses; asserts there is one. */
static const char *
influx_warning (JsonNode *summary)
{
    for (guint i = 0; i < throng_test_json_length (summary, "warnings"); i++) {
        g_autofree char *path = g_strdup_printf ("warnings.%u", i);
        const char *warning = throng_test_json_string (summary, path);
        if (g_str_has_prefix (warning, "influxdb: "))
            return warning;
    }
    g_error ("no influxdb warning in the summary");
    return NULL;
}

/* The summary's influxdb warning, asserting it says that every request of the run was lost. */
static const char *
influx_all_lost (JsonNode *summary)
{
    g_autofree char *expected = g_strdup_printf (
        "points (%" G_GINT64_FORMAT " requests) were not stored",
        throng_test_json_int (summary, "total.requests"));
    const char *warning = influx_warning (summary);

    g_test_message ("%s", warning);
    g_assert_nonnull (strstr (warning, expected));
    return warning;
}

/*
 * The database stops for about four seconds of a ten-second run, then
 * comes back.  Batches of four points (two steps, the scenario, the run)
 * pile up against a buffer of eight points: the oldest are dropped and
 * counted, the rest written when it returns.
 */
static void
test_outage (Fixture *fixture, gconstpointer data)
{
    if (!start_influxd (fixture))
        return;
    g_autofree char *yaml = plan_yaml (fixture, "10s", 8);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autofree char *json = g_build_filename (fixture->dir, "summary.json", NULL);
    g_auto (GStrv) args = throng_test_run_args (plan, json);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = -1;

    g_autoptr (ThrongTestProcess) throng = throng_test_spawn ((const char *const *) args, NULL);
    /* Under way (later in a sanitized build), and a batch or two written. */
    throng_test_wait_started ();
    g_usleep (1000 * 1000);
    gint64 outage_start = g_get_monotonic_time ();
    stop_influxd (fixture);
    g_usleep (4000 * 1000);
    g_assert_true (spawn_influxd (fixture, TRUE));
    gint64 outage_s = (g_get_monotonic_time () - outage_start + G_USEC_PER_SEC - 1)
                      / G_USEC_PER_SEC;
    g_assert_true (throng_test_process_wait (throng, 60, &status, &out, &err));
    g_test_message ("outage %" G_GINT64_FORMAT " s; stderr:\n%s", outage_s, err);
    g_assert_cmpint (status, ==, 0);
    throng_test_assert_no_glib_noise (err);

    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) summary = throng_test_json_load (json, &error);
    g_assert_no_error (error);

    /* In the summary's warnings: "influxdb: D of N points (R requests) were not stored;
     * the buffer holds 8 points; …" */
    g_autoptr (GRegex) regex = g_regex_new (
        "^influxdb: (\\d+) of (\\d+) points \\((\\d+) requests\\) were not stored; the buffer "
        "holds 8 points",
        0, 0, NULL);
    g_autoptr (GMatchInfo) match = NULL;
    g_assert_true (g_regex_match (regex, influx_warning (summary), 0, &match));
    g_autofree char *dropped_text = g_match_info_fetch (match, 1);
    g_autofree char *requests_text = g_match_info_fetch (match, 3);
    gint64 dropped = g_ascii_strtoll (dropped_text, NULL, 10);
    gint64 dropped_requests = g_ascii_strtoll (requests_text, NULL, 10);
    gint64 total = throng_test_json_int (summary, "total.requests");
    gint64 stored = query_int (fixture, "SELECT sum(requests) FROM throng_step");

    /* Nothing unaccounted for: stored and dropped make the run. */
    g_assert_cmpint (stored + dropped_requests, ==, total);
    /* The outage outgrew the buffer, so something was dropped, but only what it produced:
     * four points a second, less the eight the buffer kept.  The outage as the sender sees
     * it ends at its first retry after the database is back: up to backoff_max (1 s) later. */
    g_assert_cmpint (dropped, >=, 4);
    g_assert_cmpint (dropped, <=, 4 * (outage_s + 1 + 1));
    g_assert_cmpint (dropped_requests, <, total);
    /* Points from before and after the outage are there. */
    g_assert_cmpint (query_int (fixture, "SELECT count(requests) FROM throng_run"), >=, 4);
}

/* A database that refuses the writes (no such database): the points are dropped at once, counted. */
static void
test_refused (Fixture *fixture, gconstpointer data)
{
    if (!start_influxd (fixture))
        return;
    g_autofree char *yaml = plan_yaml (fixture, "2s", 10000);
    char *db = strstr (yaml, "database: throng");
    g_assert_nonnull (db);
    memcpy (db, "database: nosuch", strlen ("database: nosuch"));
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = throng_test_run_summary (fixture->dir, yaml, NULL, 60, 0, &err);

    g_test_message ("%s", err);
    const char *warning = influx_all_lost (summary);
    g_assert_nonnull (strstr (warning, "HTTP 404"));
    g_assert_nonnull (strstr (warning, "database not found"));
}

/*
 * A database that accepts connections and never answers (influxd stopped
 * with SIGSTOP): the run is not slowed, every write times out, and the
 * end of the run waits only its flush_timeout before counting every
 * point as lost.
 */
static void
test_hung (Fixture *fixture, gconstpointer data)
{
    if (!start_influxd (fixture))
        return;
    g_autofree char *yaml = plan_yaml (fixture, "3s", 10000);
    char *flush = strstr (yaml, "flush_timeout: 10s");
    g_assert_nonnull (flush);
    memcpy (flush, "flush_timeout: 2s ", strlen ("flush_timeout: 10s"));
    g_autofree char *with_timeout = g_strconcat (yaml, "      timeout: 1s\n", NULL);
    g_autofree char *err = NULL;

    throng_test_process_signal (fixture->influxd, SIGSTOP);
    gint64 start = g_get_monotonic_time ();
    g_autoptr (JsonNode) summary
        = throng_test_run_summary (fixture->dir, with_timeout, NULL, 60, 0, &err);
    gint64 took_ms = (g_get_monotonic_time () - start) / 1000;
    throng_test_process_signal (fixture->influxd, SIGCONT);

    g_test_message ("took %" G_GINT64_FORMAT " ms; %s", took_ms, err);
    /* The run's 3 s, start-up (longer in a sanitized build), and the 2 s flush: never the
     * writes' own timeouts piling up. */
    gint64 start_up_ms = g_getenv ("THRONG_SANITIZED") != NULL ? 12000 : 4000;
    g_assert_cmpint (took_ms, <, 3000 + 2000 + start_up_ms);
    g_assert_cmpfloat (throng_test_json_double (summary, "duration_s"), <, 3.5);
    influx_all_lost (summary);
}

/* ---- InfluxDB 2.x: the documented write API, not a real server -------------------------
 *
 * Debian ships InfluxDB 1.6 only, so there is no 2.x server to run.  These
 * cases check throng against the contract InfluxDB 2's documentation
 * gives for POST /api/v2/write (docs.influxdata.com, "Write data with
 * the InfluxDB API"), played by an in-process SoupServer: the query's
 * org, bucket and precision; `Authorization: Token …`; a line protocol
 * body whose timestamps are in the precision the query names; 204 on
 * success, 401 for a bad token (dropped, counted in the summary's
 * warning), 503 with Retry-After while the server is unavailable
 * (retried, no sooner than Retry-After).  What a real 2.x server does
 * beyond its documentation is not tested here.
 */

typedef enum {
    V2_ACCEPT,                  /* 204 */
    V2_UNAUTHORIZED,            /* 401, as InfluxDB 2 answers a bad token */
    V2_UNAVAILABLE_TWICE,       /* 503 with Retry-After: 1 for the first two writes, then 204 */
} V2Mode;

typedef struct {
    GMutex lock;
    V2Mode mode;
    guint writes;               /* POSTs received */
    GPtrArray *problems;        /* char*: what a write got wrong */
    GString *accepted;          /* the bodies answered 204 */
    GArray *times;              /* gint64: when each write arrived (monotonic) */
} V2Server;

static void
v2_problem (V2Server *v2, char *text)
{
    g_ptr_array_add (v2->problems, text);
}

static void
v2_handle (SoupServer *soup, SoupServerMessage *message, const char *path, GHashTable *query,
           gpointer data)
{
    V2Server *v2 = data;
    SoupMessageHeaders *request = soup_server_message_get_request_headers (message);
    SoupMessageHeaders *response = soup_server_message_get_response_headers (message);
    SoupMessageBody *body = soup_server_message_get_request_body (message);
    const char *type = soup_message_headers_get_one (request, "Content-Type");
    const char *authorization = soup_message_headers_get_one (request, "Authorization");
    gint64 now = g_get_monotonic_time ();
    G_GNUC_UNUSED g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&v2->lock);

    v2->writes++;
    g_array_append_val (v2->times, now);
    if (strcmp (soup_server_message_get_method (message), "POST") != 0
        || strcmp (path, "/api/v2/write") != 0) {
        v2_problem (v2, g_strdup_printf ("%s %s", soup_server_message_get_method (message), path));
        soup_server_message_set_status (message, 404, NULL);
        return;
    }
    if (query == NULL || g_strcmp0 (g_hash_table_lookup (query, "org"), "acme & co") != 0
        || g_strcmp0 (g_hash_table_lookup (query, "bucket"), "load/tests") != 0
        || g_strcmp0 (g_hash_table_lookup (query, "precision"), "us") != 0)
        v2_problem (v2, g_strdup_printf ("query %s", g_uri_get_query (soup_server_message_get_uri (message))));
    if (type == NULL || !g_str_has_prefix (type, "text/plain"))
        v2_problem (v2, g_strdup_printf ("Content-Type %s", type != NULL ? type : "(none)"));

    if (v2->mode == V2_UNAUTHORIZED || g_strcmp0 (authorization, "Token s3cr3t") != 0) {
        soup_server_message_set_status (message, 401, NULL);
        soup_server_message_set_response (message, "application/json", SOUP_MEMORY_STATIC,
                                          "{\"code\":\"unauthorized\",\"message\":\"unauthorized access\"}",
                                          strlen ("{\"code\":\"unauthorized\",\"message\":\"unauthorized access\"}"));
        return;
    }
    if (v2->mode == V2_UNAVAILABLE_TWICE && v2->writes <= 2) {
        soup_server_message_set_status (message, 503, NULL);
        soup_message_headers_replace (response, "Retry-After", "1");
        return;
    }
    g_string_append_len (v2->accepted, body->data, body->length);
    if (body->length > 0 && body->data[body->length - 1] != '\n')
        g_string_append_c (v2->accepted, '\n');
    soup_server_message_set_status (message, 204, NULL);
}

/*
 * The parts of a line protocol line split at unescaped spaces:
 * measurement and tags, fields, timestamp.  NULL when there are not three.
 */
static GStrv
line_parts (const char *line)
{
    g_autoptr (GPtrArray) parts = g_ptr_array_new ();
    g_autoptr (GString) part = g_string_new (NULL);

    for (const char *p = line; *p != '\0'; p++) {
        if (*p == '\\' && p[1] != '\0') {
            g_string_append_c (part, *p++);
            g_string_append_c (part, *p);
        } else if (*p == ' ') {
            g_ptr_array_add (parts, g_strdup (part->str));
            g_string_truncate (part, 0);
        } else {
            g_string_append_c (part, *p);
        }
    }
    g_ptr_array_add (parts, g_strdup (part->str));
    if (parts->len != 3) {
        for (guint i = 0; i < parts->len; i++)
            g_free (parts->pdata[i]);
        return NULL;
    }
    g_ptr_array_add (parts, NULL);
    return (GStrv) g_ptr_array_free (g_steal_pointer (&parts), FALSE);
}

/* The integer field @key of the fields part @fields ("a=1i,b=2i"), 0 when absent. */
static gint64
field_int (const char *fields, const char *key)
{
    g_auto (GStrv) pairs = g_strsplit (fields, ",", -1);
    gsize length = strlen (key);

    for (char **pair = pairs; *pair != NULL; pair++)
        if (strncmp (*pair, key, length) == 0 && (*pair)[length] == '=')
            return g_ascii_strtoll (*pair + length + 1, NULL, 10);
    return 0;
}

/* The points the server accepted, each as line_parts() splits it (asserting each line parses). */
static GPtrArray *
v2_points (V2Server *v2)
{
    g_auto (GStrv) lines = g_strsplit (v2->accepted->str, "\n", -1);
    GPtrArray *points = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);

    for (char **line = lines; *line != NULL; line++) {
        if (**line == '\0')
            continue;
        GStrv parts = line_parts (*line);
        g_assert_nonnull (parts);
        g_ptr_array_add (points, parts);
    }
    return points;
}

/* Runs the plan with api v2 against the fake server in @mode; the summary. */
static JsonNode *
run_v2 (Fixture *fixture, V2Server *v2, V2Mode mode, const char *duration, char **err)
{
    g_autoptr (ThrongTestSoupServer) server = NULL;

    g_mutex_init (&v2->lock);
    v2->mode = mode;
    v2->problems = g_ptr_array_new_with_free_func (g_free);
    v2->accepted = g_string_new (NULL);
    v2->times = g_array_new (FALSE, FALSE, sizeof (gint64));
    server = throng_test_soup_server_start (NULL, v2_handle, v2);
    g_autoptr (GUri) url = g_uri_parse (throng_test_soup_server_http_url (server), G_URI_FLAGS_NONE,
                                        NULL);
    fixture->port = (guint16) g_uri_get_port (url);

    g_autofree char *plan = plan_yaml (fixture, duration, 10000);
    char *database = strstr (plan, "      database: throng\n");
    g_assert_nonnull (database);
    memcpy (database, "      api: v2         \n", strlen ("      database: throng\n"));
    g_setenv ("THRONG_INFLUXDB_ORG", "acme & co", TRUE);
    g_setenv ("THRONG_INFLUXDB_BUCKET", "load/tests", TRUE);
    g_setenv ("THRONG_INFLUXDB_TOKEN", "s3cr3t", TRUE);
    gint64 wall_before = g_get_real_time ();
    JsonNode *summary = throng_test_run_summary (fixture->dir, plan, NULL, 60, 0, err);
    gint64 wall_after = g_get_real_time ();
    g_unsetenv ("THRONG_INFLUXDB_ORG");
    g_unsetenv ("THRONG_INFLUXDB_BUCKET");
    g_unsetenv ("THRONG_INFLUXDB_TOKEN");

    g_clear_pointer (&server, throng_test_soup_server_stop);
    for (guint i = 0; i < v2->problems->len; i++)
        g_test_message ("write %u: %s", i, (char *) v2->problems->pdata[i]);
    g_assert_cmpuint (v2->problems->len, ==, 0);

    /* precision=us: every timestamp is a time of the run in microseconds. */
    g_autoptr (GPtrArray) points = v2_points (v2);
    for (guint i = 0; i < points->len; i++) {
        gint64 stamp = g_ascii_strtoll (((GStrv) points->pdata[i])[2], NULL, 10);
        g_assert_cmpint (stamp, >=, wall_before);
        g_assert_cmpint (stamp, <=, wall_after);
    }
    return summary;
}

static void
v2_clear (V2Server *v2)
{
    g_ptr_array_unref (v2->problems);
    g_string_free (v2->accepted, TRUE);
    g_array_unref (v2->times);
    g_mutex_clear (&v2->lock);
}

/* The sum of field @key over the accepted throng_step points. */
static gint64
v2_sum (V2Server *v2, const char *key)
{
    g_autoptr (GPtrArray) points = v2_points (v2);
    gint64 sum = 0;

    for (guint i = 0; i < points->len; i++) {
        GStrv parts = points->pdata[i];
        if (g_str_has_prefix (parts[0], "throng_step,"))
            sum += field_int (parts[1], key);
    }
    return sum;
}

/* The sum of integer field @key over the accepted throng_metric points of @metric. */
static gint64
v2_metric_sum (V2Server *v2, const char *metric, const char *key)
{
    g_autoptr (GPtrArray) points = v2_points (v2);
    g_autofree char *tag = g_strdup_printf (",metric=%s,", metric);
    gint64 sum = 0;

    for (guint i = 0; i < points->len; i++) {
        GStrv parts = points->pdata[i];
        if (g_str_has_prefix (parts[0], "throng_metric,") && strstr (parts[0], tag) != NULL)
            sum += field_int (parts[1], key);
    }
    return sum;
}

/* The documented write: org, bucket, precision, token; the counts are the summary's. */
static void
test_v2_contract (Fixture *fixture, gconstpointer data)
{
    V2Server v2 = { 0 };
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = run_v2 (fixture, &v2, V2_ACCEPT, "3s", &err);

    throng_test_assert_no_glib_noise (err);
    g_assert_null (strstr (err, "influxdb"));
    g_assert_cmpuint (v2.writes, >=, 3);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), >, 0);
    g_assert_cmpint (v2_sum (&v2, "requests"), ==, throng_test_json_int (summary, "total.requests"));
    g_assert_cmpint (v2_sum (&v2, "errors_status"), ==,
                     throng_test_json_int (summary, "total.errors_by_class.status"));
    /* the plan's own counter: its points' counts add up to the summary's, one per home page */
    g_assert_cmpint (v2_metric_sum (&v2, "pages", "count"), ==,
                     throng_test_json_int (summary, "metrics.0.count"));
    g_assert_cmpint (throng_test_json_int (summary, "metrics.0.count"), ==,
                     throng_test_json_int (summary, "scenarios.0.steps.0.stats.requests"));
    v2_clear (&v2);
}

/* A bad token: every write answered 401, dropped at once and counted in the summary. */
static void
test_v2_unauthorized (Fixture *fixture, gconstpointer data)
{
    V2Server v2 = { 0 };
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = run_v2 (fixture, &v2, V2_UNAUTHORIZED, "2s", &err);
    const char *warning = influx_all_lost (summary);

    g_assert_nonnull (strstr (warning, "HTTP 401 Unauthorized"));
    g_assert_nonnull (strstr (warning, "unauthorized access"));
    /* Not retried: one write per batch, a batch a second and the remainder. */
    g_assert_cmpuint (v2.writes, <=, 5);
    g_assert_cmpuint (v2.accepted->len, ==, 0);
    v2_clear (&v2);
}

/* 503 with Retry-After: 1, twice: retried, no sooner than asked, then everything stored. */
static void
test_v2_unavailable (Fixture *fixture, gconstpointer data)
{
    V2Server v2 = { 0 };
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = run_v2 (fixture, &v2, V2_UNAVAILABLE_TWICE, "4s", &err);

    g_test_message ("%s", err);
    g_assert_null (strstr (err, "influxdb"));
    g_assert_cmpuint (v2.times->len, >=, 3);
    for (guint i = 1; i < 3; i++) {
        gint64 gap = g_array_index (v2.times, gint64, i) - g_array_index (v2.times, gint64, i - 1);
        g_test_message ("retry %u after %" G_GINT64_FORMAT " ms", i, gap / 1000);
        g_assert_cmpint (gap, >=, G_USEC_PER_SEC - 50 * 1000);
    }
    g_assert_cmpint (v2_sum (&v2, "requests"), ==, throng_test_json_int (summary, "total.requests"));
    v2_clear (&v2);
}

/* Options are checked at plan load, located, without a database. */
typedef struct {
    const char *options;
    const char *message;
} BadOptions;

static const BadOptions bad_options[] = {
    { "{ url: \"ftp://127.0.0.1:8086\" }", "is not an http:// or https:// URL" },
    { "{ tags: { step: x } }", "tags: 'step' is a tag of throng's own" },
    { "{ tags: [ a, b ] }", "tags: expected a map" },
    { "{ api: v3 }", "v3" },
    { "{ buffer: 0 }", "buffer" },
};

static void
test_options_invalid (Fixture *fixture, gconstpointer data)
{
    for (guint i = 0; i < G_N_ELEMENTS (bad_options); i++) {
        g_autofree char *yaml = g_strdup_printf ("scenarios:\n"
                                                 "  - name: s\n"
                                                 "    users: 1\n"
                                                 "    steps:\n"
                                                 "      - http: { url: \"http://127.0.0.1:1/\" }\n"
                                                 "reporters:\n"
                                                 "  - influxdb: %s\n",
                                                 bad_options[i].options);
        g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;
        int status = throng_test_runv (30, &out, &err, "validate", plan, NULL);

        g_test_message ("%s: %s", bad_options[i].options, err);
        g_assert_cmpint (status, ==, 2);
        g_assert_nonnull (strstr (err, "plan.yaml:7:"));
        g_assert_nonnull (strstr (err, bad_options[i].message));
    }
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add ("/influxdb/stored", Fixture, NULL, fixture_setup, test_stored, fixture_teardown);
    g_test_add ("/influxdb/dashboard", Fixture, NULL, fixture_setup, test_dashboard,
                fixture_teardown);
    g_test_add ("/influxdb/repeated-labels", Fixture, NULL, fixture_setup, test_repeated_labels,
                fixture_teardown);
    g_test_add ("/influxdb/not-sent", Fixture, NULL, fixture_setup, test_not_sent,
                fixture_teardown);
    g_test_add ("/influxdb/outage", Fixture, NULL, fixture_setup, test_outage, fixture_teardown);
    g_test_add ("/influxdb/refused", Fixture, NULL, fixture_setup, test_refused,
                fixture_teardown);
    g_test_add ("/influxdb/options-invalid", Fixture, NULL, fixture_setup, test_options_invalid,
                fixture_teardown);
    g_test_add ("/influxdb/hung", Fixture, NULL, fixture_setup, test_hung, fixture_teardown);
    g_test_add ("/influxdb/v2/contract", Fixture, NULL, fixture_setup, test_v2_contract,
                fixture_teardown);
    g_test_add ("/influxdb/v2/unauthorized", Fixture, NULL, fixture_setup, test_v2_unauthorized,
                fixture_teardown);
    g_test_add ("/influxdb/v2/unavailable", Fixture, NULL, fixture_setup, test_v2_unavailable,
                fixture_teardown);
    return g_test_run ();
}
