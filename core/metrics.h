/* SPDX-License-Identifier: MIT */
/*
 * Counters and histograms of a run, laid out per step of every scenario.
 * A worker records into its own block for one interval and hands the
 * block to the main thread, which merges it into the interval's and the
 * run's totals.  Nothing here is shared between threads while recording.
 * Private to the core.
 */
#pragma once

#include <throng/throng.h>

void throng_stats_init (ThrongStats *stats);
void throng_stats_clear (ThrongStats *stats);
void throng_stats_reset (ThrongStats *stats);
void throng_stats_merge (ThrongStats *into, const ThrongStats *from);
void throng_stats_record (ThrongStats *stats, const ThrongSample *sample);
void throng_stats_add_protocol (ThrongStats *stats, const char *name, guint64 requests);

typedef struct {
    guint n_scenarios;
    guint *first_step;          /* index in steps of each scenario's first step; n_scenarios + 1 entries */
    ThrongStats *steps;         /* every step of every scenario */
    guint64 *iterations;        /* per scenario, completed in the interval */
    guint *active_users;        /* per scenario, at the end of the interval (a level, not a sum) */
    guint64 *dropped;           /* per scenario: arrivals that found no free user */
    guint64 samples_dropped;    /* samples not handed to reporters because they fell behind */
    ThrongHistogram *lag;       /* how late scheduled starts ran (µs) */
    gint64 loop_delay_max_us;   /* the worst event-loop delay seen */
    gint64 run_wait_us;         /* how long the worker was runnable but waited for a CPU
                                 * (the kernel's schedstat; the worst worker), -1: unknown */
    gint64 wake_late_max_us;    /* the most a worker's loop woke after its timeout, less its
                                 * run-queue wait: time the machine did not run it at all */
    guint64 interrupted;        /* iterations cut short: a step cancelled, or the rest not run */
    gint64 last_done_us;        /* monotonic time the last recorded step completed; 0: none */
    guint *first_check;         /* index in check_* of each scenario's first check; n_scenarios + 1 */
    guint64 *check_passes;      /* every check of every scenario (throng_user_record_check) */
    guint64 *check_fails;
    guint64 *retried;           /* per step, as steps: samples that were a `retry` attempt */
    ThrongCustomMetric *custom; /* the plan's own metrics, in its order (custom-metric.c) */
    guint n_custom;
} ThrongMetrics;

/* @steps_per_scenario: n_scenarios counts; no checks. */
ThrongMetrics *throng_metrics_new (guint n_scenarios, const guint *steps_per_scenario);
/* @checks_per_scenario: n_scenarios counts, or NULL for none. */
ThrongMetrics *throng_metrics_new_full (guint n_scenarios, const guint *steps_per_scenario,
                                        const guint *checks_per_scenario);
/* Appends one of the plan's own metrics; @name must outlive @metrics. */
void throng_metrics_add_custom (ThrongMetrics *metrics, const char *name,
                                ThrongCustomMetricKind kind);
void throng_metrics_free (ThrongMetrics *metrics);
void throng_metrics_reset (ThrongMetrics *metrics);
/* Adds counters and histograms; active_users is *added* too (the caller sums levels across
 * workers); loop_delay_max_us, run_wait_us, wake_late_max_us and last_done_us are the larger
 * of the two. */
void throng_metrics_merge (ThrongMetrics *into, const ThrongMetrics *from);

static inline ThrongStats *
throng_metrics_step (ThrongMetrics *metrics, guint scenario, guint step)
{
    return &metrics->steps[metrics->first_step[scenario] + step];
}

static inline void
throng_metrics_step_retried (ThrongMetrics *metrics, guint scenario, guint step)
{
    metrics->retried[metrics->first_step[scenario] + step]++;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongMetrics, throng_metrics_free)
