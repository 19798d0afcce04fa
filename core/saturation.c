/* SPDX-License-Identifier: MIT */
/*
 * The saturation verdicts (saturation-private.h): per interval, with the
 * criteria that tripped traced under throng-core, and over the run.
 */
#include "saturation-private.h"

void
throng_saturation_init (ThrongSaturation *sat, guint cores, gdouble cpu_limit,
                        gint64 lag_limit_us)
{
    *sat = (ThrongSaturation) {
        .cores = cores,
        .cpu_limit = cpu_limit,
        .lag_limit_us = lag_limit_us,
    };
}

void
throng_saturation_judge_interval (ThrongSaturation *sat, ThrongSummary *snapshot,
                                  const ThrongMetrics *interval, gint64 since_start_us,
                                  gboolean last, gboolean unanswered_tick, GPtrArray *warnings)
{
    /* Snapshots carry the interval's CPU, not the run's. */
    gint64 cpu_now = snapshot->cpu_user_us + snapshot->cpu_system_us;
    gint64 cpu_interval = cpu_now - sat->interval_cpu_us;
    gdouble user_part = cpu_now > 0 ? (gdouble) snapshot->cpu_user_us / (gdouble) cpu_now : 0.5;
    snapshot->cpu_user_us = (gint64) ((gdouble) cpu_interval * user_part);
    snapshot->cpu_system_us = cpu_interval - snapshot->cpu_user_us;
    sat->interval_cpu_us = cpu_now;
    /* The process's CPU includes the main thread's, so the share of the
     * workers' cores can pass 1; a share is never shown over 100%. */
    if (snapshot->interval_us > 0)
        snapshot->cpu_share = MIN ((gdouble) cpu_interval
                                       / ((gdouble) snapshot->interval_us * sat->cores),
                                   1.0);
    /* Saturation is judged over complete intervals only: a short one (a
     * run of one request) is mostly start-up and shutdown, and the last,
     * partial one after the workers finished ends with the teardown. */
    gboolean complete = !last && snapshot->interval_us >= G_USEC_PER_SEC * 9 / 10;
    /* A worker that did not answer the tick (on_tick) had its loop stalled
     * for up to a second: its lag never reached us, but it is saturation
     * all the same, however little CPU a shared machine gave it. */
    gboolean unanswered = !last && unanswered_tick;
    snapshot->saturated = complete
                          && (unanswered || snapshot->cpu_share > sat->cpu_limit
                              || snapshot->lag_p99_us > sat->lag_limit_us);
    if (snapshot->saturated) {
        /* Which criterion tripped, and when: the summary keeps only the worst of
         * each.  The wait for a CPU tells the machine's share of a lag (other
         * processes ran) from the worker's own; -1 means the kernel did not
         * say, which must not read as a wait of zero. */
        const char *why[4] = { NULL };
        guint n_why = 0;
        gint64 wait_us = interval->run_wait_us;
        gint64 late_us = interval->wake_late_max_us;

        if (unanswered)
            why[n_why++] = "a worker did not answer the tick";
        if (snapshot->cpu_share > sat->cpu_limit)
            why[n_why++] = "CPU over the limit";
        if (snapshot->lag_p99_us > sat->lag_limit_us)
            why[n_why++] = "lag over the limit";
        g_autofree char *criteria = g_strjoinv ("; ", (char **) why);
        g_autofree char *wait = wait_us >= 0
                                    ? g_strdup_printf ("a worker waited %.1f ms for a CPU",
                                                       (gdouble) wait_us / 1000.0)
                                    : g_strdup ("CPU wait unknown");
        g_debug ("engine: interval %u (%.2f s at %.1f s) saturated: %s (CPU %.0f%%, lag p99 "
                 "%.1f ms, loop delay max %.1f ms, %s, a worker woke %.1f ms late beyond "
                 "any CPU wait)",
                 sat->intervals + 1, (gdouble) snapshot->interval_us / G_USEC_PER_SEC,
                 (gdouble) since_start_us / G_USEC_PER_SEC, criteria,
                 snapshot->cpu_share * 100.0, (gdouble) snapshot->lag_p99_us / 1000.0,
                 (gdouble) snapshot->loop_delay_max_us / 1000.0, wait,
                 (gdouble) late_us / 1000.0);
    }
    /* Blamed on the machine only when the lag tripped (not the CPU share)
     * and a wake-up late beyond any run-queue wait (the thread neither
     * running nor waiting to run) accounts for it: the lag less that
     * overrun is within the limit, and the overrun is at least half the
     * limit (a stall, not scheduling jitter).  A lag of 13 ms after a
     * 9 ms stall is the machine's as much as a 300 ms lag after a 300 ms
     * one. */
    gint64 lag_limit_us = sat->lag_limit_us;
    gint64 overrun_us = interval->wake_late_max_us;
    gboolean stalled = snapshot->saturated && snapshot->cpu_share <= sat->cpu_limit
                       && snapshot->lag_p99_us > lag_limit_us && overrun_us * 2 >= lag_limit_us
                       && snapshot->lag_p99_us - overrun_us <= lag_limit_us;
    if (complete) {
        sat->intervals++;
        if (snapshot->saturated)
            sat->saturated_intervals++;
        sat->worst_cpu_share = MAX (sat->worst_cpu_share, snapshot->cpu_share);
        sat->worst_lag_p99_us = MAX (sat->worst_lag_p99_us, snapshot->lag_p99_us);
        if (stalled) {
            sat->stalled_intervals++;
            sat->worst_wake_late_us
                = MAX (sat->worst_wake_late_us, interval->wake_late_max_us);
        }
    }
    if (snapshot->saturated) {
        g_ptr_array_add (warnings,
                         g_strdup_printf ("load generator saturated — latencies include throng's "
                                          "own queueing (CPU %.0f%%, lag p99 %.1f ms%s%s)",
                                          snapshot->cpu_share * 100.0,
                                          (gdouble) snapshot->lag_p99_us / 1000.0,
                                          unanswered ? "; a worker did not report in time" : "",
                                          stalled ? "; the machine did not run a worker" : ""));
    }
}

void
throng_saturation_judge_run (const ThrongSaturation *sat, ThrongSummary *summary,
                             GPtrArray *warnings)
{
    gint64 cpu_us = summary->cpu_user_us + summary->cpu_system_us;

    summary->cpu_share = summary->elapsed_us > 0
                             ? MIN ((gdouble) cpu_us
                                        / ((gdouble) summary->elapsed_us * sat->cores),
                                    1.0)
                             : 0.0;
    /* Judged over the complete intervals only (throng_saturation_judge_interval): the run's
     * own share includes start-up, which dominates a short run. */
    summary->saturated = sat->saturated_intervals > 0;
    if (summary->saturated) {
        g_ptr_array_add (
            warnings,
            g_strdup_printf ("load generator saturated — latencies include throng's own queueing "
                             "(%u of %u intervals; worst CPU %.0f%% of %u core%s, worst lag p99 "
                             "%.1f ms; limits %.0f%% and %.1f ms)",
                             sat->saturated_intervals, sat->intervals,
                             sat->worst_cpu_share * 100.0,
                             sat->cores, sat->cores == 1 ? "" : "s",
                             (gdouble) sat->worst_lag_p99_us / 1000.0,
                             sat->cpu_limit * 100.0,
                             (gdouble) sat->lag_limit_us / 1000.0));
    }
    if (sat->stalled_intervals > 0)
        g_ptr_array_add (
            warnings,
            g_strdup_printf ("in %u of those intervals a worker woke up to %.1f ms after its "
                             "timer was due without waiting for a CPU: the machine did not run "
                             "it (a virtual CPU its host did not schedule, or a stopped "
                             "process); a quieter machine is the cure, not a change to the plan",
                             sat->stalled_intervals,
                             (gdouble) sat->worst_wake_late_us / 1000.0));
}
