/* SPDX-License-Identifier: MIT */
/*
 * The merge of a distributed run: each shard's summary is read back
 * (runfile.c, which reads `mode: summary` documents and jsonl files
 * alike), the shards are checked to be the parts of one run, and their
 * figures are added: counts and error classes summed, histograms merged
 * bucket by bucket so that every percentile is that of one histogram of
 * all samples.  What cannot be added (CPU share, saturation, scheduling
 * lag) is kept per shard.  The plan's thresholds, which the shards carried
 * without judging, are judged on the merged figures, and the reporters
 * of `--out` receive the merged summary as they would a run's.
 */
#include "merge.h"

#include <stdio.h>
#include <string.h>

#include "metrics.h"
#include "report.h"
#include "runfile.h"
#include "shard.h"
#include "threshold.h"

enum {
    MERGE_OK = 0,
    MERGE_USAGE = 2,
    MERGE_THRESHOLDS = 99,
};

/* Start instants further apart than this are worth a warning. */
#define MERGE_START_SKEW_US (100 * 1000)

typedef struct {
    const char *path;
    ThrongRunFile *file;
    const ThrongSummary *summary;
    ThrongShardSummary shard;   /* the file's "shard", or 0 of 1 for a run without one */
    const ThrongSummary *interval; /* its next interval not yet merged; NULL at the end */
    gboolean intervals_started;
} MergeInput;

/*
 * The scenarios' journeys, merged: checks summed by name, in the order
 * the shards list them; `data_exhausted` true when any shard's data set
 * ran out; the step tree (kind, parent, depth) is the first shard's, the
 * others agreeing with it (merge_check).
 */
typedef struct {
    GArray *journeys;           /* ThrongScenarioJourney, per scenario */
    GPtrArray *checks;          /* per scenario, a GArray of ThrongCheckSummary */
    GStringChunk *names;        /* the checks' names: a shard's interval, where they were
                                 * read, is gone once its next interval is read */
} MergeJourneys;

/* One merged interval: every shard's interval that ended in the same second of the run. */
typedef struct {
    ThrongSummary summary;
    GArray *scenarios;          /* ThrongScenarioSummary */
    GArray *steps;              /* ThrongStepSummary */
    MergeJourneys journeys;
    const char *no_warnings[1];
} MergeInterval;

typedef struct {
    GPtrArray *inputs;          /* MergeInput*, by shard index */
    guint count;
    gboolean partial;
    GString *missing;           /* "1, 4" */
    ThrongSummary summary;
    GArray *scenarios;          /* ThrongScenarioSummary */
    GArray *steps;              /* ThrongStepSummary */
    MergeJourneys journeys;
    GPtrArray *warnings;        /* char*, owned, NULL-terminated at the end */
    GArray *shards;             /* ThrongShardSummary */
    ThrongRunInfo info;
    GPtrArray *names;
    GArray *users;
    GPtrArray *labels;          /* per scenario, const char** (owned arrays) */
    GPtrArray *protocols;
    ThrongPlan plan;            /* only what thresholds need: the tree and the scenarios' names */
    ThrongThresholds *thresholds;
    MergeInterval interval;
    guint intervals;            /* merged intervals handed out */
} Merge;

static void
merge_input_free (gpointer data)
{
    MergeInput *input = data;

    g_clear_pointer (&input->file, throng_run_file_free);
    g_free (input);
}

static void
plan_step_free (gpointer data)
{
    ThrongPlanStep *step = data;

    g_free (step->label);
    g_free (step);
}

static void
plan_scenario_free (gpointer data)
{
    ThrongPlanScenario *scenario = data;

    g_free (scenario->name);
    g_ptr_array_unref (scenario->steps);
    g_free (scenario);
}

/* --- journeys ------------------------------------------------------------------------------ */

static void
journeys_init (MergeJourneys *journeys, const ThrongSummary *shape)
{
    journeys->journeys = g_array_new (FALSE, TRUE, sizeof (ThrongScenarioJourney));
    journeys->checks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
    for (guint s = 0; s < shape->n_scenarios; s++) {
        const ThrongScenarioJourney *from = shape->scenarios[s].journey;
        ThrongScenarioJourney journey = {
            .size = sizeof (ThrongScenarioJourney),
            .step_info = from != NULL ? from->step_info : NULL,
        };
        g_array_append_val (journeys->journeys, journey);
        g_ptr_array_add (journeys->checks, g_array_new (FALSE, TRUE, sizeof (ThrongCheckSummary)));
    }
    journeys->names = g_string_chunk_new (256);
}

static void
journeys_clear (MergeJourneys *journeys)
{
    g_clear_pointer (&journeys->journeys, g_array_unref);
    g_clear_pointer (&journeys->checks, g_ptr_array_unref);
    g_clear_pointer (&journeys->names, g_string_chunk_free);
}

/* Adds one shard's journey of scenario @s: a check is found by its name. */
static void
journeys_add (MergeJourneys *journeys, guint s, const ThrongScenarioJourney *from)
{
    if (from == NULL || s >= journeys->journeys->len)
        return;
    ThrongScenarioJourney *into = &g_array_index (journeys->journeys, ThrongScenarioJourney, s);
    GArray *checks = g_ptr_array_index (journeys->checks, s);

    into->data_exhausted |= from->data_exhausted;
    for (guint c = 0; c < from->n_checks; c++) {
        const ThrongCheckSummary *add = &from->checks[c];
        ThrongCheckSummary *sum = NULL;
        /* The shards list the same checks in the same order: look at the same place first. */
        if (c < checks->len && g_strcmp0 (g_array_index (checks, ThrongCheckSummary, c).name,
                                          add->name) == 0)
            sum = &g_array_index (checks, ThrongCheckSummary, c);
        for (guint k = 0; sum == NULL && k < checks->len; k++)
            if (g_strcmp0 (g_array_index (checks, ThrongCheckSummary, k).name, add->name) == 0)
                sum = &g_array_index (checks, ThrongCheckSummary, k);
        if (sum == NULL) {
            ThrongCheckSummary check = {
                .name = add->name != NULL ? g_string_chunk_insert_const (journeys->names, add->name)
                                          : NULL,
            };
            g_array_append_val (checks, check);
            sum = &g_array_index (checks, ThrongCheckSummary, checks->len - 1);
        }
        sum->passes += add->passes;
        sum->fails += add->fails;
    }
}

/* Hangs the journeys on @scenarios, once the checks stop growing. */
static void
journeys_finish (MergeJourneys *journeys, GArray *scenarios)
{
    for (guint s = 0; s < MIN (scenarios->len, journeys->journeys->len); s++) {
        ThrongScenarioJourney *journey = &g_array_index (journeys->journeys,
                                                         ThrongScenarioJourney, s);
        GArray *checks = g_ptr_array_index (journeys->checks, s);
        journey->checks = (const ThrongCheckSummary *) checks->data;
        journey->n_checks = checks->len;
        g_array_index (scenarios, ThrongScenarioSummary, s).journey = journey;
    }
}

static void
interval_clear (MergeInterval *interval)
{
    if (interval->scenarios == NULL)
        return;
    for (guint s = 0; s < interval->scenarios->len; s++)
        throng_stats_clear (&g_array_index (interval->scenarios, ThrongScenarioSummary, s).stats);
    for (guint i = 0; i < interval->steps->len; i++)
        throng_stats_clear (&g_array_index (interval->steps, ThrongStepSummary, i).stats);
    throng_stats_clear (&interval->summary.total);
    g_array_unref (interval->scenarios);
    g_array_unref (interval->steps);
    journeys_clear (&interval->journeys);
    memset (interval, 0, sizeof *interval);
}

static void
merge_clear (Merge *merge)
{
    interval_clear (&merge->interval);
    if (merge->scenarios != NULL) {
        for (guint s = 0; s < merge->scenarios->len; s++)
            throng_stats_clear (&g_array_index (merge->scenarios, ThrongScenarioSummary, s).stats);
        g_array_unref (merge->scenarios);
    }
    if (merge->steps != NULL) {
        for (guint i = 0; i < merge->steps->len; i++)
            throng_stats_clear (&g_array_index (merge->steps, ThrongStepSummary, i).stats);
        g_array_unref (merge->steps);
    }
    if (merge->summary.total.latency != NULL)
        throng_stats_clear (&merge->summary.total);
    journeys_clear (&merge->journeys);
    g_clear_pointer (&merge->warnings, g_ptr_array_unref);
    g_clear_pointer (&merge->shards, g_array_unref);
    g_clear_pointer (&merge->names, g_ptr_array_unref);
    g_clear_pointer (&merge->users, g_array_unref);
    g_clear_pointer (&merge->labels, g_ptr_array_unref);
    g_clear_pointer (&merge->protocols, g_ptr_array_unref);
    g_clear_pointer (&merge->thresholds, throng_thresholds_free);
    g_clear_pointer (&merge->plan.tree, throng_tree_free);
    g_clear_pointer (&merge->plan.scenarios, g_ptr_array_unref);
    g_clear_pointer (&merge->inputs, g_ptr_array_unref);
    if (merge->missing != NULL)
        g_string_free (merge->missing, TRUE);
}

static gboolean
refuse (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
refuse (GError **error, const char *format, ...)
{
    va_list args;

    va_start (args, format);
    g_autofree char *message = g_strdup_vprintf (format, args);
    va_end (args);
    g_set_error_literal (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID, message);
    return FALSE;
}

/* --- reading and checking the shards ------------------------------------------------------ */

static MergeInput *
merge_read (const char *path, GError **error)
{
    g_autoptr (GError) local = NULL;
    ThrongRunFile *file = throng_run_file_open (path, &local);

    if (file == NULL) {
        refuse (error, "%s", local->message);
        return NULL;
    }
    MergeInput *input = g_new0 (MergeInput, 1);
    input->path = path;
    input->file = file;
    if (!throng_run_file_has_summary (file)) {
        refuse (error, "%s: no summary: the shard did not finish, or its file is cut short "
                       "(a run's summary is its last line or its whole file)", path);
        merge_input_free (input);
        return NULL;
    }
    /* The summary line only: the intervals are streamed later, aligned (merge_next_interval). */
    input->summary = throng_run_file_head (file);
    const ThrongRunInfo *info = throng_run_file_info (file);
    if (input->summary->shard != NULL) {
        input->shard = *input->summary->shard;
    } else {
        /* A run without --shard is the one shard of itself. */
        input->shard.size = sizeof (ThrongShardSummary);
        input->shard.count = 1;
        input->shard.plan_sha256 = info->plan_sha256;
        input->shard.throng_version = throng_run_file_throng_version (file);
        input->shard.start_wall_us = input->summary->start_wall_us;
    }
    if (input->shard.plan_sha256 == NULL)
        input->shard.plan_sha256 = info->plan_sha256;
    if (input->shard.throng_version == NULL)
        input->shard.throng_version = throng_run_file_throng_version (file);
    if (input->shard.start_wall_us == 0)
        input->shard.start_wall_us = input->summary->start_wall_us;
    /* The count is the file's word: no more than --shard allows (it sizes the merge). */
    if (input->shard.count == 0 || input->shard.count > THRONG_SHARD_MAX
        || input->shard.index >= input->shard.count) {
        refuse (error, "%s: shard %u/%u is not a valid shard (--shard I/N: N from 1 to %u)",
                path, input->shard.index, input->shard.count, THRONG_SHARD_MAX);
        merge_input_free (input);
        return NULL;
    }
    return input;
}

/* The same plan's shape: scenarios and steps by name, in order. */
static gboolean
same_shape (const ThrongSummary *a, const ThrongSummary *b)
{
    if (a->n_scenarios != b->n_scenarios)
        return FALSE;
    for (guint s = 0; s < a->n_scenarios; s++) {
        if (g_strcmp0 (a->scenarios[s].name, b->scenarios[s].name) != 0
            || a->scenarios[s].n_steps != b->scenarios[s].n_steps)
            return FALSE;
        for (guint i = 0; i < a->scenarios[s].n_steps; i++)
            if (g_strcmp0 (a->scenarios[s].steps[i].label, b->scenarios[s].steps[i].label) != 0)
                return FALSE;
    }
    return TRUE;
}

/*
 * The index of the first step of @a's scenario @s whose kind, parent or
 * depth differs in @b, or -1 when the step trees agree (a file without
 * them reads as requests at the top level).
 */
static gint
step_tree_differs (const ThrongSummary *a, const ThrongSummary *b, guint s)
{
    const ThrongScenarioJourney *ja = a->scenarios[s].journey;
    const ThrongScenarioJourney *jb = b->scenarios[s].journey;

    for (guint i = 0; i < a->scenarios[s].n_steps; i++) {
        ThrongStepInfo top = { .kind = THRONG_STEP_REQUEST, .parent = -1 };
        const ThrongStepInfo *x = ja != NULL && ja->step_info != NULL ? &ja->step_info[i] : &top;
        const ThrongStepInfo *y = jb != NULL && jb->step_info != NULL ? &jb->step_info[i] : &top;
        if (x->kind != y->kind || x->parent != y->parent || x->depth != y->depth)
            return (gint) i;
    }
    return -1;
}

/*
 * Checks that @inputs are shards of one run, and orders them by index:
 * one throng version, one plan, one N, each index once, none missing
 * unless @allow_partial.
 */
static gboolean
merge_check (Merge *merge, GPtrArray *inputs, gboolean allow_partial, GError **error)
{
    const MergeInput *first = g_ptr_array_index (inputs, 0);
    guint count = first->shard.count;

    for (guint i = 1; i < inputs->len; i++) {
        const MergeInput *input = g_ptr_array_index (inputs, i);
        if (g_strcmp0 (input->shard.throng_version, first->shard.throng_version) != 0)
            return refuse (error, "%s was written by throng %s, %s by throng %s: the shards of "
                                  "one run come from one throng version",
                           input->path, input->shard.throng_version != NULL
                                            ? input->shard.throng_version : "(unknown)",
                           first->path, first->shard.throng_version != NULL
                                            ? first->shard.throng_version : "(unknown)");
        if (g_strcmp0 (input->shard.plan_sha256, first->shard.plan_sha256) != 0
            || !same_shape (input->summary, first->summary))
            return refuse (error, "%s and %s ran different plans (plan hash %.12s… and "
                                  "%.12s…): the shards of one run run the same plan with the "
                                  "same --set",
                           input->path, first->path,
                           input->shard.plan_sha256 != NULL ? input->shard.plan_sha256 : "none",
                           first->shard.plan_sha256 != NULL ? first->shard.plan_sha256 : "none");
        for (guint s = 0; s < first->summary->n_scenarios; s++) {
            gint step = step_tree_differs (first->summary, input->summary, s);
            if (step >= 0)
                return refuse (error, "%s and %s disagree on the place of step \"%s\" of "
                                      "scenario \"%s\" (a group or a request, and which group "
                                      "holds it): the shards of one run run the same plan",
                               input->path, first->path,
                               first->summary->scenarios[s].steps[step].label,
                               first->summary->scenarios[s].name);
        }
        if (input->shard.count != count)
            return refuse (error, "%s is shard %u/%u but %s is shard %u/%u: mixed shard counts",
                           input->path, input->shard.index, input->shard.count, first->path,
                           first->shard.index, count);
    }

    g_autofree MergeInput **by_index = g_new0 (MergeInput *, count);
    for (guint i = 0; i < inputs->len; i++) {
        MergeInput *input = g_ptr_array_index (inputs, i);
        MergeInput *other = by_index[input->shard.index];
        if (other != NULL)
            return refuse (error, "%s and %s are both shard %u/%u", other->path, input->path,
                           input->shard.index, count);
        by_index[input->shard.index] = input;
    }
    merge->missing = g_string_new (NULL);
    guint n_missing = 0;
    for (guint i = 0; i < count; i++) {
        if (by_index[i] != NULL)
            continue;
        g_string_append_printf (merge->missing, "%s%u", n_missing > 0 ? ", " : "", i);
        n_missing++;
    }
    if (n_missing > 0 && !allow_partial)
        return refuse (error, "shard%s %s of %u missing: merge all %u shards, or pass "
                              "--allow-partial to merge the others into a result marked partial",
                       n_missing == 1 ? "" : "s", merge->missing->str, count, count);
    merge->partial = n_missing > 0;
    merge->count = count;
    merge->inputs = g_ptr_array_new_with_free_func (merge_input_free);
    for (guint i = 0; i < count; i++)
        if (by_index[i] != NULL)
            g_ptr_array_add (merge->inputs, by_index[i]);
    /* The inputs now belong to the merge. */
    g_ptr_array_set_free_func (inputs, NULL);
    return TRUE;
}

/* --- adding up ------------------------------------------------------------------------------ */

static void
merge_warn (Merge *merge, char *text)
{
    g_ptr_array_add (merge->warnings, text);
}

static void
merge_figures (Merge *merge)
{
    const MergeInput *first = g_ptr_array_index (merge->inputs, 0);
    const ThrongSummary *shape = first->summary;
    ThrongSummary *sum = &merge->summary;

    merge->scenarios = g_array_new (FALSE, TRUE, sizeof (ThrongScenarioSummary));
    merge->steps = g_array_new (FALSE, TRUE, sizeof (ThrongStepSummary));
    merge->warnings = g_ptr_array_new_with_free_func (g_free);
    merge->shards = g_array_new (FALSE, TRUE, sizeof (ThrongShardSummary));
    for (guint s = 0; s < shape->n_scenarios; s++) {
        ThrongScenarioSummary scenario = { .name = shape->scenarios[s].name,
                                           .n_steps = shape->scenarios[s].n_steps };
        throng_stats_init (&scenario.stats);
        g_array_append_val (merge->scenarios, scenario);
        for (guint i = 0; i < shape->scenarios[s].n_steps; i++) {
            ThrongStepSummary step = { .label = shape->scenarios[s].steps[i].label,
                                       .protocol = shape->scenarios[s].steps[i].protocol };
            throng_stats_init (&step.stats);
            g_array_append_val (merge->steps, step);
        }
    }

    journeys_init (&merge->journeys, shape);

    sum->size = sizeof (ThrongSummary);
    sum->plan_name = shape->plan_name;
    sum->plan_file = shape->plan_file;
    throng_stats_init (&sum->total);
    gint64 earliest = G_MAXINT64, latest_start = G_MININT64;
    for (guint n = 0; n < merge->inputs->len; n++) {
        const MergeInput *input = g_ptr_array_index (merge->inputs, n);
        earliest = MIN (earliest, input->summary->start_wall_us);
        latest_start = MAX (latest_start, input->summary->start_wall_us);
    }
    sum->start_wall_us = earliest;
    for (guint n = 0; n < merge->inputs->len; n++) {
        const MergeInput *input = g_ptr_array_index (merge->inputs, n);
        const ThrongSummary *add = input->summary;
        gint64 offset = add->start_wall_us - earliest;

        sum->end_wall_us = MAX (sum->end_wall_us, add->end_wall_us);
        sum->planned_us = MAX (sum->planned_us, add->planned_us);
        sum->load_us = MAX (sum->load_us, offset + (add->load_us > 0 ? add->load_us
                                                                      : add->elapsed_us));
        sum->cpu_user_us += add->cpu_user_us;
        sum->cpu_system_us += add->cpu_system_us;
        sum->workers += add->workers;
        sum->interrupted |= add->interrupted;
        sum->samples_dropped += add->samples_dropped;
        sum->interrupted_iterations += add->interrupted_iterations;
        sum->cpu_share = MAX (sum->cpu_share, add->cpu_share);
        sum->lag_p99_us = MAX (sum->lag_p99_us, add->lag_p99_us);
        sum->loop_delay_max_us = MAX (sum->loop_delay_max_us, add->loop_delay_max_us);
        sum->saturated |= add->saturated;
        throng_stats_merge (&sum->total, &add->total);
        guint step_base = 0;
        for (guint s = 0; s < add->n_scenarios; s++) {
            ThrongScenarioSummary *into = &g_array_index (merge->scenarios,
                                                          ThrongScenarioSummary, s);
            const ThrongScenarioSummary *from = &add->scenarios[s];
            into->users += from->users;
            into->iterations += from->iterations;
            into->dropped_iterations += from->dropped_iterations;
            throng_stats_merge (&into->stats, &from->stats);
            journeys_add (&merge->journeys, s, from->journey);
            for (guint i = 0; i < from->n_steps; i++)
                throng_stats_merge (&g_array_index (merge->steps, ThrongStepSummary,
                                                    step_base + i).stats,
                                    &from->steps[i].stats);
            step_base += from->n_steps;
        }
        for (const char *const *w = add->warnings; w != NULL && *w != NULL; w++)
            merge_warn (merge, g_strdup_printf ("shard %u: %s", input->shard.index, *w));

        ThrongShardSummary shard = input->shard;
        shard.thresholds = NULL;
        shard.file = input->path;
        shard.requests = add->total.requests;
        shard.cpu_user_us = add->cpu_user_us;
        shard.cpu_system_us = add->cpu_system_us;
        shard.cpu_share = add->cpu_share;
        shard.lag_p99_us = add->lag_p99_us;
        shard.saturated = add->saturated;
        shard.workers = add->workers;
        g_array_append_val (merge->shards, shard);
    }
    sum->elapsed_us = sum->end_wall_us - sum->start_wall_us;
    guint step_base = 0;
    for (guint s = 0; s < merge->scenarios->len; s++) {
        ThrongScenarioSummary *scenario = &g_array_index (merge->scenarios,
                                                          ThrongScenarioSummary, s);
        /* An array still empty has no storage to point into. */
        scenario->steps = scenario->n_steps > 0
                              ? &g_array_index (merge->steps, ThrongStepSummary, step_base)
                              : NULL;
        step_base += scenario->n_steps;
    }
    journeys_finish (&merge->journeys, merge->scenarios);
    sum->scenarios = (const ThrongScenarioSummary *) merge->scenarios->data;
    sum->n_scenarios = merge->scenarios->len;
    sum->shards = (const ThrongShardSummary *) merge->shards->data;
    sum->n_shards = merge->shards->len;
    sum->partial = merge->partial;

    /* Which shards saturated: their latencies include their own queueing. */
    g_autoptr (GString) saturated = g_string_new (NULL);
    for (guint i = 0; i < merge->shards->len; i++) {
        const ThrongShardSummary *shard = &g_array_index (merge->shards, ThrongShardSummary, i);
        if (shard->saturated)
            g_string_append_printf (saturated, "%s%u", saturated->len > 0 ? ", " : "",
                                    shard->index);
    }
    if (saturated->len > 0)
        merge_warn (merge, g_strdup_printf ("load generator saturated on shard%s %s of %u: the "
                                            "merged latencies include those shards' own "
                                            "queueing",
                                            strchr (saturated->str, ',') != NULL ? "s" : "",
                                            saturated->str, merge->count));
    if (latest_start - earliest > MERGE_START_SKEW_US)
        merge_warn (merge, g_strdup_printf ("the shards started %.3f s apart (more than 0.1 s): "
                                            "their schedules were not one; give every shard the "
                                            "same --start-at",
                                            (gdouble) (latest_start - earliest) / G_USEC_PER_SEC));
    if (merge->partial)
        merge_warn (merge, g_strdup_printf ("partial: shard%s %s of %u missing; these figures "
                                            "are not the whole run's",
                                            strchr (merge->missing->str, ',') != NULL ? "s" : "",
                                            merge->missing->str, merge->count));
}

/* --- intervals, aligned on the run's seconds -------------------------------------------------- */

/*
 * The second of the run in which an interval ended: intervals end about
 * every second from their shard's start, and the shards started at one
 * instant (--start-at), so the wall time since the run's start, less a
 * little for the tick's own delay, names the same second on every shard.
 */
static gint64
interval_second (const Merge *merge, const ThrongSummary *interval)
{
    gint64 since = interval->end_wall_us - merge->summary.start_wall_us - G_USEC_PER_SEC / 10;
    return since <= 0 ? 0 : (since + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC;
}

/* The input's next interval, or NULL when it has no more. */
static const ThrongSummary *
input_next_interval (MergeInput *input)
{
    const ThrongSample *samples;
    gsize n_samples;
    const ThrongSummary *interval;

    do
        interval = throng_run_file_next (input->file, &samples, &n_samples);
    while (interval == NULL && n_samples > 0);
    input->intervals_started = TRUE;
    return interval;
}

static void
interval_reset (Merge *merge)
{
    MergeInterval *interval = &merge->interval;
    const ThrongSummary *shape = &merge->summary;

    interval_clear (interval);
    interval->scenarios = g_array_new (FALSE, TRUE, sizeof (ThrongScenarioSummary));
    interval->steps = g_array_new (FALSE, TRUE, sizeof (ThrongStepSummary));
    for (guint s = 0; s < shape->n_scenarios; s++) {
        ThrongScenarioSummary scenario = { .name = shape->scenarios[s].name,
                                           .n_steps = shape->scenarios[s].n_steps,
                                           .has_scheduled = TRUE };
        throng_stats_init (&scenario.stats);
        g_array_append_val (interval->scenarios, scenario);
        for (guint i = 0; i < shape->scenarios[s].n_steps; i++) {
            ThrongStepSummary step = { .label = shape->scenarios[s].steps[i].label,
                                       .protocol = shape->scenarios[s].steps[i].protocol };
            throng_stats_init (&step.stats);
            g_array_append_val (interval->steps, step);
        }
    }
    guint base = 0;
    for (guint s = 0; s < interval->scenarios->len; s++) {
        ThrongScenarioSummary *scenario = &g_array_index (interval->scenarios,
                                                          ThrongScenarioSummary, s);
        scenario->steps = scenario->n_steps > 0
                              ? &g_array_index (interval->steps, ThrongStepSummary, base)
                              : NULL;
        base += scenario->n_steps;
    }
    journeys_init (&interval->journeys, shape);
    ThrongSummary *sum = &interval->summary;
    sum->size = sizeof (ThrongSummary);
    sum->plan_name = shape->plan_name;
    sum->plan_file = shape->plan_file;
    sum->start_wall_us = shape->start_wall_us;
    sum->planned_us = shape->planned_us;
    throng_stats_init (&sum->total);
    sum->scenarios = (const ThrongScenarioSummary *) interval->scenarios->data;
    sum->n_scenarios = interval->scenarios->len;
    sum->warnings = interval->no_warnings;
}

static void
interval_add (MergeInterval *interval, const ThrongSummary *add)
{
    ThrongSummary *sum = &interval->summary;

    sum->interval_us = MAX (sum->interval_us, add->interval_us);
    sum->cpu_user_us += add->cpu_user_us;
    sum->cpu_system_us += add->cpu_system_us;
    sum->workers += add->workers;
    sum->cpu_share = MAX (sum->cpu_share, add->cpu_share);
    sum->lag_p99_us = MAX (sum->lag_p99_us, add->lag_p99_us);
    sum->loop_delay_max_us = MAX (sum->loop_delay_max_us, add->loop_delay_max_us);
    sum->saturated |= add->saturated;
    throng_stats_merge (&sum->total, &add->total);
    guint base = 0;
    for (guint s = 0; s < MIN (add->n_scenarios, interval->scenarios->len); s++) {
        ThrongScenarioSummary *into = &g_array_index (interval->scenarios,
                                                      ThrongScenarioSummary, s);
        const ThrongScenarioSummary *from = &add->scenarios[s];
        into->users += from->users;
        into->active_users += from->active_users;
        into->iterations += from->iterations;
        into->dropped_iterations += from->dropped_iterations;
        /* Each shard wants its share of the users and of the rate. */
        into->scheduled_users += from->scheduled_users;
        into->scheduled_rate += from->scheduled_rate;
        into->has_scheduled &= from->has_scheduled;
        throng_stats_merge (&into->stats, &from->stats);
        journeys_add (&interval->journeys, s, from->journey);
        for (guint i = 0; i < MIN (from->n_steps, into->n_steps); i++)
            throng_stats_merge (&g_array_index (interval->steps, ThrongStepSummary,
                                                base + i).stats,
                                &from->steps[i].stats);
        base += into->n_steps;
    }
}

/*
 * The shards' intervals that ended in the run's next second, merged; NULL
 * when every shard's are done.  Streamed: one interval per shard is in
 * memory at a time.
 */
static const ThrongSummary *
merge_next_interval (gpointer data)
{
    Merge *merge = data;
    gint64 second = G_MAXINT64;

    for (guint n = 0; n < merge->inputs->len; n++) {
        MergeInput *input = g_ptr_array_index (merge->inputs, n);
        if (!input->intervals_started)
            input->interval = input_next_interval (input);
        if (input->interval != NULL)
            second = MIN (second, interval_second (merge, input->interval));
    }
    if (second == G_MAXINT64)
        return NULL;
    interval_reset (merge);
    for (guint n = 0; n < merge->inputs->len; n++) {
        MergeInput *input = g_ptr_array_index (merge->inputs, n);
        while (input->interval != NULL && interval_second (merge, input->interval) == second) {
            interval_add (&merge->interval, input->interval);
            input->interval = input_next_interval (input);
        }
    }
    journeys_finish (&merge->interval.journeys, merge->interval.scenarios);
    ThrongSummary *sum = &merge->interval.summary;
    sum->elapsed_us = second * G_USEC_PER_SEC;
    sum->end_wall_us = sum->start_wall_us + sum->elapsed_us;
    sum->load_us = sum->interval_us;
    merge->intervals++;
    return sum;
}

/* --- thresholds, judged on the merge --------------------------------------------------------- */

/* @text as a YAML double-quoted scalar. */
static void
append_quoted (GString *out, const char *text)
{
    g_string_append_c (out, '"');
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            g_string_append_c (out, '\\');
        g_string_append_c (out, *p);
    }
    g_string_append_c (out, '"');
}

/*
 * The shards carried the plan's thresholds with their subjects written
 * out ("checkout.p99 < 200ms"); they are parsed again against the run's
 * scenarios and steps, as top-level thresholds, and judged here.
 */
static gboolean
merge_thresholds (Merge *merge, GError **error)
{
    const MergeInput *first = g_ptr_array_index (merge->inputs, 0);
    const char *const *expressions = first->shard.thresholds;

    if (expressions == NULL || expressions[0] == NULL)
        return TRUE;
    g_autoptr (GString) yaml = g_string_new ("thresholds:\n");
    for (const char *const *e = expressions; *e != NULL; e++) {
        g_string_append (yaml, "  - ");
        append_quoted (yaml, *e);
        g_string_append_c (yaml, '\n');
    }
    g_autofree char *origin = g_strdup_printf ("%s (thresholds)", first->path);
    merge->plan.tree = throng_tree_load_data (origin, yaml->str, yaml->len, error);
    if (merge->plan.tree == NULL)
        return FALSE;
    merge->plan.scenarios = g_ptr_array_new_with_free_func (plan_scenario_free);
    for (guint s = 0; s < merge->summary.n_scenarios; s++) {
        const ThrongScenarioSummary *in = &merge->summary.scenarios[s];
        ThrongPlanScenario *scenario = g_new0 (ThrongPlanScenario, 1);
        scenario->name = g_strdup (in->name);
        scenario->steps = g_ptr_array_new_with_free_func (plan_step_free);
        for (guint i = 0; i < in->n_steps; i++) {
            ThrongPlanStep *step = g_new0 (ThrongPlanStep, 1);
            step->label = g_strdup (in->steps[i].label);
            step->protocol_name = in->steps[i].protocol;
            g_ptr_array_add (scenario->steps, step);
        }
        g_ptr_array_add (merge->plan.scenarios, scenario);
    }
    g_autoptr (GError) local = NULL;
    merge->thresholds = throng_thresholds_load (&merge->plan, &local);
    if (merge->thresholds == NULL)
        return refuse (error, "the shards' thresholds cannot be judged on the merge: %s",
                       local->message);
    merge->summary.thresholds = throng_thresholds_evaluate (merge->thresholds, &merge->summary);
    merge->summary.n_thresholds = throng_thresholds_count (merge->thresholds);
    return TRUE;
}

/* --- the run's shape for the reporters -------------------------------------------------------- */

static void
merge_build_info (Merge *merge)
{
    const MergeInput *first = g_ptr_array_index (merge->inputs, 0);
    const ThrongRunInfo *shape = throng_run_file_info (first->file);
    ThrongRunInfo *info = &merge->info;

    merge->names = g_ptr_array_new ();
    merge->users = g_array_new (FALSE, TRUE, sizeof (guint));
    merge->labels = g_ptr_array_new_with_free_func (g_free);
    merge->protocols = g_ptr_array_new_with_free_func (g_free);
    for (guint s = 0; s < merge->summary.n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &merge->summary.scenarios[s];
        const char **labels = g_new0 (const char *, scenario->n_steps + 1);
        const char **protocols = g_new0 (const char *, scenario->n_steps + 1);
        for (guint i = 0; i < scenario->n_steps; i++) {
            labels[i] = scenario->steps[i].label;
            protocols[i] = scenario->steps[i].protocol;
        }
        g_ptr_array_add (merge->names, (gpointer) scenario->name);
        g_array_append_val (merge->users, scenario->users);
        g_ptr_array_add (merge->labels, labels);
        g_ptr_array_add (merge->protocols, protocols);
    }
    info->size = sizeof (ThrongRunInfo);
    info->plan_name = merge->summary.plan_name;
    info->plan_file = merge->summary.plan_file;
    info->n_scenarios = merge->summary.n_scenarios;
    info->scenario_names = (const char *const *) merge->names->pdata;
    info->scenario_users = (const guint *) merge->users->data;
    info->step_labels = (const char *const *const *) merge->labels->pdata;
    info->step_protocols = (const char *const *const *) merge->protocols->pdata;
    info->planned_us = merge->summary.planned_us;
    info->workers = merge->summary.workers;
    info->quiet = TRUE;
    info->plan_sha256 = shape->plan_sha256;
    info->scenario_targets = shape->scenario_targets;
}

/*
 * One line of totals, on standard output unless a reporter writes there
 * (--out json=-), and each failed threshold on standard error.
 */
static void
merge_print (const Merge *merge, FILE *stream)
{
    const ThrongSummary *sum = &merge->summary;
    guint failed = 0;

    for (guint i = 0; i < sum->n_thresholds; i++)
        if (!sum->thresholds[i].passed) {
            failed++;
            g_printerr ("throng merge: threshold failed: %s (actual %s)\n",
                        sum->thresholds[i].expression, sum->thresholds[i].actual);
        }
    fprintf (stream, "merged %u of %u shards%s: %" G_GUINT64_FORMAT " requests, %" G_GUINT64_FORMAT
             " errors, latency p50 %" G_GINT64_FORMAT " µs, p99 %" G_GINT64_FORMAT " µs; "
             "thresholds %u of %u passed\n",
             merge->inputs->len, merge->count, merge->partial ? " (partial)" : "",
             sum->total.requests, sum->total.errors,
             throng_histogram_percentile (sum->total.latency, 50.0),
             throng_histogram_percentile (sum->total.latency, 99.0),
             sum->n_thresholds - failed, sum->n_thresholds);
    for (guint i = 0; i < merge->warnings->len; i++) {
        const char *warning = g_ptr_array_index (merge->warnings, i);
        if (warning != NULL)
            g_printerr ("throng merge: warning: %s\n", warning);
    }
}

int
throng_merge_command (int argc, char **argv)
{
    g_auto (GStrv) specs = NULL;
    g_auto (GStrv) sets = NULL;
    gboolean allow_partial = FALSE;
    gboolean overwrite = FALSE;
    gboolean quiet = FALSE;
    GOptionEntry entries[] = {
        { "out", 'o', 0, G_OPTION_ARG_STRING_ARRAY, &specs,
          "Write the merged run with reporter NAME to PATH, e.g. json=run.json (repeatable)",
          "NAME=PATH" },
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
          "Give the --out reporter NAME the option KEY, e.g. json.mode=jsonl (repeatable)",
          "NAME.KEY=VALUE" },
        { "allow-partial", 0, 0, G_OPTION_ARG_NONE, &allow_partial,
          "Merge even when shards are missing; the result is marked partial", NULL },
        { "overwrite", 0, 0, G_OPTION_ARG_NONE, &overwrite,
          "Let reporters overwrite existing files", NULL },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No summary line on standard output",
          NULL },
        { NULL },
    };
    g_autoptr (GOptionContext) context = g_option_context_new ("SHARD.json…");
    g_autoptr (GError) error = NULL;

    g_set_prgname ("throng merge");
    g_option_context_set_summary (context,
                                  "Merges the json summaries of a run's shards (throng run "
                                  "--shard I/N)\ninto the summary of the whole run and judges "
                                  "its thresholds.");
    g_option_context_set_description (context,
                                      "Exit status: 0 merged, 2 usage error or shards that do "
                                      "not make one run, 3 a reporter\ncould not open, 4 results "
                                      "not written, 99 thresholds failed.");
    g_option_context_add_main_entries (context, entries, NULL);
    if (!g_option_context_parse (context, &argc, &argv, &error)) {
        g_printerr ("throng merge: %s\n", error->message);
        return MERGE_USAGE;
    }
    if (argc < 2) {
        g_printerr ("throng merge: expected the shards' json summaries (throng merge --help)\n");
        return MERGE_USAGE;
    }

    g_autoptr (GPtrArray) inputs = g_ptr_array_new_with_free_func (merge_input_free);
    for (int i = 1; i < argc; i++) {
        MergeInput *input = merge_read (argv[i], &error);
        if (input == NULL) {
            g_printerr ("throng merge: %s\n", error->message);
            return MERGE_USAGE;
        }
        g_ptr_array_add (inputs, input);
    }

    Merge merge = { 0 };
    if (!merge_check (&merge, inputs, allow_partial, &error)) {
        g_printerr ("throng merge: %s\n", error->message);
        merge_clear (&merge);
        return MERGE_USAGE;
    }
    merge_figures (&merge);
    if (!merge_thresholds (&merge, &error)) {
        g_printerr ("throng merge: %s\n", error->message);
        merge_clear (&merge);
        return MERGE_USAGE;
    }
    g_ptr_array_add (merge.warnings, NULL);
    merge.summary.warnings = (const char *const *) merge.warnings->pdata;
    merge_build_info (&merge);

    int status = throng_report_summary ("merge", &merge.info, merge_next_interval, &merge,
                                        &merge.summary, (const char *const *) specs,
                                        (const char *const *) sets, overwrite);
    for (guint n = 0; n < merge.inputs->len; n++) {
        MergeInput *input = g_ptr_array_index (merge.inputs, n);
        for (const char *const *skipped = throng_run_file_skipped (input->file);
             *skipped != NULL; skipped++)
            g_printerr ("throng merge: %s\n", *skipped);
    }
    gboolean to_stdout = FALSE;
    for (char **spec = specs; spec != NULL && *spec != NULL; spec++)
        to_stdout |= g_str_has_suffix (*spec, "=-");
    if (!quiet)
        merge_print (&merge, to_stdout ? stderr : stdout);
    if (status == MERGE_OK)
        for (guint i = 0; i < merge.summary.n_thresholds; i++)
            if (!merge.summary.thresholds[i].passed)
                status = MERGE_THRESHOLDS;
    merge_clear (&merge);
    return status;
}
