/* SPDX-License-Identifier: MIT */
/*
 * Reading a json reporter's jsonl file back into snapshots and a summary.
 * The file is mapped, not copied; one line is tokenized at a time
 * (jsontok.c), and a rebuilt summary keeps copies of its strings.
 * docs/reporters.md is the schema this reads.
 */
#include "runfile.h"

#include "results/summary-sum.h"

#include <throng/node.h>

#include <math.h>
#include <string.h>

#include "jsontok-private.h"
#include "metrics.h"
#include "samplefile-private.h"

/* Samples handed out at once, at most. */
#define RUN_FILE_SAMPLE_BATCH 512

/* A summary or snapshot rebuilt from one line, and the strings it points to. */
typedef struct {
    GStringChunk *strings;  /* NULL while the store is empty */
    ThrongSummary summary;
    GArray *scenarios;      /* ThrongScenarioSummary */
    GArray *steps;          /* ThrongStepSummary, every scenario's, in order */
    GPtrArray *warnings;    /* owned strings, then NULL */
    GArray *thresholds;     /* ThrongThresholdResult */
    const char *plan_sha256;
    GPtrArray *targets;     /* per scenario, its "target" (in @strings) or NULL */
    GArray *journeys;       /* ThrongScenarioJourney, per scenario */
    GArray *checks;         /* ThrongCheckSummary, every scenario's, in order */
    GArray *step_info;      /* ThrongStepInfo, as @steps */
    const char *throng_version;
    ThrongShardSummary shard; /* a shard's "shard" object; size 0 when absent */
    GPtrArray *shard_thresholds; /* its "thresholds", in @strings, NULL-terminated */
    GArray *shards;         /* ThrongShardSummary: a merged run's "shards" */
} RunStore;

struct _ThrongRunFile {
    char *path;
    GMappedFile *map;
    const char *data;
    gsize length;
    JsonToks toks;          /* the line parsed last */
    GString *scratch;
    gsize offset;           /* where next() reads */
    guint line;             /* the number of the line at @offset, from 1 */
    RunStore head;          /* the summary line, or the last interval: the run's shape */
    gboolean has_summary;
    ThrongRunInfo info;
    GPtrArray *names;
    GArray *users;
    GPtrArray *labels;      /* per scenario, a NULL-terminated array of const char * */
    GPtrArray *protocols;
    RunStore current;
    ThrongSummarySum *merged; /* every interval added up, for a run without a summary */
    GPtrArray *merged_warnings; /* its warnings, NULL-terminated */
    const ThrongSummary *summary; /* once finished: the summary line or @merged */
    guint intervals;
    GPtrArray *skipped;
    gboolean finished;
    gboolean want_samples;
    GArray *samples;        /* ThrongSample, the batch next() hands out */
    GStringChunk *sample_strings;
    guint unknown_samples;  /* samples of a scenario or step the run does not have */
};

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
    gint handshakes = member (r, object, "handshakes");
    stats->handshakes_full = (guint64) member_int (r, handshakes, "full");
    stats->handshakes_resumed = (guint64) member_int (r, handshakes, "resumed");
    read_protocols (r, member (r, object, "protocols"), stats);
    stats->latency = read_histogram (r, object, "latency_us");
    stats->handshake = read_histogram (r, object, "handshake_us");
}

static void
run_store_clear (RunStore *store)
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
    g_clear_pointer (&store->shard_thresholds, g_ptr_array_unref);
    g_clear_pointer (&store->shards, g_array_unref);
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
static void
run_store_read (ThrongRunFile *file, RunStore *store, gboolean interval)
{
    ThrongSummary *summary = &store->summary;

    run_store_clear (store);
    store->strings = g_string_chunk_new (256);
    store->scenarios = g_array_new (FALSE, TRUE, sizeof (ThrongScenarioSummary));
    store->steps = g_array_new (FALSE, TRUE, sizeof (ThrongStepSummary));
    store->warnings = g_ptr_array_new_with_free_func (g_free);
    store->thresholds = g_array_new (FALSE, TRUE, sizeof (ThrongThresholdResult));
    store->targets = g_ptr_array_new ();
    store->journeys = g_array_new (FALSE, TRUE, sizeof (ThrongScenarioJourney));
    store->checks = g_array_new (FALSE, TRUE, sizeof (ThrongCheckSummary));
    store->step_info = g_array_new (FALSE, TRUE, sizeof (ThrongStepInfo));
    Reader reader = { .toks = &file->toks, .strings = store->strings, .scratch = file->scratch };
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
        scenario->journey = journey;
    }
    summary->scenarios = (const ThrongScenarioSummary *) store->scenarios->data;
    summary->n_scenarios = store->scenarios->len;
    summary->thresholds = interval ? NULL : (const ThrongThresholdResult *) store->thresholds->data;
    summary->n_thresholds = store->thresholds->len;
    g_ptr_array_add (store->warnings, NULL);
    summary->warnings = (const char *const *) store->warnings->pdata;
}

/* --- lines ------------------------------------------------------------------------ */

typedef enum {
    LINE_EMPTY,
    LINE_BAD,       /* not a JSON object with a string "type" */
    LINE_SAMPLE,
    LINE_INTERVAL,
    LINE_SUMMARY,
    LINE_OTHER,     /* an object of a type this throng does not know */
} LineKind;

/* Classifies the line at @start; parses it into @file's tokens unless it is a sample. */
static const char sample_prefix[] = "{\"type\":\"sample\"";

/* Whether the line at @start is a sample as the json reporter writes them. */
static gboolean
is_sample_line (const char *start, gsize length)
{
    return length >= sizeof sample_prefix - 1
           && memcmp (start, sample_prefix, sizeof sample_prefix - 1) == 0;
}

static LineKind
parse_line (ThrongRunFile *file, const char *start, gsize length)
{
    while (length > 0 && (start[length - 1] == '\r' || start[length - 1] == ' '))
        length--;
    if (length == 0)
        return LINE_EMPTY;
    /* Samples are most of a big file: unless wanted, recognised without parsing. */
    if (!file->want_samples && is_sample_line (start, length))
        return LINE_SAMPLE;
    if (!jsontok_parse (&file->toks, start, length)
        || g_array_index (file->toks.toks, JsonTok, 0).type != JSONTOK_OBJECT)
        return LINE_BAD;
    gint type = jsontok_member (&file->toks, 0, "type");
    if (type < 0 || g_array_index (file->toks.toks, JsonTok, type).type != JSONTOK_STRING)
        return LINE_BAD;
    if (jsontok_string_equals (&file->toks, type, "interval"))
        return LINE_INTERVAL;
    if (jsontok_string_equals (&file->toks, type, "summary"))
        return LINE_SUMMARY;
    if (jsontok_string_equals (&file->toks, type, "sample"))
        return LINE_SAMPLE;
    return LINE_OTHER;
}

/* The "type" of the line parsed last, for a message. */
static const char *
line_type (ThrongRunFile *file)
{
    Reader reader = { .toks = &file->toks, .scratch = file->scratch };
    return member_scratch (&reader, 0, "type");
}

static void
run_file_skip (ThrongRunFile *file, guint line, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
run_file_skip (ThrongRunFile *file, guint line, const char *format, ...)
{
    va_list args;

    va_start (args, format);
    g_autofree char *why = g_strdup_vprintf (format, args);
    va_end (args);
    /* throng_run_file_skipped() may have terminated the list. */
    if (file->skipped->len > 0 && g_ptr_array_index (file->skipped, file->skipped->len - 1) == NULL)
        g_ptr_array_remove_index (file->skipped, file->skipped->len - 1);
    g_ptr_array_add (file->skipped, g_strdup_printf ("%s:%u: %s", file->path, line, why));
}

/* Whether the line parsed last has a version this reader knows (absent means 1). */
static gboolean
known_version (ThrongRunFile *file, gint64 *version)
{
    gint member = jsontok_member (&file->toks, 0, "version");
    *version = member >= 0 ? jsontok_int (&file->toks, member) : 1;
    return *version >= 1 && *version <= THRONG_RUN_FILE_VERSION;
}

/* The line that starts at @offset: its length, and where the next one starts. */
static gsize
line_end (ThrongRunFile *file, gsize offset, gsize *next)
{
    const char *newline = memchr (file->data + offset, '\n', file->length - offset);
    gsize end = newline != NULL ? (gsize) (newline - file->data) : file->length;

    *next = newline != NULL ? end + 1 : file->length;
    return end - offset;
}

/*
 * The run's shape, from the last summary line, or else the last interval.
 * When every such line is of a newer version, @newer is the last one's.
 */
static gboolean
run_file_find_head (ThrongRunFile *file, gint64 *newer)
{
    gsize end = file->length;

    *newer = 0;

    while (end > 0) {
        gsize start = end - 1;
        /* @end is one past a line's last byte (its newline, or the end of the file). */
        while (start > 0 && file->data[start - 1] != '\n')
            start--;
        LineKind kind = parse_line (file, file->data + start, end - start);
        gint64 version = 0;
        if (kind == LINE_SUMMARY && known_version (file, &version)) {
            run_store_read (file, &file->head, FALSE);
            file->has_summary = TRUE;
            return TRUE;
        }
        if (kind == LINE_INTERVAL && known_version (file, &version)) {
            run_store_read (file, &file->head, TRUE);
            return TRUE;
        }
        if ((kind == LINE_SUMMARY || kind == LINE_INTERVAL) && *newer == 0)
            *newer = version;
        end = start > 0 ? start - 1 : 0;
    }
    return FALSE;
}

static void
run_file_build_info (ThrongRunFile *file)
{
    const ThrongSummary *head = &file->head.summary;
    ThrongRunInfo *info = &file->info;

    /* An interval, or a summary without its plan, names no plan: the file stands in for it. */
    if (file->head.summary.plan_name == NULL)
        file->head.summary.plan_name = file->path;
    file->names = g_ptr_array_new ();
    file->users = g_array_new (FALSE, TRUE, sizeof (guint));
    file->labels = g_ptr_array_new_with_free_func (g_free);
    file->protocols = g_ptr_array_new_with_free_func (g_free);
    for (guint s = 0; s < head->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &head->scenarios[s];
        const char **labels = g_new0 (const char *, scenario->n_steps + 1);
        const char **protocols = g_new0 (const char *, scenario->n_steps + 1);
        for (guint i = 0; i < scenario->n_steps; i++) {
            labels[i] = scenario->steps[i].label;
            protocols[i] = scenario->steps[i].protocol;
        }
        g_ptr_array_add (file->names, (gpointer) scenario->name);
        g_array_append_val (file->users, scenario->users);
        g_ptr_array_add (file->labels, labels);
        g_ptr_array_add (file->protocols, protocols);
    }
    info->size = sizeof (ThrongRunInfo);
    info->plan_name = head->plan_name;
    info->plan_file = head->plan_file;
    info->n_scenarios = head->n_scenarios;
    info->scenario_names = (const char *const *) file->names->pdata;
    info->scenario_users = (const guint *) file->users->data;
    info->step_labels = (const char *const *const *) file->labels->pdata;
    info->step_protocols = (const char *const *const *) file->protocols->pdata;
    info->workers = head->workers;
    info->plan_sha256 = file->head.plan_sha256;
    info->scenario_targets = (const char *const *) file->head.targets->pdata;
}

typedef enum {
    DOCUMENT_NONE,      /* not one multi-line document: read it as jsonl */
    DOCUMENT_READ,
    DOCUMENT_FAILED,
} DocumentResult;

/*
 * A file whose first line is "{" alone is the summary document of the
 * json reporter's `mode: summary`: the whole file is one JSON object.
 */
static DocumentResult
run_file_open_document (ThrongRunFile *file, GError **error)
{
    gsize start = 0;

    while (start < file->length && g_ascii_isspace (file->data[start]))
        start++;
    if (start >= file->length || file->data[start] != '{')
        return DOCUMENT_NONE;
    gsize next;
    gsize length = line_end (file, start, &next);
    while (length > 0 && g_ascii_isspace (file->data[start + length - 1]))
        length--;
    if (length != 1 || next >= file->length)
        return DOCUMENT_NONE;
    if (!jsontok_parse (&file->toks, file->data, file->length)
        || g_array_index (file->toks.toks, JsonTok, 0).type != JSONTOK_OBJECT) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     "%s: not a complete JSON document (cut short while it was written, or "
                     "not JSON): no run to read", file->path);
        return DOCUMENT_FAILED;
    }
    gint64 version;
    if (jsontok_member (&file->toks, 0, "version") < 0
        || jsontok_member (&file->toks, 0, "plan") < 0
        || jsontok_member (&file->toks, 0, "total") < 0
        || jsontok_member (&file->toks, 0, "scenarios") < 0) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     "%s: a JSON document, but not a throng summary (no version, plan, total "
                     "and scenarios)", file->path);
        return DOCUMENT_FAILED;
    }
    if (!known_version (file, &version)) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     "%s: written by a newer throng (schema version %" G_GINT64_FORMAT
                     "; this one reads version %d)", file->path, version,
                     THRONG_RUN_FILE_VERSION);
        return DOCUMENT_FAILED;
    }
    run_store_read (file, &file->head, FALSE);
    file->has_summary = TRUE;
    file->offset = file->length;
    return DOCUMENT_READ;
}

ThrongRunFile *
throng_run_file_open (const char *path, GError **error)
{
    g_autoptr (GError) local = NULL;
    GMappedFile *map;

    /* A FIFO would block the open below; a device would be mapped or read for ever. */
    if (!throng_node_check_file (NULL, path, error))
        return NULL;
    map = g_mapped_file_new (path, FALSE, &local);
    if (map == NULL) {
        g_set_error (error, G_FILE_ERROR, local->code, "%s", local->message);
        return NULL;
    }
    g_autoptr (ThrongRunFile) file = g_new0 (ThrongRunFile, 1);
    file->path = g_strdup (path);
    file->map = map;
    file->data = g_mapped_file_get_contents (map);
    file->length = g_mapped_file_get_length (map);
    file->line = 1;
    file->skipped = g_ptr_array_new_with_free_func (g_free);
    jsontok_init (&file->toks);
    file->scratch = g_string_new (NULL);
    if (file->length == 0) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     "%s: the file is empty: no run to draw", path);
        return NULL;
    }

    /* A json reporter's `mode: summary` document spans many lines. */
    switch (run_file_open_document (file, error)) {
    case DOCUMENT_READ:
        run_file_build_info (file);
        return g_steal_pointer (&file);
    case DOCUMENT_FAILED:
        return NULL;
    case DOCUMENT_NONE:
        break;
    }

    /* The first line with anything on it says whether this is a throng file at all. */
    gsize offset = 0;
    for (guint line = 1; offset < file->length; line++) {
        gsize next;
        gsize length = line_end (file, offset, &next);
        LineKind kind = parse_line (file, file->data + offset, length);
        if (kind == LINE_EMPTY) {
            offset = next;
            continue;
        }
        if (kind == LINE_BAD && next >= file->length && file->data[file->length - 1] != '\n') {
            g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                         "%s:%u: the only line is cut short (was the run killed while writing "
                         "it?): no run to draw", path, line);
            return NULL;
        }
        if (kind == LINE_BAD || kind == LINE_OTHER) {
            g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                         "%s:%u: not a throng jsonl file: each line should be a JSON object "
                         "whose \"type\" is interval, sample or summary (the json reporter's "
                         "mode: jsonl)", path, line);
            return NULL;
        }
        break;
    }
    gint64 newer;
    if (!run_file_find_head (file, &newer)) {
        if (newer != 0) {
            g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                         "%s: written by a newer throng (schema version %" G_GINT64_FORMAT
                         "; this one reads version %d): no run to draw", path, newer,
                         THRONG_RUN_FILE_VERSION);
            return NULL;
        }
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     "%s: no interval or summary line that this throng can read: no run "
                     "to draw", path);
        return NULL;
    }
    run_file_build_info (file);
    return g_steal_pointer (&file);
}

void
throng_run_file_free (ThrongRunFile *file)
{
    if (file == NULL)
        return;
    run_store_clear (&file->head);
    run_store_clear (&file->current);
    g_clear_pointer (&file->merged, throng_summary_sum_free);
    g_clear_pointer (&file->merged_warnings, g_ptr_array_unref);
    g_clear_pointer (&file->names, g_ptr_array_unref);
    g_clear_pointer (&file->users, g_array_unref);
    g_clear_pointer (&file->labels, g_ptr_array_unref);
    g_clear_pointer (&file->protocols, g_ptr_array_unref);
    g_clear_pointer (&file->skipped, g_ptr_array_unref);
    g_clear_pointer (&file->map, g_mapped_file_unref);
    jsontok_clear (&file->toks);
    g_clear_pointer (&file->samples, g_array_unref);
    g_clear_pointer (&file->sample_strings, g_string_chunk_free);
    if (file->scratch != NULL)
        g_string_free (file->scratch, TRUE);
    g_free (file->path);
    g_free (file);
}

const ThrongRunInfo *
throng_run_file_info (ThrongRunFile *file)
{
    return &file->info;
}

void
throng_run_file_want_samples (ThrongRunFile *file)
{
    if (file->want_samples)
        return;
    file->want_samples = TRUE;
    file->samples = g_array_sized_new (FALSE, FALSE, sizeof (ThrongSample), RUN_FILE_SAMPLE_BATCH);
    file->sample_strings = g_string_chunk_new (4096);
}

/* Adds the sample line just parsed to the batch. */
static void
run_file_add_sample (ThrongRunFile *file)
{
    ThrongSample sample;

    if (file->samples->len == 0)
        g_string_chunk_clear (file->sample_strings);
    if (!throng_sample_line_read (&file->toks, &file->info, file->head.summary.start_wall_us,
                                  file->sample_strings, &sample)) {
        file->unknown_samples++;
        return;
    }
    g_array_append_val (file->samples, sample);
}

const ThrongSummary *
throng_run_file_next (ThrongRunFile *file, const ThrongSample **samples, gsize *n_samples)
{
    *samples = NULL;
    *n_samples = 0;
    if (file->samples != NULL)
        g_array_set_size (file->samples, 0);
    while (file->offset < file->length) {
        gsize next;
        gsize length = line_end (file, file->offset, &next);
        /* A batch of samples ends before the first line that is not one. */
        if (file->samples != NULL && file->samples->len > 0
            && (file->samples->len >= RUN_FILE_SAMPLE_BATCH
                || !is_sample_line (file->data + file->offset, length))) {
            *samples = (const ThrongSample *) file->samples->data;
            *n_samples = file->samples->len;
            return NULL;
        }
        gboolean last = next >= file->length;
        gboolean complete = file->offset + length < file->length;
        guint line = file->line;
        LineKind kind = parse_line (file, file->data + file->offset, length);
        gint64 version;

        file->offset = next;
        file->line++;
        switch (kind) {
        case LINE_EMPTY:
            continue;
        case LINE_SAMPLE:
            if (file->want_samples)
                run_file_add_sample (file);
            continue;
        case LINE_BAD:
            if (last && !complete)
                run_file_skip (file, line, "the last line is cut short (was the run killed "
                                           "while writing it?); skipped");
            else
                run_file_skip (file, line, "not a JSON object with a \"type\"; skipped");
            continue;
        case LINE_OTHER:
            run_file_skip (file, line, "a line of type \"%s\", unknown to this throng; skipped",
                           line_type (file));
            continue;
        case LINE_SUMMARY:
            if (!known_version (file, &version))
                run_file_skip (file, line, "a summary of version %" G_GINT64_FORMAT ", newer than "
                               "this throng reads (%d); skipped", version, THRONG_RUN_FILE_VERSION);
            continue;
        case LINE_INTERVAL:
            if (!known_version (file, &version)) {
                run_file_skip (file, line, "an interval of version %" G_GINT64_FORMAT ", newer "
                               "than this throng reads (%d); skipped", version,
                               THRONG_RUN_FILE_VERSION);
                continue;
            }
            run_store_read (file, &file->current, TRUE);
            file->intervals++;
            /* The sum of the intervals stands in only for a missing summary. */
            if (file->has_summary)
                return &file->current.summary;
            if (file->merged == NULL)
                file->merged = throng_summary_sum_new (&file->head.summary,
                                                       THRONG_SUMMARY_OVER_TIME);
            throng_summary_sum_add (file->merged, &file->current.summary);
            return &file->current.summary;
        }
    }
    if (file->samples != NULL && file->samples->len > 0) {
        *samples = (const ThrongSample *) file->samples->data;
        *n_samples = file->samples->len;
    }
    return NULL;
}

/* Appends @text to NULL-terminated @warnings and points @summary at them. */
static void
summary_warn (ThrongSummary *summary, GPtrArray *warnings, char *text)
{
    g_ptr_array_remove_index (warnings, warnings->len - 1);
    g_ptr_array_add (warnings, text);
    g_ptr_array_add (warnings, NULL);
    summary->warnings = (const char *const *) warnings->pdata;
}

/* The summary line, or the intervals added up over time when there is none (a run that did
 * not end normally), with what was skipped among its warnings. */
static const ThrongSummary *
run_file_finish (ThrongRunFile *file)
{
    ThrongSummary *summary = &file->head.summary;
    GPtrArray *warnings = file->head.warnings;

    if (!file->has_summary && file->merged != NULL) {
        summary = throng_summary_sum_get (file->merged);
        warnings = file->merged_warnings = g_ptr_array_new_with_free_func (g_free);
        g_ptr_array_add (warnings, NULL);
        summary->interval_us = 0;
        summary->load_us = summary->elapsed_us;
        summary->interrupted = TRUE;
        for (guint s = 0; s < summary->n_scenarios; s++)
            throng_summary_sum_scenario (file->merged, s)->active_users = 0;
        summary_warn (summary, warnings,
                      g_strdup_printf ("%s has no summary line (the run did not end normally): "
                                       "these figures add up its %u intervals",
                                       file->path, file->intervals));
    }
    for (guint i = 0; i < file->skipped->len; i++)
        if (g_ptr_array_index (file->skipped, i) != NULL)
            summary_warn (summary, warnings, g_strdup (g_ptr_array_index (file->skipped, i)));
    return summary;
}

const ThrongSummary *
throng_run_file_summary (ThrongRunFile *file)
{
    if (!file->finished) {
        const ThrongSample *samples;
        gsize n_samples;
        while (throng_run_file_next (file, &samples, &n_samples) != NULL || n_samples > 0)
            ;
        if (file->unknown_samples > 0)
            g_ptr_array_add (file->skipped,
                             g_strdup_printf ("%s: %u samples of a scenario or step that the run "
                                              "does not have; skipped", file->path,
                                              file->unknown_samples));
        file->finished = TRUE;
        file->summary = run_file_finish (file);
    }
    return file->summary;
}

const ThrongSummary *
throng_run_file_head (ThrongRunFile *file)
{
    return file->has_summary ? &file->head.summary : NULL;
}

gboolean
throng_run_file_has_summary (ThrongRunFile *file)
{
    return file->has_summary;
}

const char *
throng_run_file_throng_version (ThrongRunFile *file)
{
    return file->head.throng_version;
}

const char *const *
throng_run_file_skipped (ThrongRunFile *file)
{
    if (file->skipped->len == 0
        || g_ptr_array_index (file->skipped, file->skipped->len - 1) != NULL)
        g_ptr_array_add (file->skipped, NULL);
    return (const char *const *) file->skipped->pdata;
}
