/* SPDX-License-Identifier: MIT */
/*
 * One virtual user, as the worker and the arrival schedules drive it:
 * its life (user.c), the interpreter that walks its steps in frames
 * (user-steps.c) and the children of a `parallel` (user-parallel.c),
 * called in that order and never back.  Private to the core; plugins
 * see <throng/user.h>.
 */
#pragma once

#include "arrivals-private.h"
#include "reactor-private.h"
#include "sample-private.h"
#include "template-private.h"
#include "worker-private.h"

typedef enum {
    THRONG_USER_WAITING,        /* before its first iteration */
    THRONG_USER_PARKED,         /* ramping: not wanted by the current stage */
    THRONG_USER_IDLE,           /* arrival rate: in the pool, waiting for an arrival */
    THRONG_USER_ITERATION,      /* next: begin an iteration */
    THRONG_USER_STEP,           /* next: run the current step */
    THRONG_USER_RUNNING,        /* a step is in flight */
    THRONG_USER_DONE,
    THRONG_USER_PAUSE,          /* in a `pause` step, on its timer; next: walk on */
    THRONG_USER_BACKOFF,        /* waiting out a `retry:` backoff, on its timer; next: the step */
} ThrongUserState;

/*
 * One open container of the user's program: the root sequence, a group,
 * a repeat, a drawn branch of a choose, a parallel while its children
 * run.  `steps` is what it runs and `next` the cursor in them.  A group
 * and a parallel keep a transaction besides: the span of their children
 * (and of the pauses between them) and the first one that failed, which
 * throng_user_frame_close() turns into their sample.  A control step to
 * come (if/else, while, foreach) is one more kind whose frame walks the
 * steps it chose with the same cursor, and is timed as part of the
 * groups around it with nothing new here.
 */
typedef struct {
    const ThrongAction *action;         /* the container: its step (a transaction's), its count */
    ThrongAction *const *steps;         /* what the frame runs: action->children */
    guint n_steps;
    guint next;                         /* the step to run (parallel: to start) next */
    ThrongActionKind kind;              /* action->kind, read on every step the walk takes */
    gboolean ran;                       /* a child (or a pause) completed: the span below is set */
    guint64 round;                      /* repeat, while, foreach: rounds completed */
    gsize cursor;                       /* foreach: where the next element begins in the list */
    /* the transaction (group, parallel) */
    gint64 start_us;                    /* the first child's start */
    gint64 end_us;                      /* the last child's end */
    guint64 bytes_sent;
    guint64 bytes_received;
    ThrongErrorClass error;             /* the first failing child's class */
    guint failed_step;                  /* that child */
} ThrongUserFrame;

/* One child of a `parallel` in flight: its sample, with the room for its message. */
typedef struct {
    ThrongSampleSlot slot;
    gboolean busy;
} ThrongUserChild;

/*
 * What a `parallel` needs beyond its frame (user-parallel.c): its children
 * in flight.  One at a time per user, since a parallel holds requests only.
 */
typedef struct {
    ThrongUserChild *children;  /* scenario->max_parallel */
    guint running;
    gboolean filling;           /* starting children: a completion does not start more */
    gint64 waiting_since_us;    /* the protocol refused the frame's next child first then; 0: not */
} ThrongUserParallel;

struct _ThrongUser {
    ThrongWorker *worker;
    const ThrongPlanScenario *scenario;
    guint scenario_index;
    guint id;
    ThrongArrivals *arrivals;   /* arrival rate: its pool; NULL otherwise */
    gpointer *protocol_data;    /* per entry of scenario->protocols */
    gpointer *step_user_data;   /* per step: the protocol_data entry its protocol uses */
    ThrongUserState state;
    guint step;
    guint64 iteration;
    gint64 deadline_us;         /* no new iteration from then on; 0: none */
    gint64 hard_deadline_us;    /* a step still in flight then is cancelled; 0: none */
    gint64 scenario_start_us;   /* monotonic start of the user's scenario */
    gint64 iteration_start_us;
    gint64 scheduled_us;        /* arrival rate: when the iteration was due */
    gint64 pause_us;            /* the `pause` the walk stopped at: how long, drawn */
    gint64 pause_start_us;      /* when it began (after the think time before it) */
    gint64 done_us;             /* when the last step completed, while what follows runs at once; 0 outside */
    ThrongReactorTimer timer;   /* start, think time, pause, pacing, yield, hard deadline */
    gboolean has_timer;         /* the timer is initialised (throng_user_create ran) */
    gboolean in_step_run;
    gboolean completed_in_run;
    ThrongSampleSlot slot;      /* the step's sample (a request's, a group's, a parallel's) */
    ThrongUserVars vars;        /* what templates read: variables, data row, ids */
    ThrongUserFrame *frames;    /* scenario->max_frames; frames[0] is the program */
    guint depth;                /* the innermost open frame */
    guint open_transactions;    /* frames of groups and parallels among them */
    gboolean ran_request;       /* the iteration ran a request */
    gboolean leaving;           /* on_failure: stop-user: the user ends with this iteration */
    guint attempt;              /* the step's `retry`: attempts that failed so far */
    ThrongUserParallel parallel;
};

/* A user of scenario @scenario_index, waiting; nothing is created for it yet. */
ThrongUser *throng_user_new (ThrongWorker *worker, guint scenario_index, guint id);

/*
 * On the worker thread, before the run starts: creates the user's timer
 * and its protocols' state.  Fails when a protocol cannot create it.
 */
gboolean throng_user_create (ThrongUser *user, GError **error);

/*
 * When the run starts (worker->setup.start_us is set): schedules the
 * user's first iteration, or, with @arrivals, puts it in that pool.
 */
void throng_user_start (ThrongUser *user, ThrongArrivals *arrivals);

void throng_user_free (gpointer user);

/* An arrival that was due at @due_us takes this idle user: its iteration begins now. */
void throng_user_arrive (ThrongUser *user, gint64 due_us);

/* Graceful stop: a user that has no iteration in flight ends now. */
void throng_user_stop (ThrongUser *user);

/*
 * Ends a user.  With @now, its protocol state is freed at once (a step in
 * flight is cancelled and not recorded); without, soon, from the loop,
 * because a plugin that just completed a step may still be on the stack.
 */
void throng_user_finish (ThrongUser *user, gboolean now);

/*
 * Begins @slot's sample of @step at @start_us with what the core sets on
 * every sample of @user: one home for a request's, a parallel child's and
 * a transaction's, so no field is forgotten in one of them.  Inline: it
 * runs for every request.
 */
static inline ThrongSample *
throng_user_sample_begin (ThrongUser *user, ThrongSampleSlot *slot, guint step, gint64 start_us)
{
    ThrongSample *sample = &slot->sample;

    throng_sample_slot_reset (slot);
    sample->start_us = start_us;
    sample->wall_start_us = start_us + user->worker->setup.wall_offset_us;
    sample->scenario = user->scenario_index;
    sample->step = step;
    sample->user = user->id;
    sample->iteration = user->iteration;
    sample->iteration32 = (guint32) user->iteration;
    return sample;
}

/* ---- user-steps.c: the step interpreter ---------------------------------- */

typedef enum {
    THRONG_USER_NEXT_REQUEST,   /* user->step is the next request (or parallel) */
    THRONG_USER_NEXT_PAUSE,     /* a `pause`: user->pause_us is how long */
    THRONG_USER_NEXT_END,       /* the iteration has no more */
} ThrongUserNext;

/* An iteration begins: the only open frame is the program's. */
void throng_user_steps_begin (ThrongUser *user);
/*
 * Walks the program to the next request, parallel or pause of the
 * iteration.  Runs `set`s, draws `choose`s and records the groups that
 * end on the way; allocates nothing.  A parallel is left open as the
 * innermost frame, for user-parallel.c to run.
 */
ThrongUserNext throng_user_steps_next (ThrongUser *user);
/* Whether the step in flight is a parallel (the innermost frame is one). */
static inline gboolean
throng_user_in_parallel (const ThrongUser *user)
{
    return user->frames[user->depth].kind == THRONG_ACTION_PARALLEL;
}
/*
 * Closes the innermost frame.  For a group or a parallel whose children
 * ran, its transaction becomes user->slot.sample: from its first child's
 * start to its last child's end, failed when a child failed.  Returns
 * whether it made one (then the caller records it, or for a parallel,
 * completes the step with it).
 */
gboolean throng_user_frame_close (ThrongUser *user);
/*
 * A step failed with `on_failure` other than continue: the iteration ends
 * here.  Closes every open frame, recording the groups whose children ran
 * (failed, as a child did).
 */
void throng_user_steps_abandon (ThrongUser *user);
/* Counts @sample of @user and hands it to the reporters; notes a request in open transactions. */
void throng_user_record (ThrongUser *user, ThrongSample *sample);
/* A pause from @start_us to @end_us ended: the open groups span it. */
void throng_user_steps_note_pause (ThrongUser *user, gint64 start_us, gint64 end_us);

/* ---- user-parallel.c: the children of a parallel -------------------------- */

/*
 * Starts the children of the parallel that is the innermost frame, the
 * first one due at @start_us.  Returns TRUE when all of them completed
 * already (the parallel's sample is in user->slot).
 */
gboolean throng_user_parallel_start (ThrongUser *user, gint64 start_us);
/*
 * A child of the parallel completed with @sample (NULL: the one in
 * flight, run by step_run).  Records it, starts the next ones; returns
 * TRUE when that completed the parallel (its sample is in user->slot).
 */
gboolean throng_user_parallel_child_done (ThrongUser *user, ThrongSample *sample);
void throng_user_parallel_clear (ThrongUser *user);
