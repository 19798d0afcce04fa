/* SPDX-License-Identifier: MIT */
/*
 * The remote_write reporter against a real Prometheus started with its
 * remote-write receiver (`--web.enable-remote-write-receiver`) on a
 * loopback port and nothing to scrape: after a run, PromQL over the HTTP
 * API finds the JSON summary's counts (requests per step, two steps that
 * share a label told apart by step_id, errors, bytes, iterations, checks,
 * a plan metric); histogram_quantile() over the pushed buckets lands near
 * throng's own p50/p95/p99 (the distances are printed: docs/reporters.md
 * quotes them); every panel of deploy/grafana/throng-prometheus.json
 * returns data.  An endpoint that is down costs the run nothing but a
 * warning that says the totals were not written.  Also: the wire format
 * read back (snappy, protobuf, sorted labels).  Skipped with a message
 * (failed under CI) when Prometheus is not installed.
 */
#include <math.h>
#include <string.h>

#include "http-client.h"
#include "remote-write.h"
#include "test-utils.h"

typedef struct {
    char *dir;
    ThrongTestProcess *prometheus;
    guint16 port;
} Fixture;

static void
fixture_setup (Fixture *fixture, gconstpointer data)
{
    fixture->dir = throng_test_tmpdir_new ();
}

static void
fixture_teardown (Fixture *fixture, gconstpointer data)
{
    throng_test_daemon_stop (&fixture->prometheus, 5000);
    throng_test_tmpdir_free (fixture->dir);
}

/* Starts Prometheus with the remote-write receiver and no scrape targets; FALSE when skipped. */
static gboolean
start_prometheus (Fixture *fixture)
{
    g_autofree char *program = throng_test_require_program ("prometheus");
    if (program == NULL)
        return FALSE;

    g_autofree char *config = throng_test_write_file (fixture->dir, "prometheus.yml",
                                                      "global: { evaluation_interval: 1s }\n");
    g_autofree char *storage = g_build_filename (fixture->dir, "data", NULL);
    g_autofree char *log = g_build_filename (fixture->dir, "prometheus.log", NULL);

    for (guint attempt = 0; attempt < 3; attempt++) {
        fixture->port = throng_test_free_port ();
        g_autofree char *config_arg = g_strdup_printf ("--config.file=%s", config);
        g_autofree char *storage_arg = g_strdup_printf ("--storage.tsdb.path=%s", storage);
        g_autofree char *listen_arg = g_strdup_printf ("--web.listen-address=127.0.0.1:%u",
                                                       fixture->port);
        g_autofree char *ready = g_strdup_printf ("http://127.0.0.1:%u/-/ready", fixture->port);
        ThrongTestDaemon daemon = {
            .name = "prometheus",
            .argv = (const char *const[]) { program, config_arg, storage_arg, listen_arg,
                                            "--web.enable-remote-write-receiver",
                                            "--log.level=warn", NULL },
            .log_path = log,
            .ready_url = ready,
        };

        fixture->prometheus = throng_test_daemon_start (&daemon);
        if (fixture->prometheus != NULL)
            return TRUE;
        if (attempt == 2)
            throng_test_daemon_fail (&daemon);
    }
    return FALSE;
}

/* An instant query's answer (status success asserted). */
static JsonNode *
query (Fixture *fixture, const char *promql)
{
    g_autofree char *escaped = throng_test_http_escape (promql);
    g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/api/v1/query?query=%s",
                                            fixture->port, escaped);
    g_autoptr (GError) error = NULL;
    JsonNode *answer = throng_test_http_get_json (url, &error);

    g_assert_no_error (error);
    if (g_strcmp0 (throng_test_json_string (answer, "status"), "success") != 0)
        g_error ("%s: %s", promql, throng_test_json_string (answer, "error"));
    return answer;
}

/* The value of an instant query that yields one sample; NAN when it yields none. */
static double
query_value (Fixture *fixture, const char *promql)
{
    g_autoptr (JsonNode) answer = query (fixture, promql);

    if (throng_test_json_length (answer, "data.result") == 0)
        return NAN;
    g_assert_cmpuint (throng_test_json_length (answer, "data.result"), ==, 1);
    const char *value = throng_test_json_string (answer, "data.result.0.value.1");
    g_test_message ("%s = %s", promql, value);
    return g_ascii_strtod (value, NULL);
}

/*
 * Two reporters push the same run: `fine` with the default buckets,
 * `coarse` with the prometheus reporter's edges, so the distances of
 * histogram_quantile() from throng's percentiles are side by side.
 */
static const char plan_format[] =
    "name: pushed\n"
    "target: builtin\n"
    "defaults:\n"
    "  http: { base_url: \"${builtin.http}\", transport: soup }\n"
    "metrics:\n"
    "  orders: { type: counter }\n"
    "scenarios:\n"
    "  - name: shop\n"
    "    users: 4\n"
    "    duration: 5s\n"
    "    think_time: 1ms\n"
    "    steps:\n"
    "      - name: page\n"
    "        http:\n"
    "          url: /\n"
    "          check: [ { status: 200 }, { body_contains: no-such-text } ]\n"
    "        record: { orders: 2 }\n"
    "      - name: page\n"
    "        http: { url: /status/404 }\n"
    "      - name: busy\n"
    "        http: { url: /status/503 }\n"
    "      - name: wait\n"
    "        http: { url: \"/delay/${random.int(1, 30)}\" }\n"
    "reporters:\n"
    "  - remote_write:\n"
    "      url: http://127.0.0.1:%u/api/v1/write\n"
    "      run_id: %s\n"
    "      labels: { env: test }\n"
    "  - remote_write:\n"
    "      url: http://127.0.0.1:%u/api/v1/write\n"
    "      run_id: %s-coarse\n"
    "      buckets: [100us, 250us, 500us, 1ms, 2.5ms, 5ms, 10ms, 25ms, 50ms, 100ms, 250ms,\n"
    "                500ms, 1s, 2.5s, 5s, 10s, 30s, 60s]\n";

/* Runs the plan above against the fixture's Prometheus; its JSON summary. */
static JsonNode *
run_pushed (Fixture *fixture, const char *run_id)
{
    g_autofree char *yaml = g_strdup_printf (plan_format, fixture->port, run_id, fixture->port,
                                             run_id);
    g_autofree char *err = NULL;
    JsonNode *summary = throng_test_run_summary (fixture->dir, yaml, NULL, 60, 0, &err);

    throng_test_assert_no_glib_noise (err);
    throng_test_summary_print_warnings (summary, "pushed");
    g_assert_null (throng_test_summary_find_warning (summary, "remote_write"));
    return summary;
}

static double
json_metric_sum (JsonNode *summary, const char *name)
{
    for (guint i = 0; i < throng_test_json_length (summary, "metrics"); i++) {
        g_autofree char *name_path = g_strdup_printf ("metrics.%u.name", i);
        g_autofree char *sum_path = g_strdup_printf ("metrics.%u.sum", i);
        if (g_strcmp0 (throng_test_json_string (summary, name_path), name) == 0)
            return throng_test_json_double (summary, sum_path);
    }
    g_assert_not_reached ();
}

static void
test_counts (Fixture *fixture, gconstpointer data)
{
    if (!start_prometheus (fixture))
        return;
    g_autofree char *run_id = g_strdup_printf ("counts-%08x", g_random_int ());
    g_autoptr (JsonNode) summary = run_pushed (fixture, run_id);
    g_autofree char *sel = g_strdup_printf ("run_id=\"%s\"", run_id);
    struct {
        const char *promql;     /* SEL: the run's selector */
        const char *path;       /* its value in the JSON summary */
    } totals[] = {
        { "sum(throng_requests_total{SEL})", "total.requests" },
        { "sum(throng_request_duration_seconds_count{SEL})", "total.requests" },
        { "sum(throng_errors_total{SEL,class=\"status\"})", "total.errors_by_class.status" },
        { "sum(throng_sent_bytes_total{SEL})", "total.bytes_sent" },
        { "sum(throng_received_bytes_total{SEL})", "total.bytes_received" },
        { "sum(throng_iterations_total{SEL})", "scenarios.0.iterations" },
        { "sum(throng_checks_total{SEL,result=\"pass\"})", "scenarios.0.checks.passes" },
        { "sum(throng_checks_total{SEL,result=\"fail\"})", "scenarios.0.checks.fails" },
        { "sum(throng_requests_total{SEL,status_class=\"4xx\"})",
          "scenarios.0.steps.1.stats.requests" },
        { "sum(throng_requests_total{SEL,status_class=\"5xx\"})",
          "scenarios.0.steps.2.stats.requests" },
    };

    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), >, 0);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.checks.fails"), >, 0);
    for (guint i = 0; i < G_N_ELEMENTS (totals); i++) {
        g_autoptr (GString) promql = g_string_new (totals[i].promql);
        g_string_replace (promql, "SEL", sel, 0);
        g_assert_cmpfloat (query_value (fixture, promql->str), ==,
                           (double) throng_test_json_int (summary, totals[i].path));
    }
    g_autofree char *orders = g_strdup_printf ("throng_custom_counter_total{%s,metric=\"orders\"}",
                                               sel);
    g_assert_cmpfloat (query_value (fixture, orders), ==, json_metric_sum (summary, "orders"));
    g_assert_cmpfloat (json_metric_sum (summary, "orders"), ==,
                       2.0 * (double) throng_test_json_int (summary,
                                                            "scenarios.0.steps.0.stats.requests"));

    /* Per step, by step_id: the two steps labelled "page" stay two series. */
    for (guint step = 0; step < 4; step++) {
        g_autofree char *path = g_strdup_printf ("scenarios.0.steps.%u.stats.requests", step);
        g_autofree char *promql = g_strdup_printf (
            "sum(throng_requests_total{%s,scenario=\"shop\",step_id=\"%u\"})", sel, step);
        g_assert_cmpfloat (query_value (fixture, promql), ==,
                           (double) throng_test_json_int (summary, path));
    }
    g_autofree char *shared = g_strdup_printf (
        "count(count by (step_id) (throng_requests_total{%s,step=\"page\"}))", sel);
    g_assert_cmpfloat (query_value (fixture, shared), ==, 2);
    /* The plan's labels are on every series; the run's own label too. */
    g_autofree char *unlabelled = g_strdup_printf ("count({%s,env!=\"test\"})", sel);
    g_assert_true (isnan (query_value (fixture, unlabelled)));

    /* The same run under its coarse twin: the same counts. */
    g_autofree char *coarse = g_strdup_printf ("sum(throng_requests_total{run_id=\"%s-coarse\"})",
                                               run_id);
    g_assert_cmpfloat (query_value (fixture, coarse), ==,
                       (double) throng_test_json_int (summary, "total.requests"));
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
    double x = *(const double *) a, y = *(const double *) b;

    return (x > y) - (x < y);
}

/* The bucket bounds (µs) pushed for @run_id, ascending, +Inf left out. */
static GArray *
pushed_edges (Fixture *fixture, const char *run_id)
{
    g_autofree char *match
        = g_strdup_printf ("throng_request_duration_seconds_bucket{run_id=\"%s\"}", run_id);
    g_autofree char *escaped = throng_test_http_escape (match);
    g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/api/v1/label/le/values?match[]=%s",
                                            fixture->port, escaped);
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) values = throng_test_http_get_json (url, &error);
    GArray *edges = g_array_new (FALSE, FALSE, sizeof (double));

    g_assert_no_error (error);
    for (guint i = 0; i < throng_test_json_length (values, "data"); i++) {
        g_autofree char *path = g_strdup_printf ("data.%u", i);
        double edge = g_ascii_strtod (throng_test_json_string (values, path), NULL) * 1e6;
        if (isfinite (edge))
            g_array_append_val (edges, edge);
    }
    g_array_sort (edges, (GCompareFunc) compare_doubles);
    return edges;
}

/*
 * Whether @value_us lies in the bucket of @edges_us that holds @estimate_us
 * (either bucket when the estimate is on an edge), give or take throng's
 * own 1/128.
 */
static gboolean
same_bucket (GArray *edges_us, double estimate_us, double value_us)
{
    double low = 0, high = INFINITY;

    for (guint e = 0; e < edges_us->len; e++) {
        double edge = g_array_index (edges_us, double, e);
        if (edge < estimate_us - 0.5)
            low = edge;
        else if (edge > estimate_us + 0.5 && edge < high)
            high = edge;
    }
    return value_us >= low * (1 - 1.0 / 128) && value_us <= high * (1 + 1.0 / 128);
}

/*
 * histogram_quantile() over the pushed buckets against throng's own
 * percentiles: the relative distance, printed for both bucket sets.
 * Prometheus interpolates linearly inside a bucket, so the bound is the
 * bucket: its estimate and throng's value share one.
 */
static void
test_quantiles (Fixture *fixture, gconstpointer data)
{
    if (!start_prometheus (fixture))
        return;
    g_autofree char *run_id = g_strdup_printf ("quantiles-%08x", g_random_int ());
    g_autoptr (JsonNode) summary = run_pushed (fixture, run_id);
    static const struct {
        double q;
        const char *name;
    } quantiles[] = { { 0.5, "p50" }, { 0.95, "p95" }, { 0.99, "p99" } };
    g_autofree char *coarse_id = g_strdup_printf ("%s-coarse", run_id);
    GArray *edges[2] = { pushed_edges (fixture, run_id),
                                    pushed_edges (fixture, coarse_id) };
    GArray *distances[2] = { g_array_new (FALSE, FALSE, sizeof (double)),
                                        g_array_new (FALSE, FALSE, sizeof (double)) };

    g_assert_cmpuint (edges[0]->len, ==, 62);
    g_assert_cmpuint (edges[1]->len, ==, 18);

    for (guint step = 0; step < 4; step++) {
        for (guint i = 0; i < G_N_ELEMENTS (quantiles); i++) {
            g_autofree char *path = g_strdup_printf ("scenarios.0.steps.%u.stats.latency_us.%s",
                                                     step, quantiles[i].name);
            double throng_us = (double) throng_test_json_int (summary, path);
            double distance[2];

            for (guint coarse = 0; coarse < 2; coarse++) {
                g_autofree char *promql = g_strdup_printf (
                    "histogram_quantile(%g, sum by (le) (throng_request_duration_seconds_bucket"
                    "{run_id=\"%s%s\",step_id=\"%u\"}))",
                    quantiles[i].q, run_id, coarse ? "-coarse" : "", step);
                double prometheus_us = query_value (fixture, promql) * 1e6;
                distance[coarse] = (prometheus_us - throng_us) / throng_us;
                g_assert_true (same_bucket (edges[coarse], prometheus_us, throng_us));
                double magnitude = fabs (distance[coarse]);
                g_array_append_val (distances[coarse], magnitude);
            }
            g_test_message ("step %u %s: throng %.0f us; histogram_quantile off by %+.1f%% "
                            "(default buckets), %+.1f%% (the scrape's)",
                            step, quantiles[i].name, throng_us, 100 * distance[0],
                            100 * distance[1]);
        }
    }
    for (guint coarse = 0; coarse < 2; coarse++) {
        g_array_sort (distances[coarse], (GCompareFunc) compare_doubles);
        g_test_message ("%s buckets: |distance| median %.1f%%, max %.1f%% over %u quantiles",
                        coarse ? "the scrape's" : "default",
                        100 * g_array_index (distances[coarse], double, distances[coarse]->len / 2),
                        100 * g_array_index (distances[coarse], double, distances[coarse]->len - 1),
                        distances[coarse]->len);
        g_array_unref (distances[coarse]);
        g_array_unref (edges[coarse]);
    }
}

/* Substitutes the dashboard's variables in @expr as Grafana would for one run. */
static char *
substitute (const char *expr, const char *run_id)
{
    static const char *const fixed[][2] = {
        { "$__rate_interval", "1m" }, { "$__interval", "15s" }, { "$__range", "5m" },
        { "$scenario", "shop" },
    };
    g_autoptr (GString) out = g_string_new (expr);

    g_string_replace (out, "${run_id}", run_id, 0);
    g_string_replace (out, "$run_id", run_id, 0);
    for (guint i = 0; i < G_N_ELEMENTS (fixed); i++)
        g_string_replace (out, fixed[i][0], fixed[i][1], 0);
    g_assert_null (strchr (out->str, '$'));
    return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Adds every panel's queries (rows' panels included) to @exprs: "title\nexpr". */
static void
collect_exprs (JsonArray *panels, GPtrArray *exprs)
{
    for (guint p = 0; p < json_array_get_length (panels); p++) {
        JsonObject *panel = json_array_get_object_element (panels, p);

        if (json_object_has_member (panel, "panels"))
            collect_exprs (json_object_get_array_member (panel, "panels"), exprs);
        if (!json_object_has_member (panel, "targets"))
            continue;
        JsonArray *targets = json_object_get_array_member (panel, "targets");
        g_assert_cmpuint (json_array_get_length (targets), >, 0);
        for (guint t = 0; t < json_array_get_length (targets); t++) {
            JsonObject *target = json_array_get_object_element (targets, t);
            g_ptr_array_add (exprs, g_strdup_printf (
                                        "%s\n%s", json_object_get_string_member (panel, "title"),
                                        json_object_get_string_member (target, "expr")));
        }
    }
}

/*
 * Every panel of the shipped dashboard returns data for a run, and its
 * run_id variable lists the run.
 */
static void
test_dashboard (Fixture *fixture, gconstpointer data)
{
    if (!start_prometheus (fixture))
        return;
    g_autofree char *run_id = g_strdup_printf ("dashboard-%08x", g_random_int ());
    g_autoptr (JsonNode) summary = run_pushed (fixture, run_id);
    g_autofree char *path = throng_test_source_path ("deploy/grafana/throng-prometheus.json");
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) dashboard = throng_test_json_load (path, &error);
    g_autoptr (GPtrArray) exprs = g_ptr_array_new_with_free_func (g_free);

    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), >, 0);
    collect_exprs (json_object_get_array_member (json_node_get_object (dashboard), "panels"),
                   exprs);
    g_assert_cmpuint (exprs->len, >=, 8);
    for (guint i = 0; i < exprs->len; i++) {
        g_auto (GStrv) parts = g_strsplit (g_ptr_array_index (exprs, i), "\n", 2);
        g_autofree char *promql = substitute (parts[1], run_id);
        g_autoptr (JsonNode) answer = query (fixture, promql);
        guint n = throng_test_json_length (answer, "data.result");

        guint numbers = 0;

        for (guint r = 0; r < n; r++) {
            g_autofree char *value_path = g_strdup_printf ("data.result.%u.value.1", r);
            numbers += !isnan (g_ascii_strtod (throng_test_json_string (answer, value_path), NULL));
        }
        g_test_message ("panel '%s': %u series (%u numbers) from %s", parts[0], n, numbers, promql);
        if (numbers == 0)
            g_error ("panel '%s' returns no data: %s", parts[0], promql);
    }

    /* The run_id variable's query, label_values(throng_requests_total, run_id), lists the run. */
    g_autofree char *url = g_strdup_printf (
        "http://127.0.0.1:%u/api/v1/label/run_id/values?match[]=throng_requests_total",
        fixture->port);
    g_autoptr (JsonNode) values = throng_test_http_get_json (url, &error);
    g_assert_no_error (error);
    gboolean listed = FALSE;
    for (guint i = 0; i < throng_test_json_length (values, "data"); i++) {
        g_autofree char *value_path = g_strdup_printf ("data.%u", i);
        listed |= g_strcmp0 (throng_test_json_string (values, value_path), run_id) == 0;
    }
    g_assert_true (listed);
}

/*
 * Nothing listens at the endpoint: the run ends on time with its exit
 * status, and a warning says how much was lost and that the totals were
 * not written.
 */
static void
test_endpoint_down (Fixture *fixture, gconstpointer data)
{
    guint16 port = throng_test_free_port ();
    g_autofree char *yaml = g_strdup_printf (
        "name: unheard\n"
        "target: builtin\n"
        "defaults:\n"
        "  http: { base_url: \"${builtin.http}\", transport: soup }\n"
        "scenarios:\n"
        "  - name: s\n"
        "    users: 1\n"
        "    duration: 2s\n"
        "    steps: [ { http: { url: / } } ]\n"
        "reporters:\n"
        "  - remote_write: { url: \"http://127.0.0.1:%u/api/v1/write\", flush_timeout: 1s }\n",
        port);
    g_autofree char *err = NULL;
    gint64 before = g_get_monotonic_time ();
    g_autoptr (JsonNode) summary = throng_test_run_summary (fixture->dir, yaml, NULL, 60, 0, &err);
    gint64 took_ms = (g_get_monotonic_time () - before) / 1000;

    throng_test_assert_no_glib_noise (err);
    g_test_message ("the run took %" G_GINT64_FORMAT " ms", took_ms);
    g_assert_cmpint (took_ms, <, 2000 + 1000 + 5000);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), >, 0);
    const char *warning = throng_test_summary_find_warning (summary, "remote_write:");
    g_assert_nonnull (warning);
    g_test_message ("%s", warning);
    g_assert_nonnull (strstr (warning, "the final totals were NOT written"));
}

/* Options a plan gets wrong: refused at load, located, with what to write instead. */
static void
test_options (ThrongTestTmpdir *fixture, gconstpointer data)
{
    static const struct {
        const char *options;
        const char *message;
    } cases[] = {
        { "url: \"ftp://x/\"", "plan.yaml:9:26: url: 'ftp://x/' is not an http:// or https:// "
                               "URL such as http://127.0.0.1:9090/api/v1/write" },
        { "buckets: [5ms, 5ms]", "plan.yaml:9:36: buckets: each bound must be positive and more "
                                 "than 1% above the one before" },
        { "buckets: 5ms", "plan.yaml:9:30: buckets: expected a list of 1 to 200 durations such "
                          "as [1ms, 5ms, 25ms, 100ms]" },
        { "labels: { \"bad-name\": x }", "plan.yaml:9:31: labels: 'bad-name' is not a "
                                        "Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)" },
        { "labels: { run_id: x }", "plan.yaml:9:31: labels: 'run_id' is a label of throng's own" },
        { "run_id: \"\"", "plan.yaml:9:29: run_id: Prometheus drops a label with an empty value" },
        { "labels: [a]", "plan.yaml:9:29: labels: expected a map such as '{ env: staging }'" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *yaml = g_strdup_printf (
            "name: p\n"
            "target: builtin\n"
            "scenarios:\n"
            "  - name: s\n"
            "    users: 1\n"
            "    duration: 1s\n"
            "    steps: [ { http: { url: \"${builtin.http}/\" } } ]\n"
            "reporters:\n"
            "  - remote_write: { %s }\n",
            cases[i].options);
        g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;
        int status = throng_test_runv (30, &out, &err, "validate", plan, NULL);
        /* The messages name the plan as the user gave it: here, its whole path. */
        g_autofree char *expected
            = g_strdup_printf ("%s%s", plan, cases[i].message + strlen ("plan.yaml"));

        g_strstrip (err);
        g_test_message ("%s -> %s", cases[i].options, err);
        g_assert_cmpint (status, ==, 2);
        g_assert_cmpstr (err, ==, expected);
    }
}

/* The wire format read back: snappy, a WriteRequest, the run's labels added, labels sorted. */
static void
test_encode (void)
{
    const char page[] = "# HELP throng_x_total A counter.\n"
                        "# TYPE throng_x_total counter\n"
                        "throng_x_total{scenario=\"a \\\"b\\\"\",step=\"c\\\\d\\ne\","
                        "step_id=\"0\"} 42\n"
                        "throng_cpu_share 0.25\n"
                        "throng_y_bucket{le=\"+Inf\",run_id=\"page's\"} 7\n";
    const char *const labels[] = { "run_id", "r1", "env", "test", NULL };
    guint n_series = 0;
    g_autoptr (GError) error = NULL;
    g_autoptr (GBytes) body = remote_write_encode (page, strlen (page), labels, 1700000000123,
                                                   &n_series, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (n_series, ==, 3);
    g_autofree char *text = remote_write_decode (body, &error);
    g_assert_no_error (error);
    g_test_message ("%s", text);
    g_assert_cmpstr (text, ==,
                     "{__name__=\"throng_x_total\",env=\"test\",run_id=\"r1\",scenario=\"a \"b\"\","
                     "step=\"c\\d\ne\",step_id=\"0\"} 42 1700000000123\n"
                     "{__name__=\"throng_cpu_share\",env=\"test\",run_id=\"r1\"} 0.25 "
                     "1700000000123\n"
                     "{__name__=\"throng_y_bucket\",env=\"test\",le=\"+Inf\",run_id=\"r1\"} 7 "
                     "1700000000123\n");

    /* A page that does not parse is an error, not a guess. */
    g_autoptr (GBytes) none = remote_write_encode ("x{a=\"1} 2\n", 10, labels, 0, &n_series,
                                                   &error);
    g_assert_null (none);
    g_assert_nonnull (error);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/remote-write/encode", test_encode);
    g_test_add ("/remote-write/options", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_options, throng_test_tmpdir_teardown);
    g_test_add ("/remote-write/counts", Fixture, NULL, fixture_setup, test_counts,
                fixture_teardown);
    g_test_add ("/remote-write/quantiles", Fixture, NULL, fixture_setup, test_quantiles,
                fixture_teardown);
    g_test_add ("/remote-write/dashboard", Fixture, NULL, fixture_setup, test_dashboard,
                fixture_teardown);
    g_test_add ("/remote-write/endpoint-down", Fixture, NULL, fixture_setup, test_endpoint_down,
                fixture_teardown);
    return g_test_run ();
}
