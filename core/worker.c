/* SPDX-License-Identifier: MIT */
/*
 * One worker: an OS thread running a GMainContext, on which its virtual
 * users (user.c) and its share of each arrival schedule (arrivals.c) run,
 * all their timers in the worker's one reactor (reactor.c).
 * It records into its own metrics block and hands that block, and batches
 * of samples, to the main thread on request; nothing is shared per
 * request.  It also probes how late its own loop runs.
 */
#include "worker-private.h"
#include "template-private.h"

#include "arrivals-private.h"
#include "schedule.h"
#include "user-private.h"

#include <stdio.h>
#include <string.h>

/* Samples per batch handed to the main thread. */
#define SAMPLE_BATCH 4096
/*
 * Batches a worker may have in flight to the main thread before it drops
 * samples (and counts them): 32 × 4096 samples is about 16 MiB a worker
 * (more when steps set long messages: up to 4 MiB a batch), several
 * seconds of a fast run, which a reporter that keeps up at all never
 * reaches.
 */
#define MAX_BATCHES_IN_FLIGHT 32
/* How often the event-loop delay probe fires. */
#define PROBE_INTERVAL_US (100 * 1000)

/* --- reports to the main thread --------------------------------------- */

/*
 * How long the calling thread has been runnable but not running, in all
 * (the second field of Linux's /proc/thread-self/schedstat, in ns), or
 * -1 where the kernel does not say.  Read once a second: a lag that this
 * explains is the machine's (other processes had the CPU), one it does
 * not is the worker's own.
 */
static gint64
thread_run_wait_us (void)
{
    g_autofree char *text = NULL;
    guint64 cpu_ns, wait_ns;

    if (!g_file_get_contents ("/proc/thread-self/schedstat", &text, NULL, NULL)
        || sscanf (text, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &cpu_ns, &wait_ns) != 2)
        return -1;
    return (gint64) (wait_ns / 1000);
}

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
    ReportCall *call = data;

    g_free (call->report.abort_run);
    g_free (call);
}

void
throng_worker_abort_run (ThrongWorker *worker, const char *why)
{
    ReportCall *call = g_new0 (ReportCall, 1);

    call->func = worker->setup.report_func;
    call->data = worker->setup.report_data;
    call->report.worker = worker;
    call->report.abort_run = g_strdup (why);
    g_main_context_invoke_full (worker->setup.main_context, G_PRIORITY_DEFAULT, deliver_report,
                                call, free_report_call);
}

static ThrongMetrics *
new_metrics_block (ThrongWorker *worker)
{
    ThrongMetrics *metrics = g_async_queue_try_pop (worker->free_metrics);

    if (metrics != NULL)
        return metrics;

    return throng_plan_metrics_new (worker->setup.plan);
}

ThrongMetrics *
throng_plan_metrics_new (const ThrongPlan *plan)
{
    g_autofree guint *steps = g_new0 (guint, MAX (plan->scenarios->len, 1));
    g_autofree guint *checks = g_new0 (guint, MAX (plan->scenarios->len, 1));

    for (guint i = 0; i < plan->scenarios->len; i++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, i);
        steps[i] = scenario->steps->len;
        checks[i] = scenario->scope != NULL ? throng_scope_n_checks (scenario->scope) : 0;
    }
    ThrongMetrics *metrics = throng_metrics_new_full (plan->scenarios->len, steps, checks);
    for (guint i = 0; plan->metrics != NULL && i < plan->metrics->len; i++) {
        const ThrongPlanMetric *metric = g_ptr_array_index (plan->metrics, i);
        throng_metrics_add_custom (metrics, metric->name, metric->kind);
    }
    return metrics;
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
    if (worker->samples != NULL && worker->samples->samples->len > 0) {
        call->report.samples = g_steal_pointer (&worker->samples);
        g_atomic_int_inc (&worker->batches_in_flight);
    }
    if (with_metrics) {
        ThrongMetrics *metrics = worker->metrics;
        memcpy (metrics->active_users, worker->active,
                sizeof (guint) * metrics->n_scenarios);
        metrics->samples_dropped = worker->samples_dropped;
        worker->samples_dropped = 0;
        gint64 wait = thread_run_wait_us ();
        metrics->run_wait_us
            = wait >= 0 && worker->run_wait_us >= 0 ? wait - worker->run_wait_us : -1;
        worker->run_wait_us = wait;
        /* What the run queue explains is not the machine's stall: the
         * worker may have waited behind throng's own threads (the built-in
         * target, the main thread). A stopped process or a virtual CPU its
         * host did not run leaves no run-queue wait. */
        gint64 late = throng_reactor_take_wake_late (worker->reactor);
        metrics->wake_late_max_us = MAX (late - MAX (metrics->run_wait_us, 0), 0);
        call->report.metrics = metrics;
        worker->metrics = final ? NULL : new_metrics_block (worker);
    }
    g_main_context_invoke_full (worker->setup.main_context, G_PRIORITY_DEFAULT, deliver_report,
                                call, free_report_call);
}

void
throng_worker_recycle (ThrongWorker *worker, ThrongMetrics *metrics, ThrongSampleBatch *samples)
{
    if (metrics != NULL) {
        throng_metrics_reset (metrics);
        g_async_queue_push (worker->free_metrics, metrics);
    }
    if (samples != NULL) {
        throng_sample_batch_reset (samples);
        g_async_queue_push (worker->free_samples, samples);
        g_atomic_int_dec_and_test (&worker->batches_in_flight);
    }
}

void
throng_worker_keep_sample (ThrongWorker *worker, const ThrongSample *sample, gboolean copy_message)
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
            worker->samples = throng_sample_batch_new (SAMPLE_BATCH);
    }
    throng_sample_batch_append (worker->samples, sample, copy_message);
    if (worker->samples->samples->len >= SAMPLE_BATCH)
        send_report (worker, FALSE, 0, FALSE);
}

/* --- the event-loop probe -------------------------------------------------------- */

static void
probe_fired (ThrongReactorTimer *timer, gpointer data)
{
    ThrongWorker *worker = data;
    gint64 now = g_get_monotonic_time ();
    gint64 delay = now - throng_reactor_timer_get_due (timer);

    if (worker->metrics == NULL)
        return; /* finished: the last report went out */
    /* How late a timer runs is how long anything ready waits on this loop. */
    if (delay > worker->metrics->loop_delay_max_us)
        worker->metrics->loop_delay_max_us = delay;
    throng_reactor_timer_arm (timer, now + PROBE_INTERVAL_US);
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
    worker->reactor = throng_reactor_new (worker->context);
    throng_reactor_timer_init (&worker->probe, worker->reactor, probe_fired, worker);
    worker->users = g_ptr_array_new_with_free_func (throng_user_free);
    worker->active = g_new0 (guint, MAX (n_scenarios, 1));
    worker->free_metrics = g_async_queue_new_full ((GDestroyNotify) throng_metrics_free);
    worker->free_samples = g_async_queue_new_full ((GDestroyNotify) throng_sample_batch_free);
    worker->metrics = new_metrics_block (worker);
    worker->run_wait_us = -1;
    worker->rand = g_rand_new ();
    worker->scratch = g_string_sized_new (256);
    worker->operand = g_string_sized_new (64);
    worker->arrivals = g_ptr_array_new_with_free_func (throng_arrivals_free);
    return worker;
}

void
throng_worker_add_user (ThrongWorker *worker, guint scenario, guint id)
{
    g_ptr_array_add (worker->users, throng_user_new (worker, scenario, id));
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

void
throng_worker_user_done (ThrongWorker *worker)
{
    worker->live_users--;
    worker_check_finished (worker);
}

/* The arrival schedule of open-model scenario @scenario here, made when its first user comes. */
static ThrongArrivals *
worker_arrivals (ThrongWorker *worker, const ThrongUser *user)
{
    for (guint i = 0; i < worker->arrivals->len; i++) {
        ThrongArrivals *arrivals = g_ptr_array_index (worker->arrivals, i);
        if (throng_arrivals_get_scenario (arrivals) == user->scenario_index)
            return arrivals;
    }
    gint64 start_us = worker->setup.start_us + user->scenario->start_after_us;
    ThrongArrivals *arrivals = throng_arrivals_new (
        worker, user->scenario_index, user->id, start_us,
        start_us + throng_plan_scenario_length (user->scenario));
    g_ptr_array_add (worker->arrivals, arrivals);
    return arrivals;
}

static void
worker_start_users (ThrongWorker *worker)
{
    for (guint u = 0; u < worker->users->len; u++) {
        ThrongUser *user = g_ptr_array_index (worker->users, u);

        throng_user_start (user, throng_schedule_is_open (user->scenario)
                                     ? worker_arrivals (worker, user)
                                     : NULL);
    }

    throng_reactor_timer_arm (&worker->probe, g_get_monotonic_time () + PROBE_INTERVAL_US);
    worker->run_wait_us = thread_run_wait_us ();
}

static void
send_ready (ThrongWorker *worker, GError *error)
{
    ReportCall *call = g_new0 (ReportCall, 1);

    call->func = worker->setup.report_func;
    call->data = worker->setup.report_data;
    call->report.worker = worker;
    call->report.ready = TRUE;
    call->report.error = error;
    g_main_context_invoke_full (worker->setup.main_context, G_PRIORITY_DEFAULT, deliver_report,
                                call, free_report_call);
}

static gpointer
worker_thread (gpointer data)
{
    ThrongWorker *worker = data;
    GError *error = NULL;

    g_main_context_push_thread_default (worker->context);
    for (guint u = 0; u < worker->users->len && error == NULL; u++)
        throng_user_create (g_ptr_array_index (worker->users, u), &error);
    /* The main thread answers with throng_worker_go(), or aborts. */
    send_ready (worker, error);
    worker_check_finished (worker);
    if (!worker->finished)
        g_main_loop_run (worker->loop);
    /* Anything still alive here was aborted. */
    g_ptr_array_set_size (worker->arrivals, 0);
    g_ptr_array_set_size (worker->users, 0);
    throng_reactor_timer_cancel (&worker->probe);
    /* Cancelled operations complete through callbacks on this context;
     * let them run so that what they hold is released. */
    for (guint i = 0; i < 1000 && g_main_context_pending (worker->context); i++)
        g_main_context_iteration (worker->context, FALSE);
    g_main_context_pop_thread_default (worker->context);
    return NULL;
}

static gboolean
worker_go_cb (gpointer data)
{
    ThrongWorker *worker = data;

    if (worker->stopping || worker->finished)
        return G_SOURCE_REMOVE;
    worker_start_users (worker);
    return G_SOURCE_REMOVE;
}

void
throng_worker_go (ThrongWorker *worker, gint64 start_us, gint64 wall_offset_us)
{
    /* Written before the invoke, read only on the worker thread after it. */
    worker->setup.start_us = start_us;
    worker->setup.wall_offset_us = wall_offset_us;
    g_main_context_invoke (worker->context, worker_go_cb, worker);
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
    for (guint u = 0; u < worker->users->len && !worker->finished; u++)
        throng_user_stop (g_ptr_array_index (worker->users, u));
    for (guint i = 0; i < worker->arrivals->len; i++)
        throng_arrivals_stop (g_ptr_array_index (worker->arrivals, i));
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
        /* A step in flight is cancelled and never recorded. */
        throng_user_finish (g_ptr_array_index (worker->users, u), TRUE);
    }
    return G_SOURCE_REMOVE;
}

void
throng_worker_abort (ThrongWorker *worker)
{
    g_main_context_invoke (worker->context, worker_abort_cb, worker);
}

void
throng_worker_join (ThrongWorker *worker)
{
    if (worker->thread != NULL)
        g_thread_join (worker->thread);
    g_ptr_array_unref (worker->users);
    g_free (worker->active);
    throng_metrics_free (worker->metrics);
    throng_sample_batch_free (worker->samples);
    g_async_queue_unref (worker->free_metrics);
    g_async_queue_unref (worker->free_samples);
    g_ptr_array_unref (worker->arrivals);
    g_rand_free (worker->rand);
    g_string_free (worker->scratch, TRUE);
    g_string_free (worker->operand, TRUE);
    /* The users, whose timers and watches it held, are gone. */
    throng_reactor_free (worker->reactor);
    g_main_loop_unref (worker->loop);
    /* Sources the plugins left behind belong to freed users; dropping the
     * context releases them. */
    g_main_context_unref (worker->context);
    g_free (worker);
}
