/* SPDX-License-Identifier: MIT */
/*
 * Summaries added into one, by one of two rules that differ on purpose:
 *
 * - over time: the same run's intervals in order (a run file whose
 *   summary line is missing).  Counts add up; the users, the schedule and
 *   the end are the latest interval's; the CPU share is the time-weighted
 *   mean.
 * - across shards: other processes' figures for the same stretch of time
 *   (`throng merge`).  Counts, users, workers and the schedule add up; the
 *   CPU share, lag and length are the worst shard's.
 *
 * Either way latencies merge exactly (histograms), a check is matched by
 * its name, and a summary with more scenarios or steps than the shape has
 * adds what fits.  Private to the core and the commands.
 */
#pragma once

#include <throng/summary.h>

G_BEGIN_DECLS

typedef enum {
    THRONG_SUMMARY_OVER_TIME,
    THRONG_SUMMARY_ACROSS_SHARDS,
} ThrongSummaryRule;

typedef struct _ThrongSummarySum ThrongSummarySum;

/*
 * An empty sum of summaries shaped like @shape (its scenarios, steps, step
 * labels and kinds, plan name and file, start), which must outlive the sum.
 */
ThrongSummarySum *throng_summary_sum_new (const ThrongSummary *shape, ThrongSummaryRule rule);
void throng_summary_sum_free (ThrongSummarySum *sum);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongSummarySum, throng_summary_sum_free)

/* Back to empty, the shape kept. */
void throng_summary_sum_reset (ThrongSummarySum *sum);

/* Adds @add; nothing of it is kept but copies (check names and error messages included). */
void throng_summary_sum_add (ThrongSummarySum *sum, const ThrongSummary *add);

/* How many summaries were added since the sum was new or reset. */
guint throng_summary_sum_count (const ThrongSummarySum *sum);

/*
 * The sum so far, valid until the next add, reset or free.  The caller may
 * set what no rule decides (times of a merge, warnings, interrupted) and
 * change a scenario's figures through throng_summary_sum_scenario().
 */
ThrongSummary *throng_summary_sum_get (ThrongSummarySum *sum);
ThrongScenarioSummary *throng_summary_sum_scenario (ThrongSummarySum *sum, guint s);

G_END_DECLS
