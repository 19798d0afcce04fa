/* SPDX-License-Identifier: MIT */
/*
 * The adding up of `throng merge`: the checked shards' summaries made into
 * one, counts and error classes summed, histograms merged bucket by bucket
 * (every percentile is that of all samples), what cannot be added (CPU
 * share, lag, saturation) kept as the worst with a warning; and the
 * shards' intervals streamed and merged by the second of the run in which
 * they ended, one interval per shard in memory at a time.
 */
#include "merge-private.h"

#include <string.h>

#include "metrics.h"

/* Start instants further apart than this are worth a warning. */
#define MERGE_START_SKEW_US (100 * 1000)

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

void
throng_merge_journeys_clear (MergeJourneys *journeys)
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

void
throng_merge_interval_clear (MergeInterval *interval)
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
    throng_merge_journeys_clear (&interval->journeys);
    memset (interval, 0, sizeof *interval);
}

/* --- adding up ------------------------------------------------------------------------------ */

static void
merge_warn (Merge *merge, char *text)
{
    g_ptr_array_add (merge->warnings, text);
}

void
throng_merge_figures (Merge *merge)
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

    throng_merge_interval_clear (interval);
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
const ThrongSummary *
throng_merge_next_interval (gpointer data)
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
