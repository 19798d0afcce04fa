/* SPDX-License-Identifier: MIT */
/*
 * Whether throng was its own bottleneck: each complete interval is judged
 * saturated when the process's CPU share of the workers' cores or the
 * workers' loop lag passed the plan's limits (or a worker missed the
 * tick), and a saturated interval in which the machine, not throng, held a
 * worker back is told apart.  The run's verdict and warnings come from the
 * intervals, never from the whole run's average.  Private to the core.
 */
#pragma once

#include "metrics.h"

G_BEGIN_DECLS

typedef struct {
    guint cores;                /* cores the workers may use: the CPU share's denominator */
    gdouble cpu_limit;          /* the plan's saturation limits */
    gint64 lag_limit_us;
    gint64 interval_cpu_us;     /* process CPU at the start of the interval */
    guint intervals;            /* complete ones */
    guint saturated_intervals;
    gdouble worst_cpu_share;
    gint64 worst_lag_p99_us;
    guint stalled_intervals;    /* saturated ones in which a worker woke past the lag limit */
    gint64 worst_wake_late_us;  /* the longest such overrun among them */
} ThrongSaturation;

void throng_saturation_init (ThrongSaturation *sat, guint cores, gdouble cpu_limit,
                             gint64 lag_limit_us);

/*
 * Turns @snapshot's process CPU (since the start) into the interval's and
 * judges the interval measured in @interval, @since_start_us into the run;
 * the @last one (after the workers stopped) and short ones are not judged.
 * @unanswered_tick: a worker did not report in time.  A saturated interval
 * adds its warning to @warnings (char*, owned).
 */
void throng_saturation_judge_interval (ThrongSaturation *sat, ThrongSummary *snapshot,
                                       const ThrongMetrics *interval, gint64 since_start_us,
                                       gboolean last, gboolean unanswered_tick,
                                       GPtrArray *warnings);

/* The run's CPU share and verdict in @summary, and its warnings. */
void throng_saturation_judge_run (const ThrongSaturation *sat, ThrongSummary *summary,
                                  GPtrArray *warnings);

G_END_DECLS
