/* SPDX-License-Identifier: MIT */
/*
 * One virtual user's life: a small state machine driven from its
 * worker's GMainContext.  It waits to start (the ramp-up), begins an
 * iteration, runs each step the interpreter (user-steps.c) walks to
 * through its protocol, pauses for the think time and at `pause` steps
 * (on its timer, never blocking the worker), and so on until its
 * iterations or its scenario's duration are done.  In ramping scenarios
 * it parks while the stage does not want it; in arrival-rate scenarios
 * it waits in its pool between iterations.  The SDK's view of a user
 * (its context, ids, the completion of a step) is here too.
 */
#include "user-private.h"

#include "schedule.h"
#include "worker-private.h"

#include <gio/gio.h>

/* Steps a user may complete synchronously in a row before yielding to the loop. */
#define USER_SYNC_BUDGET 64

static void user_advance (ThrongUser *user);

/*
 * The time for a decision made right after a step completed (the next
 * iteration's checks, its start, the next request's start): the clock
 * read at the completion, which is at most the bookkeeping between
 * them old, so a busy user reads the clock twice a request (first byte,
 * completion) rather than six times.  Anything that follows a wait reads
 * it afresh.
 */
static gint64
user_now (const ThrongUser *user)
{
    return user->done_us > 0 ? user->done_us : g_get_monotonic_time ();
}

/* Arms the user's timer for @when_us (0: as soon as the loop gets a turn), or disarms it (-1). */
static void
user_wait_until (ThrongUser *user, gint64 when_us)
{
    if (when_us < 0)
        throng_reactor_timer_cancel (&user->timer);
    else
        throng_reactor_timer_arm (&user->timer, when_us);
}

static void
user_timer_fired (ThrongReactorTimer *timer, gpointer data)
{
    ThrongUser *user = data;
    gint64 due = throng_reactor_timer_get_due (timer);

    if (user->state == THRONG_USER_RUNNING) {
        /* Only the hard deadline is armed while a step is in flight. */
        throng_user_finish (user, TRUE);
        return;
    }
    if ((user->state == THRONG_USER_PAUSE || user->state == THRONG_USER_BACKOFF)
        && user->hard_deadline_us > 0 && due >= user->hard_deadline_us) {
        /* The pause or backoff was cut at the hard deadline: the iteration ends unfinished. */
        throng_user_finish (user, TRUE);
        return;
    }
    if (user->hard_deadline_us > 0 && due == user->hard_deadline_us) {
        /* The hard deadline, left armed between steps, came while the
         * user was not running one: nothing to cancel. */
        if (user->state == THRONG_USER_IDLE || user->state == THRONG_USER_PARKED)
            return;
        due = 0;
    }
    if (due > 0 && user->state != THRONG_USER_DONE && user->worker->metrics != NULL)
        throng_histogram_record (user->worker->metrics->lag, g_get_monotonic_time () - due);
    user_advance (user);
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

static gboolean
user_counts_as_active (ThrongUserState state)
{
    return state != THRONG_USER_WAITING && state != THRONG_USER_PARKED
           && state != THRONG_USER_IDLE && state != THRONG_USER_DONE;
}

void
throng_user_finish (ThrongUser *user, gboolean now)
{
    ThrongWorker *worker = user->worker;

    if (user->state == THRONG_USER_DONE)
        return;
    /* Before the worker's last report can go out, below. */
    if ((user->state == THRONG_USER_RUNNING || user->state == THRONG_USER_STEP
         || user->state == THRONG_USER_PAUSE || user->state == THRONG_USER_BACKOFF)
        && worker->metrics != NULL)
        worker->metrics->interrupted++;
    if (user_counts_as_active (user->state))
        worker->active[user->scenario_index]--;
    if (user->state == THRONG_USER_IDLE)
        throng_arrivals_remove (user->arrivals, user);
    user->state = THRONG_USER_DONE;
    if (now) {
        if (user->has_timer) /* FALSE: never created (another user's creation failed) */
            user_wait_until (user, -1);
        user_free_protocols (user);
    } else {
        user_wait_until (user, 0);
    }
    throng_worker_user_done (worker);
}

void
throng_user_stop (ThrongUser *user)
{
    /*
     * The others end their iteration and then find the worker's stop
     * flag.  A user in a `pause` or a retry's backoff ends there: waiting
     * it out would only hold the run up until the grace ran out.
     */
    if (user->state == THRONG_USER_WAITING || user->state == THRONG_USER_PARKED
        || user->state == THRONG_USER_IDLE || user->state == THRONG_USER_ITERATION
        || user->state == THRONG_USER_PAUSE || user->state == THRONG_USER_BACKOFF)
        throng_user_finish (user, TRUE);
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
    gint64 now = user_now (user);

    if (user->worker->stopping
        || (scenario->iterations > 0 && user->iteration >= scenario->iterations)
        || (user->deadline_us > 0 && now >= user->deadline_us)) {
        throng_user_finish (user, FALSE);
        return FALSE;
    }
    if (scenario->executor == THRONG_EXECUTOR_RAMPING_USERS
        && !throng_schedule_stage_wants (scenario, user->id, now - user->scenario_start_us)) {
        gint64 next = throng_schedule_stage_next_wanted (scenario, user->id,
                                                         now - user->scenario_start_us);
        if (next < 0) {
            throng_user_finish (user, FALSE);
            return FALSE;
        }
        /* Ramping down: the iteration in flight has finished; park until wanted again. */
        user->worker->active[user->scenario_index]--;
        user->state = THRONG_USER_PARKED;
        user_wait_until (user, user->scenario_start_us + next);
        return FALSE;
    }
    return TRUE;
}

static gboolean user_end_iteration (ThrongUser *user, gint64 now);

/*
 * Goes on from where the walk stopped, @extra_us (a think time) added to a
 * pause.  Same contract as user_after_step().
 */
static gboolean
user_walk_on (ThrongUser *user, ThrongUserNext next, gint64 now, gint64 extra_us)
{
    switch (next) {
    case THRONG_USER_NEXT_REQUEST:
        user->state = THRONG_USER_STEP;
        if (extra_us > 0) {
            user_wait_until (user, now + extra_us);
            return FALSE;
        }
        return TRUE;
    case THRONG_USER_NEXT_PAUSE: {
        gint64 end = now + extra_us + user->pause_us;

        user->state = THRONG_USER_PAUSE;
        user->pause_start_us = now + extra_us;
        /* An arrival that begins with a pause: its first request is due when the pause ends. */
        if (user->scheduled_us > 0)
            user->scheduled_us += extra_us + user->pause_us;
        /* Past the hard deadline the iteration would be cut anyway: wake then (user_timer_fired). */
        if (user->hard_deadline_us > 0 && end > user->hard_deadline_us)
            end = user->hard_deadline_us;
        user_wait_until (user, end);
        return FALSE;
    }
    case THRONG_USER_NEXT_END:
    default:
        return user_end_iteration (user, now);
    }
}

/* A pause ended: the walk goes on, unless the run is stopping. */
static gboolean
user_after_pause (ThrongUser *user)
{
    gint64 now = g_get_monotonic_time ();

    if (user->worker->stopping
        || (user->hard_deadline_us > 0 && now >= user->hard_deadline_us)) {
        throng_user_finish (user, TRUE);
        return FALSE;
    }
    throng_user_steps_note_pause (user, user->pause_start_us, now);
    return user_walk_on (user, throng_user_steps_next (user), now, 0);
}

/*
 * Begins an iteration: the data row, then the first request.  Returns
 * TRUE when the next state can run at once, FALSE when the user waits or
 * is done (its data set ran out).
 */
static gboolean
user_begin_iteration (ThrongUser *user)
{
    const ThrongPlanScenario *scenario = user->scenario;

    for (guint d = 0; scenario->data != NULL && d < scenario->data->n_sets; d++) {
        ThrongDataSet *set = scenario->data->sets[d];
        guint row;

        if (set->advance != THRONG_DATA_PER_ITERATION && user->vars.rows[d] >= 0)
            continue;
        if (!throng_dataset_next_row (set, user->worker->rand, &row)) {
            /* `on_exhausted: stop` (of any set): the user ends cleanly, its iteration never began */
            user->state = THRONG_USER_ITERATION;
            throng_user_finish (user, FALSE);
            return FALSE;
        }
        user->vars.rows[d] = (gint32) row;
    }
    for (guint i = 0; i < scenario->protocols->len; i++) {
        const ThrongPlanProtocol *protocol = g_ptr_array_index (scenario->protocols, i);
        if (protocol->protocol->iteration_begin != NULL)
            protocol->protocol->iteration_begin (user->protocol_data[i]);
    }
    user->iteration_start_us
        = user->scheduled_us > 0 ? user->scheduled_us : user_now (user);
    user->ran_request = FALSE;
    throng_user_steps_begin (user);
    return user_walk_on (user, throng_user_steps_next (user), user_now (user), 0);
}

static void
user_run_step (ThrongUser *user)
{
    const ThrongPlanStep *step = g_ptr_array_index (user->scenario->steps, user->step);
    ThrongSample *sample;
    gint64 start_us;

    /* An arrival's first step counts from when it was due, so that a slow
     * target or a late generator shows in the latency (no coordinated
     * omission). */
    if (user->scheduled_us > 0) {
        start_us = user->scheduled_us;
        user->scheduled_us = 0;
    } else {
        start_us = user_now (user);
    }
    user->done_us = 0;
    sample = throng_user_sample_begin (user, &user->slot, user->step, start_us);

    user->state = THRONG_USER_RUNNING;
    /* Armed lazily: when it is armed already (no pause since the last
     * step), arming it again would move it in the heap for nothing. */
    if (user->hard_deadline_us > 0
        && (!throng_reactor_timer_is_armed (&user->timer)
            || throng_reactor_timer_get_due (&user->timer) != user->hard_deadline_us))
        user_wait_until (user, user->hard_deadline_us);
    user->in_step_run = TRUE;
    user->completed_in_run = FALSE;
    if (throng_user_in_parallel (user))
        user->completed_in_run = throng_user_parallel_start (user, start_us);
    else
        step->protocol->step_run (user->step_user_data[user->step], step->data, sample);
    user->in_step_run = FALSE;
}

/* An arrival-rate user whose iteration ended goes back to its pool. */
static void
user_return_to_pool (ThrongUser *user)
{
    if (user->worker->stopping || throng_arrivals_is_done (user->arrivals)) {
        throng_user_finish (user, FALSE);
        return;
    }
    user->worker->active[user->scenario_index]--;
    user->state = THRONG_USER_IDLE;
    throng_arrivals_put (user->arrivals, user);
}

/*
 * A step failed whose `on_failure` ends the iteration here: its open
 * groups are recorded (failed), then the user goes to its next
 * iteration, ends, or ends and stops the run.  Same contract as
 * user_after_step().
 */
static gboolean
user_failed (ThrongUser *user, const ThrongPlanStep *step, gint64 now)
{
    if (step->on_failure == THRONG_ON_FAILURE_ABORT_RUN) {
        char why[256];
        g_snprintf (why, sizeof why, "step '%s' of scenario '%s' failed (%s)",
                    step->label != NULL ? step->label : step->protocol_name, user->scenario->name,
                    throng_error_class_name (user->slot.sample.error));
        throng_worker_abort_run (user->worker, why);
    }
    /* after the message: closing the groups reuses the failed step's sample */
    throng_user_steps_abandon (user);
    user->leaving = step->on_failure != THRONG_ON_FAILURE_NEXT_ITERATION;
    return user_end_iteration (user, now);
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
    ThrongSample *sample = &user->slot.sample;
    gint64 now = g_get_monotonic_time ();

    /* A parallel's sample spans its children already (user-steps.c). */
    if (user->scenario->step_info[sample->step].kind != THRONG_STEP_PARALLEL)
        sample->elapsed_us = now - sample->start_us;
    worker->metrics->last_done_us = now;
    user->done_us = now;
    throng_user_record (user, sample);
    user->ran_request = TRUE;
    if (G_UNLIKELY (sample->error != THRONG_ERROR_NONE)) {
        const ThrongPlanStep *step = g_ptr_array_index (scenario->steps, sample->step);
        /*
         * The same step again, the walk where it was; the attempt just
         * recorded stays an error.  A step that never went out would not
         * go out the next time either: nothing runs in between.
         */
        if (user->attempt < step->retry_max && !user->worker->stopping
            && sample->error != THRONG_ERROR_VARIABLE) {
            gint64 end = now + step->retry_backoff_us;

            user->attempt++;
            if (step->retry_backoff_us == 0) {
                user->state = THRONG_USER_STEP;
                return TRUE;
            }
            /* Past the hard deadline the iteration would be cut anyway: wake then. */
            if (user->hard_deadline_us > 0 && end > user->hard_deadline_us)
                end = user->hard_deadline_us;
            user->state = THRONG_USER_BACKOFF;
            user_wait_until (user, end);
            return FALSE;
        }
        user->attempt = 0;
        if (step->on_failure != THRONG_ON_FAILURE_CONTINUE)
            return user_failed (user, step, now);
    }
    user->attempt = 0;

    ThrongUserNext next = throng_user_steps_next (user);
    if (next == THRONG_USER_NEXT_END)
        return user_end_iteration (user, now);
    /* The think time follows every request; a pause adds to it. */
    return user_walk_on (user, next, now, throng_schedule_think (&scenario->think, worker->rand));
}

/* The iteration has run its last request; same contract as user_after_step(). */
static gboolean
user_end_iteration (ThrongUser *user, gint64 now)
{
    ThrongWorker *worker = user->worker;
    const ThrongPlanScenario *scenario = user->scenario;

    user->state = THRONG_USER_ITERATION;
    if (!user->ran_request && !scenario->has_choose) {
        /* every step was `once`: this iteration and those left send nothing */
        throng_user_finish (user, FALSE);
        return FALSE;
    }
    worker->metrics->iterations[user->scenario_index]++;
    user->iteration++;
    if (G_UNLIKELY (user->leaving)) {
        throng_user_finish (user, FALSE);
        return FALSE;
    }
    if (user->arrivals != NULL) {
        user_return_to_pool (user);
        return FALSE;
    }
    gint64 next = now + throng_schedule_think (&scenario->think, worker->rand);
    if (scenario->pacing_us > 0)
        next = MAX (next, user->iteration_start_us + scenario->pacing_us);
    /* No pause before an iteration that will not run: the run ends when
     * its last request does, not a think time later. */
    if (worker->stopping || (scenario->iterations > 0 && user->iteration >= scenario->iterations)
        || (user->deadline_us > 0 && next >= user->deadline_us)) {
        throng_user_finish (user, FALSE);
        return FALSE;
    }
    if (next > now) {
        user_wait_until (user, next);
        return FALSE;
    }
    return TRUE;
}

static void
user_advance_steps (ThrongUser *user)
{
    for (guint budget = USER_SYNC_BUDGET; budget > 0; budget--) {
        switch (user->state) {
        case THRONG_USER_WAITING:
        case THRONG_USER_PARKED:
            user->worker->active[user->scenario_index]++;
            user->state = THRONG_USER_ITERATION;
            break;
        case THRONG_USER_ITERATION:
            if (!user_may_iterate (user) || !user_begin_iteration (user))
                return;
            break;
        case THRONG_USER_STEP:
            user_run_step (user);
            if (!user->completed_in_run)
                return;
            if (!user_after_step (user))
                return;
            break;
        case THRONG_USER_PAUSE:
            if (!user_after_pause (user))
                return;
            break;
        case THRONG_USER_BACKOFF:
            if (user->worker->stopping) {
                throng_user_finish (user, TRUE);
                return;
            }
            user->state = THRONG_USER_STEP;
            break;
        case THRONG_USER_IDLE:
        case THRONG_USER_RUNNING:
            return;
        case THRONG_USER_DONE:
            user_free_protocols (user);
            return;
        }
    }
    /* Many synchronous completions in a row: let the loop run other users
     * and the flush requests before going on. */
    user_wait_until (user, 0);
}

static void
user_advance (ThrongUser *user)
{
    user_advance_steps (user);
    user->done_us = 0; /* waiting, or done: the next turn reads the clock */
}

void
throng_user_arrive (ThrongUser *user, gint64 due_us)
{
    user->worker->active[user->scenario_index]++;
    user->scheduled_us = due_us;
    user->state = THRONG_USER_ITERATION;
    if (user_begin_iteration (user))
        user_advance (user);
}

ThrongUser *
throng_user_new (ThrongWorker *worker, guint scenario_index, guint id)
{
    ThrongUser *user = g_new0 (ThrongUser, 1);

    user->worker = worker;
    user->scenario_index = scenario_index;
    user->scenario = g_ptr_array_index (worker->setup.plan->scenarios, scenario_index);
    user->id = id;
    user->state = THRONG_USER_WAITING;
    return user;
}

gboolean
throng_user_create (ThrongUser *user, GError **error)
{
    const ThrongPlanScenario *scenario = user->scenario;

    throng_reactor_timer_init (&user->timer, user->worker->reactor, user_timer_fired, user);
    user->has_timer = TRUE;

    throng_user_vars_init (&user->vars,
                           scenario->scope != NULL ? throng_scope_n_vars (scenario->scope) : 0);
    user->vars.data = scenario->data;
    user->vars.run_id = scenario->first_user_id + user->id + 1;
    user->vars.worker_id = user->worker->setup.index;
    user->vars.rand = user->worker->rand;
    user->vars.scratch = user->worker->scratch;
    user->vars.operand = user->worker->operand;
    user->frames = g_new0 (ThrongUserFrame, MAX (scenario->max_frames, 1));

    if (scenario->max_parallel > 0)
        user->parallel.children = g_new0 (ThrongUserChild, scenario->max_parallel);
    user->protocol_data = g_new0 (gpointer, MAX (scenario->protocols->len, 1));
    for (guint i = 0; i < scenario->protocols->len; i++) {
        const ThrongPlanProtocol *plan_protocol = g_ptr_array_index (scenario->protocols, i);
        const ThrongProtocol *protocol = plan_protocol->protocol;
        g_autoptr (GError) local = NULL;

        if (protocol->user_new_checked == NULL) {
            user->protocol_data[i] = protocol->user_new (plan_protocol->data, user);
            continue;
        }
        user->protocol_data[i] = protocol->user_new_checked (plan_protocol->data, user, &local);
        if (user->protocol_data[i] == NULL) {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                         "scenario %s: %s could not create user %u: %s", scenario->name,
                         protocol->name, user->id,
                         local != NULL ? local->message : "no reason given");
            return FALSE;
        }
    }
    user->step_user_data = g_new0 (gpointer, MAX (scenario->steps->len, 1));
    for (guint s = 0; s < scenario->steps->len; s++) {
        const ThrongPlanStep *step = g_ptr_array_index (scenario->steps, s);
        if (step->kind != THRONG_STEP_REQUEST)
            continue;
        for (guint i = 0; i < scenario->protocols->len; i++) {
            const ThrongPlanProtocol *protocol = g_ptr_array_index (scenario->protocols, i);
            if (protocol->data == step->scenario_data)
                user->step_user_data[s] = user->protocol_data[i];
        }
    }
    return TRUE;
}

void
throng_user_start (ThrongUser *user, ThrongArrivals *arrivals)
{
    ThrongWorker *worker = user->worker;
    const ThrongPlanScenario *scenario = user->scenario;

    user->scenario_start_us = worker->setup.start_us + scenario->start_after_us;
    gint64 length = throng_plan_scenario_length (scenario);
    if (length > 0) {
        user->deadline_us = user->scenario_start_us + length;
        user->hard_deadline_us = user->deadline_us + scenario->graceful_stop_us;
    }

    if (arrivals != NULL) {
        user->arrivals = arrivals;
        user->state = THRONG_USER_IDLE;
        throng_arrivals_put (arrivals, user);
        return;
    }
    gint64 first = throng_schedule_first_start (scenario, user->id);
    if (first < 0)
        throng_user_finish (user, TRUE);   /* no stage ever wants this many users */
    else
        user_wait_until (user, user->scenario_start_us + first);
}

/*
 * The setup user's variables become the plan's ${setup.*}: written here,
 * on its worker, before the engine joins it; read by the load's users,
 * started after that join.
 */
static void
keep_setup_vars (ThrongUser *user)
{
    GPtrArray *values = user->scenario->scope->plan->setup_values;

    for (guint i = 0; i < user->vars.n_vars && i < values->len; i++) {
        const ThrongVarSlot *slot = &user->vars.vars[i];
        g_free (values->pdata[i]);
        values->pdata[i] = slot->set ? g_strndup (slot->value, slot->length) : NULL;
    }
}

void
throng_user_free (gpointer data)
{
    ThrongUser *user = data;

    user_free_protocols (user);
    if (user->has_timer)
        throng_reactor_timer_cancel (&user->timer);
    throng_sample_slot_clear (&user->slot);
    if (user->scenario != NULL && user->scenario->keeps_vars)
        keep_setup_vars (user);
    throng_user_vars_clear (&user->vars);
    g_free (user->frames);
    throng_user_parallel_clear (user);
    g_free (user);
}

/* --- the SDK's view of a user ------------------------------------------------ */

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

/*
 * The step in flight (a request, or a whole parallel) completed.  Inside
 * the protocol's step_run, user_advance_steps() goes on when it returns;
 * later, from the protocol's callback, the user goes on from here.
 */
static void
user_step_completed (ThrongUser *user)
{
    if (user->in_step_run) {
        user->completed_in_run = TRUE;
        return;
    }
    if (user_after_step (user))
        user_advance (user);
    else
        user->done_us = 0;
}

void
throng_user_step_done (ThrongUser *user)
{
    g_return_if_fail (user != NULL);
    if (user->state == THRONG_USER_DONE)
        return; /* aborted while the step was in flight: not measured */
    g_return_if_fail (user->state == THRONG_USER_RUNNING);

    if (throng_user_in_parallel (user) && !throng_user_parallel_child_done (user, NULL))
        return;
    user_step_completed (user);
}

void
throng_user_step_done_sample (ThrongUser *user, ThrongSample *sample)
{
    g_return_if_fail (user != NULL);
    g_return_if_fail (sample != NULL);
    if (user->state == THRONG_USER_DONE)
        return;
    g_return_if_fail (user->state == THRONG_USER_RUNNING);

    if (sample == &user->slot.sample) {
        throng_user_step_done (user);
        return;
    }
    if (throng_user_parallel_child_done (user, sample))
        user_step_completed (user);
}

ThrongReactor *
throng_user_get_reactor (ThrongUser *user)
{
    return user->worker->reactor;
}
