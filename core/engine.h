/* SPDX-License-Identifier: MIT */
/*
 * The engine: runs a loaded plan on worker threads, feeds the reporters on
 * the main thread and says how the run ended.  Private to the core.
 */
#pragma once

#include "metrics.h"
#include "plan.h"
#include "summary-private.h"
#include "threshold.h"

/* A run's summary kept past its end, with the metrics its steps' histograms live in. */
typedef struct _ThrongEngineKept {
    ThrongSummaryBuffer buffer;
    ThrongMetrics *metrics;
    gboolean filled;
} ThrongEngineKept;

void throng_engine_kept_clear (ThrongEngineKept *kept);

typedef enum {
    THRONG_RUN_COMPLETED,       /* every scenario ran to its end */
    THRONG_RUN_INTERRUPTED,     /* stopped early by a signal */
    THRONG_RUN_OUT_OF_MEMORY,   /* stopped early, short of a memory limit (limits-private.h) */
    THRONG_RUN_ABORTED,         /* stopped early by a step's `on_failure: abort-run` */
} ThrongRunOutcome;

typedef struct {
    guint workers;              /* 0: the number of CPUs */
    gboolean overwrite;         /* reporters may overwrite result files */
    gboolean quiet;             /* no live progress: ThrongRunInfo.quiet for the reporters */
    gboolean builtin_target;    /* a target runs inside this process (its CPU is in the figures) */
    ThrongThresholds *thresholds; /* (nullable) evaluated on the final summary; with
                                   * plan->shard set, only written out for the merge */
    gint64 start_at_wall_us;    /* --start-at: the load starts at this instant; 0: at once */
    /* phase.c: a phase's run keeps its summary (and the metrics it points
     * into) in *keep, zeroed first, for the load's summary to show;
     * clear it with throng_engine_kept_clear(). */
    struct _ThrongEngineKept *keep;
    const ThrongScenarioSummary *setup; /* the load's summary's setup row, or NULL */
    /* Called once the load has ended, before its summary is built: runs
     * teardown; its row (or NULL) and a warning (transfer full, or NULL). */
    void (*after_load) (gpointer data, const ThrongScenarioSummary **row, char **warning);
    gpointer after_load_data;
} ThrongEngineOptions;

typedef struct {
    ThrongRunOutcome outcome;
    guint64 requests;
    guint64 errors;
    guint64 samples_dropped;
    gboolean reporter_failed;   /* a reporter's close failed: results may be missing */
    guint thresholds_failed;
} ThrongRunResult;

/*
 * Runs the plan's `setup:` (a failure is an error: no load is sent), then
 * the load, then its `teardown:` (after an interrupted load too).  The
 * load: opens every reporter, runs the plan, closes every reporter with the
 * summary.  Fails (before any load) when a protocol cannot create a user
 * (then no reporter opens) or a reporter cannot open; a
 * reporter that fails to close is reported on stderr by name and sets
 * result->reporter_failed, and the other reporters still close.
 */
gboolean throng_engine_run (ThrongPlan *plan, const ThrongEngineOptions *options,
                            ThrongRunResult *result, GError **error);
/* The load alone, as throng_engine_run() without the plan's setup and teardown (phase.c). */
gboolean throng_engine_run_load (ThrongPlan *plan, const ThrongEngineOptions *options,
                                 ThrongRunResult *result, GError **error);
