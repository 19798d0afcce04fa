/* SPDX-License-Identifier: MIT */
/*
 * A worker: one OS thread, one GMainContext, many virtual users running
 * asynchronously.  Private to the core; engine.c drives it.
 */
#pragma once

#include "plan.h"
#include "metrics.h"
#include "sample-private.h"

typedef struct _ThrongWorker ThrongWorker;

/*
 * What a worker hands the main thread: that its users are created (ready),
 * an interval's metrics and/or a batch of samples.
 */
typedef struct {
    ThrongWorker *worker;
    ThrongMetrics *metrics;     /* NULL for a samples-only report */
    ThrongSampleBatch *samples; /* NULL when none */
    guint tick;                 /* the flush request it answers (0: none) */
    gboolean final;             /* the worker has finished; nothing follows */
    gboolean ready;             /* every user is created, or @error says why not */
    GError *error;              /* with @ready: the first user that could not be created */
    char *abort_run;            /* a step with `on_failure: abort-run` failed: which, and how */
} ThrongWorkerReport;

/* Called on the main context for every report; takes ownership of it. */
typedef void (*ThrongWorkerReportFunc) (ThrongWorkerReport *report, gpointer data);

typedef struct {
    guint index;
    guint n_workers;
    ThrongPlan *plan;
    GMainContext *main_context;
    ThrongWorkerReportFunc report_func;
    gpointer report_data;
    gboolean want_samples;
    gint64 start_us;            /* monotonic start of the run; set by throng_worker_go() */
    gint64 wall_offset_us;      /* wall clock minus monotonic clock at the start; likewise */
} ThrongWorkerSetup;

ThrongWorker *throng_worker_new (const ThrongWorkerSetup *setup);

/* A metrics block laid out for @plan: a row per step, a pair of counters per check. */
ThrongMetrics *throng_plan_metrics_new (const ThrongPlan *plan);

/*
 * On the worker's thread: a step whose `on_failure` is `abort-run` failed
 * (@why says which, and how).  The main thread stops every worker.
 */
void throng_worker_abort_run (ThrongWorker *worker, const char *why);

/* Assigns user @user of scenario @scenario to this worker; before start only. */
void throng_worker_add_user (ThrongWorker *worker, guint scenario, guint user);

/*
 * Starts the thread, which creates every user (calling the protocols'
 * user_new) and then sends a ready report; no load is sent before
 * throng_worker_go().
 */
void throng_worker_start (ThrongWorker *worker);

/* Starts the load: the run began at @start_us (monotonic). */
void throng_worker_go (ThrongWorker *worker, gint64 start_us, gint64 wall_offset_us);

/* Asks for the current interval's metrics (answered by a report with @tick). */
void throng_worker_flush (ThrongWorker *worker, guint tick);

/* Graceful stop: no new iterations; iterations in flight finish. */
void throng_worker_stop (ThrongWorker *worker);

/* Hard stop: in-flight steps are cancelled and not recorded. */
void throng_worker_abort (ThrongWorker *worker);

/* Gives a report's metrics block and sample array back for reuse. */
void throng_worker_recycle (ThrongWorker *worker, ThrongMetrics *metrics,
                            ThrongSampleBatch *samples);

/* Joins the thread (after its final report) and frees the worker. */
void throng_worker_join (ThrongWorker *worker);
