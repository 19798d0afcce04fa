/* SPDX-License-Identifier: MIT */
/*
 * A user's `parallel` step: its children (protocol requests) started at
 * most `max` at once, each with its own sample, through the protocol's
 * step_run_concurrent, or one after another through step_run when a
 * child's protocol lacks it.  Each child is recorded as it completes; when
 * the last one has, the parallel's own sample (from its first child's
 * start to its last child's end, failed when a child failed) becomes the
 * user's step result, and the user goes on as after any step.
 *
 * A child the protocol cannot take yet (an HTTP/2 connection at the
 * server's max_concurrent_streams) starts when another completes; its
 * sample starts when the core first tried it, so the wait is part of its
 * latency (docs/http.md).
 */
#include "user-private.h"

#include "worker-private.h"

#include <string.h>

static ThrongUserSlot *
free_slot (ThrongUserParallel *p, guint n_slots)
{
    for (guint i = 0; i < n_slots; i++) {
        if (!p->slots[i].busy)
            return &p->slots[i];
    }
    return NULL;
}

/*
 * Starts @child in @slot.  FALSE when the protocol cannot take one more
 * step of the user now; it then started nothing.
 */
static gboolean
start_child (ThrongUser *user, ThrongUserSlot *slot, const ThrongAction *child, gint64 start_us)
{
    ThrongUserParallel *p = &user->parallel;
    const ThrongPlanStep *step = g_ptr_array_index (user->scenario->steps, child->step);
    ThrongSample *sample = &slot->sample;

    memset (sample, 0, sizeof *sample);
    sample->start_us = start_us > 0 ? start_us : g_get_monotonic_time ();
    sample->wall_start_us = sample->start_us + user->worker->setup.wall_offset_us;
    sample->scenario = user->scenario_index;
    sample->step = child->step;
    sample->user = user->id;
    sample->iteration = user->iteration;
    sample->iteration32 = (guint32) user->iteration;
    sample->owner = user;
    slot->busy = TRUE;
    p->running++;

    /* With none in flight the protocol must take it; step_run always does. */
    if (p->action->concurrent && p->running > 1) {
        if (step->protocol->step_run_concurrent (user->step_user_data[child->step], step->data,
                                                 sample))
            return TRUE;
        slot->busy = FALSE;
        p->running--;
        return FALSE;
    }
    if (p->action->concurrent)
        step->protocol->step_run_concurrent (user->step_user_data[child->step], step->data, sample);
    else
        step->protocol->step_run (user->step_user_data[child->step], step->data, sample);
    return TRUE;
}

/* The parallel's own sample, in user->sample, as user_end_group() makes a group's. */
static void
parallel_result (ThrongUser *user)
{
    ThrongUserParallel *p = &user->parallel;
    ThrongSample *sample = &user->sample;

    memset (sample, 0, sizeof *sample);
    sample->start_us = p->first_start_us;
    sample->elapsed_us = p->last_end_us - p->first_start_us;
    sample->wall_start_us = sample->start_us + user->worker->setup.wall_offset_us;
    sample->scenario = user->scenario_index;
    sample->step = p->action->step;
    sample->user = user->id;
    sample->iteration = user->iteration;
    sample->iteration32 = (guint32) user->iteration;
    sample->bytes_sent = p->bytes_sent;
    sample->bytes_received = p->bytes_received;
    sample->owner = user;
    sample->error = p->error;
    if (p->error != THRONG_ERROR_NONE) {
        const ThrongPlanStep *failed = g_ptr_array_index (user->scenario->steps, p->failed_step);
        char *buffer = throng_user_message_buffer (user);
        g_snprintf (buffer, THRONG_SAMPLE_MESSAGE_MAX + 1, "'%s' failed (%s)", failed->label,
                    throng_error_class_name (p->error));
        sample->message = buffer;
    }
    p->action = NULL;
}

/*
 * Starts children while slots and the protocol allow.  Returns TRUE when
 * the whole parallel has completed (its sample is in user->sample).
 */
static gboolean
fill (ThrongUser *user, gint64 first_start_us)
{
    ThrongUserParallel *p = &user->parallel;
    const ThrongAction *action = p->action;
    guint n_slots = user->scenario->max_parallel;
    guint most = action->concurrent ? (guint) MIN (action->count, (guint64) n_slots) : 1;

    p->filling = TRUE;
    while (p->next < action->n_children && p->running < most) {
        ThrongUserSlot *slot = free_slot (p, n_slots);

        g_assert (slot != NULL);
        if (first_start_us == 0)
            first_start_us = p->waiting_since_us;
        if (!start_child (user, slot, action->children[p->next], first_start_us)) {
            if (p->waiting_since_us == 0)
                p->waiting_since_us = slot->sample.start_us;
            break;
        }
        first_start_us = 0;
        p->waiting_since_us = 0;
        p->next++;
    }
    p->filling = FALSE;
    if (p->running > 0 || p->next < action->n_children)
        return FALSE;
    parallel_result (user);
    return TRUE;
}

void
throng_user_parallel_start (ThrongUser *user, gint64 start_us)
{
    ThrongUserParallel *p = &user->parallel;

    p->next = 0;
    p->running = 0;
    p->ran = FALSE;
    p->waiting_since_us = 0;
    p->error = THRONG_ERROR_NONE;
    p->bytes_sent = 0;
    p->bytes_received = 0;
    if (fill (user, start_us))
        user->completed_in_run = TRUE;
}

void
throng_user_parallel_child_done (ThrongUser *user, ThrongSample *sample)
{
    ThrongUserParallel *p = &user->parallel;
    guint n_slots = user->scenario->max_parallel;
    ThrongUserSlot *slot = NULL;
    gint64 now = g_get_monotonic_time ();

    for (guint i = 0; i < n_slots && slot == NULL; i++) {
        if (p->slots[i].busy && (sample == NULL || sample == &p->slots[i].sample))
            slot = &p->slots[i];
    }
    g_return_if_fail (slot != NULL);
    sample = &slot->sample;
    sample->elapsed_us = now - sample->start_us;
    user->worker->metrics->last_done_us = now;
    throng_user_record (user, sample);
    if (!p->ran || sample->start_us < p->first_start_us)
        p->first_start_us = sample->start_us;
    if (!p->ran || now > p->last_end_us)
        p->last_end_us = now;
    p->ran = TRUE;
    if (sample->error != THRONG_ERROR_NONE && p->error == THRONG_ERROR_NONE) {
        p->error = sample->error;
        p->failed_step = sample->step;
    }
    p->bytes_sent += sample->bytes_sent;
    p->bytes_received += sample->bytes_received;
    slot->busy = FALSE;
    p->running--;

    if (p->filling)
        return; /* completed inside step_run: fill() goes on */
    if (fill (user, 0)) {
        if (user->in_step_run)
            user->completed_in_run = TRUE;
        else
            throng_user_step_completed (user);
    }
}

void
throng_user_parallel_clear (ThrongUser *user)
{
    ThrongUserParallel *p = &user->parallel;

    if (p->slots == NULL)
        return;
    for (guint i = 0; i < user->scenario->max_parallel; i++)
        g_free (p->slots[i].message);
    g_clear_pointer (&p->slots, g_free);
}
