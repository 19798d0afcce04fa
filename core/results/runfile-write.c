/* SPDX-License-Identifier: MIT */
/*
 * The run-file writer (<throng/runfile.h>): the versioned summary
 * document, the jsonl interval and sample objects, and the STATS object
 * they share, as the json reporter writes them and runfile.c reads them
 * back, under the one THRONG_RUN_FILE_VERSION.  docs/reporters.md is the
 * schema; a field changes there, here and in runfile-store.c together.
 */
#include <string.h>
#include <time.h>

#include <throng/throng.h>

#include "jsonwrite-private.h"
#include "runfile-write-private.h"

/* The last second formatted for sample times; zero-initialise. */
typedef struct {
    gboolean valid;
    gint64 second;
    char prefix[32];
} JsonTimeCache;

struct _ThrongRunFileWriter {
    guint n_scenarios;
    char **scenario_names;
    GPtrArray *step_labels;       /* per scenario, a GStrv */
    JsonTimeCache time_cache;
    char *plan_sha256;
    GPtrArray *targets;           /* per scenario, what it loads (NULL: unknown) */
};

/* ISO 8601 in UTC with milliseconds: "2026-12-02T14:20:01.123Z". */
static char *
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
json_add_time (JsonWrite *builder, const char *name, gint64 wall_us)
{
    g_autofree char *text = json_document_time (wall_us);

    jsonwrite_member (builder, name);
    jsonwrite_string (builder, text);
}

/* {"min", "mean", "p50", "p90", "p95", "p99", "max", "histogram"}, all µs. */
static void
json_add_distribution (JsonWrite *builder, const char *name, const ThrongHistogram *histogram)
{
    static const struct {
        const char *name;
        gdouble percentile;
    } percentiles[] = { { "p50", 50 }, { "p90", 90 }, { "p95", 95 }, { "p99", 99 } };

    jsonwrite_member (builder, name);
    jsonwrite_begin_object (builder);
    jsonwrite_member_int (builder, "min", histogram != NULL ? throng_histogram_min (histogram) : 0);
    jsonwrite_member_double (builder, "mean", histogram != NULL ? throng_histogram_mean (histogram) : 0);
    for (gsize i = 0; i < G_N_ELEMENTS (percentiles); i++)
        jsonwrite_member_int (builder, percentiles[i].name,
                      histogram != NULL
                          ? throng_histogram_percentile (histogram, percentiles[i].percentile)
                          : 0);
    jsonwrite_member_int (builder, "max", histogram != NULL ? throng_histogram_max (histogram) : 0);
    g_autofree char *serialized = histogram != NULL ? throng_histogram_serialize (histogram) : NULL;
    jsonwrite_member_string (builder, "histogram", serialized);
    jsonwrite_end_object (builder);
}

/* Only the classes that occurred; slots past the known classes count as "other". */
static void
json_add_errors_by_class (JsonWrite *builder, const ThrongStats *stats)
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

    jsonwrite_member (builder, "errors_by_class");
    jsonwrite_begin_object (builder);
    for (guint i = 0; i < n; i++)
        jsonwrite_member_int (builder, names[i], (gint64) counts[i]);
    jsonwrite_end_object (builder);
}

/*
 * STATS; @seconds is the time the stats cover, for "rps"; @retry_attempts
 * the samples of `retry:` attempts they count.  "not_sent" (since 0.5)
 * also tells a reader that "requests" leaves those out.
 */
static void
json_add_stats (JsonWrite *builder, const char *name, const ThrongStats *stats, gdouble seconds,
                guint64 retry_attempts)
{
    jsonwrite_member (builder, name);
    jsonwrite_begin_object (builder);
    jsonwrite_member_int (builder, "requests", (gint64) stats->requests);
    jsonwrite_member_int (builder, "not_sent", (gint64) throng_stats_get_not_sent (stats));
    jsonwrite_member_int (builder, "errors", (gint64) stats->errors);
    jsonwrite_member_double (builder, "error_rate", throng_stats_get_error_rate (stats));
    json_add_errors_by_class (builder, stats);
    jsonwrite_member_int (builder, "retry_attempts", (gint64) retry_attempts);
    jsonwrite_member_double (builder, "rps", seconds > 0 ? (gdouble) stats->requests / seconds : 0);
    jsonwrite_member_int (builder, "bytes_sent", (gint64) stats->bytes_sent);
    jsonwrite_member_int (builder, "bytes_received", (gint64) stats->bytes_received);
    jsonwrite_member_int (builder, "connections", (gint64) stats->connections);
    jsonwrite_member_int (builder, "retries", (gint64) stats->retries);
    if (stats->n_protocols > 0) {
        jsonwrite_member (builder, "protocols");
        jsonwrite_begin_object (builder);
        for (guint i = 0; i < stats->n_protocols; i++)
            jsonwrite_member_int (builder, stats->protocols[i].name,
                          (gint64) stats->protocols[i].requests);
        jsonwrite_end_object (builder);
    }
    jsonwrite_member (builder, "handshakes");
    jsonwrite_begin_object (builder);
    jsonwrite_member_int (builder, "full", (gint64) stats->handshakes_full);
    jsonwrite_member_int (builder, "resumed", (gint64) stats->handshakes_resumed);
    jsonwrite_end_object (builder);
    json_add_distribution (builder, "latency_us", stats->latency);
    json_add_distribution (builder, "handshake_us", stats->handshake);
    jsonwrite_end_object (builder);
}

/*
 * Open-model iterations that were due but found no free user: the count
 * and its share of the iterations due, as the `dropped_iterations` and
 * `dropped_iterations.rate` thresholds read them.
 */
static void
json_add_dropped (JsonWrite *builder, guint64 dropped, guint64 iterations)
{
    jsonwrite_member_int (builder, "dropped_iterations", (gint64) dropped);
    jsonwrite_member_double (builder, "dropped_iterations_rate",
                     dropped > 0 ? (gdouble) dropped / (gdouble) (dropped + iterations) : 0.0);
}

/*
 * The scenario's checks as k6 counts them: each check's passes and fails,
 * and all of them together ("checks": {"passes", "fails", "rate", "list"});
 * `data_exhausted` when its data set ran out.
 */
static void
json_add_checks (JsonWrite *builder, const ThrongScenarioSummary *scenario)
{
    const ThrongScenarioJourney *journey = throng_journey_get (scenario);
    guint64 passes, fails;

    throng_journey_checks_total (scenario, &passes, &fails);
    jsonwrite_member (builder, "checks");
    jsonwrite_begin_object (builder);
    jsonwrite_member_int (builder, "passes", (gint64)passes);
    jsonwrite_member_int (builder, "fails", (gint64)fails);
    jsonwrite_member_double (builder, "rate",
                     passes + fails > 0 ? (gdouble)passes / (gdouble)(passes + fails) : 1.0);
    jsonwrite_member (builder, "list");
    jsonwrite_begin_array (builder);
    for (guint c = 0; journey != NULL && c < journey->n_checks; c++) {
        const ThrongCheckSummary *check = &journey->checks[c];

        jsonwrite_begin_object (builder);
        jsonwrite_member_string (builder, "name", check->name);
        jsonwrite_member_int (builder, "passes", (gint64)check->passes);
        jsonwrite_member_int (builder, "fails", (gint64)check->fails);
        jsonwrite_end_object (builder);
    }
    jsonwrite_end_array (builder);
    jsonwrite_end_object (builder);
    jsonwrite_member (builder, "data_exhausted");
    jsonwrite_bool (builder, throng_journey_data_exhausted (scenario));
}

/* @targets: in the summary, what each scenario loads (NULL: not known); NULL in intervals. */
/* One scenario's object; @target (nullable) is its protocols' description. */
static void
json_add_scenario (JsonWrite *builder, const ThrongScenarioSummary *scenario, gdouble seconds,
                   gboolean active, const char *target, gboolean with_target)
{
    jsonwrite_begin_object (builder);
    jsonwrite_member_string (builder, "name", scenario->name);
    if (with_target)
        jsonwrite_member_string (builder, "target", target);
    jsonwrite_member_int (builder, "users", scenario->users);
    if (active)
        jsonwrite_member_int (builder, "active_users", scenario->active_users);
    if (active && scenario->has_scheduled) {
        jsonwrite_member_int (builder, "scheduled_users", scenario->scheduled_users);
        jsonwrite_member_double (builder, "scheduled_rate", scenario->scheduled_rate);
    }
    jsonwrite_member_int (builder, "iterations", (gint64) scenario->iterations);
    json_add_dropped (builder, scenario->dropped_iterations, scenario->iterations);
    json_add_stats (builder, "stats", &scenario->stats, seconds,
                    throng_journey_retry_attempts (scenario));
    jsonwrite_member (builder, "steps");
    jsonwrite_begin_array (builder);
    for (guint s = 0; s < scenario->n_steps; s++) {
        const ThrongStepSummary *step = &scenario->steps[s];

        jsonwrite_begin_object (builder);
        jsonwrite_member_string (builder, "label", step->label);
        jsonwrite_member_string (builder, "protocol", step->protocol);
        jsonwrite_member_string (builder, "kind",
                         throng_step_kind_name (throng_journey_step_kind (scenario, s)));
        jsonwrite_member_int (builder, "parent", throng_journey_step_parent (scenario, s));
        jsonwrite_member_int (builder, "depth", throng_journey_step_depth (scenario, s));
        json_add_stats (builder, "stats", &step->stats, seconds,
                        throng_journey_step_retry_attempts (scenario, s));
        jsonwrite_end_object (builder);
    }
    jsonwrite_end_array (builder);
    json_add_checks (builder, scenario);
    jsonwrite_end_object (builder);
}

static void
json_add_scenarios (JsonWrite *builder, const ThrongSummary *summary, gdouble seconds,
                    gboolean active, const char *const *targets)
{
    jsonwrite_member (builder, "scenarios");
    jsonwrite_begin_array (builder);
    for (guint i = 0; i < summary->n_scenarios; i++)
        json_add_scenario (builder, &summary->scenarios[i], seconds, active,
                           targets != NULL ? targets[i] : NULL, targets != NULL);
    jsonwrite_end_array (builder);
}

/*
 * `setup` and `teardown`: a scenario's object each, beside the load's
 * scenarios and outside its totals; no rate (one user's one iteration is
 * not a throughput).
 */
static void
json_add_phases (JsonWrite *builder, const ThrongSummary *summary)
{
    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, teardown))
        return;
    if (summary->setup != NULL) {
        jsonwrite_member (builder, "setup");
        json_add_scenario (builder, summary->setup, 0, FALSE, NULL, FALSE);
    }
    if (summary->teardown != NULL) {
        jsonwrite_member (builder, "teardown");
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
json_add_self (JsonWrite *builder, const ThrongSummary *summary)
{
    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, saturated))
        return;
    jsonwrite_member_double (builder, "cpu_share", summary->cpu_share);
    jsonwrite_member_int (builder, "lag_p99_us", summary->lag_p99_us);
    jsonwrite_member_int (builder, "loop_delay_max_us", summary->loop_delay_max_us);
    jsonwrite_member (builder, "saturated");
    jsonwrite_bool (builder, summary->saturated);
}

/* One shard's own statement ("shard"), or its line of a merged run's "shards". */
static void
json_add_shard_object (JsonWrite *builder, const ThrongShardSummary *shard, gboolean merged)
{
    jsonwrite_begin_object (builder);
    jsonwrite_member_int (builder, "index", shard->index);
    jsonwrite_member_int (builder, "count", shard->count);
    jsonwrite_member_string (builder, "plan_sha256", shard->plan_sha256);
    jsonwrite_member_string (builder, "throng_version", shard->throng_version);
    json_add_time (builder, "start", shard->start_wall_us);
    jsonwrite_member_int (builder, "start_us", shard->start_wall_us);
    if (shard->start_at_wall_us > 0)
        json_add_time (builder, "start_at", shard->start_at_wall_us);
    else
        jsonwrite_member_string (builder, "start_at", NULL);
    jsonwrite_member_double (builder, "late_s", (gdouble) shard->late_us / G_USEC_PER_SEC);
    jsonwrite_member_string (builder, "clock", shard->clock);
    if (merged) {
        jsonwrite_member_string (builder, "file", shard->file);
        jsonwrite_member_int (builder, "requests", (gint64) shard->requests);
        jsonwrite_member_int (builder, "workers", shard->workers);
        jsonwrite_member (builder, "cpu");
        jsonwrite_begin_object (builder);
        jsonwrite_member_double (builder, "user_s", (gdouble) shard->cpu_user_us / G_USEC_PER_SEC);
        jsonwrite_member_double (builder, "system_s", (gdouble) shard->cpu_system_us / G_USEC_PER_SEC);
        jsonwrite_end_object (builder);
        jsonwrite_member_double (builder, "cpu_share", shard->cpu_share);
        jsonwrite_member_int (builder, "lag_p99_us", shard->lag_p99_us);
        jsonwrite_member (builder, "saturated");
        jsonwrite_bool (builder, shard->saturated);
    } else {
        jsonwrite_member (builder, "thresholds");
        jsonwrite_begin_array (builder);
        for (const char *const *t = shard->thresholds; t != NULL && *t != NULL; t++)
            jsonwrite_string (builder, *t);
        jsonwrite_end_array (builder);
    }
    jsonwrite_end_object (builder);
}

/* "shard" in a shard's summary; "partial" and "shards" in a merged one (docs/distributed.md). */
static void
json_add_shards (JsonWrite *builder, const ThrongSummary *summary)
{
    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, partial))
        return;
    if (summary->shard != NULL) {
        jsonwrite_member (builder, "shard");
        json_add_shard_object (builder, summary->shard, FALSE);
    }
    if (summary->shards == NULL)
        return;
    jsonwrite_member (builder, "partial");
    jsonwrite_bool (builder, summary->partial);
    jsonwrite_member (builder, "shards");
    jsonwrite_begin_array (builder);
    for (guint i = 0; i < summary->n_shards; i++)
        json_add_shard_object (builder, &summary->shards[i], TRUE);
    jsonwrite_end_array (builder);
}

/*
 * The plan's own metrics, "metrics": [{"name", "type", "count", "invalid",
 * …}], with what each kind needs to be merged exactly (docs/reporters.md):
 * a trend's histogram holds its values times 1000, like the latencies' µs.
 */
static void
json_add_custom_metrics (JsonWrite *builder, const ThrongSummary *summary, gdouble seconds)
{
    static const struct {
        const char *name;
        gdouble percentile;
    } percentiles[] = { { "p50", 50 }, { "p90", 90 }, { "p95", 95 }, { "p99", 99 } };
    guint n = THRONG_STRUCT_HAS (summary, ThrongSummary, n_metrics) ? summary->n_metrics : 0;

    jsonwrite_member (builder, "metrics");
    jsonwrite_begin_array (builder);
    for (guint i = 0; i < n; i++) {
        const ThrongCustomMetric *metric = &summary->metrics[i];
        static const char *const kinds[] = { "counter", "gauge", "rate", "trend" };

        jsonwrite_begin_object (builder);
        jsonwrite_member_string (builder, "name", metric->name);
        jsonwrite_member_string (builder, "type",
                         (guint) metric->kind < G_N_ELEMENTS (kinds) ? kinds[metric->kind] : "unknown");
        jsonwrite_member_int (builder, "count", (gint64) metric->count);
        jsonwrite_member_int (builder, "invalid", (gint64) metric->invalid);
        jsonwrite_member_double (builder, "sum", metric->sum);
        jsonwrite_member_double (builder, "min", metric->min);
        jsonwrite_member_double (builder, "max", metric->max);
        switch (metric->kind) {
        case THRONG_CUSTOM_COUNTER:
            jsonwrite_member_double (builder, "rate", seconds > 0 ? metric->sum / seconds : 0);
            break;
        case THRONG_CUSTOM_GAUGE:
            jsonwrite_member_double (builder, "value", metric->last);
            jsonwrite_member_int (builder, "value_time_us", metric->last_wall_us);
            break;
        case THRONG_CUSTOM_RATE:
            jsonwrite_member_int (builder, "trues", (gint64) metric->trues);
            jsonwrite_member_double (builder, "rate",
                             metric->count > 0 ? (gdouble) metric->trues / (gdouble) metric->count
                                               : 0);
            break;
        case THRONG_CUSTOM_TREND:
        default:
            jsonwrite_member_double (builder, "mean",
                             metric->count > 0 ? metric->sum / (gdouble) metric->count : 0);
            for (gsize p = 0; p < G_N_ELEMENTS (percentiles); p++)
                jsonwrite_member_double (builder, percentiles[p].name,
                                 metric->histogram != NULL && metric->count > 0
                                     ? (gdouble) throng_histogram_percentile (
                                           metric->histogram, percentiles[p].percentile)
                                           / THRONG_CUSTOM_TREND_SCALE
                                     : 0);
            if (metric->histogram != NULL) {
                g_autofree char *serialized = throng_histogram_serialize (metric->histogram);
                jsonwrite_member_string (builder, "histogram", serialized);
            }
            break;
        }
        jsonwrite_end_object (builder);
    }
    jsonwrite_end_array (builder);
}

/*
 * The summary document of docs/reporters.md.  @type, when not NULL, is
 * written first as "type" (the jsonl mode's "summary" line).  @plan_sha256
 * (may be NULL) is the plan file's hash, written as plan.sha256.  @targets
 * (may be NULL, as may each of its n_scenarios elements) is what each
 * scenario loads, written as scenarios[].target.
 */
static void
json_document_summary (JsonWrite *builder, const ThrongSummary *summary, const char *type,
                       const char *plan_sha256, const char *const *targets)
{
    g_autofree const char **no_targets = g_new0 (const char *, MAX (summary->n_scenarios, 1));
    gdouble seconds = (gdouble) summary->elapsed_us / G_USEC_PER_SEC;
    /* Rates over the time the load ran, not over a graceful stop's wait. */
    gdouble load_seconds
        = THRONG_STRUCT_HAS (summary, ThrongSummary, load_us) && summary->load_us > 0
              ? (gdouble)summary->load_us / G_USEC_PER_SEC
              : seconds;
    gint64 cpu_us = summary->cpu_user_us + summary->cpu_system_us;

    jsonwrite_begin_object (builder);
    if (type != NULL)
        jsonwrite_member_string (builder, "type", type);
    /* One version for the writer and the SDK's reader: bumped only when a field changes
     * meaning or disappears. */
    jsonwrite_member_int (builder, "version", THRONG_RUN_FILE_VERSION);
    jsonwrite_member (builder, "plan");
    jsonwrite_begin_object (builder);
    jsonwrite_member_string (builder, "name", summary->plan_name);
    jsonwrite_member_string (builder, "file", summary->plan_file);
    jsonwrite_member_string (builder, "sha256", plan_sha256);
    jsonwrite_end_object (builder);
    jsonwrite_member_string (builder, "throng_version", THRONG_VERSION_STRING);
    json_add_time (builder, "start", summary->start_wall_us);
    json_add_time (builder, "end", summary->end_wall_us);
    jsonwrite_member_double (builder, "duration_s", seconds);
    jsonwrite_member_double (builder, "load_s", load_seconds);
    jsonwrite_member (builder, "interrupted");
    jsonwrite_bool (builder, summary->interrupted);
    jsonwrite_member_int (builder, "interrupted_iterations",
                  THRONG_STRUCT_HAS (summary, ThrongSummary, interrupted_iterations)
                      ? (gint64) summary->interrupted_iterations : 0);
    jsonwrite_member_int (builder, "workers", summary->workers);

    jsonwrite_member (builder, "cpu");
    jsonwrite_begin_object (builder);
    jsonwrite_member_double (builder, "user_s", (gdouble) summary->cpu_user_us / G_USEC_PER_SEC);
    jsonwrite_member_double (builder, "system_s", (gdouble) summary->cpu_system_us / G_USEC_PER_SEC);
    jsonwrite_member_double (builder, "per_request_us",
                     summary->total.requests > 0
                         ? (gdouble) cpu_us / (gdouble) summary->total.requests : 0);
    jsonwrite_end_object (builder);
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

    jsonwrite_member (builder, "warnings");
    jsonwrite_begin_array (builder);
    for (const char *const *w = summary->warnings; w != NULL && *w != NULL; w++)
        jsonwrite_string (builder, *w);
    jsonwrite_end_array (builder);

    jsonwrite_member (builder, "thresholds");
    jsonwrite_begin_array (builder);
    for (guint i = 0; i < json_n_thresholds (summary); i++) {
        const ThrongThresholdResult *result = &summary->thresholds[i];

        jsonwrite_begin_object (builder);
        jsonwrite_member_string (builder, "expression", result->expression);
        jsonwrite_member_string (builder, "actual", result->actual);
        jsonwrite_member (builder, "passed");
        jsonwrite_bool (builder, result->passed);
        jsonwrite_end_object (builder);
    }
    jsonwrite_end_array (builder);
    jsonwrite_member_int (builder, "samples_dropped",
                  THRONG_STRUCT_HAS (summary, ThrongSummary, samples_dropped)
                      ? (gint64) summary->samples_dropped : 0);
    json_add_shards (builder, summary);
    throng_runfile_write_capacity (builder, summary);

    jsonwrite_end_object (builder);
}

/* One jsonl "interval" object: the stats of the snapshot's interval. */
static void
json_document_interval (JsonWrite *builder, const ThrongSummary *snapshot)
{
    gdouble seconds = (gdouble) snapshot->interval_us / G_USEC_PER_SEC;
    guint active = 0;

    for (guint i = 0; i < snapshot->n_scenarios; i++)
        active += snapshot->scenarios[i].active_users;

    jsonwrite_begin_object (builder);
    jsonwrite_member_string (builder, "type", "interval");
    /* One version for the writer and the SDK's reader: bumped only when a field changes
     * meaning or disappears. */
    jsonwrite_member_int (builder, "version", THRONG_RUN_FILE_VERSION);
    json_add_time (builder, "time", snapshot->end_wall_us);
    jsonwrite_member_double (builder, "elapsed_s", (gdouble) snapshot->elapsed_us / G_USEC_PER_SEC);
    jsonwrite_member_double (builder, "interval_s", seconds);
    jsonwrite_member_int (builder, "active_users", active);
    /* Over the interval, like every other figure of the line. */
    jsonwrite_member (builder, "cpu");
    jsonwrite_begin_object (builder);
    jsonwrite_member_double (builder, "user_s", (gdouble) snapshot->cpu_user_us / G_USEC_PER_SEC);
    jsonwrite_member_double (builder, "system_s", (gdouble) snapshot->cpu_system_us / G_USEC_PER_SEC);
    jsonwrite_end_object (builder);
    json_add_self (builder, snapshot);
    json_add_stats (builder, "total", &snapshot->total, seconds,
                    throng_summary_get_retry_attempts (snapshot));
    json_add_scenarios (builder, snapshot, seconds, TRUE, NULL);
    json_add_custom_metrics (builder, snapshot, seconds);
    jsonwrite_end_object (builder);
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
    jsonwrite_append_int (out, value);
}

/* Written by hand: a tree per sample would cost more than the request it describes. */
static void
json_document_append_sample (GString *out, JsonTimeCache *cache, const ThrongSample *sample,
                             const char *scenario, const char *label)
{
    gboolean success = sample->error == THRONG_ERROR_NONE;

    g_string_append (out, "{\"type\":\"sample\",\"time\":");
    json_append_sample_time (out, cache, sample->wall_start_us);
    g_string_append (out, ",\"scenario\":");
    jsonwrite_append_string (out, scenario);
    g_string_append (out, ",\"step\":");
    jsonwrite_append_string (out, label);
    /* The step's index: two steps of a scenario may share a label. */
    json_append_member_int (out, ",\"step_id\":", sample->step);
    json_append_member_int (out, ",\"user\":", sample->user);
    json_append_member_int (out, ",\"iteration\":", sample->iteration);
    json_append_member_int (out, ",\"elapsed_us\":", sample->elapsed_us);
    json_append_member_int (out, ",\"latency_us\":", sample->latency_us);
    json_append_member_int (out, ",\"connect_us\":", sample->connect_us);
    json_append_member_int (out, ",\"tls_us\":", sample->tls_us);
    json_append_member_int (out, ",\"status\":", sample->status);
    g_string_append (out, success ? ",\"success\":true,\"error\":"
                                  : ",\"success\":false,\"error\":");
    jsonwrite_append_string (out, success ? NULL : throng_error_class_name (sample->error));
    g_string_append (out, ",\"message\":");
    jsonwrite_append_string (out, sample->message);
    json_append_member_int (out, ",\"bytes_sent\":", (gint64) sample->bytes_sent);
    json_append_member_int (out, ",\"bytes_received\":", (gint64) sample->bytes_received);
    json_append_member_int (out, ",\"connections_opened\":", sample->connections_opened);
    json_append_member_int (out, ",\"handshakes_full\":", sample->handshakes_full);
    json_append_member_int (out, ",\"handshakes_resumed\":", sample->handshakes_resumed);
    g_string_append (out, ",\"url\":");
    jsonwrite_append_string (out, sample->resource);
    if (sample->protocol != NULL) {
        g_string_append (out, ",\"protocol\":");
        jsonwrite_append_string (out, sample->protocol);
    }
    /* Present only when true, so the common sample stays as it was. */
    if (sample->flags & THRONG_SAMPLE_NOT_SENT)
        g_string_append (out, ",\"not_sent\":true");
    if (sample->flags & THRONG_SAMPLE_RETRY)
        g_string_append (out, ",\"retry\":true");
    g_string_append_c (out, '}');
}


/* ---- the writer ---------------------------------------------------------- */

ThrongRunFileWriter *
throng_run_file_writer_new (const ThrongRunInfo *run)
{
    ThrongRunFileWriter *writer = g_new0 (ThrongRunFileWriter, 1);
    guint n = run != NULL ? run->n_scenarios : 0;

    /* The core hashes the plan as it loaded it; written as null when it could not. */
    if (run != NULL && THRONG_STRUCT_HAS (run, ThrongRunInfo, plan_sha256))
        writer->plan_sha256 = g_strdup (run->plan_sha256);
    writer->n_scenarios = n;
    writer->scenario_names = g_new0 (char *, n + 1);
    writer->step_labels = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
    writer->targets = g_ptr_array_new_with_free_func (g_free);
    gboolean targets = run != NULL && THRONG_STRUCT_HAS (run, ThrongRunInfo, scenario_targets)
                       && run->scenario_targets != NULL;
    for (guint i = 0; i < n; i++) {
        writer->scenario_names[i] = g_strdup (run->scenario_names[i]);
        g_ptr_array_add (writer->step_labels, g_strdupv ((char **) run->step_labels[i]));
        g_ptr_array_add (writer->targets, g_strdup (targets ? run->scenario_targets[i] : NULL));
    }
    return writer;
}

void
throng_run_file_writer_free (ThrongRunFileWriter *writer)
{
    if (writer == NULL)
        return;
    g_strfreev (writer->scenario_names);
    g_ptr_array_unref (writer->step_labels);
    g_free (writer->plan_sha256);
    g_ptr_array_unref (writer->targets);
    g_free (writer);
}

void
throng_run_file_writer_append_sample (ThrongRunFileWriter *writer, GString *out,
                                      const ThrongSample *sample)
{
    const char *scenario = NULL;
    const char *label = NULL;

    g_return_if_fail (writer != NULL);
    g_return_if_fail (out != NULL);
    g_return_if_fail (sample != NULL);

    if (sample->scenario < writer->n_scenarios) {
        char **labels = g_ptr_array_index (writer->step_labels, sample->scenario);
        scenario = writer->scenario_names[sample->scenario];
        if (labels != NULL && sample->step < g_strv_length (labels))
            label = labels[sample->step];
    }
    json_document_append_sample (out, &writer->time_cache, sample, scenario, label);
    g_string_append_c (out, '\n');
}

void
throng_run_file_writer_append_interval (ThrongRunFileWriter *writer, GString *out,
                                        const ThrongSummary *snapshot)
{
    JsonWrite write;

    g_return_if_fail (writer != NULL);
    g_return_if_fail (out != NULL);
    g_return_if_fail (snapshot != NULL);

    jsonwrite_init (&write, out, FALSE);
    json_document_interval (&write, snapshot);
    g_string_append_c (out, '\n');
}

void
throng_run_file_writer_append_summary (ThrongRunFileWriter *writer, GString *out,
                                       const ThrongSummary *summary, ThrongRunFileLayout layout)
{
    gboolean line = layout == THRONG_RUN_FILE_LINE;
    JsonWrite write;

    g_return_if_fail (writer != NULL);
    g_return_if_fail (out != NULL);
    g_return_if_fail (summary != NULL);

    /* The summary's scenarios are the run's, as open announced them. */
    const char *const *targets = writer->targets->len >= summary->n_scenarios
                                     ? (const char *const *) writer->targets->pdata : NULL;
    jsonwrite_init (&write, out, !line);
    json_document_summary (&write, summary, line ? "summary" : NULL, writer->plan_sha256, targets);
    g_string_append_c (out, '\n');
}
