/* SPDX-License-Identifier: MIT */
/*
 * The influxdb reporter: its options and hooks.  Each snapshot becomes
 * one batch of line protocol (a point per step, per scenario and for the
 * run) handed to the sender; drain (or close, where the core does not
 * drain) adds what the snapshots missed (the summary's counters minus
 * their sum, so the stored counts add up to the run's), waits a bounded
 * time for the sender to drain, and says how much was lost: a warning in
 * the run's summary.  Nothing else here waits for the network.
 */
#include <string.h>

#include "influxdb.h"

static const char *const influx_apis[] = { "v1", "v2", NULL };

typedef enum {
    INFLUX_API_V1,
    INFLUX_API_V2,
} InfluxApi;

typedef struct {
    char *url;
    int api;
    char *database;
    const ThrongNode *tags;
    guint64 buffer;
    gint64 timeout_us;
    gint64 backoff_max_us;
    gint64 flush_timeout_us;
} InfluxOptions;

static const ThrongOption influx_options[] = {
    { "url", THRONG_OPTION_STRING, G_STRUCT_OFFSET (InfluxOptions, url) },
    { "api", THRONG_OPTION_ENUM, G_STRUCT_OFFSET (InfluxOptions, api), .choices = influx_apis },
    { "database", THRONG_OPTION_STRING, G_STRUCT_OFFSET (InfluxOptions, database) },
    { "tags", THRONG_OPTION_NODE, G_STRUCT_OFFSET (InfluxOptions, tags) },
    { "buffer", THRONG_OPTION_UINT, G_STRUCT_OFFSET (InfluxOptions, buffer), .min = 1,
      .max = 10000000 },
    { "timeout", THRONG_OPTION_DURATION, G_STRUCT_OFFSET (InfluxOptions, timeout_us),
      .min = G_USEC_PER_SEC, .max = 600 * G_USEC_PER_SEC },
    { "backoff_max", THRONG_OPTION_DURATION, G_STRUCT_OFFSET (InfluxOptions, backoff_max_us),
      .min = 250 * G_TIME_SPAN_MILLISECOND, .max = 600 * G_USEC_PER_SEC },
    { "flush_timeout", THRONG_OPTION_DURATION, G_STRUCT_OFFSET (InfluxOptions, flush_timeout_us),
      .min = 0, .max = 600 * G_USEC_PER_SEC },
    { NULL },
};

/* The counts of one of the plan's own metrics that the snapshots have written so far. */
typedef struct {
    guint64 count;
    guint64 invalid;
    gdouble sum;
    guint64 trues;
} CustomWritten;

/* The counters of one step that the snapshots have written so far. */
typedef struct {
    guint64 requests;
    guint64 errors_by_class[THRONG_ERROR_CLASS_SLOTS];
    guint64 bytes_sent;
    guint64 bytes_received;
    guint64 retry_attempts;
} Written;

typedef struct {
    InfluxOptions options;
    GPtrArray *tags;            /* key, value, key, value … from `tags` */
    char *plan;
    guint n_scenarios;
    GPtrArray *written;         /* per scenario, a Written[] of its steps */
    guint *n_steps;
    guint64 *iterations;        /* per scenario, written so far */
    gint64 last_wall_us;
    PushSender *sender;
    GArray *metrics_written;    /* CustomWritten per plan metric, in the plan's order */
} Influx;

static void
influx_free (gpointer self)
{
    Influx *influx = self;

    if (influx == NULL)
        return;
    if (influx->sender != NULL) {
        PushSenderReport report;

        push_sender_finish (influx->sender, 0, &report);
        g_free (report.last_error);
    }
    throng_options_clear (influx_options, &influx->options);
    g_clear_pointer (&influx->tags, g_ptr_array_unref);
    g_clear_pointer (&influx->written, g_ptr_array_unref);
    g_clear_pointer (&influx->metrics_written, g_array_unref);
    g_free (influx->n_steps);
    g_free (influx->iterations);
    g_free (influx->plan);
    g_free (influx);
}

/* `tags`: a map of scalars, each a tag on every point. */
static gboolean
read_tags (Influx *influx, GError **error)
{
    const ThrongNode *tags = influx->options.tags;

    influx->tags = g_ptr_array_new_with_free_func (g_free);
    if (tags == NULL || throng_node_is_null (tags))
        return TRUE;
    if (throng_node_kind (tags) != THRONG_NODE_MAP) {
        throng_node_set_error (tags, error, THRONG_PLAN_ERROR_INVALID,
                               "tags: expected a map such as '{ env: staging }'");
        return FALSE;
    }
    for (guint i = 0; i < throng_node_n_children (tags); i++) {
        const ThrongNode *key = throng_node_key (tags, i);
        const char *value = NULL;

        if (!throng_node_get_string (throng_node_child (tags, i), &value, error))
            return FALSE;
        if (g_strv_contains ((const char *const[]) { "plan", "scenario", "step", "step_id",
                                                      NULL },
                             throng_node_scalar (key))) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "tags: '%s' is a tag of throng's own", throng_node_scalar (key));
            return FALSE;
        }
        if (*value == '\0' || *throng_node_scalar (key) == '\0') {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "tags: InfluxDB refuses empty tag keys and values");
            return FALSE;
        }
        g_ptr_array_add (influx->tags, g_strdup (throng_node_scalar (key)));
        g_ptr_array_add (influx->tags, g_strdup (value));
    }
    return TRUE;
}

static gpointer
influx_configure (const ThrongNode *options, GError **error)
{
    Influx *influx = g_new0 (Influx, 1);

    influx->options.url = g_strdup ("http://127.0.0.1:8086");
    influx->options.database = g_strdup ("throng");
    influx->options.buffer = 10000;
    influx->options.timeout_us = 5 * G_USEC_PER_SEC;
    influx->options.backoff_max_us = 10 * G_USEC_PER_SEC;
    influx->options.flush_timeout_us = 5 * G_USEC_PER_SEC;
    if (options != NULL && !throng_node_is_null (options)
        && !throng_options_apply (options, influx_options, &influx->options, FALSE,
                                  "influxdb options", error)) {
        influx_free (influx);
        return NULL;
    }
    if (!read_tags (influx, error)) {
        influx_free (influx);
        return NULL;
    }
    g_autoptr (GUri) uri = g_uri_parse (influx->options.url, G_URI_FLAGS_NONE, NULL);
    if (uri == NULL
        || (g_strcmp0 (g_uri_get_scheme (uri), "http") != 0
            && g_strcmp0 (g_uri_get_scheme (uri), "https") != 0)
        || g_uri_get_host (uri) == NULL) {
        const ThrongNode *at = options != NULL ? throng_node_lookup (options, "url") : NULL;
        throng_node_set_error (at != NULL ? at : options, error, THRONG_PLAN_ERROR_INVALID,
                               "url: '%s' is not an http:// or https:// URL such as "
                               "http://127.0.0.1:8086",
                               influx->options.url);
        influx_free (influx);
        return NULL;
    }
    return influx;
}

/*
 * The write URL and its Authorization header, from the options and, for
 * secrets, the environment: THRONG_INFLUXDB_TOKEN, _ORG and _BUCKET (2.x),
 * THRONG_INFLUXDB_USERNAME and _PASSWORD (1.x, optional).
 */
static gboolean
write_target (const Influx *influx, char **url, char **authorization, GError **error)
{
    g_autofree char *base = g_strdup (influx->options.url);
    gsize length = strlen (base);

    while (length > 0 && base[length - 1] == '/')
        base[--length] = '\0';
    if (influx->options.api == INFLUX_API_V2) {
        const char *names[] = { "THRONG_INFLUXDB_ORG", "THRONG_INFLUXDB_BUCKET",
                                "THRONG_INFLUXDB_TOKEN" };
        for (guint i = 0; i < G_N_ELEMENTS (names); i++)
            if (g_getenv (names[i]) == NULL || *g_getenv (names[i]) == '\0') {
                g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                             "api v2 needs %s set in the environment", names[i]);
                return FALSE;
            }
        g_autofree char *org = g_uri_escape_string (g_getenv (names[0]), NULL, FALSE);
        g_autofree char *bucket = g_uri_escape_string (g_getenv (names[1]), NULL, FALSE);
        *url = g_strdup_printf ("%s/api/v2/write?org=%s&bucket=%s&precision=us", base, org,
                                bucket);
        *authorization = g_strdup_printf ("Token %s", g_getenv (names[2]));
        return TRUE;
    }
    g_autofree char *database = g_uri_escape_string (influx->options.database, NULL, FALSE);
    *url = g_strdup_printf ("%s/write?db=%s&precision=u", base, database);
    *authorization = NULL;
    const char *user = g_getenv ("THRONG_INFLUXDB_USERNAME");
    if (user != NULL && *user != '\0') {
        const char *password = g_getenv ("THRONG_INFLUXDB_PASSWORD");
        g_autofree char *pair = g_strdup_printf ("%s:%s", user, password != NULL ? password : "");
        g_autofree char *encoded = g_base64_encode ((const guchar *) pair, strlen (pair));
        *authorization = g_strdup_printf ("Basic %s", encoded);
    }
    return TRUE;
}

static gboolean
influx_open (gpointer self, const ThrongRunInfo *run, GError **error)
{
    Influx *influx = self;
    g_autofree char *url = NULL;
    g_autofree char *authorization = NULL;

    if (!write_target (influx, &url, &authorization, error))
        return FALSE;
    influx->plan = g_strdup (run->plan_name);
    influx->n_scenarios = run->n_scenarios;
    influx->written = g_ptr_array_new_with_free_func (g_free);
    influx->n_steps = g_new0 (guint, run->n_scenarios);
    influx->iterations = g_new0 (guint64, run->n_scenarios);
    for (guint s = 0; s < run->n_scenarios; s++) {
        influx->n_steps[s] = g_strv_length ((char **) run->step_labels[s]);
        g_ptr_array_add (influx->written, g_new0 (Written, influx->n_steps[s]));
    }
    influx->sender = push_sender_start (&(PushSenderOptions) {
        .log_domain = G_LOG_DOMAIN,
        .url = url,
        .authorization = authorization,
        .timeout_us = influx->options.timeout_us,
        .max_points = influx->options.buffer,
        .backoff_max_us = influx->options.backoff_max_us,
    });
    return TRUE;
}

/*
 * MEASUREMENT,plan=…,<tags>[,scenario=…[,step=…,step_id=…]]: @step_id is
 * the step's index in its scenario (ThrongSample.step), -1 for a point
 * that is no step's.  Two steps may share a label (a HAR import has two
 * `GET /static/app.css`); without step_id their points of one snapshot
 * would have the same series and time, and the second would overwrite the
 * first.
 */
static void
begin_line (GString *out, const Influx *influx, const char *measurement, const char *scenario,
            const char *step, gint step_id)
{
    lines_append_measurement (out, measurement);
    lines_append_tag (out, "plan", influx->plan);
    for (guint i = 0; i + 1 < influx->tags->len; i += 2)
        lines_append_tag (out, influx->tags->pdata[i], influx->tags->pdata[i + 1]);
    lines_append_tag (out, "scenario", scenario);
    lines_append_tag (out, "step", step);
    if (step_id >= 0)
        g_string_append_printf (out, ",step_id=%d", step_id);
}

static void
append_counters (GString *out, gboolean *first, guint64 requests, const guint64 *errors_by_class,
                 guint64 bytes_sent, guint64 bytes_received)
{
    guint64 errors = 0;

    for (guint c = 1; c < THRONG_ERROR_CLASS_SLOTS; c++)
        errors += errors_by_class[c];
    lines_append_int (out, first, "requests", requests);
    lines_append_int (out, first, "errors", errors);
    /* as the errors_CLASS fields, only when there are any: the variable ones, not requests */
    if (errors_by_class[THRONG_ERROR_VARIABLE] > 0)
        lines_append_int (out, first, "not_sent", errors_by_class[THRONG_ERROR_VARIABLE]);
    for (guint c = 1; c < THRONG_ERROR_CLASS_SLOTS; c++) {
        if (errors_by_class[c] == 0)
            continue;
        g_autofree char *key
            = g_strdup_printf ("errors_%s", throng_error_class_name ((ThrongErrorClass) c));
        lines_append_int (out, first, key, errors_by_class[c]);
    }
    lines_append_int (out, first, "bytes_sent", bytes_sent);
    lines_append_int (out, first, "bytes_received", bytes_received);
}

static void
append_latency (GString *out, gboolean *first, const ThrongHistogram *latency)
{
    static const struct {
        const char *key;
        gdouble percentile;
    } percentiles[] = {
        { "latency_p50_ms", 50 }, { "latency_p90_ms", 90 }, { "latency_p95_ms", 95 },
        { "latency_p99_ms", 99 },
    };

    if (latency == NULL || throng_histogram_count (latency) == 0)
        return;
    /* Milliseconds to the µs, as they were measured. */
    lines_append_float (out, first, "latency_min_ms", throng_histogram_min (latency) / 1000.0, 3);
    lines_append_float (out, first, "latency_mean_ms", throng_histogram_mean (latency) / 1000.0,
                        3);
    for (guint i = 0; i < G_N_ELEMENTS (percentiles); i++)
        lines_append_float (out, first, percentiles[i].key,
                            throng_histogram_percentile (latency, percentiles[i].percentile)
                                / 1000.0,
                            3);
    lines_append_float (out, first, "latency_max_ms", throng_histogram_max (latency) / 1000.0, 3);
}

static guint64
minus (guint64 total, guint64 written)
{
    return total > written ? total - written : 0;
}

/*
 * A point per metric of the plan's own (`throng_metric`, tags `metric` and
 * `type`): its counts over the interval and its kind's figures, a trend's
 * in its own unit.  @remainder: the summary minus what the snapshots
 * wrote, counts only, so that the stored counts add up to the run's.
 */
static guint
append_custom (GString *out, Influx *influx, const ThrongSummary *summary, gint64 when,
               gboolean remainder)
{
    static const char *const kinds[] = { "counter", "gauge", "rate", "trend" };
    guint points = 0;

    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, n_metrics))
        return 0;
    if (influx->metrics_written == NULL)
        influx->metrics_written = g_array_new (FALSE, TRUE, sizeof (CustomWritten));
    if (influx->metrics_written->len < summary->n_metrics)
        g_array_set_size (influx->metrics_written, summary->n_metrics);
    for (guint m = 0; m < summary->n_metrics; m++) {
        const ThrongCustomMetric *metric = &summary->metrics[m];
        CustomWritten *written = &g_array_index (influx->metrics_written, CustomWritten, m);
        guint64 count = remainder ? minus (metric->count, written->count) : metric->count;
        guint64 invalid = remainder ? minus (metric->invalid, written->invalid) : metric->invalid;
        guint64 trues = remainder ? minus (metric->trues, written->trues) : metric->trues;
        gdouble sum = remainder ? metric->sum - written->sum : metric->sum;
        gboolean first = TRUE;

        if (remainder && count == 0 && invalid == 0)
            continue;
        lines_append_measurement (out, "throng_metric");
        lines_append_tag (out, "plan", influx->plan);
        for (guint i = 0; i + 1 < influx->tags->len; i += 2)
            lines_append_tag (out, influx->tags->pdata[i], influx->tags->pdata[i + 1]);
        lines_append_tag (out, "metric", metric->name);
        lines_append_tag (out, "type",
                          (guint) metric->kind < G_N_ELEMENTS (kinds) ? kinds[metric->kind] : "?");
        lines_append_int (out, &first, "count", count);
        lines_append_int (out, &first, "invalid", invalid);
        lines_append_float (out, &first, "sum", sum, 6);
        if (metric->kind == THRONG_CUSTOM_RATE)
            lines_append_int (out, &first, "trues", trues);
        if (!remainder && metric->count > 0) {
            if (metric->kind == THRONG_CUSTOM_GAUGE)
                lines_append_float (out, &first, "value", metric->last, 6);
            if (metric->kind == THRONG_CUSTOM_RATE)
                lines_append_float (out, &first, "rate",
                                    (gdouble) metric->trues / (gdouble) metric->count, 6);
            if (metric->kind == THRONG_CUSTOM_GAUGE || metric->kind == THRONG_CUSTOM_TREND) {
                lines_append_float (out, &first, "min", metric->min, 6);
                lines_append_float (out, &first, "max", metric->max, 6);
            }
            if (metric->kind == THRONG_CUSTOM_TREND && metric->histogram != NULL) {
                static const gdouble percentiles[] = { 50, 90, 95, 99 };
                lines_append_float (out, &first, "mean", metric->sum / (gdouble) metric->count, 6);
                for (guint p = 0; p < G_N_ELEMENTS (percentiles); p++) {
                    g_autofree char *key = g_strdup_printf ("p%.0f", percentiles[p]);
                    lines_append_float (out, &first, key,
                                        (gdouble) throng_histogram_percentile (metric->histogram,
                                                                               percentiles[p])
                                            / THRONG_CUSTOM_TREND_SCALE,
                                        6);
                }
            }
        }
        lines_end (out, when);
        points++;
        if (!remainder) {
            written->count += metric->count;
            written->invalid += metric->invalid;
            written->sum += metric->sum;
            written->trues += metric->trues;
        }
    }
    return points;
}

/* A timestamp after every one written before, so no point overwrites another of its series. */
static gint64
next_timestamp (Influx *influx, gint64 wall_us)
{
    if (wall_us <= influx->last_wall_us)
        wall_us = influx->last_wall_us + 1;
    influx->last_wall_us = wall_us;
    return wall_us;
}

static void
influx_snapshot (gpointer self, const ThrongSummary *snapshot)
{
    Influx *influx = self;

    if (influx->sender == NULL)
        return;

    GString *out = g_string_sized_new (1024);
    guint points = 0;
    guint64 requests = 0;
    gint64 when = next_timestamp (influx, snapshot->end_wall_us);
    for (guint s = 0; s < MIN (influx->n_scenarios, snapshot->n_scenarios); s++) {
        const ThrongScenarioSummary *scenario = &snapshot->scenarios[s];
        Written *written = influx->written->pdata[s];

        for (guint i = 0; i < MIN (influx->n_steps[s], scenario->n_steps); i++) {
            const ThrongStats *stats = &scenario->steps[i].stats;
            gboolean first = TRUE;

            begin_line (out, influx, "throng_step", scenario->name, scenario->steps[i].label,
                        (gint) i);
            append_counters (out, &first, stats->requests, stats->errors_by_class,
                             stats->bytes_sent, stats->bytes_received);
            guint64 retried = throng_journey_step_retry_attempts (scenario, i);
            if (retried > 0)
                lines_append_int (out, &first, "retry_attempts", retried);
            append_latency (out, &first, stats->latency);
            lines_end (out, when);
            points++;
            written[i].retry_attempts += retried;
            requests += stats->requests;
            written[i].requests += stats->requests;
            for (guint c = 0; c < THRONG_ERROR_CLASS_SLOTS; c++)
                written[i].errors_by_class[c] += stats->errors_by_class[c];
            written[i].bytes_sent += stats->bytes_sent;
            written[i].bytes_received += stats->bytes_received;
        }

        gboolean first = TRUE;
        begin_line (out, influx, "throng_scenario", scenario->name, NULL, -1);
        lines_append_int (out, &first, "iterations", scenario->iterations);
        lines_append_int (out, &first, "dropped_iterations", scenario->dropped_iterations);
        lines_append_int (out, &first, "active_users", scenario->active_users);
        lines_append_int (out, &first, "requests", scenario->stats.requests);
        lines_append_int (out, &first, "errors", scenario->stats.errors);
        if (throng_stats_get_not_sent (&scenario->stats) > 0)
            lines_append_int (out, &first, "not_sent", throng_stats_get_not_sent (&scenario->stats));
        append_latency (out, &first, scenario->stats.latency);
        lines_end (out, when);
        points++;
        influx->iterations[s] += scenario->iterations;
    }

    gboolean first = TRUE;
    begin_line (out, influx, "throng_run", NULL, NULL, -1);
    lines_append_int (out, &first, "requests", snapshot->total.requests);
    lines_append_int (out, &first, "errors", snapshot->total.errors);
    if (throng_stats_get_not_sent (&snapshot->total) > 0)
        lines_append_int (out, &first, "not_sent", throng_stats_get_not_sent (&snapshot->total));
    lines_append_float (out, &first, "cpu_share", snapshot->cpu_share, 4);
    lines_append_float (out, &first, "lag_p99_ms", snapshot->lag_p99_us / 1000.0, 3);
    lines_append_bool (out, &first, "saturated", snapshot->saturated);
    lines_end (out, when);
    points++;
    points += append_custom (out, influx, snapshot, when, FALSE);

    push_sender_push (influx->sender, g_string_free_to_bytes (out), points, requests);
}

/*
 * What the snapshots did not cover (the run's summary minus their sum):
 * counters only, so that the stored points add up to the summary.
 */
static void
push_remainder (Influx *influx, const ThrongSummary *summary)
{
    GString *out = g_string_new (NULL);
    guint points = 0;
    guint64 requests = 0;
    gint64 when = next_timestamp (influx, summary->end_wall_us);

    for (guint s = 0; s < MIN (influx->n_scenarios, summary->n_scenarios); s++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[s];
        Written *written = influx->written->pdata[s];

        for (guint i = 0; i < MIN (influx->n_steps[s], scenario->n_steps); i++) {
            const ThrongStats *stats = &scenario->steps[i].stats;
            guint64 errors_by_class[THRONG_ERROR_CLASS_SLOTS];
            guint64 delta = minus (stats->requests, written[i].requests);
            gboolean first = TRUE;

            for (guint c = 0; c < THRONG_ERROR_CLASS_SLOTS; c++)
                errors_by_class[c] = minus (stats->errors_by_class[c],
                                            written[i].errors_by_class[c]);
            guint64 retried = minus (throng_journey_step_retry_attempts (scenario, i),
                                     written[i].retry_attempts);
            if (delta == 0 && errors_by_class[THRONG_ERROR_VARIABLE] == 0)
                continue;
            begin_line (out, influx, "throng_step", scenario->name, scenario->steps[i].label,
                        (gint) i);
            append_counters (out, &first, delta, errors_by_class,
                             minus (stats->bytes_sent, written[i].bytes_sent),
                             minus (stats->bytes_received, written[i].bytes_received));
            if (retried > 0)
                lines_append_int (out, &first, "retry_attempts", retried);
            lines_end (out, when);
            points++;
            requests += delta;
        }
        guint64 iterations = minus (scenario->iterations, influx->iterations[s]);
        if (iterations > 0) {
            gboolean first = TRUE;

            begin_line (out, influx, "throng_scenario", scenario->name, NULL, -1);
            lines_append_int (out, &first, "iterations", iterations);
            lines_end (out, when);
            points++;
        }
    }
    points += append_custom (out, influx, summary, when, TRUE);
    if (points == 0) {
        g_string_free (out, TRUE);
        return;
    }
    g_debug ("the summary adds %" G_GUINT64_FORMAT " requests to the snapshots'", requests);
    push_sender_push (influx->sender, g_string_free_to_bytes (out), points, requests);
}

/*
 * Adds what the snapshots missed, waits up to flush_timeout for the
 * sender, and returns how much was lost as a warning (NULL: nothing).
 */
static char *
influx_finish (gpointer self, const ThrongSummary *summary)
{
    Influx *influx = self;
    PushSenderReport report;
    gboolean started = !(THRONG_STRUCT_HAS (summary, ThrongSummary, never_started)
                         && summary->never_started);
    char *warning = NULL;

    if (started)
        push_remainder (influx, summary);
    push_sender_finish (g_steal_pointer (&influx->sender),
                          started ? influx->options.flush_timeout_us : 0, &report);
    g_debug ("%" G_GUINT64_FORMAT " points written, %" G_GUINT64_FORMAT " failed writes",
             report.sent_points, report.failed_writes);
    if (started && report.dropped_points > 0)
        warning = g_strdup_printf ("influxdb: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                                   " points (%" G_GUINT64_FORMAT " requests) were not stored; the "
                                   "buffer holds %" G_GUINT64_FORMAT " points; last error: %s",
                                   report.dropped_points,
                                   report.dropped_points + report.sent_points,
                                   report.dropped_requests, influx->options.buffer,
                                   report.last_error != NULL ? report.last_error : "none");
    g_free (report.last_error);
    return warning;
}

static char **
influx_drain (gpointer self, const ThrongSummary *summary)
{
    return push_reporter_drain (self, ((Influx *) self)->sender, influx_finish, summary);
}

static gboolean
influx_close (gpointer self, const ThrongSummary *summary, GError **error)
{
    return push_reporter_close (self, ((Influx *) self)->sender, influx_finish, summary);
}

const ThrongReporter influxdb_reporter = {
    .size = sizeof (ThrongReporter),
    .name = "influxdb",
    .configure = influx_configure,
    .open = influx_open,
    .snapshot = influx_snapshot,
    .close = influx_close,
    .free = influx_free,
    .drain = influx_drain,
};
