/* SPDX-License-Identifier: MIT */
/*
 * The adding up of `throng merge`: the checked shards' summaries made into
 * one by the summary adder's across-shards rule (core/results/summary-sum.h:
 * counts summed, histograms merged bucket by bucket, the worst of what
 * cannot be added, with a warning), the times that only a merge knows
 * (the first start, the load until the last shard's end); and the shards'
 * intervals streamed and merged by the second of the run in which they
 * ended, one interval per shard in memory at a time.
 */
#include "merge-private.h"

#include <string.h>

#include "metrics.h"
#include "results/summary-sum.h"

/* Start instants further apart than this are worth a warning. */
#define MERGE_START_SKEW_US (100 * 1000)

static void
merge_warn (Merge *merge, char *text)
{
    g_ptr_array_add (merge->warnings, text);
}

void
throng_merge_figures (Merge *merge)
{
    const MergeInput *first = g_ptr_array_index (merge->inputs, 0);
    gint64 earliest = G_MAXINT64, latest_start = G_MININT64, load_us = 0;

    merge->warnings = g_ptr_array_new_with_free_func (g_free);
    merge->shards = g_array_new (FALSE, TRUE, sizeof (ThrongShardSummary));
    merge->sum = throng_summary_sum_new (first->summary, THRONG_SUMMARY_ACROSS_SHARDS);
    for (guint n = 0; n < merge->inputs->len; n++) {
        const MergeInput *input = g_ptr_array_index (merge->inputs, n);
        earliest = MIN (earliest, input->summary->start_wall_us);
        latest_start = MAX (latest_start, input->summary->start_wall_us);
    }
    for (guint n = 0; n < merge->inputs->len; n++) {
        const MergeInput *input = g_ptr_array_index (merge->inputs, n);
        const ThrongSummary *add = input->summary;
        gint64 offset = add->start_wall_us - earliest;

        throng_summary_sum_add (merge->sum, add);
        /* The load ran until the last shard's ended, counted from the first one's start. */
        load_us = MAX (load_us, offset + (add->load_us > 0 ? add->load_us : add->elapsed_us));
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
    ThrongSummary *sum = throng_summary_sum_get (merge->sum);
    sum->start_wall_us = earliest;
    sum->elapsed_us = sum->end_wall_us - sum->start_wall_us;
    sum->load_us = load_us;
    sum->shards = (const ThrongShardSummary *) merge->shards->data;
    sum->n_shards = merge->shards->len;
    sum->partial = merge->partial;
    merge->summary = sum;

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
    gint64 since = interval->end_wall_us - merge->summary->start_wall_us - G_USEC_PER_SEC / 10;
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
    /* Shaped like the merged summary, which outlives every interval. */
    if (merge->interval == NULL)
        merge->interval = throng_summary_sum_new (merge->summary, THRONG_SUMMARY_ACROSS_SHARDS);
    else
        throng_summary_sum_reset (merge->interval);
    for (guint n = 0; n < merge->inputs->len; n++) {
        MergeInput *input = g_ptr_array_index (merge->inputs, n);
        while (input->interval != NULL && interval_second (merge, input->interval) == second) {
            throng_summary_sum_add (merge->interval, input->interval);
            input->interval = input_next_interval (input);
        }
    }
    ThrongSummary *sum = throng_summary_sum_get (merge->interval);
    sum->elapsed_us = second * G_USEC_PER_SEC;
    sum->end_wall_us = sum->start_wall_us + sum->elapsed_us;
    sum->load_us = sum->interval_us;
    merge->intervals++;
    return sum;
}
