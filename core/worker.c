/* SPDX-License-Identifier: MIT */
/*
 * One worker thread and the virtual users it runs.  Each user is a small
 * state machine driven from the worker's GMainContext: wait to start (the
 * ramp-up), begin an iteration, run each step through its protocol, pause
 * for the think time, and so on until its iterations or its scenario's
 * duration are done.  Metrics are recorded into the worker's own block
 * and handed to the main thread on request; nothing is shared per request.
 */
#include "worker.h"

#include "usage.h"

#include <string.h>

/* Steps a user may complete synchronously in a row before yielding to the loop. */
#define USER_SYNC_BUDGET 64
/* Samples per batch handed to the main thread. */
#define SAMPLE_BATCH 4096
/* Batches a worker may have in flight to the main thread before it drops samples. */
#define MAX_BATCHES_IN_FLIGHT 256

typedef enum {
    USER_WAITING,               /* before its first iteration */
    USER_ITERATION,             /* next: begin an iteration */
    USER_STEP,                  /* next: run the current step */
    USER_RUNNING,               /* a step is in flight */
    USER_DONE,
} UserState;

struct _ThrongUser {
    ThrongWorker *worker;
    const ThrongPlanScenario *scenario;
    guint scenario_index;
    guint id;
    gpointer *protocol_data;    /* per entry of scenario->protocols */
    gpointer *step_user_data;   /* per step: the protocol_data entry its protocol uses */
    UserState state;
    guint step;
    guint64 iteration;
    gint64 deadline_us;         /* 0: none */
    GSource *timer;
    gboolean in_step_run;
    gboolean completed_in_run;
    ThrongSample sample;
};

struct _ThrongWorker {
    ThrongWorkerSetup setup;
    GThread *thread;
    GMainContext *context;
    GMainLoop *loop;
    GPtrArray *users;           /* ThrongUser*, owned */
    guint live_users;
    guint *active;              /* per scenario: users between first iteration and done */
    ThrongMetrics *metrics;     /* the interval being recorded */
    GArray *samples;            /* the batch being filled, or NULL */
    GAsyncQueue *free_metrics;  /* blocks returned by the main thread */
    GAsyncQueue *free_samples;
    gint batches_in_flight;     /* atomic */
    guint64 samples_dropped;
    gboolean stopping;
    gboolean finished;
    gint64 cpu_us;
};

/* --- reports to the main thread --------------------------------------- */

typedef struct {
    ThrongWorkerReport report;
    ThrongWorkerReportFunc func;
    gpointer data;
} ReportCall;

static gboolean
deliver_report (gpointer data)
{
    ReportCall *call = data;

    call->func (&call->report, call->data);
    return G_SOURCE_REMOVE;
}

static void
free_report_call (gpointer data)
{
    g_free (data);
}

static ThrongMetrics *
new_metrics_block (ThrongWorker *worker)
{
    ThrongMetrics *metrics = g_async_queue_try_pop (worker->free_metrics);

    if (metrics != NULL)
        return metrics;

    const ThrongPlan *plan = worker->setup.plan;
    g_autofree guint *steps = g_new0 (guint, MAX (plan->scenarios->len, 1));
    for (guint i = 0; i < plan->scenarios->len; i++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, i);
        steps[i] = scenario->steps->len;
    }
    return throng_metrics_new (plan->scenarios->len, steps);
}

static void
send_report (ThrongWorker *worker, gboolean with_metrics, guint tick, gboolean final)
{
    ReportCall *call = g_new0 (ReportCall, 1);

    call->func = worker->setup.report_func;
    call->data = worker->setup.report_data;
    call->report.worker = worker;
    call->report.tick = tick;
    call->report.final = final;
    if (worker->samples != NULL && worker->samples->len > 0) {
        call->report.samples = g_steal_pointer (&worker->samples);
        g_atomic_int_inc (&worker->batches_in_flight);
    }
    if (with_metrics) {
        ThrongMetrics *metrics = worker->metrics;
        memcpy (metrics->active_users, worker->active,
                sizeof (guint) * metrics->n_scenarios);
        metrics->samples_dropped = worker->samples_dropped;
        worker->samples_dropped = 0;
        call->report.metrics = metrics;
        worker->metrics = final ? NULL : new_metrics_block (worker);
    }
    g_main_context_invoke_full (worker->setup.main_context, G_PRIORITY_DEFAULT, deliver_report,
                                call, free_report_call);
}

void
throng_worker_recycle (ThrongWorker *worker, ThrongMetrics *metrics, GArray *samples)
{
    if (metrics != NULL) {
        throng_metrics_reset (metrics);
        g_async_queue_push (worker->free_metrics, metrics);
    }
    if (samples != NULL) {
        g_array_set_size (samples, 0);
        g_async_queue_push (worker->free_samples, samples);
        g_atomic_int_dec_and_test (&worker->batches_in_flight);
    }
}

static void
keep_sample (ThrongWorker *worker, const ThrongSample *sample)
{
    if (worker->samples == NULL) {
        if (g_atomic_int_get (&worker->batches_in_flight) >= MAX_BATCHES_IN_FLIGHT) {
            /* The reporters fell behind: count what they will not see rather
             * than slow the load or grow without bound. */
            worker->samples_dropped++;
            return;
        }
        worker->samples = g_async_queue_try_pop (worker->free_samples);
        if (worker->samples == NULL)
            worker->samples = g_array_sized_new (FALSE, FALSE, sizeof (ThrongSample), SAMPLE_BATCH);
    }
    g_array_append_vals (worker->samples, sample, 1);
    if (worker->samples->len >= SAMPLE_BATCH)
        send_report (worker, FALSE, 0, FALSE);
}

/* --- the user state machine -------------------------------------------- */

static void user_advance (ThrongUser *user);

static gboolean
user_timer_dispatch (GSource *source, GSourceFunc callback, gpointer data)
{
    g_source_set_ready_time (source, -1);
    user_advance (data);
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs user_timer_funcs = {
    .dispatch = user_timer_dispatch,
};

static void
user_wait_until (ThrongUser *user, gint64 when_us)
{
    g_source_set_ready_time (user->timer, when_us);
}

static void
user_free_protocols (ThrongUser *user)
{
    const ThrongPlanScenario *scenario = user->scenario;

    if (user->protocol_data == NULL)
        return;
    for (guint i = 0; i < scenario->protocols->len; i++) {
        const ThrongPlanProtocol *protocol = g_ptr_array_index (scenario->protocols, i);
        if (user->protocol_data[i] != NULL)
            protocol->protocol->user_free (user->protocol_data[i]);
    }
    g_clear_pointer (&user->protocol_data, g_free);
    g_clear_pointer (&user->step_user_data, g_free);
}

static void worker_check_finished (ThrongWorker *worker);

/*
 * Ends a user.  Its protocol state is freed soon, so that connections
 * close when the user is done rather than when the whole worker is; but
 * not from here when @now is FALSE, because a plugin that just called
 * throng_user_step_done() is still on the stack.
 */
static void
user_finish (ThrongUser *user, gboolean now)
{
    ThrongWorker *worker = user->worker;

    if (user->state == USER_DONE)
        return;
    if (user->state != USER_WAITING)
        worker->active[user->scenario_index]--;
    user->state = USER_DONE;
    if (now) {
        g_source_set_ready_time (user->timer, -1);
        user_free_protocols (user);
    } else {
        user_wait_until (user, 0);
    }
    worker->live_users--;
    worker_check_finished (worker);
}

/* Returns FALSE when the user has no further iteration to run. */
static gboolean
user_begin_iteration (ThrongUser *user)
{
    const ThrongPlanScenario *scenario = user->scenario;

    if (user->worker->stopping)
        return FALSE;
    if (scenario->iterations > 0 && user->iteration >= scenario->iterations)
        return FALSE;
    if (user->deadline_us > 0 && g_get_monotonic_time () >= user->deadline_us)
        return FALSE;

    for (guint i = 0; i < scenario->protocols->len; i++) {
        const ThrongPlanProtocol *protocol = g_ptr_array_index (scenario->protocols, i);
        if (protocol->protocol->iteration_begin != NULL)
            protocol->protocol->iteration_begin (user->protocol_data[i]);
    }
    user->step = 0;
    return TRUE;
}

static void
user_run_step (ThrongUser *user)
{
    const ThrongPlanStep *step = g_ptr_array_index (user->scenario->steps, user->step);
    ThrongSample *sample = &user->sample;

    memset (sample, 0, sizeof *sample);
    sample->start_us = g_get_monotonic_time ();
    sample->wall_start_us = sample->start_us + user->worker->setup.wall_offset_us;
    sample->scenario = user->scenario_index;
    sample->step = user->step;
    sample->user = user->id;
    sample->iteration = (guint32) user->iteration;

    user->state = USER_RUNNING;
    user->in_step_run = TRUE;
    user->completed_in_run = FALSE;
    step->protocol->step_run (user->step_user_data[user->step], step->data, sample);
    user->in_step_run = FALSE;
}

/*
 * After a step completes: records it, then decides what comes next.
 * Returns TRUE when the next state can run at once, FALSE when the user
 * waits (think time) or is done.
 */
static gboolean
user_after_step (ThrongUser *user)
{
    ThrongWorker *worker = user->worker;
    const ThrongPlanScenario *scenario = user->scenario;
    ThrongSample *sample = &user->sample;

    sample->elapsed_us = g_get_monotonic_time () - sample->start_us;
    throng_stats_record (throng_metrics_step (worker->metrics, user->scenario_index, user->step),
                         sample);
    if (worker->setup.want_samples)
        keep_sample (worker, sample);

    user->step++;
    if (user->step >= scenario->steps->len) {
        worker->metrics->iterations[user->scenario_index]++;
        user->iteration++;
        user->state = USER_ITERATION;
    } else {
        user->state = USER_STEP;
    }
    if (scenario->think_time_us > 0) {
        user_wait_until (user, g_get_monotonic_time () + scenario->think_time_us);
        return FALSE;
    }
    return TRUE;
}

static void
user_advance (ThrongUser *user)
{
    for (guint budget = USER_SYNC_BUDGET; budget > 0; budget--) {
        switch (user->state) {
        case USER_WAITING:
            user->worker->active[user->scenario_index]++;
            user->state = USER_ITERATION;
            break;
        case USER_ITERATION:
            if (!user_begin_iteration (user)) {
                user_finish (user, FALSE);
                return;
            }
            user->state = USER_STEP;
            break;
        case USER_STEP:
            user_run_step (user);
            if (!user->completed_in_run)
                return;
            if (!user_after_step (user))
                return;
            break;
        case USER_RUNNING:
            return;
        case USER_DONE:
            user_free_protocols (user);
            return;
        }
    }
    /* Many synchronous completions in a row: let the loop run other users
     * and the flush requests before going on. */
    user_wait_until (user, 0);
}

void
throng_user_step_done (ThrongUser *user)
{
    g_return_if_fail (user != NULL);
    if (user->state == USER_DONE)
        return; /* aborted while the step was in flight: not measured */
    g_return_if_fail (user->state == USER_RUNNING);

    if (user->in_step_run) {
        user->completed_in_run = TRUE;
        return;
    }
    if (user_after_step (user))
        user_advance (user);
}

GMainContext *
throng_user_get_context (ThrongUser *user)
{
    g_return_val_if_fail (user != NULL, NULL);
    return user->worker->context;
}

guint
throng_user_get_id (ThrongUser *user)
{
    g_return_val_if_fail (user != NULL, 0);
    return user->id;
}

guint64
throng_user_get_iteration (ThrongUser *user)
{
    g_return_val_if_fail (user != NULL, 0);
    return user->iteration;
}

guint
throng_user_get_worker (ThrongUser *user)
{
    g_return_val_if_fail (user != NULL, 0);
    return user->worker->setup.index;
}

static void
user_free (gpointer data)
{
    ThrongUser *user = data;

    user_free_protocols (user);
    if (user->timer != NULL) {
        g_source_destroy (user->timer);
        g_source_unref (user->timer);
    }
    g_free (user);
}

/* --- the worker ---------------------------------------------------------- */

ThrongWorker *
throng_worker_new (const ThrongWorkerSetup *setup)
{
    ThrongWorker *worker = g_new0 (ThrongWorker, 1);
    guint n_scenarios = setup->plan->scenarios->len;

    worker->setup = *setup;
    worker->context = g_main_context_new ();
    worker->loop = g_main_loop_new (worker->context, FALSE);
    worker->users = g_ptr_array_new_with_free_func (user_free);
    worker->active = g_new0 (guint, MAX (n_scenarios, 1));
    worker->free_metrics = g_async_queue_new_full ((GDestroyNotify) throng_metrics_free);
    worker->free_samples = g_async_queue_new_full ((GDestroyNotify) g_array_unref);
    worker->metrics = new_metrics_block (worker);
    return worker;
}

void
throng_worker_add_user (ThrongWorker *worker, guint scenario, guint id)
{
    ThrongUser *user = g_new0 (ThrongUser, 1);

    user->worker = worker;
    user->scenario_index = scenario;
    user->scenario = g_ptr_array_index (worker->setup.plan->scenarios, scenario);
    user->id = id;
    user->state = USER_WAITING;
    g_ptr_array_add (worker->users, user);
    worker->live_users++;
}

static void
worker_check_finished (ThrongWorker *worker)
{
    if (worker->live_users > 0 || worker->finished)
        return;
    worker->finished = TRUE;
    send_report (worker, TRUE, 0, TRUE);
    g_main_loop_quit (worker->loop);
}

static void
worker_create_users (ThrongWorker *worker)
{
    for (guint u = 0; u < worker->users->len; u++) {
        ThrongUser *user = g_ptr_array_index (worker->users, u);
        const ThrongPlanScenario *scenario = user->scenario;

        user->timer = g_source_new (&user_timer_funcs, sizeof (GSource));
        g_source_set_callback (user->timer, NULL, user, NULL);
        g_source_set_ready_time (user->timer, -1);
        g_source_attach (user->timer, worker->context);

        user->protocol_data = g_new0 (gpointer, MAX (scenario->protocols->len, 1));
        for (guint i = 0; i < scenario->protocols->len; i++) {
            const ThrongPlanProtocol *protocol = g_ptr_array_index (scenario->protocols, i);
            user->protocol_data[i] = protocol->protocol->user_new (protocol->data, user);
        }
        user->step_user_data = g_new0 (gpointer, MAX (scenario->steps->len, 1));
        for (guint s = 0; s < scenario->steps->len; s++) {
            const ThrongPlanStep *step = g_ptr_array_index (scenario->steps, s);
            for (guint i = 0; i < scenario->protocols->len; i++) {
                const ThrongPlanProtocol *protocol = g_ptr_array_index (scenario->protocols, i);
                if (protocol->data == step->scenario_data)
                    user->step_user_data[s] = user->protocol_data[i];
            }
        }

        /* Linear ramp-up: user i of n starts at ramp_up * i / n. */
        gint64 offset = 0;
        if (scenario->ramp_up_us > 0 && scenario->users > 1)
            offset = scenario->ramp_up_us * (gint64) user->id / (gint64) scenario->users;
        if (scenario->duration_us > 0)
            user->deadline_us = worker->setup.start_us + scenario->duration_us;
        user_wait_until (user, worker->setup.start_us + offset);
    }
}

static gpointer
worker_thread (gpointer data)
{
    ThrongWorker *worker = data;
    gint64 user_us, system_us;

    g_main_context_push_thread_default (worker->context);
    worker_create_users (worker);
    worker_check_finished (worker);
    if (!worker->finished)
        g_main_loop_run (worker->loop);
    /* Anything still alive here was aborted. */
    g_ptr_array_set_size (worker->users, 0);
    throng_usage_thread (&user_us, &system_us);
    worker->cpu_us = user_us + system_us;
    g_main_context_pop_thread_default (worker->context);
    return NULL;
}

void
throng_worker_start (ThrongWorker *worker)
{
    g_autofree char *name = g_strdup_printf ("throng-worker-%u", worker->setup.index);

    worker->thread = g_thread_new (name, worker_thread, worker);
}

typedef struct {
    ThrongWorker *worker;
    guint tick;
} FlushCall;

static gboolean
worker_flush_cb (gpointer data)
{
    FlushCall *call = data;

    if (!call->worker->finished)
        send_report (call->worker, TRUE, call->tick, FALSE);
    return G_SOURCE_REMOVE;
}

void
throng_worker_flush (ThrongWorker *worker, guint tick)
{
    FlushCall *call = g_new0 (FlushCall, 1);

    call->worker = worker;
    call->tick = tick;
    g_main_context_invoke_full (worker->context, G_PRIORITY_DEFAULT, worker_flush_cb, call, g_free);
}

static gboolean
worker_stop_cb (gpointer data)
{
    ThrongWorker *worker = data;

    worker->stopping = TRUE;
    /* Users that have not started yet never will; the others end their
     * iteration and then find the stop flag. */
    for (guint u = 0; u < worker->users->len && !worker->finished; u++) {
        ThrongUser *user = g_ptr_array_index (worker->users, u);
        if (user->state == USER_WAITING || user->state == USER_ITERATION)
            user_finish (user, TRUE);
    }
    return G_SOURCE_REMOVE;
}

void
throng_worker_stop (ThrongWorker *worker)
{
    g_main_context_invoke (worker->context, worker_stop_cb, worker);
}

static gboolean
worker_abort_cb (gpointer data)
{
    ThrongWorker *worker = data;

    worker->stopping = TRUE;
    for (guint u = 0; u < worker->users->len && !worker->finished; u++) {
        ThrongUser *user = g_ptr_array_index (worker->users, u);
        /* A step in flight is cancelled by user_free and never recorded. */
        user_finish (user, TRUE);
    }
    return G_SOURCE_REMOVE;
}

void
throng_worker_abort (ThrongWorker *worker)
{
    g_main_context_invoke (worker->context, worker_abort_cb, worker);
}

void
throng_worker_join (ThrongWorker *worker, gint64 *cpu_us)
{
    if (worker->thread != NULL)
        g_thread_join (worker->thread);
    if (cpu_us != NULL)
        *cpu_us = worker->cpu_us;
    g_ptr_array_unref (worker->users);
    g_free (worker->active);
    throng_metrics_free (worker->metrics);
    if (worker->samples != NULL)
        g_array_unref (worker->samples);
    g_async_queue_unref (worker->free_metrics);
    g_async_queue_unref (worker->free_samples);
    g_main_loop_unref (worker->loop);
    /* Sources the plugins left behind belong to freed users; dropping the
     * context releases them. */
    g_main_context_unref (worker->context);
    g_free (worker);
}
