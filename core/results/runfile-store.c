/* SPDX-License-Identifier: MIT */
/*
 * Summary and interval lines read into stores (runfile-store-private.h).
 * Members are read leniently: one a newer writer dropped, or an older one
 * never wrote, reads as 0 or NULL, so that a file of any version this
 * throng knows is drawn with what it has.
 */
#include "runfile-store-private.h"

#include <math.h>
#include <string.h>

#include "metrics.h"
#include "custom-metric-private.h"

/* What the member readers read from: the parsed line, where strings go. */
typedef struct {
    const JsonToks *toks;
    GStringChunk *strings;
    GString *scratch;
} Reader;

/* --- members, leniently: a missing or mistyped member reads as 0 or NULL ------------------- */

static gint
member (const Reader *r, gint object, const char *name)
{
    return jsontok_member (r->toks, object, name);
}

static gdouble
member_double (const Reader *r, gint object, const char *name)
{
    return jsontok_double (r->toks, member (r, object, name));
}

static gint64
member_int (const Reader *r, gint object, const char *name)
{
    return jsontok_int (r->toks, member (r, object, name));
}

static const char *
member_string (const Reader *r, gint object, const char *name)
{
    return jsontok_string (r->toks, member (r, object, name), r->strings);
}

/*
 * A name the SDK promises reporters (a scenario's, a step's label, a
 * check's): a file without it names it by its place, "scenario 2".
 */
static const char *
member_name (const Reader *r, gint object, const char *name, const char *what, guint index)
{
    const char *text = member_string (r, object, name);

    if (text != NULL)
        return text;
    g_autofree char *placeholder = g_strdup_printf ("%s %u", what, index + 1);
    return g_string_chunk_insert (r->strings, placeholder);
}

static gboolean
member_bool (const Reader *r, gint object, const char *name)
{
    return jsontok_bool (r->toks, member (r, object, name));
}

/* Seconds as written with 15 significant digits, back to the exact microseconds. */
static gint64
member_us (const Reader *r, gint object, const char *name)
{
    return (gint64) llround (member_double (r, object, name) * G_USEC_PER_SEC);
}

/* A string only needed during the call (a histogram, a time): not kept. */
static const char *
member_scratch (const Reader *r, gint object, const char *name)
{
    gint index = member (r, object, name);

    if (index < 0 || g_array_index (r->toks->toks, JsonTok, index).type != JSONTOK_STRING)
        return NULL;
    const JsonTok *tok = &g_array_index (r->toks->toks, JsonTok, index);
    g_string_truncate (r->scratch, 0);
    g_string_append_len (r->scratch, r->toks->text + tok->start, tok->end - tok->start);
    return r->scratch->str;
}

static gint64
member_time (const Reader *r, gint object, const char *name)
{
    const char *text = member_scratch (r, object, name);
    g_autoptr (GDateTime) time = text != NULL ? g_date_time_new_from_iso8601 (text, NULL) : NULL;
    if (time == NULL)
        return 0;
    return g_date_time_to_unix (time) * G_USEC_PER_SEC + g_date_time_get_microsecond (time);
}

/* --- summaries ------------------------------------------------------------------- */

static ThrongErrorClass
error_class_from_name (const char *name)
{
    for (guint c = THRONG_ERROR_NONE + 1; c < THRONG_ERROR_CLASS_SLOTS; c++)
        if (strcmp (throng_error_class_name ((ThrongErrorClass) c), name) == 0)
            return (ThrongErrorClass) c;
    return THRONG_ERROR_OTHER;
}

static ThrongHistogram *
read_histogram (const Reader *r, gint stats, const char *name)
{
    const char *text = member_scratch (r, member (r, stats, name), "histogram");
    ThrongHistogram *histogram = text != NULL ? throng_histogram_deserialize (text, NULL) : NULL;
    return histogram != NULL ? histogram : throng_histogram_new ();
}

/* "protocols": {"h2": N, ...}, absent before 0.4; names interned, as the stats keep them. */
static void
read_protocols (const Reader *r, gint protocols, ThrongStats *stats)
{
    guint key = (guint) protocols + 1;

    if (protocols < 0 || g_array_index (r->toks->toks, JsonTok, protocols).type != JSONTOK_OBJECT)
        return;
    for (guint i = 0; i < jsontok_length (r->toks, protocols); i++) {
        const JsonTok *key_tok = &g_array_index (r->toks->toks, JsonTok, key);
        g_string_truncate (r->scratch, 0);
        g_string_append_len (r->scratch, r->toks->text + key_tok->start,
                             key_tok->end - key_tok->start);
        throng_stats_add_protocol (stats, g_intern_string (r->scratch->str),
                                   (guint64) jsontok_int (r->toks, (gint) key + 1));
        key = g_array_index (r->toks->toks, JsonTok, key + 1).next;
    }
}

static void
read_stats (const Reader *r, gint object, ThrongStats *stats)
{
    memset (stats, 0, sizeof *stats);
    stats->requests = (guint64) member_int (r, object, "requests");
    stats->errors = (guint64) member_int (r, object, "errors");
    gint classes = member (r, object, "errors_by_class");
    guint key = (guint) classes + 1;
    for (guint i = 0; i < jsontok_length (r->toks, classes); i++) {
        const JsonTok *key_tok = &g_array_index (r->toks->toks, JsonTok, key);
        g_string_truncate (r->scratch, 0);
        g_string_append_len (r->scratch, r->toks->text + key_tok->start,
                             key_tok->end - key_tok->start);
        stats->errors_by_class[error_class_from_name (r->scratch->str)] +=
            (guint64) jsontok_int (r->toks, (gint) key + 1);
        key = g_array_index (r->toks->toks, JsonTok, key + 1).next;
    }
    stats->bytes_sent = (guint64) member_int (r, object, "bytes_sent");
    stats->bytes_received = (guint64) member_int (r, object, "bytes_received");
    stats->connections = (guint64) member_int (r, object, "connections");
    stats->retries = (guint64) member_int (r, object, "retries");
    /* Before 0.5 (no "not_sent") the steps that never went out were among the requests. */
    if (object >= 0 && member (r, object, "not_sent") < 0)
        stats->requests -= MIN (stats->requests, throng_stats_get_not_sent (stats));
    gint handshakes = member (r, object, "handshakes");
    stats->handshakes_full = (guint64) member_int (r, handshakes, "full");
    stats->handshakes_resumed = (guint64) member_int (r, handshakes, "resumed");
    read_protocols (r, member (r, object, "protocols"), stats);
    stats->latency = read_histogram (r, object, "latency_us");
    stats->handshake = read_histogram (r, object, "handshake_us");
}

void
throng_run_store_clear (RunStore *store)
{
    if (store->strings == NULL)
        return;
    throng_stats_clear (&store->summary.total);
    for (guint i = 0; i < store->scenarios->len; i++)
        throng_stats_clear (&g_array_index (store->scenarios, ThrongScenarioSummary, i).stats);
    for (guint i = 0; i < store->steps->len; i++)
        throng_stats_clear (&g_array_index (store->steps, ThrongStepSummary, i).stats);
    g_array_unref (store->scenarios);
    g_array_unref (store->steps);
    g_ptr_array_unref (store->warnings);
    g_array_unref (store->thresholds);
    g_ptr_array_unref (store->targets);
    g_array_unref (store->journeys);
    g_array_unref (store->checks);
    g_array_unref (store->step_info);
    g_array_unref (store->retry_attempts);
    g_clear_pointer (&store->shard_thresholds, g_ptr_array_unref);
    g_clear_pointer (&store->shards, g_array_unref);
    for (guint i = 0; i < store->custom->len; i++)
        throng_custom_metric_clear (&g_array_index (store->custom, ThrongCustomMetric, i));
    g_array_unref (store->custom);
    g_clear_pointer (&store->capacity_levels, g_array_unref);
    g_clear_pointer (&store->capacity_objectives, g_ptr_array_unref);
    g_string_chunk_free (store->strings);
    memset (store, 0, sizeof *store);
}

/* A "shard" object, or an element of "shards" (docs/distributed.md). */
static void
read_shard (const Reader *r, gint object, ThrongShardSummary *shard)
{
    memset (shard, 0, sizeof *shard);
    shard->size = sizeof (ThrongShardSummary);
    shard->index = (guint) member_int (r, object, "index");
    shard->count = (guint) member_int (r, object, "count");
    shard->plan_sha256 = member_string (r, object, "plan_sha256");
    shard->throng_version = member_string (r, object, "throng_version");
    shard->start_wall_us = member_int (r, object, "start_us");
    shard->start_at_wall_us = member_time (r, object, "start_at");
    shard->late_us = member_us (r, object, "late_s");
    shard->clock = member_string (r, object, "clock");
    shard->file = member_string (r, object, "file");
    shard->requests = (guint64) member_int (r, object, "requests");
    shard->workers = (guint) member_int (r, object, "workers");
    gint cpu = member (r, object, "cpu");
    shard->cpu_user_us = member_us (r, cpu, "user_s");
    shard->cpu_system_us = member_us (r, cpu, "system_s");
    shard->cpu_share = member_double (r, object, "cpu_share");
    shard->lag_p99_us = member_int (r, object, "lag_p99_us");
    shard->saturated = member_bool (r, object, "saturated");
}

/* A summary's "shard", "partial" and "shards", present since 0.3 in distributed runs. */
static void
read_shards (const Reader *r, RunStore *store)
{
    ThrongSummary *summary = &store->summary;
    gint shard = member (r, 0, "shard");

    if (shard >= 0 && g_array_index (r->toks->toks, JsonTok, shard).type == JSONTOK_OBJECT) {
        read_shard (r, shard, &store->shard);
        store->shard_thresholds = g_ptr_array_new ();
        gint thresholds = member (r, shard, "thresholds");
        for (guint i = 0; i < jsontok_length (r->toks, thresholds); i++) {
            const char *text = jsontok_string (r->toks, jsontok_element (r->toks, thresholds, i),
                                               store->strings);
            if (text != NULL)
                g_ptr_array_add (store->shard_thresholds, (gpointer) text);
        }
        g_ptr_array_add (store->shard_thresholds, NULL);
        store->shard.thresholds = (const char *const *) store->shard_thresholds->pdata;
        summary->shard = &store->shard;
    }
    gint shards = member (r, 0, "shards");
    if (jsontok_length (r->toks, shards) > 0) {
        store->shards = g_array_new (FALSE, TRUE, sizeof (ThrongShardSummary));
        g_array_set_size (store->shards, jsontok_length (r->toks, shards));
        for (guint i = 0; i < store->shards->len; i++)
            read_shard (r, jsontok_element (r->toks, shards, i),
                        &g_array_index (store->shards, ThrongShardSummary, i));
        summary->shards = (const ThrongShardSummary *) store->shards->data;
        summary->n_shards = store->shards->len;
        summary->partial = member_bool (r, 0, "partial");
    }
}

/*
 * The plan's own "metrics" (absent before 0.5): every figure they merge
 * by, a trend's histogram exactly; a type this throng does not know is
 * skipped, since its figures would be read as another kind's.
 */
static void
read_custom (const Reader *r, RunStore *store)
{
    gint metrics = member (r, 0, "metrics");

    for (guint i = 0; i < jsontok_length (r->toks, metrics); i++) {
        gint object = jsontok_element (r->toks, metrics, i);
        const char *type = member_scratch (r, object, "type");
        gint kind = type != NULL ? throng_custom_kind_from_name (type) : -1;
        ThrongCustomMetric metric;

        if (kind < 0)
            continue;
        throng_custom_metric_init (&metric, member_name (r, object, "name", "metric", i),
                                   (ThrongCustomMetricKind) kind);
        metric.count = (guint64) member_int (r, object, "count");
        metric.invalid = (guint64) member_int (r, object, "invalid");
        metric.sum = member_double (r, object, "sum");
        metric.min = member_double (r, object, "min");
        metric.max = member_double (r, object, "max");
        metric.last = member_double (r, object, "value");
        metric.last_wall_us = member_int (r, object, "value_time_us");
        metric.trues = (guint64) member_int (r, object, "trues");
        if (metric.histogram != NULL) {
            const char *text = member_scratch (r, object, "histogram");
            ThrongHistogram *histogram
                = text != NULL ? throng_histogram_deserialize (text, NULL) : NULL;
            if (histogram != NULL) {
                throng_histogram_free (metric.histogram);
                metric.histogram = histogram;
            }
        }
        g_array_append_val (store->custom, metric);
    }
    store->summary.metrics = store->custom->len > 0 ? (const ThrongCustomMetric *) store->custom->data
                                                     : NULL;
    store->summary.n_metrics = store->custom->len;
}

/* A summary's "capacity" (since 0.6, docs/capacity.md): what a capacity search found. */
static void
read_capacity (const Reader *r, RunStore *store)
{
    static const char *const outcomes[] = {
        [THRONG_CAPACITY_FOUND] = "found",
        [THRONG_CAPACITY_ABOVE_MAX] = "above-max",
        [THRONG_CAPACITY_BELOW_START] = "below-start",
        [THRONG_CAPACITY_GENERATOR_LIMIT] = "generator-limit",
        [THRONG_CAPACITY_INCOMPLETE] = "incomplete",
    };
    ThrongCapacityResult *result = &store->capacity;
    gint object = member (r, 0, "capacity");

    if (object < 0 || g_array_index (r->toks->toks, JsonTok, object).type != JSONTOK_OBJECT)
        return;
    result->size = sizeof *result;
    result->scenario = member_name (r, object, "scenario", "scenario", 0);
    const char *outcome = member_scratch (r, object, "outcome");
    result->outcome = THRONG_CAPACITY_INCOMPLETE;
    for (guint i = 0; outcome != NULL && i < G_N_ELEMENTS (outcomes); i++)
        if (strcmp (outcome, outcomes[i]) == 0)
            result->outcome = (ThrongCapacityOutcome) i;
    result->rate = member_double (r, object, "rate");
    result->failing_rate = member_double (r, object, "failing_rate");
    result->generator_limit = member_double (r, object, "generator_limit");
    result->message = member_string (r, object, "message");
    store->capacity_objectives = g_ptr_array_new ();
    gint objectives = member (r, object, "objectives");
    for (guint i = 0; i < jsontok_length (r->toks, objectives); i++) {
        const char *text = jsontok_string (r->toks, jsontok_element (r->toks, objectives, i),
                                           r->strings);
        if (text != NULL)
            g_ptr_array_add (store->capacity_objectives, (gpointer) text);
    }
    g_ptr_array_add (store->capacity_objectives, NULL);
    result->objectives = (const char *const *) store->capacity_objectives->pdata;
    store->capacity_levels = g_array_new (FALSE, TRUE, sizeof (ThrongCapacityLevel));
    gint curve = member (r, object, "curve");
    for (guint i = 0; i < jsontok_length (r->toks, curve); i++) {
        gint point = jsontok_element (r->toks, curve, i);
        ThrongCapacityLevel level = {
            .rate = member_double (r, point, "rate"),
            .start_us = member_us (r, point, "start_s"),
            .window_us = member_us (r, point, "window_s"),
            .requests = (guint64) member_int (r, point, "requests"),
            .errors = (guint64) member_int (r, point, "errors"),
            .error_rate = member_double (r, point, "error_rate"),
            .p50_us = member_int (r, point, "p50"),
            .p99_us = member_int (r, point, "p99"),
            .dropped = (guint64) member_int (r, point, "dropped"),
            .passed = member_bool (r, point, "passed"),
            .saturated = member_bool (r, point, "saturated"),
            .failed = member_string (r, point, "failed"),
        };
        g_array_append_val (store->capacity_levels, level);
    }
    result->levels = (const ThrongCapacityLevel *) store->capacity_levels->data;
    result->n_levels = store->capacity_levels->len;
    store->summary.capacity = result;
}

/*
 * @n elements of @array from @index on, or NULL when @n is 0: an array
 * still empty has no storage to point into.
 */
static gpointer
array_slice (GArray *array, guint index, guint n)
{
    if (n == 0)
        return NULL;
    g_assert (index + n <= array->len);
    return array->data + (gsize) index * g_array_get_element_size (array);
}

/* Fills @store from the summary or interval object @file's tokens hold. */
void
throng_run_store_read (const JsonToks *toks, GString *scratch, RunStore *store, gboolean interval)
{
    ThrongSummary *summary = &store->summary;

    throng_run_store_clear (store);
    store->strings = g_string_chunk_new (256);
    store->scenarios = g_array_new (FALSE, TRUE, sizeof (ThrongScenarioSummary));
    store->steps = g_array_new (FALSE, TRUE, sizeof (ThrongStepSummary));
    store->warnings = g_ptr_array_new_with_free_func (g_free);
    store->thresholds = g_array_new (FALSE, TRUE, sizeof (ThrongThresholdResult));
    store->targets = g_ptr_array_new ();
    store->journeys = g_array_new (FALSE, TRUE, sizeof (ThrongScenarioJourney));
    store->checks = g_array_new (FALSE, TRUE, sizeof (ThrongCheckSummary));
    store->step_info = g_array_new (FALSE, TRUE, sizeof (ThrongStepInfo));
    store->retry_attempts = g_array_new (FALSE, TRUE, sizeof (guint64));
    store->custom = g_array_new (FALSE, TRUE, sizeof (ThrongCustomMetric));
    Reader reader = { .toks = toks, .strings = store->strings, .scratch = scratch };
    const Reader *r = &reader;
    const gint root = 0;

    summary->size = sizeof (ThrongSummary);
    gint cpu = member (r, root, "cpu");
    summary->cpu_user_us = member_us (r, cpu, "user_s");
    summary->cpu_system_us = member_us (r, cpu, "system_s");
    summary->cpu_share = member_double (r, root, "cpu_share");
    summary->lag_p99_us = member_int (r, root, "lag_p99_us");
    summary->loop_delay_max_us = member_int (r, root, "loop_delay_max_us");
    summary->saturated = member_bool (r, root, "saturated");
    if (interval) {
        summary->end_wall_us = member_time (r, root, "time");
        summary->elapsed_us = member_us (r, root, "elapsed_s");
        summary->interval_us = member_us (r, root, "interval_s");
        summary->load_us = summary->interval_us;
        summary->start_wall_us = summary->end_wall_us - summary->elapsed_us;
    } else {
        gint plan = member (r, root, "plan");
        summary->plan_name = member_string (r, plan, "name");
        summary->plan_file = member_string (r, plan, "file");
        store->plan_sha256 = member_string (r, plan, "sha256");
        store->throng_version = member_string (r, root, "throng_version");
        read_shards (r, store);
        summary->start_wall_us = member_time (r, root, "start");
        summary->end_wall_us = member_time (r, root, "end");
        summary->elapsed_us = member_us (r, root, "duration_s");
        summary->load_us = member_us (r, root, "load_s");
        summary->interrupted_iterations = (guint64) member_int (r, root, "interrupted_iterations");
        summary->interrupted = member_bool (r, root, "interrupted");
        summary->workers = (guint) member_int (r, root, "workers");
        summary->samples_dropped = (guint64) member_int (r, root, "samples_dropped");
        gint warnings = member (r, root, "warnings");
        for (guint i = 0; i < jsontok_length (r->toks, warnings); i++) {
            const char *text = jsontok_string (r->toks, jsontok_element (r->toks, warnings, i),
                                               store->strings);
            if (text != NULL)
                g_ptr_array_add (store->warnings, g_strdup (text));
        }
        gint thresholds = member (r, root, "thresholds");
        for (guint i = 0; i < jsontok_length (r->toks, thresholds); i++) {
            gint t = jsontok_element (r->toks, thresholds, i);
            ThrongThresholdResult result = {
                .expression = member_name (r, t, "expression", "threshold", i),
                .actual = member_name (r, t, "actual", "unknown", i),
                .passed = member_bool (r, t, "passed"),
            };
            g_array_append_val (store->thresholds, result);
        }
    }
    read_stats (r, member (r, root, "total"), &summary->total);
    summary->retry_attempts = (guint64) member_int (r, member (r, root, "total"), "retry_attempts");

    gint scenarios = member (r, root, "scenarios");
    guint n_scenarios = jsontok_length (r->toks, scenarios);
    g_autoptr (GArray) first_step = g_array_new (FALSE, TRUE, sizeof (guint));
    for (guint s = 0; s < n_scenarios; s++) {
        gint in = jsontok_element (r->toks, scenarios, s);
        ThrongScenarioSummary scenario = {
            .name = member_name (r, in, "name", "scenario", s),
            .users = (guint) member_int (r, in, "users"),
            .active_users = (guint) member_int (r, in, "active_users"),
            .iterations = (guint64) member_int (r, in, "iterations"),
            .dropped_iterations = (guint64) member_int (r, in, "dropped_iterations"),
        };
        /* What the schedule wanted, in interval lines since 0.2; absent before. */
        if (member (r, in, "scheduled_users") >= 0) {
            scenario.scheduled_users = (guint) member_int (r, in, "scheduled_users");
            scenario.scheduled_rate = member_double (r, in, "scheduled_rate");
            scenario.has_scheduled = TRUE;
        }
        g_ptr_array_add (store->targets, (gpointer) member_string (r, in, "target"));
        read_stats (r, member (r, in, "stats"), &scenario.stats);
        guint first = store->steps->len;
        gint steps = member (r, in, "steps");
        for (guint i = 0; i < jsontok_length (r->toks, steps); i++) {
            gint step_in = jsontok_element (r->toks, steps, i);
            ThrongStepSummary step = {
                .label = member_name (r, step_in, "label", "step", i),
                .protocol = member_name (r, step_in, "protocol", "protocol", i),
            };
            read_stats (r, member (r, step_in, "stats"), &step.stats);
            g_array_append_val (store->steps, step);
            guint64 retried = (guint64) member_int (r, member (r, step_in, "stats"),
                                                    "retry_attempts");
            g_array_append_val (store->retry_attempts, retried);
            /* Since 0.3; a step of an older file is a request at the top level. */
            const char *kind = member_string (r, step_in, "kind");
            ThrongStepInfo info = {
                .kind = g_strcmp0 (kind, "group") == 0      ? THRONG_STEP_GROUP
                        : g_strcmp0 (kind, "parallel") == 0 ? THRONG_STEP_PARALLEL
                                                            : THRONG_STEP_REQUEST,
                .parent = member (r, step_in, "parent") >= 0
                              ? (gint) member_int (r, step_in, "parent") : -1,
                .depth = (guint) member_int (r, step_in, "depth"),
            };
            g_array_append_val (store->step_info, info);
        }
        scenario.n_steps = store->steps->len - first;
        g_array_append_val (store->scenarios, scenario);
        g_array_append_val (first_step, first);

        /* The scenario's checks (since 0.3): pointers are set once @checks stops growing. */
        gint checks = member (r, in, "checks");
        gint list = checks >= 0 ? member (r, checks, "list") : -1;
        ThrongScenarioJourney journey = {
            .size = sizeof (ThrongScenarioJourney),
            .n_checks = (guint) store->checks->len, /* the first check's index, until below */
            .data_exhausted = member_bool (r, in, "data_exhausted"),
            .retry_attempts_total
            = (guint64) member_int (r, member (r, in, "stats"), "retry_attempts"),
        };
        for (guint c = 0; list >= 0 && c < jsontok_length (r->toks, list); c++) {
            gint check_in = jsontok_element (r->toks, list, c);
            ThrongCheckSummary check = {
                .name = member_name (r, check_in, "name", "check", c),
                .passes = (guint64) member_int (r, check_in, "passes"),
                .fails = (guint64) member_int (r, check_in, "fails"),
            };
            g_array_append_val (store->checks, check);
        }
        g_array_append_val (store->journeys, journey);
    }
    /* Pointers into @steps only once it stops growing. */
    for (guint s = 0; s < n_scenarios; s++) {
        ThrongScenarioSummary *scenario =
            &g_array_index (store->scenarios, ThrongScenarioSummary, s);
        guint first = g_array_index (first_step, guint, s);
        scenario->steps = array_slice (store->steps, first, scenario->n_steps);
        ThrongScenarioJourney *journey = &g_array_index (store->journeys, ThrongScenarioJourney, s);
        guint first_check = journey->n_checks;
        guint end_check = s + 1 < n_scenarios
                              ? g_array_index (store->journeys, ThrongScenarioJourney, s + 1).n_checks
                              : store->checks->len;
        journey->n_checks = end_check - first_check;
        journey->checks = array_slice (store->checks, first_check, journey->n_checks);
        journey->step_info = array_slice (store->step_info, first, scenario->n_steps);
        journey->retry_attempts = array_slice (store->retry_attempts, first, scenario->n_steps);
        scenario->journey = journey;
    }
    summary->scenarios = (const ThrongScenarioSummary *) store->scenarios->data;
    summary->n_scenarios = store->scenarios->len;
    summary->thresholds = interval ? NULL : (const ThrongThresholdResult *) store->thresholds->data;
    summary->n_thresholds = store->thresholds->len;
    g_ptr_array_add (store->warnings, NULL);
    summary->warnings = (const char *const *) store->warnings->pdata;
    read_custom (r, store);
    if (!interval)
        read_capacity (r, store);
}


const char *
throng_run_store_member_text (const JsonToks *toks, GString *scratch, gint object,
                              const char *name)
{
    Reader reader = { .toks = toks, .scratch = scratch };
    return member_scratch (&reader, object, name);
}
