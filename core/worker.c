/* SPDX-License-Identifier: MIT */
/*
 * One worker thread and the virtual users it runs.  Each user is a small
 * state machine driven from the worker's GMainContext: wait to start (the
 * ramp-up), begin an iteration, run each step through its protocol, pause
 * for the think time, and so on until its iterations or its scenario's
 * duration are done.  In ramping scenarios a user parks while the stage
 * does not want it; in arrival-rate scenarios users wait in a pool and
 * each arrival, on its schedule, takes one (or is counted as dropped).
 * Metrics are recorded into the worker's own block and handed to the main
 * thread on request; nothing is shared per request.
 */
#include "worker.h"

#include "usage.h"

#include <math.h>
#include <string.h>

/* Steps a user may complete synchronously in a row before yielding to the loop. */
#define USER_SYNC_BUDGET 64
/* Samples per batch handed to the main thread. */
#define SAMPLE_BATCH 4096
/*
 * Batches a worker may have in flight to the main thread before it drops
 * samples (and counts them): 32 × 4096 samples is about 16 MiB a worker,
 * several seconds of a fast run, which a reporter that keeps up at all
 * never reaches.
 */
#define MAX_BATCHES_IN_FLIGHT 32
/* Arrivals started in one dispatch before the loop gets a turn. */
#define ARRIVAL_BUDGET 256
/* How often the event-loop delay probe fires. */
#define PROBE_INTERVAL_US (100 * 1000)

typedef enum {
    USER_WAITING,               /* before its first iteration */
    USER_PARKED,                /* ramping: not wanted by the current stage */
    USER_IDLE,                  /* arrival rate: in the pool, waiting for an arrival */
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
    gint64 deadline_us;         /* no new iteration from then on; 0: none */
    gint64 hard_deadline_us;    /* a step still in flight then is cancelled; 0: none */
    gint64 scenario_start_us;   /* monotonic start of the user's scenario */
    gint64 iteration_start_us;
    gint64 scheduled_us;        /* arrival rate: when the iteration was due */
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
    GRand *rand;                /* think-time draws; per worker, so no lock */
    GPtrArray *arrivals;        /* Arrivals*, one per arrival-rate scenario with users here */
    GSource *probe;
    gint64 probe_due_us;
};

/* The arrival schedule of one open-model scenario on one worker. */
typedef struct {
    ThrongWorker *worker;
    const ThrongPlanScenario *scenario;
    guint scenario_index;
    guint first_user;           /* this worker owns users first_user + n * workers */
    guint n_workers;
    gint64 start_us;
    gint64 end_us;
    guint64 next;               /* the next arrival's index, counted over the whole scenario */
    gboolean done;
    GPtrArray *idle;            /* ThrongUser*, not owned */
    GSource *source;
} Arrivals;

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

/* --- schedules -------------------------------------------------------------- */

/* The stage level (users or rate) at @t µs into a ramping scenario; from 0 at t = 0. */
static gdouble
stage_level (const GArray *stages, gdouble start_level, gint64 t)
{
    gdouble level = start_level;
    gint64 begin = 0;

    for (guint i = 0; i < stages->len; i++) {
        const ThrongStage *stage = &g_array_index (stages, ThrongStage, i);
        if (t < begin + stage->duration_us)
            return level + (stage->target - level) * (gdouble) (t - begin)
                               / (gdouble) stage->duration_us;
        level = stage->target;
        begin += stage->duration_us;
    }
    return level;
}

/* Whether a ramping scenario wants user @id at @t: the level has reached id + 1. */
static gboolean
stage_wants (const ThrongPlanScenario *scenario, guint id, gint64 t)
{
    return stage_level (scenario->stages, 0.0, t) >= (gdouble) id + 1.0 - 1e-9;
}

/*
 * The first time at or after @t when stage_wants (id) becomes TRUE, or -1
 * when it never does before the stages end.
 */
static gint64
stage_next_wanted (const ThrongPlanScenario *scenario, guint id, gint64 t)
{
    gdouble need = (gdouble) id + 1.0;
    gdouble level = 0.0;
    gint64 begin = 0;

    for (guint i = 0; i < scenario->stages->len; i++) {
        const ThrongStage *stage = &g_array_index (scenario->stages, ThrongStage, i);
        gint64 end = begin + stage->duration_us;
        if (end > t && stage->target >= need - 1e-9) {
            gint64 from = MAX (t, begin);
            if (stage_level (scenario->stages, 0.0, from) >= need - 1e-9)
                return from;
            /* Rising through `need` inside this stage. */
            gdouble crossing = (gdouble) begin + (need - level) / (stage->target - level)
                                                     * (gdouble) stage->duration_us;
            gint64 when = (gint64) ceil (crossing);
            return MAX (when, from);
        }
        level = stage->target;
        begin = end;
    }
    return -1;
}

/*
 * When arrival @k is due, in µs from the scenario's start, or -1 past the
 * end.  Constant rate: k / rate.  Ramping: the time at which the rate's
 * integral over the stages reaches k.
 */
static gint64
arrival_offset (const ThrongPlanScenario *scenario, guint64 k)
{
    gdouble n = (gdouble) k;

    if (scenario->executor == THRONG_EXECUTOR_CONSTANT_RATE) {
        gdouble t = n / scenario->rate * G_USEC_PER_SEC;
        return t < (gdouble) scenario->duration_us ? (gint64) t : -1;
    }

    gdouble rate = scenario->rate;
    gdouble done = 0.0;             /* arrivals due before this stage */
    gdouble begin = 0.0;            /* the stage's start, s */
    for (guint i = 0; i < scenario->stages->len; i++) {
        const ThrongStage *stage = &g_array_index (scenario->stages, ThrongStage, i);
        gdouble length = (gdouble) stage->duration_us / G_USEC_PER_SEC;
        gdouble in_stage = (rate + stage->target) / 2.0 * length;
        if (n < done + in_stage) {
            gdouble left = n - done;
            gdouble slope = (stage->target - rate) / length;
            gdouble tau;
            if (fabs (slope) < 1e-12)
                tau = left / rate;
            else
                tau = (-rate + sqrt (MAX (0.0, rate * rate + 2.0 * slope * left))) / slope;
            return (gint64) ((begin + tau) * G_USEC_PER_SEC);
        }
        done += in_stage;
        begin += length;
        rate = stage->target;
    }
    return -1;
}

static gint64
think_time (ThrongWorker *worker, const ThrongThinkTime *think)
{
    switch (think->kind) {
    case THRONG_THINK_UNIFORM:
        return think->min_us
               + (gint64) (g_rand_double (worker->rand) * (gdouble) (think->max_us - think->min_us));
    case THRONG_THINK_EXPONENTIAL:
        /* 1 - U is in (0, 1], so the log is finite. */
        return (gint64) (-log (1.0 - g_rand_double (worker->rand)) * (gdouble) think->min_us);
    case THRONG_THINK_CONSTANT:
    default:
        return think->min_us;
    }
}

/* --- the user state machine -------------------------------------------- */

static void user_advance (ThrongUser *user);
static void user_finish (ThrongUser *user, gboolean now);

static gboolean
user_timer_dispatch (GSource *source, GSourceFunc callback, gpointer data)
{
    ThrongUser *user = data;
    gint64 due = g_source_get_ready_time (source);

    g_source_set_ready_time (source, -1);
    if (user->state == USER_RUNNING) {
        /* Only the hard deadline is armed while a step is in flight. */
        user_finish (user, TRUE);
        return G_SOURCE_CONTINUE;
    }
    if (user->hard_deadline_us > 0 && due == user->hard_deadline_us) {
        /* The hard deadline, left armed between steps, came while the
         * user was not running one: nothing to cancel. */
        if (user->state == USER_IDLE || user->state == USER_PARKED)
            return G_SOURCE_CONTINUE;
        due = 0;
    }
    if (due > 0 && user->state != USER_DONE && user->worker->metrics != NULL)
        throng_histogram_record (user->worker->metrics->lag, g_get_monotonic_time () - due);
    user_advance (user);
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

static gboolean
user_counts_as_active (UserState state)
{
    return state != USER_WAITING && state != USER_PARKED && state != USER_IDLE
           && state != USER_DONE;
}

static Arrivals *
user_arrivals (ThrongUser *user)
{
    ThrongWorker *worker = user->worker;

    for (guint i = 0; worker->arrivals != NULL && i < worker->arrivals->len; i++) {
        Arrivals *arrivals = g_ptr_array_index (worker->arrivals, i);
        if (arrivals->scenario_index == user->scenario_index)
            return arrivals;
    }
    return NULL;
}

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
    if (user_counts_as_active (user->state))
        worker->active[user->scenario_index]--;
    if (user->state == USER_IDLE) {
        Arrivals *arrivals = user_arrivals (user);
        if (arrivals != NULL)
            g_ptr_array_remove_fast (arrivals->idle, user);
    }
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

/*
 * Before an iteration of a closed-model user: whether it runs one now.
 * Returns FALSE when the user is done, parked or waiting (its state says
 * which).
 */
static gboolean
user_may_iterate (ThrongUser *user)
{
    const ThrongPlanScenario *scenario = user->scenario;
    gint64 now = g_get_monotonic_time ();

    if (user->worker->stopping
        || (scenario->iterations > 0 && user->iteration >= scenario->iterations)
        || (user->deadline_us > 0 && now >= user->deadline_us)) {
        user_finish (user, FALSE);
        return FALSE;
    }
    if (scenario->executor == THRONG_EXECUTOR_RAMPING_USERS
        && !stage_wants (scenario, user->id, now - user->scenario_start_us)) {
        gint64 next = stage_next_wanted (scenario, user->id, now - user->scenario_start_us);
        if (next < 0) {
            user_finish (user, FALSE);
            return FALSE;
        }
        /* Ramping down: the iteration in flight has finished; park until wanted again. */
        user->worker->active[user->scenario_index]--;
        user->state = USER_PARKED;
        user_wait_until (user, user->scenario_start_us + next);
        return FALSE;
    }
    return TRUE;
}

static void
user_begin_iteration (ThrongUser *user)
{
    const ThrongPlanScenario *scenario = user->scenario;

    for (guint i = 0; i < scenario->protocols->len; i++) {
        const ThrongPlanProtocol *protocol = g_ptr_array_index (scenario->protocols, i);
        if (protocol->protocol->iteration_begin != NULL)
            protocol->protocol->iteration_begin (user->protocol_data[i]);
    }
    user->step = 0;
    user->iteration_start_us = user->scheduled_us > 0 ? user->scheduled_us : g_get_monotonic_time ();
    user->state = USER_STEP;
}

static void
user_run_step (ThrongUser *user)
{
    const ThrongPlanStep *step = g_ptr_array_index (user->scenario->steps, user->step);
    ThrongSample *sample = &user->sample;

    memset (sample, 0, sizeof *sample);
    /* An arrival's first step counts from when it was due, so that a slow
     * target or a late generator shows in the latency (no coordinated
     * omission). */
    if (user->scheduled_us > 0) {
        sample->start_us = user->scheduled_us;
        user->scheduled_us = 0;
    } else {
        sample->start_us = g_get_monotonic_time ();
    }
    sample->wall_start_us = sample->start_us + user->worker->setup.wall_offset_us;
    sample->scenario = user->scenario_index;
    sample->step = user->step;
    sample->user = user->id;
    sample->iteration = (guint32) user->iteration;

    user->state = USER_RUNNING;
    /* Armed lazily: when it is armed already (no pause since the last
     * step), setting it again would cost the loop a wake-up per request. */
    if (user->hard_deadline_us > 0 && g_source_get_ready_time (user->timer) != user->hard_deadline_us)
        user_wait_until (user, user->hard_deadline_us);
    user->in_step_run = TRUE;
    user->completed_in_run = FALSE;
    step->protocol->step_run (user->step_user_data[user->step], step->data, sample);
    user->in_step_run = FALSE;
}

/* An arrival-rate user whose iteration ended goes back to its pool. */
static void
user_return_to_pool (ThrongUser *user)
{
    Arrivals *arrivals = user_arrivals (user);

    if (arrivals == NULL || arrivals->done || user->worker->stopping) {
        user_finish (user, FALSE);
        return;
    }
    user->worker->active[user->scenario_index]--;
    user->state = USER_IDLE;
    g_ptr_array_add (arrivals->idle, user);
}

/*
 * After a step completes: records it, then decides what comes next.
 * Returns TRUE when the next state can run at once, FALSE when the user
 * waits (think time, pacing), went back to its pool, or is done.
 */
static gboolean
user_after_step (ThrongUser *user)
{
    ThrongWorker *worker = user->worker;
    const ThrongPlanScenario *scenario = user->scenario;
    ThrongSample *sample = &user->sample;
    gboolean open_model = scenario->executor == THRONG_EXECUTOR_CONSTANT_RATE
                          || scenario->executor == THRONG_EXECUTOR_RAMPING_RATE;
    gint64 now = g_get_monotonic_time ();

    sample->elapsed_us = now - sample->start_us;
    throng_stats_record (throng_metrics_step (worker->metrics, user->scenario_index, user->step),
                         sample);
    if (worker->setup.want_samples)
        keep_sample (worker, sample);

    user->step++;
    if (user->step < scenario->steps->len) {
        user->state = USER_STEP;
        gint64 pause = think_time (worker, &scenario->think);
        if (pause > 0) {
            user_wait_until (user, now + pause);
            return FALSE;
        }
        return TRUE;
    }

    worker->metrics->iterations[user->scenario_index]++;
    user->iteration++;
    if (open_model) {
        user_return_to_pool (user);
        return FALSE;
    }
    user->state = USER_ITERATION;
    gint64 next = now + think_time (worker, &scenario->think);
    if (scenario->pacing_us > 0)
        next = MAX (next, user->iteration_start_us + scenario->pacing_us);
    /* No pause before an iteration that will not run: the run ends when
     * its last request does, not a think time later. */
    if (worker->stopping || (scenario->iterations > 0 && user->iteration >= scenario->iterations)
        || (user->deadline_us > 0 && next >= user->deadline_us)) {
        user_finish (user, FALSE);
        return FALSE;
    }
    if (next > now) {
        user_wait_until (user, next);
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
        case USER_PARKED:
            user->worker->active[user->scenario_index]++;
            user->state = USER_ITERATION;
            break;
        case USER_ITERATION:
            if (!user_may_iterate (user))
                return;
            user_begin_iteration (user);
            break;
        case USER_STEP:
            user_run_step (user);
            if (!user->completed_in_run)
                return;
            if (!user_after_step (user))
                return;
            break;
        case USER_IDLE:
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

/* --- arrivals ------------------------------------------------------------------ */

static gboolean
arrivals_owns (const Arrivals *arrivals, guint64 k)
{
    guint slot = (guint) (k % arrivals->scenario->users);

    return slot >= arrivals->first_user && (slot - arrivals->first_user) % arrivals->n_workers == 0;
}

static void
arrivals_finish (Arrivals *arrivals)
{
    arrivals->done = TRUE;
    g_source_set_ready_time (arrivals->source, -1);
    /* Idle users end now; busy ones when their iteration does. */
    while (arrivals->idle->len > 0)
        user_finish (g_ptr_array_index (arrivals->idle, arrivals->idle->len - 1), TRUE);
}

static gboolean
arrivals_dispatch (GSource *source, GSourceFunc callback, gpointer data)
{
    Arrivals *arrivals = data;
    ThrongWorker *worker = arrivals->worker;
    gint64 now = g_get_monotonic_time ();

    /* Ready in the same loop iteration as the worker's last user ending. */
    if (arrivals->done || worker->finished) {
        g_source_set_ready_time (source, -1);
        return G_SOURCE_CONTINUE;
    }

    for (guint budget = ARRIVAL_BUDGET; budget > 0; budget--) {
        if (worker->stopping) {
            arrivals_finish (arrivals);
            return G_SOURCE_CONTINUE;
        }
        gint64 offset = arrival_offset (arrivals->scenario, arrivals->next);
        if (offset < 0 || arrivals->start_us + offset >= arrivals->end_us) {
            arrivals_finish (arrivals);
            return G_SOURCE_CONTINUE;
        }
        gint64 due = arrivals->start_us + offset;
        if (due > now) {
            g_source_set_ready_time (source, due);
            return G_SOURCE_CONTINUE;
        }
        do
            arrivals->next++;
        while (!arrivals_owns (arrivals, arrivals->next));

        throng_histogram_record (worker->metrics->lag, now - due);
        if (arrivals->idle->len == 0) {
            /* Every user of the pool is busy: the iteration is not run, and
             * says so, rather than start late and hide the delay. */
            worker->metrics->dropped[arrivals->scenario_index]++;
            continue;
        }
        ThrongUser *user = g_ptr_array_steal_index_fast (arrivals->idle, arrivals->idle->len - 1);
        worker->active[user->scenario_index]++;
        user->scheduled_us = due;
        user_begin_iteration (user);
        user_advance (user);
    }
    g_source_set_ready_time (source, 0);
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs arrivals_funcs = {
    .dispatch = arrivals_dispatch,
};

static void
arrivals_free (gpointer data)
{
    Arrivals *arrivals = data;

    g_source_destroy (arrivals->source);
    g_source_unref (arrivals->source);
    g_ptr_array_unref (arrivals->idle);
    g_free (arrivals);
}

/* --- the event-loop probe -------------------------------------------------------- */

static gboolean
probe_dispatch (GSource *source, GSourceFunc callback, gpointer data)
{
    ThrongWorker *worker = data;
    gint64 now = g_get_monotonic_time ();
    gint64 delay = now - worker->probe_due_us;

    if (worker->metrics == NULL)
        return G_SOURCE_CONTINUE; /* finished: the last report went out */
    /* How late a timer runs is how long anything ready waits on this loop. */
    if (delay > worker->metrics->loop_delay_max_us)
        worker->metrics->loop_delay_max_us = delay;
    worker->probe_due_us = now + PROBE_INTERVAL_US;
    g_source_set_ready_time (source, worker->probe_due_us);
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs probe_funcs = {
    .dispatch = probe_dispatch,
};

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
    worker->rand = g_rand_new ();
    worker->arrivals = g_ptr_array_new_with_free_func (arrivals_free);
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

        user->scenario_start_us = worker->setup.start_us + scenario->start_after_us;
        gint64 length = throng_plan_scenario_length (scenario);
        if (length > 0) {
            user->deadline_us = user->scenario_start_us + length;
            user->hard_deadline_us = user->deadline_us + scenario->graceful_stop_us;
        }

        switch (scenario->executor) {
        case THRONG_EXECUTOR_USERS: {
            /* Linear ramp-up: user i of n starts at ramp_up * i / n. */
            gint64 offset = 0;
            if (scenario->ramp_up_us > 0 && scenario->users > 1)
                offset = scenario->ramp_up_us * (gint64) user->id / (gint64) scenario->users;
            user_wait_until (user, user->scenario_start_us + offset);
            break;
        }
        case THRONG_EXECUTOR_RAMPING_USERS: {
            gint64 first = stage_next_wanted (scenario, user->id, 0);
            if (first < 0)
                user_finish (user, TRUE);   /* no stage ever wants this many users */
            else
                user_wait_until (user, user->scenario_start_us + first);
            break;
        }
        case THRONG_EXECUTOR_CONSTANT_RATE:
        case THRONG_EXECUTOR_RAMPING_RATE: {
            Arrivals *arrivals = user_arrivals (user);
            if (arrivals == NULL) {
                arrivals = g_new0 (Arrivals, 1);
                arrivals->worker = worker;
                arrivals->scenario = scenario;
                arrivals->scenario_index = user->scenario_index;
                arrivals->first_user = user->id;
                arrivals->n_workers = worker->setup.n_workers;
                arrivals->start_us = user->scenario_start_us;
                arrivals->end_us = user->deadline_us;
                arrivals->next = user->id;
                arrivals->idle = g_ptr_array_new ();
                arrivals->source = g_source_new (&arrivals_funcs, sizeof (GSource));
                g_source_set_callback (arrivals->source, NULL, arrivals, NULL);
                g_source_set_ready_time (arrivals->source, arrivals->start_us);
                g_source_attach (arrivals->source, worker->context);
                g_ptr_array_add (worker->arrivals, arrivals);
            }
            user->state = USER_IDLE;
            g_ptr_array_add (arrivals->idle, user);
            break;
        }
        }
    }

    worker->probe = g_source_new (&probe_funcs, sizeof (GSource));
    g_source_set_callback (worker->probe, NULL, worker, NULL);
    worker->probe_due_us = g_get_monotonic_time () + PROBE_INTERVAL_US;
    g_source_set_ready_time (worker->probe, worker->probe_due_us);
    g_source_attach (worker->probe, worker->context);
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
    g_ptr_array_set_size (worker->arrivals, 0);
    g_ptr_array_set_size (worker->users, 0);
    if (worker->probe != NULL) {
        g_source_destroy (worker->probe);
        g_clear_pointer (&worker->probe, g_source_unref);
    }
    /* Cancelled operations complete through callbacks on this context;
     * let them run so that what they hold is released. */
    for (guint i = 0; i < 1000 && g_main_context_pending (worker->context); i++)
        g_main_context_iteration (worker->context, FALSE);
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
        if (user->state == USER_WAITING || user->state == USER_PARKED
            || user->state == USER_IDLE || user->state == USER_ITERATION)
            user_finish (user, TRUE);
    }
    for (guint i = 0; i < worker->arrivals->len; i++)
        ((Arrivals *) g_ptr_array_index (worker->arrivals, i))->done = TRUE;
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
    g_ptr_array_unref (worker->arrivals);
    g_rand_free (worker->rand);
    g_main_loop_unref (worker->loop);
    /* Sources the plugins left behind belong to freed users; dropping the
     * context releases them. */
    g_main_context_unref (worker->context);
    g_free (worker);
}
