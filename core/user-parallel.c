/* SPDX-License-Identifier: MIT */
/*
 * A user's `parallel` step: its children (protocol requests) started at
 * most `max` at once, each with its own sample, through the protocol's
 * step_run_concurrent, or one after another through step_run when a
 * child's protocol lacks it.  The parallel is the innermost of the user's
 * frames (user-steps.c) while its children run: its cursor says which
 * child starts next, and as each child is recorded the frame notes it in
 * its transaction like a group's.  When the last one has completed, the
 * frame closes into the parallel's own sample, which becomes the user's
 * step result; user.c goes on as after any step.
 *
 * A child the protocol cannot take yet (an HTTP/2 connection at the
 * server's max_concurrent_streams) starts when another completes; its
 * sample starts when the core first tried it, so the wait is part of its
 * latency (docs/http.md).
 */
#include "user-private.h"

#include "worker-private.h"

#include <string.h>

/* The parallel in flight: the innermost frame (user-steps.c pushed it, closes it here). */
static ThrongUserFrame *
parallel_frame (ThrongUser *user)
{
    g_assert (throng_user_in_parallel (user));
    return &user->frames[user->depth];
}

static ThrongUserChild *
free_child (ThrongUserParallel *p, guint n_children)
{
    for (guint i = 0; i < n_children; i++) {
        if (!p->children[i].busy)
            return &p->children[i];
    }
    return NULL;
}

/*
 * Starts @action in @child.  FALSE when the protocol cannot take one more
 * step of the user now; it then started nothing.
 */
static gboolean
start_child (ThrongUser *user, gboolean concurrent, ThrongUserChild *child,
             const ThrongAction *action, gint64 start_us)
{
    ThrongUserParallel *p = &user->parallel;
    const ThrongPlanStep *step = g_ptr_array_index (user->scenario->steps, action->step);
    ThrongSample *sample = throng_user_sample_begin (
        user, &child->slot, action->step, start_us > 0 ? start_us : g_get_monotonic_time ());

    child->busy = TRUE;
    p->running++;

    /* With none in flight the protocol must take it; step_run always does. */
    if (concurrent && p->running > 1) {
        if (step->protocol->step_run_concurrent (user->step_user_data[action->step], step->data,
                                                 sample))
            return TRUE;
        child->busy = FALSE;
        p->running--;
        return FALSE;
    }
    if (concurrent)
        step->protocol->step_run_concurrent (user->step_user_data[action->step], step->data,
                                             sample);
    else
        step->protocol->step_run (user->step_user_data[action->step], step->data, sample);
    return TRUE;
}

/*
 * Starts children while slots and the protocol allow.  Returns TRUE when
 * the whole parallel has completed: its frame is closed and its sample is
 * in user->slot.
 */
static gboolean
fill (ThrongUser *user, gint64 first_start_us)
{
    ThrongUserParallel *p = &user->parallel;
    ThrongUserFrame *frame = parallel_frame (user);
    const ThrongAction *action = frame->action;
    guint n_children = user->scenario->max_parallel;
    guint most = action->concurrent ? (guint) MIN (action->count, (guint64) n_children) : 1;

    p->filling = TRUE;
    while (frame->next < frame->n_steps && p->running < most) {
        ThrongUserChild *child = free_child (p, n_children);

        g_assert (child != NULL);
        if (first_start_us == 0)
            first_start_us = p->waiting_since_us;
        if (!start_child (user, action->concurrent, child, frame->steps[frame->next],
                          first_start_us)) {
            if (p->waiting_since_us == 0)
                p->waiting_since_us = child->slot.sample.start_us;
            break;
        }
        first_start_us = 0;
        p->waiting_since_us = 0;
        frame->next++;
    }
    p->filling = FALSE;
    if (p->running > 0 || frame->next < frame->n_steps)
        return FALSE;
    /* Every child ran and was recorded, so the frame has a transaction. */
    if (!throng_user_frame_close (user))
        g_assert_not_reached ();
    return TRUE;
}

gboolean
throng_user_parallel_start (ThrongUser *user, gint64 start_us)
{
    ThrongUserParallel *p = &user->parallel;

    p->running = 0;
    p->waiting_since_us = 0;
    return fill (user, start_us);
}

gboolean
throng_user_parallel_child_done (ThrongUser *user, ThrongSample *sample)
{
    ThrongUserParallel *p = &user->parallel;
    guint n_children = user->scenario->max_parallel;
    ThrongUserChild *child = NULL;
    gint64 now = g_get_monotonic_time ();

    for (guint i = 0; i < n_children && child == NULL; i++) {
        if (p->children[i].busy && (sample == NULL || sample == &p->children[i].slot.sample))
            child = &p->children[i];
    }
    g_return_val_if_fail (child != NULL, FALSE);
    sample = &child->slot.sample;
    sample->elapsed_us = now - sample->start_us;
    user->worker->metrics->last_done_us = now;
    /* Also notes it in the parallel's transaction, which is an open frame. */
    throng_user_record (user, sample);
    child->busy = FALSE;
    p->running--;

    if (p->filling)
        return FALSE; /* completed inside step_run: fill() goes on */
    return fill (user, 0);
}

void
throng_user_parallel_clear (ThrongUser *user)
{
    ThrongUserParallel *p = &user->parallel;

    if (p->children == NULL)
        return;
    for (guint i = 0; i < user->scenario->max_parallel; i++)
        throng_sample_slot_clear (&p->children[i].slot);
    g_clear_pointer (&p->children, g_free);
}
