/* SPDX-License-Identifier: MIT */
/*
 * The JSON the json reporter writes: the versioned summary document, the
 * jsonl interval and sample objects, and the STATS object they share.
 * docs/reporters.md is the schema; a field changes there and here together.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "json-reporter.h"
#include "output.h"

char *
json_document_time (gint64 wall_us)
{
    time_t seconds = (time_t) (wall_us / G_USEC_PER_SEC);
    int ms = (int) ((wall_us % G_USEC_PER_SEC) / 1000);
    struct tm tm;
    char text[64];

    if (ms < 0) {
        seconds -= 1;
        ms += 1000;
    }
    if (gmtime_r (&seconds, &tm) == NULL)
        return g_strdup ("1970-01-01T00:00:00.000Z");
    strftime (text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
    return g_strdup_printf ("%s.%03dZ", text, ms);
}

static void
json_add_time (JsonBuilder *builder, const char *name, gint64 wall_us)
{
    g_autofree char *text = json_document_time (wall_us);

    json_builder_set_member_name (builder, name);
    json_builder_add_string_value (builder, text);
}

static void
json_add_int (JsonBuilder *builder, const char *name, gint64 value)
{
    json_builder_set_member_name (builder, name);
    json_builder_add_int_value (builder, value);
}

static void
json_add_double (JsonBuilder *builder, const char *name, gdouble value)
{
    json_builder_set_member_name (builder, name);
    json_builder_add_double_value (builder, value);
}

static void
json_add_string (JsonBuilder *builder, const char *name, const char *value)
{
    json_builder_set_member_name (builder, name);
    if (value != NULL)
        json_builder_add_string_value (builder, value);
    else
        json_builder_add_null_value (builder);
}

/* {"min", "mean", "p50", "p90", "p95", "p99", "max", "histogram"}, all µs. */
static void
json_add_distribution (JsonBuilder *builder, const char *name, const ThrongHistogram *histogram)
{
    static const struct {
        const char *name;
        gdouble percentile;
    } percentiles[] = { { "p50", 50 }, { "p90", 90 }, { "p95", 95 }, { "p99", 99 } };

    json_builder_set_member_name (builder, name);
    json_builder_begin_object (builder);
    json_add_int (builder, "min", histogram != NULL ? throng_histogram_min (histogram) : 0);
    json_add_double (builder, "mean", histogram != NULL ? throng_histogram_mean (histogram) : 0);
    for (gsize i = 0; i < G_N_ELEMENTS (percentiles); i++)
        json_add_int (builder, percentiles[i].name,
                      histogram != NULL
                          ? throng_histogram_percentile (histogram, percentiles[i].percentile)
                          : 0);
    json_add_int (builder, "max", histogram != NULL ? throng_histogram_max (histogram) : 0);
    g_autofree char *serialized = histogram != NULL ? throng_histogram_serialize (histogram) : NULL;
    json_add_string (builder, "histogram", serialized);
    json_builder_end_object (builder);
}

/* Only the classes that occurred; slots past the known classes count as "other". */
static void
json_add_errors_by_class (JsonBuilder *builder, const ThrongStats *stats)
{
    const char *names[THRONG_ERROR_CLASS_SLOTS];
    guint64 counts[THRONG_ERROR_CLASS_SLOTS];
    guint n = 0;

    for (guint c = THRONG_ERROR_NONE + 1; c < THRONG_ERROR_CLASS_SLOTS; c++) {
        if (stats->errors_by_class[c] == 0)
            continue;
        const char *name = throng_error_class_name ((ThrongErrorClass) c);
        guint i;
        for (i = 0; i < n && strcmp (names[i], name) != 0; i++)
            ;
        if (i == n) {
            names[n] = name;
            counts[n++] = 0;
        }
        counts[i] += stats->errors_by_class[c];
    }

    json_builder_set_member_name (builder, "errors_by_class");
    json_builder_begin_object (builder);
    for (guint i = 0; i < n; i++)
        json_add_int (builder, names[i], (gint64) counts[i]);
    json_builder_end_object (builder);
}

/*
 * STATS; @seconds is the time the stats cover, for "rps"; @retry_attempts
 * the samples of `retry:` attempts they count.  "not_sent" (since 0.5)
 * also tells a reader that "requests" leaves those out.
 */
static void
json_add_stats (JsonBuilder *builder, const char *name, const ThrongStats *stats, gdouble seconds,
                guint64 retry_attempts)
{
    json_builder_set_member_name (builder, name);
    json_builder_begin_object (builder);
    json_add_int (builder, "requests", (gint64) stats->requests);
    json_add_int (builder, "not_sent", (gint64) throng_stats_get_not_sent (stats));
    json_add_int (builder, "errors", (gint64) stats->errors);
    json_add_double (builder, "error_rate", throng_stats_get_error_rate (stats));
    json_add_errors_by_class (builder, stats);
    json_add_int (builder, "retry_attempts", (gint64) retry_attempts);
    json_add_double (builder, "rps", seconds > 0 ? (gdouble) stats->requests / seconds : 0);
    json_add_int (builder, "bytes_sent", (gint64) stats->bytes_sent);
    json_add_int (builder, "bytes_received", (gint64) stats->bytes_received);
    json_add_int (builder, "connections", (gint64) stats->connections);
    json_add_int (builder, "retries", (gint64) stats->retries);
    if (stats->n_protocols > 0) {
        json_builder_set_member_name (builder, "protocols");
        json_builder_begin_object (builder);
        for (guint i = 0; i < stats->n_protocols; i++)
            json_add_int (builder, stats->protocols[i].name,
                          (gint64) stats->protocols[i].requests);
        json_builder_end_object (builder);
    }
    json_builder_set_member_name (builder, "handshakes");
    json_builder_begin_object (builder);
    json_add_int (builder, "full", (gint64) stats->handshakes_full);
    json_add_int (builder, "resumed", (gint64) stats->handshakes_resumed);
    json_builder_end_object (builder);
    json_add_distribution (builder, "latency_us", stats->latency);
    json_add_distribution (builder, "handshake_us", stats->handshake);
    json_builder_end_object (builder);
}

/*
 * Open-model iterations that were due but found no free user: the count
 * and its share of the iterations due, as the `dropped_iterations` and
 * `dropped_iterations.rate` thresholds read them.
 */
static void
json_add_dropped (JsonBuilder *builder, guint64 dropped, guint64 iterations)
{
    json_add_int (builder, "dropped_iterations", (gint64) dropped);
    json_add_double (builder, "dropped_iterations_rate",
                     dropped > 0 ? (gdouble) dropped / (gdouble) (dropped + iterations) : 0.0);
}

/*
 * The scenario's checks as k6 counts them: each check's passes and fails,
 * and all of them together ("checks": {"passes", "fails", "rate", "list"});
 * `data_exhausted` when its data set ran out.
 */
static void
json_add_checks (JsonBuilder *builder, const ThrongScenarioSummary *scenario)
{
    const ThrongScenarioJourney *journey = throng_journey_get (scenario);
    guint64 passes, fails;

    throng_journey_checks_total (scenario, &passes, &fails);
    json_builder_set_member_name (builder, "checks");
    json_builder_begin_object (builder);
    json_add_int (builder, "passes", (gint64)passes);
    json_add_int (builder, "fails", (gint64)fails);
    json_add_double (builder, "rate",
                     passes + fails > 0 ? (gdouble)passes / (gdouble)(passes + fails) : 1.0);
    json_builder_set_member_name (builder, "list");
    json_builder_begin_array (builder);
    for (guint c = 0; journey != NULL && c < journey->n_checks; c++) {
        const ThrongCheckSummary *check = &journey->checks[c];

        json_builder_begin_object (builder);
        json_add_string (builder, "name", check->name);
        json_add_int (builder, "passes", (gint64)check->passes);
        json_add_int (builder, "fails", (gint64)check->fails);
        json_builder_end_object (builder);
    }
    json_builder_end_array (builder);
    json_builder_end_object (builder);
    json_builder_set_member_name (builder, "data_exhausted");
    json_builder_add_boolean_value (builder, throng_journey_data_exhausted (scenario));
}

/* @targets: in the summary, what each scenario loads (NULL: not known); NULL in intervals. */
/* One scenario's object; @target (nullable) is its protocols' description. */
static void
json_add_scenario (JsonBuilder *builder, const ThrongScenarioSummary *scenario, gdouble seconds,
                   gboolean active, const char *target, gboolean with_target)
{
    json_builder_begin_object (builder);
    json_add_string (builder, "name", scenario->name);
    if (with_target)
        json_add_string (builder, "target", target);
    json_add_int (builder, "users", scenario->users);
    if (active)
        json_add_int (builder, "active_users", scenario->active_users);
    if (active && scenario->has_scheduled) {
        json_add_int (builder, "scheduled_users", scenario->scheduled_users);
        json_add_double (builder, "scheduled_rate", scenario->scheduled_rate);
    }
    json_add_int (builder, "iterations", (gint64) scenario->iterations);
    json_add_dropped (builder, scenario->dropped_iterations, scenario->iterations);
    json_add_stats (builder, "stats", &scenario->stats, seconds,
                    throng_journey_retry_attempts (scenario));
    json_builder_set_member_name (builder, "steps");
    json_builder_begin_array (builder);
    for (guint s = 0; s < scenario->n_steps; s++) {
        const ThrongStepSummary *step = &scenario->steps[s];

        json_builder_begin_object (builder);
        json_add_string (builder, "label", step->label);
        json_add_string (builder, "protocol", step->protocol);
        json_add_string (builder, "kind",
                         throng_step_kind_name (throng_journey_step_kind (scenario, s)));
        json_add_int (builder, "parent", throng_journey_step_parent (scenario, s));
        json_add_int (builder, "depth", throng_journey_step_depth (scenario, s));
        json_add_stats (builder, "stats", &step->stats, seconds,
                        throng_journey_step_retry_attempts (scenario, s));
        json_builder_end_object (builder);
    }
    json_builder_end_array (builder);
    json_add_checks (builder, scenario);
    json_builder_end_object (builder);
}

static void
json_add_scenarios (JsonBuilder *builder, const ThrongSummary *summary, gdouble seconds,
                    gboolean active, const char *const *targets)
{
    json_builder_set_member_name (builder, "scenarios");
    json_builder_begin_array (builder);
    for (guint i = 0; i < summary->n_scenarios; i++)
        json_add_scenario (builder, &summary->scenarios[i], seconds, active,
                           targets != NULL ? targets[i] : NULL, targets != NULL);
    json_builder_end_array (builder);
}

/*
 * `setup` and `teardown`: a scenario's object each, beside the load's
 * scenarios and outside its totals; no rate (one user's one iteration is
 * not a throughput).
 */
static void
json_add_phases (JsonBuilder *builder, const ThrongSummary *summary)
{
    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, teardown))
        return;
    if (summary->setup != NULL) {
        json_builder_set_member_name (builder, "setup");
        json_add_scenario (builder, summary->setup, 0, FALSE, NULL, FALSE);
    }
    if (summary->teardown != NULL) {
        json_builder_set_member_name (builder, "teardown");
        json_add_scenario (builder, summary->teardown, 0, FALSE, NULL, FALSE);
    }
}

static guint
json_n_thresholds (const ThrongSummary *summary)
{
    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, n_thresholds) || summary->thresholds == NULL)
        return 0;
    return summary->n_thresholds;
}

/* How hard throng itself worked: whether its figures describe the target or throng. */
static void
json_add_self (JsonBuilder *builder, const ThrongSummary *summary)
{
    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, saturated))
        return;
    json_add_double (builder, "cpu_share", summary->cpu_share);
    json_add_int (builder, "lag_p99_us", summary->lag_p99_us);
    json_add_int (builder, "loop_delay_max_us", summary->loop_delay_max_us);
    json_builder_set_member_name (builder, "saturated");
    json_builder_add_boolean_value (builder, summary->saturated);
}

/* One shard's own statement ("shard"), or its line of a merged run's "shards". */
static void
json_add_shard_object (JsonBuilder *builder, const ThrongShardSummary *shard, gboolean merged)
{
    json_builder_begin_object (builder);
    json_add_int (builder, "index", shard->index);
    json_add_int (builder, "count", shard->count);
    json_add_string (builder, "plan_sha256", shard->plan_sha256);
    json_add_string (builder, "throng_version", shard->throng_version);
    json_add_time (builder, "start", shard->start_wall_us);
    json_add_int (builder, "start_us", shard->start_wall_us);
    if (shard->start_at_wall_us > 0)
        json_add_time (builder, "start_at", shard->start_at_wall_us);
    else
        json_add_string (builder, "start_at", NULL);
    json_add_double (builder, "late_s", (gdouble) shard->late_us / G_USEC_PER_SEC);
    json_add_string (builder, "clock", shard->clock);
    if (merged) {
        json_add_string (builder, "file", shard->file);
        json_add_int (builder, "requests", (gint64) shard->requests);
        json_add_int (builder, "workers", shard->workers);
        json_builder_set_member_name (builder, "cpu");
        json_builder_begin_object (builder);
        json_add_double (builder, "user_s", (gdouble) shard->cpu_user_us / G_USEC_PER_SEC);
        json_add_double (builder, "system_s", (gdouble) shard->cpu_system_us / G_USEC_PER_SEC);
        json_builder_end_object (builder);
        json_add_double (builder, "cpu_share", shard->cpu_share);
        json_add_int (builder, "lag_p99_us", shard->lag_p99_us);
        json_builder_set_member_name (builder, "saturated");
        json_builder_add_boolean_value (builder, shard->saturated);
    } else {
        json_builder_set_member_name (builder, "thresholds");
        json_builder_begin_array (builder);
        for (const char *const *t = shard->thresholds; t != NULL && *t != NULL; t++)
            json_builder_add_string_value (builder, *t);
        json_builder_end_array (builder);
    }
    json_builder_end_object (builder);
}

/* "shard" in a shard's summary; "partial" and "shards" in a merged one (docs/distributed.md). */
static void
json_add_shards (JsonBuilder *builder, const ThrongSummary *summary)
{
    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, partial))
        return;
    if (summary->shard != NULL) {
        json_builder_set_member_name (builder, "shard");
        json_add_shard_object (builder, summary->shard, FALSE);
    }
    if (summary->shards == NULL)
        return;
    json_builder_set_member_name (builder, "partial");
    json_builder_add_boolean_value (builder, summary->partial);
    json_builder_set_member_name (builder, "shards");
    json_builder_begin_array (builder);
    for (guint i = 0; i < summary->n_shards; i++)
        json_add_shard_object (builder, &summary->shards[i], TRUE);
    json_builder_end_array (builder);
}

/*
 * The plan's own metrics, "metrics": [{"name", "type", "count", "invalid",
 * …}], with what each kind needs to be merged exactly (docs/reporters.md):
 * a trend's histogram holds its values times 1000, like the latencies' µs.
 */
static void
json_add_custom_metrics (JsonBuilder *builder, const ThrongSummary *summary, gdouble seconds)
{
    static const struct {
        const char *name;
        gdouble percentile;
    } percentiles[] = { { "p50", 50 }, { "p90", 90 }, { "p95", 95 }, { "p99", 99 } };
    guint n = THRONG_STRUCT_HAS (summary, ThrongSummary, n_metrics) ? summary->n_metrics : 0;

    json_builder_set_member_name (builder, "metrics");
    json_builder_begin_array (builder);
    for (guint i = 0; i < n; i++) {
        const ThrongCustomMetric *metric = &summary->metrics[i];
        static const char *const kinds[] = { "counter", "gauge", "rate", "trend" };

        json_builder_begin_object (builder);
        json_add_string (builder, "name", metric->name);
        json_add_string (builder, "type",
                         (guint) metric->kind < G_N_ELEMENTS (kinds) ? kinds[metric->kind] : "unknown");
        json_add_int (builder, "count", (gint64) metric->count);
        json_add_int (builder, "invalid", (gint64) metric->invalid);
        json_add_double (builder, "sum", metric->sum);
        json_add_double (builder, "min", metric->min);
        json_add_double (builder, "max", metric->max);
        switch (metric->kind) {
        case THRONG_CUSTOM_COUNTER:
            json_add_double (builder, "rate", seconds > 0 ? metric->sum / seconds : 0);
            break;
        case THRONG_CUSTOM_GAUGE:
            json_add_double (builder, "value", metric->last);
            json_add_int (builder, "value_time_us", metric->last_wall_us);
            break;
        case THRONG_CUSTOM_RATE:
            json_add_int (builder, "trues", (gint64) metric->trues);
            json_add_double (builder, "rate",
                             metric->count > 0 ? (gdouble) metric->trues / (gdouble) metric->count
                                               : 0);
            break;
        case THRONG_CUSTOM_TREND:
        default:
            json_add_double (builder, "mean",
                             metric->count > 0 ? metric->sum / (gdouble) metric->count : 0);
            for (gsize p = 0; p < G_N_ELEMENTS (percentiles); p++)
                json_add_double (builder, percentiles[p].name,
                                 metric->histogram != NULL && metric->count > 0
                                     ? (gdouble) throng_histogram_percentile (
                                           metric->histogram, percentiles[p].percentile)
                                           / THRONG_CUSTOM_TREND_SCALE
                                     : 0);
            if (metric->histogram != NULL) {
                g_autofree char *serialized = throng_histogram_serialize (metric->histogram);
                json_add_string (builder, "histogram", serialized);
            }
            break;
        }
        json_builder_end_object (builder);
    }
    json_builder_end_array (builder);
}

JsonNode *
json_document_summary (const ThrongSummary *summary, const char *type,
                       const char *plan_sha256, const char *const *targets)
{
    g_autofree const char **no_targets = g_new0 (const char *, MAX (summary->n_scenarios, 1));
    g_autoptr (JsonBuilder) builder = json_builder_new ();
    gdouble seconds = (gdouble) summary->elapsed_us / G_USEC_PER_SEC;
    /* Rates over the time the load ran, not over a graceful stop's wait. */
    gdouble load_seconds
        = THRONG_STRUCT_HAS (summary, ThrongSummary, load_us) && summary->load_us > 0
              ? (gdouble)summary->load_us / G_USEC_PER_SEC
              : seconds;
    gint64 cpu_us = summary->cpu_user_us + summary->cpu_system_us;

    json_builder_begin_object (builder);
    if (type != NULL)
        json_add_string (builder, "type", type);
    /* One version for the writer and the SDK's reader: bumped only when a field changes
     * meaning or disappears. */
    json_add_int (builder, "version", THRONG_RUN_FILE_VERSION);
    json_builder_set_member_name (builder, "plan");
    json_builder_begin_object (builder);
    json_add_string (builder, "name", summary->plan_name);
    json_add_string (builder, "file", summary->plan_file);
    json_add_string (builder, "sha256", plan_sha256);
    json_builder_end_object (builder);
    json_add_string (builder, "throng_version", THRONG_VERSION_STRING);
    json_add_time (builder, "start", summary->start_wall_us);
    json_add_time (builder, "end", summary->end_wall_us);
    json_add_double (builder, "duration_s", seconds);
    json_add_double (builder, "load_s", load_seconds);
    json_builder_set_member_name (builder, "interrupted");
    json_builder_add_boolean_value (builder, summary->interrupted);
    json_add_int (builder, "interrupted_iterations",
                  THRONG_STRUCT_HAS (summary, ThrongSummary, interrupted_iterations)
                      ? (gint64) summary->interrupted_iterations : 0);
    json_add_int (builder, "workers", summary->workers);

    json_builder_set_member_name (builder, "cpu");
    json_builder_begin_object (builder);
    json_add_double (builder, "user_s", (gdouble) summary->cpu_user_us / G_USEC_PER_SEC);
    json_add_double (builder, "system_s", (gdouble) summary->cpu_system_us / G_USEC_PER_SEC);
    json_add_double (builder, "per_request_us",
                     summary->total.requests > 0
                         ? (gdouble) cpu_us / (gdouble) summary->total.requests : 0);
    json_builder_end_object (builder);
    json_add_self (builder, summary);

    guint64 dropped = 0, iterations = 0;
    for (guint i = 0; i < summary->n_scenarios; i++) {
        dropped += summary->scenarios[i].dropped_iterations;
        iterations += summary->scenarios[i].iterations;
    }
    json_add_dropped (builder, dropped, iterations);
    json_add_stats (builder, "total", &summary->total, load_seconds,
                    throng_summary_get_retry_attempts (summary));
    json_add_scenarios (builder, summary, load_seconds, FALSE,
                        targets != NULL ? targets : (const char *const *) no_targets);
    json_add_phases (builder, summary);
    json_add_custom_metrics (builder, summary, load_seconds);

    json_builder_set_member_name (builder, "warnings");
    json_builder_begin_array (builder);
    for (const char *const *w = summary->warnings; w != NULL && *w != NULL; w++)
        json_builder_add_string_value (builder, *w);
    json_builder_end_array (builder);

    json_builder_set_member_name (builder, "thresholds");
    json_builder_begin_array (builder);
    for (guint i = 0; i < json_n_thresholds (summary); i++) {
        const ThrongThresholdResult *result = &summary->thresholds[i];

        json_builder_begin_object (builder);
        json_add_string (builder, "expression", result->expression);
        json_add_string (builder, "actual", result->actual);
        json_builder_set_member_name (builder, "passed");
        json_builder_add_boolean_value (builder, result->passed);
        json_builder_end_object (builder);
    }
    json_builder_end_array (builder);
    json_add_int (builder, "samples_dropped",
                  THRONG_STRUCT_HAS (summary, ThrongSummary, samples_dropped)
                      ? (gint64) summary->samples_dropped : 0);
    json_add_shards (builder, summary);
    json_add_capacity (builder, summary);

    json_builder_end_object (builder);
    return json_builder_get_root (builder);
}

JsonNode *
json_document_interval (const ThrongSummary *snapshot)
{
    g_autoptr (JsonBuilder) builder = json_builder_new ();
    gdouble seconds = (gdouble) snapshot->interval_us / G_USEC_PER_SEC;
    guint active = 0;

    for (guint i = 0; i < snapshot->n_scenarios; i++)
        active += snapshot->scenarios[i].active_users;

    json_builder_begin_object (builder);
    json_add_string (builder, "type", "interval");
    /* One version for the writer and the SDK's reader: bumped only when a field changes
     * meaning or disappears. */
    json_add_int (builder, "version", THRONG_RUN_FILE_VERSION);
    json_add_time (builder, "time", snapshot->end_wall_us);
    json_add_double (builder, "elapsed_s", (gdouble) snapshot->elapsed_us / G_USEC_PER_SEC);
    json_add_double (builder, "interval_s", seconds);
    json_add_int (builder, "active_users", active);
    /* Over the interval, like every other figure of the line. */
    json_builder_set_member_name (builder, "cpu");
    json_builder_begin_object (builder);
    json_add_double (builder, "user_s", (gdouble) snapshot->cpu_user_us / G_USEC_PER_SEC);
    json_add_double (builder, "system_s", (gdouble) snapshot->cpu_system_us / G_USEC_PER_SEC);
    json_builder_end_object (builder);
    json_add_self (builder, snapshot);
    json_add_stats (builder, "total", &snapshot->total, seconds,
                    throng_summary_get_retry_attempts (snapshot));
    json_add_scenarios (builder, snapshot, seconds, TRUE, NULL);
    json_add_custom_metrics (builder, snapshot, seconds);
    json_builder_end_object (builder);
    return json_builder_get_root (builder);
}

/* A JSON string; invalid UTF-8 (a peer's reason phrase) is repaired rather than passed on. */
static void
json_append_string (GString *out, const char *text)
{
    if (text == NULL) {
        g_string_append (out, "null");
        return;
    }
    g_autofree char *valid = g_utf8_validate (text, -1, NULL) ? NULL : g_utf8_make_valid (text, -1);
    if (valid != NULL)
        text = valid;

    g_string_append_c (out, '"');
    for (const unsigned char *p = (const unsigned char *) text; *p != '\0'; p++) {
        switch (*p) {
        case '"':
            g_string_append (out, "\\\"");
            break;
        case '\\':
            g_string_append (out, "\\\\");
            break;
        case '\n':
            g_string_append (out, "\\n");
            break;
        case '\r':
            g_string_append (out, "\\r");
            break;
        case '\t':
            g_string_append (out, "\\t");
            break;
        default:
            if (*p < 0x20)
                g_string_append_printf (out, "\\u%04x", *p);
            else
                g_string_append_c (out, (char) *p);
        }
    }
    g_string_append_c (out, '"');
}

/* The seconds part of the time changes once a second; it is formatted once per second. */
static void
json_append_sample_time (GString *out, JsonTimeCache *cache, gint64 wall_us)
{
    gint64 second = wall_us >= 0 ? wall_us / G_USEC_PER_SEC : (wall_us + 1) / G_USEC_PER_SEC - 1;
    int ms = (int) ((wall_us - second * G_USEC_PER_SEC) / 1000);

    if (!cache->valid || cache->second != second) {
        g_autofree char *text = json_document_time (second * G_USEC_PER_SEC);
        /* "YYYY-MM-DDTHH:MM:SS" without ".000Z". */
        g_strlcpy (cache->prefix, text, MIN (sizeof cache->prefix, strlen (text) - 4));
        cache->second = second;
        cache->valid = TRUE;
    }
    g_string_append_c (out, '"');
    g_string_append (out, cache->prefix);
    g_string_append_c (out, '.');
    g_string_append_c (out, (char) ('0' + ms / 100));
    g_string_append_c (out, (char) ('0' + ms / 10 % 10));
    g_string_append_c (out, (char) ('0' + ms % 10));
    g_string_append (out, "Z\"");
}

static void
json_append_member_int (GString *out, const char *name, gint64 value)
{
    g_string_append (out, name);
    output_append_int (out, value);
}

/* Written by hand: a JsonBuilder per sample would cost more than the request it describes. */
void
json_document_append_sample (GString *out, JsonTimeCache *cache, const ThrongSample *sample,
                             const char *scenario, const char *label)
{
    gboolean success = sample->error == THRONG_ERROR_NONE;

    g_string_append (out, "{\"type\":\"sample\",\"time\":");
    json_append_sample_time (out, cache, sample->wall_start_us);
    g_string_append (out, ",\"scenario\":");
    json_append_string (out, scenario);
    g_string_append (out, ",\"step\":");
    json_append_string (out, label);
    json_append_member_int (out, ",\"user\":", sample->user);
    json_append_member_int (out, ",\"iteration\":", sample->iteration);
    json_append_member_int (out, ",\"elapsed_us\":", sample->elapsed_us);
    json_append_member_int (out, ",\"latency_us\":", sample->latency_us);
    json_append_member_int (out, ",\"connect_us\":", sample->connect_us);
    json_append_member_int (out, ",\"tls_us\":", sample->tls_us);
    json_append_member_int (out, ",\"status\":", sample->status);
    g_string_append (out, success ? ",\"success\":true,\"error\":"
                                  : ",\"success\":false,\"error\":");
    json_append_string (out, success ? NULL : throng_error_class_name (sample->error));
    g_string_append (out, ",\"message\":");
    json_append_string (out, sample->message);
    json_append_member_int (out, ",\"bytes_sent\":", (gint64) sample->bytes_sent);
    json_append_member_int (out, ",\"bytes_received\":", (gint64) sample->bytes_received);
    json_append_member_int (out, ",\"connections_opened\":", sample->connections_opened);
    json_append_member_int (out, ",\"handshakes_full\":", sample->handshakes_full);
    json_append_member_int (out, ",\"handshakes_resumed\":", sample->handshakes_resumed);
    g_string_append (out, ",\"url\":");
    json_append_string (out, sample->resource);
    if (sample->protocol != NULL) {
        g_string_append (out, ",\"protocol\":");
        json_append_string (out, sample->protocol);
    }
    /* Present only when true, so the common sample stays as it was. */
    if (sample->flags & THRONG_SAMPLE_NOT_SENT)
        g_string_append (out, ",\"not_sent\":true");
    if (sample->flags & THRONG_SAMPLE_RETRY)
        g_string_append (out, ",\"retry\":true");
    g_string_append_c (out, '}');
}

static void
json_write_indent (GString *out, gboolean pretty, guint depth)
{
    if (!pretty)
        return;
    g_string_append_c (out, '\n');
    for (guint i = 0; i < depth; i++)
        g_string_append (out, "  ");
}

/*
 * Doubles with 15 significant digits, the most that survive a round trip
 * through text unchanged; json-glib's 17 print 0.1 as 0.10000000000000001.
 * A whole number keeps a ".0" so that it still reads as a number with a fraction.
 */
static void
json_write_double (GString *out, gdouble value)
{
    char text[G_ASCII_DTOSTR_BUF_SIZE];

    if (!isfinite (value))
        value = 0;
    g_ascii_formatd (text, sizeof text, "%.15g", value);
    g_string_append (out, text);
    if (strpbrk (text, ".eE") == NULL)
        g_string_append (out, ".0");
}

static void
json_write_node (GString *out, JsonNode *node, gboolean pretty, guint depth)
{
    switch (JSON_NODE_TYPE (node)) {
    case JSON_NODE_OBJECT: {
        JsonObject *object = json_node_get_object (node);
        g_autoptr (GList) members = json_object_get_members (object);
        if (members == NULL) {
            g_string_append (out, "{}");
            break;
        }
        g_string_append_c (out, '{');
        for (GList *m = members; m != NULL; m = m->next) {
            json_write_indent (out, pretty, depth + 1);
            json_append_string (out, m->data);
            g_string_append (out, pretty ? ": " : ":");
            json_write_node (out, json_object_get_member (object, m->data), pretty, depth + 1);
            if (m->next != NULL)
                g_string_append_c (out, ',');
        }
        json_write_indent (out, pretty, depth);
        g_string_append_c (out, '}');
        break;
    }
    case JSON_NODE_ARRAY: {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);
        if (n == 0) {
            g_string_append (out, "[]");
            break;
        }
        g_string_append_c (out, '[');
        for (guint i = 0; i < n; i++) {
            json_write_indent (out, pretty, depth + 1);
            json_write_node (out, json_array_get_element (array, i), pretty, depth + 1);
            if (i + 1 < n)
                g_string_append_c (out, ',');
        }
        json_write_indent (out, pretty, depth);
        g_string_append_c (out, ']');
        break;
    }
    case JSON_NODE_VALUE:
        switch (json_node_get_value_type (node)) {
        case G_TYPE_INT64:
            g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
            break;
        case G_TYPE_DOUBLE:
            json_write_double (out, json_node_get_double (node));
            break;
        case G_TYPE_BOOLEAN:
            g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
            break;
        default:
            json_append_string (out, json_node_get_string (node));
            break;
        }
        break;
    case JSON_NODE_NULL:
        g_string_append (out, "null");
        break;
    }
}

void
json_document_write (GString *out, JsonNode *root, gboolean pretty)
{
    json_write_node (out, root, pretty, 0);
}
