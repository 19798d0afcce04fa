/* SPDX-License-Identifier: MIT */
/*
 * The step interpreter: where a user is in its scenario's program (a tree
 * of ThrongActions) as a stack of frames, one per open container, and what
 * the groups and parallels among them record.  It walks from one request
 * (or parallel, or pause) to the next, running `set`s and drawing
 * `choose`s on the way, and closes each frame whose steps ran out: a
 * group or a parallel becomes a transaction sample, a repeat goes round
 * again.  It never waits or arms a timer: user.c decides when the user
 * walks on, and user-parallel.c runs a parallel's children.
 */
#include "user-private.h"

#include "condition-private.h"
#include "schedule.h"
#include "worker-private.h"

#include <string.h>

static gboolean
frame_keeps_transaction (ThrongActionKind kind)
{
    return kind == THRONG_ACTION_GROUP || kind == THRONG_ACTION_PARALLEL;
}

static void
frame_open (ThrongUserFrame *frame, const ThrongAction *action)
{
    memset (frame, 0, sizeof *frame);
    frame->action = action;
    frame->steps = action->children;
    frame->n_steps = action->n_children;
    frame->kind = action->kind;
}

static void
frame_push (ThrongUser *user, const ThrongAction *action)
{
    ThrongUserFrame *frame = &user->frames[++user->depth];

    frame_open (frame, action);
    if (frame_keeps_transaction (frame->kind))
        user->open_transactions++;
}

void
throng_user_steps_begin (ThrongUser *user)
{
    user->depth = 0;
    user->open_transactions = 0;
    user->vars.last_status = 0;
    user->vars.last_elapsed_us = -1;
    frame_open (&user->frames[0], user->scenario->program);
}

/* The transaction of @frame spans @start_us to @end_us (min and max: a parallel's children end in any order). */
static void
frame_span (ThrongUserFrame *frame, gint64 start_us, gint64 end_us)
{
    if (!frame->ran || start_us < frame->start_us)
        frame->start_us = start_us;
    if (!frame->ran || end_us > frame->end_us)
        frame->end_us = end_us;
    frame->ran = TRUE;
}

/* A request was recorded inside open transactions: each of them spans it and fails with it. */
static void
note_request (ThrongUser *user, const ThrongSample *sample)
{
    for (guint d = user->depth; d > 0; d--) {
        ThrongUserFrame *frame = &user->frames[d];

        if (!frame_keeps_transaction (frame->kind))
            continue;
        frame_span (frame, sample->start_us, sample->start_us + sample->elapsed_us);
        if (sample->error != THRONG_ERROR_NONE && frame->error == THRONG_ERROR_NONE) {
            frame->error = sample->error;
            frame->failed_step = sample->step;
        }
        frame->bytes_sent += sample->bytes_sent;
        frame->bytes_received += sample->bytes_received;
    }
}

/*
 * A transaction includes the think time inside it, though a pause is no
 * request and fails nothing.  Only groups are open at a pause: a
 * parallel's children are requests.
 */
void
throng_user_steps_note_pause (ThrongUser *user, gint64 start_us, gint64 end_us)
{
    if (user->open_transactions == 0)
        return;
    for (guint d = user->depth; d > 0; d--) {
        ThrongUserFrame *frame = &user->frames[d];

        if (frame_keeps_transaction (frame->kind))
            frame_span (frame, start_us, end_us);
    }
}

void
throng_user_record (ThrongUser *user, ThrongSample *sample)
{
    ThrongWorker *worker = user->worker;
    ThrongStepKind kind = user->scenario->step_info[sample->step].kind;

    if (G_UNLIKELY (sample->error == THRONG_ERROR_VARIABLE))
        sample->flags |= THRONG_SAMPLE_NOT_SENT;
    /* user->attempt is the step's own `retry` count: a parallel's children have none */
    if (G_UNLIKELY (user->attempt > 0) && kind == THRONG_STEP_REQUEST
        && sample == &user->slot.sample) {
        sample->flags |= THRONG_SAMPLE_RETRY;
        throng_metrics_step_retried (worker->metrics, user->scenario_index, sample->step);
    }
    throng_stats_record (throng_metrics_step (worker->metrics, user->scenario_index, sample->step),
                         sample);
    /*
     * `last.*` is this request's from now on, its own `record:` included;
     * a step that never went out was not a request.
     */
    if (kind == THRONG_STEP_REQUEST && sample->error != THRONG_ERROR_VARIABLE) {
        user->vars.last_status = sample->status;
        user->vars.last_elapsed_us = sample->elapsed_us;
        user->vars.last_latency_us = sample->latency_us;
        user->vars.last_connect_us = sample->connect_us;
        user->vars.last_tls_us = sample->tls_us;
    }
    /*
     * After the protocol's extractors ran: what `record:` reads is this
     * response's.  A step that never went out (a variable it needed was
     * not set) had no response to record from.
     */
    const ThrongPlanStep *step = g_ptr_array_index (user->scenario->steps, sample->step);
    if (step->records != NULL && sample->error != THRONG_ERROR_VARIABLE)
        throng_custom_record (user, step->records);
    if (worker->setup.want_samples)
        throng_worker_keep_sample (worker, sample, throng_sample_message_in_slot (sample));
    /*
     * A group's or a parallel's children were noted in every open
     * transaction already: noting the transaction too would count their
     * bytes twice.
     */
    if (user->open_transactions > 0 && kind == THRONG_STEP_REQUEST)
        note_request (user, sample);
}

/*
 * One function for a group's and a parallel's sample, so the two cannot
 * drift apart in what reporters see.  A group none of whose children ran
 * (all of them `once`, after the first iteration) makes none.
 */
gboolean
throng_user_frame_close (ThrongUser *user)
{
    const ThrongUserFrame *frame = &user->frames[user->depth];
    ThrongSample *sample;

    g_assert (user->depth > 0);
    user->depth--;
    if (!frame_keeps_transaction (frame->kind))
        return FALSE;
    user->open_transactions--;
    if (!frame->ran)
        return FALSE;
    sample = throng_user_sample_begin (user, &user->slot, frame->action->step, frame->start_us);
    sample->elapsed_us = frame->end_us - frame->start_us;
    sample->bytes_sent = frame->bytes_sent;
    sample->bytes_received = frame->bytes_received;
    sample->error = frame->error;
    if (frame->error != THRONG_ERROR_NONE) {
        const ThrongPlanStep *failed = g_ptr_array_index (user->scenario->steps, frame->failed_step);
        char *room = throng_sample_slot_message (&user->slot);

        g_snprintf (room, THRONG_SAMPLE_MESSAGE_MAX + 1, "'%s' failed (%s)", failed->label,
                    throng_error_class_name (frame->error));
        sample->message = room;
    }
    return TRUE;
}

void
throng_user_steps_abandon (ThrongUser *user)
{
    while (user->depth > 0) {
        if (throng_user_frame_close (user))
            throng_user_record (user, &user->slot.sample);
    }
}

/* `set`: each variable gets its template's expansion, or is unset when that fails. */
static void
run_set (ThrongUser *user, const ThrongAction *action)
{
    GString *scratch = user->vars.scratch;

    for (guint i = 0; i < action->n_values; i++) {
        g_autoptr (GError) error = NULL;

        g_string_truncate (scratch, 0);
        if (throng_template_expand (action->values[i], user, scratch, &error))
            throng_user_set_var (user, action->slots[i], scratch->str, (gssize) scratch->len);
        else
            throng_user_unset_var (user, action->slots[i]);
    }
}

/* A loop's `as` variable: the round's index, from 0. */
static void
set_index (ThrongUser *user, const ThrongAction *loop, guint64 round)
{
    char digits[24];
    gint n = g_snprintf (digits, sizeof digits, "%" G_GUINT64_FORMAT, round);

    throng_user_set_var (user, (gint) loop->index_var - 1, digits, n);
}

/*
 * The next element of a foreach's list into its `as` variable; FALSE when
 * the list has no more (or is not one, or is unset: no round runs).  The
 * list is read where the last element ended, so a body that sets the list
 * variable again walks on in the new value.
 */
static gboolean
foreach_next (ThrongUser *user, ThrongUserFrame *frame)
{
    const ThrongAction *loop = frame->action;
    const ThrongVarSlot *list = &user->vars.vars[loop->list_slot];
    GString *element = user->vars.scratch;

    if (!list->set || frame->cursor > list->length
        || !throng_list_next (list->value, list->length, &frame->cursor, element))
        return FALSE;
    throng_user_set_var (user, (gint) loop->index_var - 1, element->str, (gssize) element->len);
    return TRUE;
}

/* Whether the loop that is @frame runs another round (its round counter already advanced). */
static gboolean
loop_again (ThrongUser *user, ThrongUserFrame *frame)
{
    const ThrongAction *loop = frame->action;

    if (frame->round >= loop->count)
        return FALSE;
    switch (frame->kind) {
    case THRONG_ACTION_REPEAT:
        if (loop->index_var != 0)
            set_index (user, loop, frame->round);
        return TRUE;
    case THRONG_ACTION_WHILE:
        return throng_condition_eval (loop->condition, user);
    case THRONG_ACTION_FOREACH:
        return foreach_next (user, frame);
    default:
        return FALSE;
    }
}

static const ThrongAction *
draw_branch (ThrongUser *user, const ThrongAction *choose)
{
    guint draw = (guint) g_rand_int_range (user->worker->rand, 0, (gint32) choose->total_weight);

    for (guint b = 0; b < choose->n_children; b++) {
        if (draw < choose->cumulative[b])
            return choose->children[b];
    }
    return choose->children[choose->n_children - 1];
}

/*
 * A pause stays inside its groups: their transaction spans it when a
 * request follows it in the group.
 */
ThrongUserNext
throng_user_steps_next (ThrongUser *user)
{
    for (;;) {
        ThrongUserFrame *frame = &user->frames[user->depth];

        if (frame->next >= frame->n_steps) {
            if ((frame->kind == THRONG_ACTION_REPEAT || frame->kind == THRONG_ACTION_WHILE
                 || frame->kind == THRONG_ACTION_FOREACH)
                && (++frame->round, loop_again (user, frame))) {
                frame->next = 0;
                continue;
            }
            if (user->depth == 0)
                return THRONG_USER_NEXT_END;
            if (throng_user_frame_close (user))
                throng_user_record (user, &user->slot.sample);
            continue;
        }

        const ThrongAction *child = frame->steps[frame->next++];
        if (child->once && user->iteration > 0)
            continue;
        switch (child->kind) {
        case THRONG_ACTION_REQUEST:
            user->step = child->step;
            return THRONG_USER_NEXT_REQUEST;
        case THRONG_ACTION_PARALLEL:
            user->step = child->step;
            frame_push (user, child);
            return THRONG_USER_NEXT_REQUEST;
        case THRONG_ACTION_PAUSE:
            user->pause_us = throng_schedule_think (&child->pause, user->worker->rand);
            return THRONG_USER_NEXT_PAUSE;
        case THRONG_ACTION_SET:
            run_set (user, child);
            break;
        case THRONG_ACTION_CHOOSE:
            frame_push (user, draw_branch (user, child));
            break;
        case THRONG_ACTION_IF:
            if (throng_condition_eval (child->condition, user))
                frame_push (user, child->children[0]);
            else if (child->n_children > 1)
                frame_push (user, child->children[1]);
            break;
        case THRONG_ACTION_REPEAT:
        case THRONG_ACTION_WHILE:
        case THRONG_ACTION_FOREACH:
            /* round 0 is asked as every other is; a loop with none closes at once */
            frame_push (user, child);
            if (!loop_again (user, &user->frames[user->depth]))
                throng_user_frame_close (user);
            break;
        case THRONG_ACTION_GROUP:
        case THRONG_ACTION_SEQUENCE:
            frame_push (user, child);
            break;
        }
    }
}
