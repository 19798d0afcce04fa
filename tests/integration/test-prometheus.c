/* SPDX-License-Identifier: MIT */
/*
 * The prometheus reporter against a real Prometheus: the test starts
 * Prometheus on a loopback port with its own storage and a 1 s scrape
 * interval, runs throng with the reporter, and asks Prometheus's HTTP API
 * what it scraped: the request counters equal throng's JSON summary (per
 * status_class too: 200s, 404s, 503s and timeouts from the builtin
 * target), and
 * histogram_quantile(0.99, …) over the buckets falls in the bucket that
 * holds throng's own p99.  Skipped with a message (failed under CI) when
 * Prometheus is not installed.  Also: the `_bucket` counts are exact at
 * the edges the reporter uses, and a taken port stops the run before it
 * starts.
 */
#include <math.h>
#include <string.h>

#include "http-client.h"
#include "metrics.h"
#include "prometheus.h"
#include "test-utils.h"

typedef struct {
    char *dir;
    ThrongTestProcess *prometheus;
    guint16 port;               /* Prometheus's */
    guint16 target_port;        /* throng's /metrics */
    /*
     * When set, queries are evaluated at this time (seconds since the
     * epoch): once throng has exited, Prometheus's next failed scrape marks
     * its series stale, and a query at "now" finds nothing.
     */
    double at;
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

/* Starts Prometheus scraping 127.0.0.1:@target_port every second; FALSE when skipped. */
static gboolean
start_prometheus (Fixture *fixture)
{
    g_autofree char *program = throng_test_require_program ("prometheus");
    if (program == NULL)
        return FALSE;

    fixture->target_port = throng_test_free_port ();
    g_autofree char *config_text = g_strdup_printf (
        "global: { scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s }\n"
        "scrape_configs:\n"
        "  - job_name: throng\n"
        "    static_configs: [ { targets: [ \"127.0.0.1:%u\" ] } ]\n",
        fixture->target_port);
    g_autofree char *config = throng_test_write_file (fixture->dir, "prometheus.yml", config_text);
    g_autofree char *storage = g_build_filename (fixture->dir, "data", NULL);
    g_autofree char *log = g_build_filename (fixture->dir, "prometheus.log", NULL);

    /* A port taken between the check and the bind: try another. */
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

/* The value of an instant query that yields one sample; NAN when it yields none. */
static double
query_value (Fixture *fixture, const char *promql)
{
    g_autofree char *escaped = throng_test_http_escape (promql);
    g_autofree char *url = fixture->at > 0
                               ? g_strdup_printf ("http://127.0.0.1:%u/api/v1/query?query=%s"
                                                  "&time=%.3f",
                                                  fixture->port, escaped, fixture->at)
                               : g_strdup_printf ("http://127.0.0.1:%u/api/v1/query?query=%s",
                                                  fixture->port, escaped);
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) answer = throng_test_http_get_json (url, &error);

    g_assert_no_error (error);
    g_assert_cmpstr (throng_test_json_string (answer, "status"), ==, "success");
    if (throng_test_json_length (answer, "data.result") == 0)
        return NAN;
    g_assert_cmpuint (throng_test_json_length (answer, "data.result"), ==, 1);
    const char *value = throng_test_json_string (answer, "data.result.0.value.1");
    g_test_message ("%s = %s", promql, value);
    return g_ascii_strtod (value, NULL);
}

/* Evaluates queries at the instant Prometheus has stored the final figures. */
static void
wait_finished (Fixture *fixture)
{
    /* A scrape or two; the bound is for a sanitized run on a busy machine. */
    gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

    for (;;) {
        fixture->at = (double) g_get_real_time () / G_USEC_PER_SEC;
        if (query_value (fixture, "max(throng_run_finished)") == 1.0)
            return;
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
        g_usleep (200 * 1000);
    }
}

static const char plan_format[] =
    "name: scraped\n"
    "target: builtin\n"
    "defaults:\n"
    "  http: { base_url: \"${builtin.http}\", transport: soup }\n"
    "scenarios:\n"
    "  - name: browse\n"
    "    users: 2\n"
    "    duration: 4s\n"
    "    think_time: 2ms\n"
    "    steps:\n"
    "      - name: home\n"
    "        http: { url: / }\n"
    "      - name: \"missing \\\"page\\\"\"\n"
    "        http: { url: /status/404 }\n"
    "      - name: busy\n"
    "        http: { url: /status/503 }\n"
    "      - name: slow\n"
    "        http: { url: /delay/2000, timeout: 100ms }\n"
    "reporters:\n"
    "  - prometheus: { listen: \"127.0.0.1:%u\", linger: 20s }\n";

static void
test_scraped (Fixture *fixture, gconstpointer data)
{
    if (!start_prometheus (fixture))
        return;
    g_autofree char *yaml = g_strdup_printf (plan_format, fixture->target_port);
    g_autofree char *err = NULL;
    gint64 before = g_get_monotonic_time ();
    g_autoptr (JsonNode) summary = throng_test_run_summary (fixture->dir, yaml, NULL, 60, 0, &err);
    gint64 lingered_ms = (g_get_monotonic_time () - before) / 1000;

    throng_test_assert_no_glib_noise (err);
    /* The linger ended at the first scrape of the final figures, well before its 20 s. */
    g_test_message ("throng ran %" G_GINT64_FORMAT " ms", lingered_ms);
    g_assert_cmpint (lingered_ms, <, 15000);

    /* Prometheus has the final figures once it has stored throng_run_finished 1;
     * every query from here on is evaluated at that instant. */
    wait_finished (fixture);

    g_assert_cmpfloat (query_value (fixture, "sum(throng_requests_total)"), ==,
                       (double) throng_test_json_int (summary, "total.requests"));
    g_assert_cmpfloat (query_value (fixture, "sum(throng_errors_total{class=\"status\"})"), ==,
                       (double) throng_test_json_int (summary, "total.errors_by_class.status"));
    /* status_class: the status's class, or the error class of a step without a status. */
    g_assert_cmpfloat (query_value (fixture, "sum(throng_requests_total{status_class=\"2xx\"})"),
                       ==, (double) (throng_test_json_int (summary, "total.requests")
                                     - throng_test_json_int (summary, "total.errors")));
    g_assert_cmpfloat (
        query_value (fixture, "sum(throng_requests_total{step=\"busy\",status_class=\"5xx\"})"), ==,
        (double) throng_test_json_int (summary, "scenarios.0.steps.2.stats.errors_by_class.status"));
    g_assert_cmpfloat (query_value (fixture, "sum(throng_requests_total{status_class=\"4xx\"})"),
                       ==, (double) throng_test_json_int (
                               summary, "scenarios.0.steps.1.stats.errors_by_class.status"));
    g_assert_cmpfloat (
        query_value (fixture, "sum(throng_requests_total{step=\"slow\",status_class=\"timeout\"})"),
        ==, (double) throng_test_json_int (summary, "total.errors_by_class.timeout"));
    g_assert_cmpfloat (
        (double) throng_test_json_int (summary, "scenarios.0.steps.3.stats.requests"), ==,
        (double) throng_test_json_int (summary, "total.errors_by_class.timeout"));
    g_assert_cmpint (throng_test_json_int (summary, "total.errors_by_class.timeout"), >, 0);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.steps.2.stats.requests"), >, 0);
    g_assert_true (isnan (query_value (
        fixture, "count(throng_requests_total{status_class!~\"2xx|4xx|5xx|timeout\"})")));
    g_assert_cmpfloat (query_value (fixture, "sum(throng_iterations_total)"), ==,
                       (double) throng_test_json_int (summary, "scenarios.0.iterations"));

    for (guint step = 0; step < 4; step++) {
        g_autofree char *path = g_strdup_printf ("scenarios.0.steps.%u", step);
        g_autofree char *label_path = g_strdup_printf ("%s.label", path);
        g_autofree char *requests_path = g_strdup_printf ("%s.stats.requests", path);
        g_autofree char *p99_path = g_strdup_printf ("%s.stats.latency_us.p99", path);
        const char *label = throng_test_json_string (summary, label_path);
        g_autoptr (GString) matcher = g_string_new ("scenario=\"browse\",step=\"");

        for (const char *p = label; *p != '\0'; p++) {
            if (*p == '"' || *p == '\\')
                g_string_append_c (matcher, '\\');
            g_string_append_c (matcher, *p);
        }
        g_string_append_c (matcher, '"');

        g_autofree char *requests = g_strdup_printf ("sum(throng_requests_total{%s})", matcher->str);
        g_autofree char *count = g_strdup_printf ("throng_request_duration_seconds_count{%s}",
                                                  matcher->str);
        g_assert_cmpfloat (query_value (fixture, requests), ==,
                           (double) throng_test_json_int (summary, requests_path));
        g_assert_cmpfloat (query_value (fixture, count), ==,
                           (double) throng_test_json_int (summary, requests_path));

        /* Prometheus interpolates inside a bucket: its p99 and throng's share a bucket. */
        g_autofree char *quantile = g_strdup_printf (
            "histogram_quantile(0.99, throng_request_duration_seconds_bucket{%s})", matcher->str);
        double q_us = query_value (fixture, quantile) * 1e6;
        double p99 = (double) throng_test_json_int (summary, p99_path);
        double low = 0, high = INFINITY;

        for (guint e = 0; e < prometheus_n_edges; e++) {
            double edge = (double) prometheus_edges_us[e];

            if (edge <= q_us + 0.5)
                low = edge;
            if (edge >= q_us - 0.5 && edge < high)
                high = edge;
        }
        /* q exactly on an edge: the bucket below or above it. */
        if (low == high) {
            low = 0;
            high = INFINITY;
            for (guint e = 0; e < prometheus_n_edges; e++) {
                double edge = (double) prometheus_edges_us[e];

                if (edge < q_us - 0.5)
                    low = edge;
                if (edge > q_us + 0.5 && edge < high)
                    high = edge;
            }
        }
        g_test_message ("%s: prometheus p99 %.0f µs in [%.0f, %.0f], throng p99 %.0f µs", label,
                        q_us, low, high, p99);
        /* throng's p99 is its bucket's midpoint, within 1/128 of the true value. */
        g_assert_cmpfloat (p99, >=, low * (1 - 1.0 / 128));
        g_assert_cmpfloat (p99, <=, high * (1 + 1.0 / 128));
    }
}

/*
 * Two steps of a scenario with one label (a HAR import has them): without
 * the step_id label their series had the same labels, and Prometheus kept
 * one of them, short of the summary (issue 33).  Each step's series is
 * found by its step_id.
 */
static void
test_repeated_labels (Fixture *fixture, gconstpointer data)
{
    if (!start_prometheus (fixture))
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
        "  - prometheus: { listen: \"127.0.0.1:%u\", linger: 20s }\n",
        fixture->target_port);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = throng_test_run_summary (fixture->dir, yaml, NULL, 60, 0, &err);

    throng_test_assert_no_glib_noise (err);
    wait_finished (fixture);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.steps.2.stats.requests"), >, 0);
    g_assert_cmpfloat (query_value (fixture, "sum(throng_requests_total)"), ==,
                       (double) throng_test_json_int (summary, "total.requests"));
    g_assert_cmpfloat (query_value (fixture, "sum(throng_request_duration_seconds_count)"), ==,
                       (double) throng_test_json_int (summary, "total.requests"));
    g_assert_cmpfloat (query_value (fixture, "count(throng_sent_bytes_total)"), ==, 3.0);
    for (guint i = 0; i < 3; i++) {
        g_autofree char *query = g_strdup_printf (
            "sum(throng_requests_total{scenario=\"browse\",step_id=\"%u\"})", i);
        g_autofree char *path = g_strdup_printf ("scenarios.0.steps.%u.stats.requests", i);

        g_assert_cmpfloat (query_value (fixture, query), ==,
                           (double) throng_test_json_int (summary, path));
    }
}

/*
 * The `_bucket` counts are exact: values recorded on both sides of every
 * edge (and on it) are counted as a scan of the raw values counts them.
 */
static void
test_buckets_exact (void)
{
    g_autoptr (ThrongHistogram) histogram = throng_histogram_new ();
    g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (gint64));
    g_autoptr (GRand) rand = g_rand_new_with_seed (18);

    for (guint e = 0; e < prometheus_n_edges; e++) {
        gint64 edge = prometheus_edges_us[e];
        gint64 near[] = { edge - 2, edge - 1, edge, edge + 1 };

        for (guint i = 0; i < G_N_ELEMENTS (near); i++)
            g_array_append_val (values, near[i]);
    }
    for (guint i = 0; i < 20000; i++) {
        /* Log-uniform from 1 µs to about 100 s. */
        gint64 value = (gint64) exp (g_rand_double_range (rand, 0, log (1e8)));
        g_array_append_val (values, value);
    }
    for (guint i = 0; i < values->len; i++)
        throng_histogram_record (histogram, g_array_index (values, gint64, i));

    guint64 previous = 0;
    for (guint e = 0; e < prometheus_n_edges; e++) {
        guint64 expected = 0;

        for (guint i = 0; i < values->len; i++)
            expected += g_array_index (values, gint64, i) < prometheus_edges_us[e];
        guint64 got = prometheus_count_below (histogram, prometheus_edges_us[e], previous);
        g_assert_cmpuint (got, ==, expected);
        /* Without the hint, the same. */
        g_assert_cmpuint (prometheus_count_below (histogram, prometheus_edges_us[e], 0), ==,
                          expected);
        previous = got;
    }
}

/*
 * The plan's own metrics: added over the snapshots by name, replaced by
 * the final summary, one family per kind with the metric as a label.
 */
static void
test_custom_metrics (void)
{
    const ThrongRunInfo run = { .size = sizeof run };
    g_autoptr (ThrongHistogram) histogram = throng_histogram_new ();
    ThrongCustomMetric metrics[] = {
        { .size = sizeof (ThrongCustomMetric), .name = "orders", .kind = THRONG_CUSTOM_COUNTER,
          .count = 3, .sum = 3 },
        { .size = sizeof (ThrongCustomMetric), .name = "depth", .kind = THRONG_CUSTOM_GAUGE,
          .count = 2, .sum = 9, .last = 4, .last_wall_us = 10 },
        { .size = sizeof (ThrongCustomMetric), .name = "ok", .kind = THRONG_CUSTOM_RATE,
          .count = 4, .trues = 3, .invalid = 1 },
        { .size = sizeof (ThrongCustomMetric), .name = "cart", .kind = THRONG_CUSTOM_TREND,
          .count = 2, .sum = 300, .histogram = histogram },
    };
    ThrongSummary snapshot = { .size = sizeof snapshot, .metrics = metrics,
                               .n_metrics = G_N_ELEMENTS (metrics) };
    PrometheusFigures *figures = prometheus_figures_new (&run);

    throng_histogram_record (histogram, 100000);
    throng_histogram_record (histogram, 200000);
    prometheus_figures_add_interval (figures, &snapshot);
    metrics[1].last = 7;
    metrics[1].last_wall_us = 20;
    prometheus_figures_add_interval (figures, &snapshot);
    g_autoptr (GBytes) page = prometheus_figures_render (figures);
    g_autofree char *text = g_strndup (g_bytes_get_data (page, NULL), g_bytes_get_size (page));

    g_test_message ("%s", text);
    g_assert_nonnull (strstr (text, "# TYPE throng_custom_counter_total counter\n"
                                    "throng_custom_counter_total{metric=\"orders\"} 6\n"));
    g_assert_nonnull (strstr (text, "throng_custom_gauge{metric=\"depth\"} 7\n"));
    g_assert_nonnull (strstr (text, "throng_custom_rate_true_total{metric=\"ok\"} 6\n"));
    g_assert_nonnull (strstr (text, "throng_custom_rate_values_total{metric=\"ok\"} 8\n"));
    g_assert_nonnull (strstr (text, "throng_custom_trend{metric=\"cart\",quantile=\"0.99\"} 200\n"));
    g_assert_nonnull (strstr (text, "throng_custom_trend_count{metric=\"cart\"} 4\n"));
    g_assert_nonnull (strstr (text, "throng_custom_invalid_total{metric=\"ok\"} 2\n"));

    /* the final summary's figures replace what the snapshots added up */
    prometheus_figures_set_final (figures, &snapshot);
    g_autoptr (GBytes) final = prometheus_figures_render (figures);
    g_autofree char *final_text
        = g_strndup (g_bytes_get_data (final, NULL), g_bytes_get_size (final));
    g_assert_nonnull (strstr (final_text, "throng_custom_counter_total{metric=\"orders\"} 3\n"));
    prometheus_figures_free (figures);
}

/*
 * A step that never went out: not in throng_requests_total (its sample is
 * skipped), in throng_not_sent_total and among the errors of class
 * variable (docs/reporters.md, "What a request is"); its retry attempts
 * in throng_retry_attempts_total.
 */
static void
test_not_sent (void)
{
    const char *const labels[] = { "use", NULL };
    const char *const *step_labels[] = { labels };
    const char *const names[] = { "s" };
    const ThrongRunInfo run = { .size = sizeof run, .n_scenarios = 1, .scenario_names = names,
                                .step_labels = step_labels };
    ThrongSample samples[3] = {
        { .status = 200 },
        { .error = THRONG_ERROR_VARIABLE, .flags = THRONG_SAMPLE_NOT_SENT },
        { .error = THRONG_ERROR_VARIABLE, .flags = THRONG_SAMPLE_NOT_SENT },
    };
    ThrongStepSummary step = { .label = "use", .protocol = "http" };
    const guint64 retry_attempts[] = { 5 };
    ThrongScenarioJourney journey = { .size = sizeof journey, .retry_attempts = retry_attempts,
                                      .retry_attempts_total = 5 };
    ThrongScenarioSummary scenario = { .name = "s", .steps = &step, .n_steps = 1,
                                       .journey = &journey };
    ThrongSummary snapshot = { .size = sizeof snapshot, .scenarios = &scenario, .n_scenarios = 1 };
    PrometheusFigures *figures = prometheus_figures_new (&run);

    throng_stats_init (&step.stats);
    for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
        throng_stats_record (&step.stats, &samples[i]);
    g_assert_cmpuint (step.stats.requests, ==, 1);
    g_assert_cmpuint (throng_stats_get_not_sent (&step.stats), ==, 2);
    g_assert_cmpfloat (throng_stats_get_error_rate (&step.stats), ==, 2.0 / 3.0);
    prometheus_figures_add_samples (figures, samples, G_N_ELEMENTS (samples));
    prometheus_figures_add_interval (figures, &snapshot);
    g_autoptr (GBytes) page = prometheus_figures_render (figures);
    g_autofree char *text = g_strndup (g_bytes_get_data (page, NULL), g_bytes_get_size (page));

    g_test_message ("%s", text);
    g_assert_nonnull (strstr (text, "throng_requests_total{scenario=\"s\",step=\"use\","
                                    "step_id=\"0\",status_class=\"2xx\"} 1\n"));
    g_assert_null (strstr (text, "status_class=\"variable\""));
    g_assert_nonnull (
        strstr (text, "throng_not_sent_total{scenario=\"s\",step=\"use\",step_id=\"0\"} 2\n"));
    g_assert_nonnull (
        strstr (text, "throng_errors_total{scenario=\"s\",step=\"use\",step_id=\"0\","
                      "class=\"variable\"} 2\n"));
    g_assert_nonnull (strstr (
        text, "throng_retry_attempts_total{scenario=\"s\",step=\"use\",step_id=\"0\"} 5\n"));
    prometheus_figures_free (figures);
    throng_stats_clear (&step.stats);
}

/* A port already taken stops the run before any load, and says why. */
static void
test_port_taken (Fixture *fixture, gconstpointer data)
{
    g_autoptr (GSocketListener) listener = g_socket_listener_new ();
    g_autoptr (GError) error = NULL;
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
    g_autoptr (GSocketAddress) bound = NULL;

    g_assert_true (g_socket_listener_add_address (listener, any, G_SOCKET_TYPE_STREAM,
                                                  G_SOCKET_PROTOCOL_TCP, NULL, &bound, &error));
    g_assert_no_error (error);
    guint16 port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
    g_autofree char *yaml = g_strdup_printf (plan_format, port);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_runv (60, &out, &err, "run", plan, "--quiet", NULL);

    g_test_message ("%s", err);
    g_assert_cmpint (status, ==, 3);
    g_assert_nonnull (strstr (err, "reporter prometheus: cannot listen on 127.0.0.1:"));
    throng_test_assert_no_glib_noise (err);
}

/* listen must be an address: a located plan error otherwise. */
static void
test_listen_invalid (Fixture *fixture, gconstpointer data)
{
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml",
                                                    "scenarios:\n"
                                                    "  - name: s\n"
                                                    "    users: 1\n"
                                                    "    steps:\n"
                                                    "      - http: { url: \"http://127.0.0.1:1/\" }\n"
                                                    "reporters:\n"
                                                    "  - prometheus: { listen: \"example.com:9464\" }\n");
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_runv (30, &out, &err, "validate", plan, NULL);

    g_test_message ("%s", err);
    g_assert_cmpint (status, ==, 2);
    g_assert_nonnull (strstr (err, "plan.yaml:7:"));
    g_assert_nonnull (strstr (err, "not an IP address"));
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/prometheus/buckets/exact", test_buckets_exact);
    g_test_add_func ("/prometheus/custom-metrics", test_custom_metrics);
    g_test_add_func ("/prometheus/not-sent", test_not_sent);
    g_test_add ("/prometheus/scraped", Fixture, NULL, fixture_setup, test_scraped,
                fixture_teardown);
    g_test_add ("/prometheus/repeated-labels", Fixture, NULL, fixture_setup,
                test_repeated_labels, fixture_teardown);
    g_test_add ("/prometheus/port-taken", Fixture, NULL, fixture_setup, test_port_taken,
                fixture_teardown);
    g_test_add ("/prometheus/listen-invalid", Fixture, NULL, fixture_setup, test_listen_invalid,
                fixture_teardown);
    return g_test_run ();
}
