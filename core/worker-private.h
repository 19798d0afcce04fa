/* SPDX-License-Identifier: MIT */
/*
 * The worker's state, shared with the users and the arrival schedules it
 * runs (user.c, arrivals.c), which all live on its thread.  Private to
 * the core.
 */
#pragma once

#include "reactor-private.h"
#include "worker.h"

struct _ThrongWorker {
    ThrongWorkerSetup setup;
    GThread *thread;
    GMainContext *context;
    GMainLoop *loop;
    ThrongReactor *reactor;     /* every timer of the worker, and the fast transport's sockets */
    GPtrArray *users;           /* ThrongUser*, owned */
    guint live_users;
    guint *active;              /* per scenario: users between first iteration and done */
    ThrongMetrics *metrics;     /* the interval being recorded; NULL once the last report went */
    ThrongSampleBatch *samples; /* the batch being filled, or NULL */
    GAsyncQueue *free_metrics;  /* blocks returned by the main thread */
    GAsyncQueue *free_samples;
    gint batches_in_flight;     /* atomic */
    guint64 samples_dropped;
    gboolean stopping;
    gboolean finished;
    GRand *rand;                /* think-time draws; per worker, so no lock */
    GString *scratch;           /* `set` expands into it, one user at a time */
    GString *operand;           /* a condition's right operand, one user at a time */
    GPtrArray *arrivals;        /* ThrongArrivals*, one per arrival-rate scenario with users here */
    ThrongReactorTimer probe;
    gint64 run_wait_us;         /* the thread's run-queue wait so far (schedstat), -1: unknown */
};

/*
 * Hands a completed step's sample to the batch for the reporters; with
 * @copy_message, its message is the user's copy and goes into the batch.
 */
void throng_worker_keep_sample (ThrongWorker *worker, const ThrongSample *sample,
                                gboolean copy_message);

/* A user of the worker is done; the last one ends the worker. */
void throng_worker_user_done (ThrongWorker *worker);
