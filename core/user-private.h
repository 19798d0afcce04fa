/* SPDX-License-Identifier: MIT */
/*
 * One virtual user's life, as the worker and the arrival schedules drive
 * it.  Private to the core; plugins see <throng/user.h>.
 */
#pragma once

#include "arrivals-private.h"
#include "reactor-private.h"
#include "template-private.h"
#include "worker.h"

typedef enum {
    THRONG_USER_WAITING,        /* before its first iteration */
    THRONG_USER_PARKED,         /* ramping: not wanted by the current stage */
    THRONG_USER_IDLE,           /* arrival rate: in the pool, waiting for an arrival */
    THRONG_USER_ITERATION,      /* next: begin an iteration */
    THRONG_USER_STEP,           /* next: run the current step */
    THRONG_USER_RUNNING,        /* a step is in flight */
    THRONG_USER_DONE,
    THRONG_USER_PAUSE,          /* in a `pause` step, on its timer; next: walk on */
} ThrongUserState;

/*
 * One open container of the user's program: where the user is in it, and
 * for a group what its children did so far (its transaction sample).
 */
typedef struct {
    const ThrongAction *action;
    guint next;                 /* the child to run next */
    guint64 round;              /* repeat: rounds completed */
    gboolean ran;               /* group: a child completed */
    gint64 start_us;            /* group: its first child's start */
    gint64 end_us;              /* group: its last child's end */
    ThrongErrorClass error;     /* group: the first failing child's class */
    guint failed_step;          /* group: that child */
    guint64 bytes_sent;
    guint64 bytes_received;
} ThrongUserFrame;

/* One child of a `parallel` in flight: its sample and that sample's message. */
typedef struct {
    ThrongSample sample;
    char *message;              /* made on first use */
    gboolean busy;
} ThrongUserSlot;

/* The `parallel` a user runs (user-parallel.c): its children and their transaction. */
typedef struct {
    const ThrongAction *action; /* NULL when none is in flight */
    ThrongUserSlot *slots;      /* scenario->max_parallel */
    guint next;                 /* the child to start next */
    guint running;
    gboolean filling;           /* starting children: a completion does not start more */
    gboolean ran;
    gint64 first_start_us;
    gint64 last_end_us;
    gint64 waiting_since_us;    /* the protocol refused child `next` first then; 0: not */
    ThrongErrorClass error;
    guint failed_step;
    guint64 bytes_sent;
    guint64 bytes_received;
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
    ThrongSample sample;
    char *message;              /* throng_sample_set_message()'s copy; made on first use */
    ThrongUserVars vars;        /* what templates read: variables, data row, ids */
    ThrongUserFrame *frames;    /* scenario->max_frames; frames[0] is the program */
    guint depth;                /* the innermost open frame */
    guint open_groups;          /* frames of groups among them */
    gboolean ran_request;       /* the iteration ran a request */
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

/* The buffer (THRONG_SAMPLE_MESSAGE_MAX + 1 bytes) that holds the message of @user's step. */
char *throng_user_message_buffer (ThrongUser *user);
/* The same for @sample, one of @user's: a child of a `parallel` has its own. */
char *throng_user_message_buffer_for (ThrongUser *user, const ThrongSample *sample);

/* Counts @sample of @user and hands it to the reporters (user.c). */
void throng_user_record (ThrongUser *user, ThrongSample *sample);
/* The step in flight (a request or a whole parallel) completed, outside step_run (user.c). */
void throng_user_step_completed (ThrongUser *user);

/* user-parallel.c */

/* Starts the children of user->parallel.action, the first one due at @start_us. */
void throng_user_parallel_start (ThrongUser *user, gint64 start_us);
/* A child of the parallel completed with @sample (NULL: the one in flight, run by step_run). */
void throng_user_parallel_child_done (ThrongUser *user, ThrongSample *sample);
void throng_user_parallel_clear (ThrongUser *user);
