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

/* What a worker hands the main thread: an interval's metrics and/or a batch of samples. */
typedef struct {
    ThrongWorker *worker;
    ThrongMetrics *metrics;     /* NULL for a samples-only report */
    ThrongSampleBatch *samples; /* NULL when none */
    guint tick;                 /* the flush request it answers (0: none) */
    gboolean final;             /* the worker has finished; nothing follows */
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
    gint64 start_us;            /* monotonic start of the run */
    gint64 wall_offset_us;      /* wall clock minus monotonic clock at the start */
} ThrongWorkerSetup;

ThrongWorker *throng_worker_new (const ThrongWorkerSetup *setup);

/* Assigns user @user of scenario @scenario to this worker; before start only. */
void throng_worker_add_user (ThrongWorker *worker, guint scenario, guint user);

void throng_worker_start (ThrongWorker *worker);

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
