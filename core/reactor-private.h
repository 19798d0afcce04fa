/* SPDX-License-Identifier: MIT */
/*
 * A worker's reactor: one epoll set and one 4-ary timer heap behind a
 * single GSource on the worker's GMainContext.  The source polls the
 * epoll fd and its ready time is the earliest timer, so a wakeup costs
 * O(ready fds + expired timers) however many users the worker holds.
 * Core timers (think time, pacing, arrivals, deadlines) and the fast
 * transport's sockets live here; plugins reach it through <throng/watch.h>.
 * Every function is called on the reactor's thread.  Private to the core.
 */
#pragma once

#include <glib.h>

typedef struct _ThrongReactor ThrongReactor;
typedef struct _ThrongReactorTimer ThrongReactorTimer;
typedef struct _ThrongReactorWatch ThrongReactorWatch;
typedef struct _ThrongUser ThrongUser;

/* Expired timers one dispatch runs at most; the rest run on the next one. */
#define THRONG_REACTOR_TIMER_BATCH 512
/* fd events one dispatch reads (and runs) at most. */
#define THRONG_REACTOR_EVENT_BATCH 256

typedef void (*ThrongReactorTimerFunc) (ThrongReactorTimer *timer, gpointer data);
typedef void (*ThrongReactorWatchFunc) (ThrongReactorWatch *watch, GIOCondition revents,
                                        gpointer data);

/*
 * A timer, embedded in its owner's struct so that arming it allocates
 * nothing.  Initialise it once with throng_reactor_timer_init(); the
 * fields are the reactor's.
 */
struct _ThrongReactorTimer {
    /*< private >*/
    ThrongReactor *reactor;
    ThrongReactorTimerFunc func;
    gpointer data;
    gint64 due_us;
    guint slot;                 /* index in the heap or the dispatch batch */
    guint8 state;
};

ThrongReactor *throng_reactor_new (GMainContext *context);

/*
 * Frees the reactor and its source.  Timers still armed are forgotten and
 * watches still open closed with the epoll set; their owners must not
 * touch them afterwards.  Not from inside a callback.
 */
void throng_reactor_free (ThrongReactor *reactor);

/* The reactor's one source, attached to its context; owned by the reactor. */
GSource *throng_reactor_get_source (ThrongReactor *reactor);

/* Armed timers and open watches: what a test or a leak check counts. */
guint throng_reactor_get_n_timers (ThrongReactor *reactor);

/* When the earliest armed timer is due (what the loop's poll waits for); -1 without one. */
gint64 throng_reactor_get_next_due (ThrongReactor *reactor);

/*
 * The most, in µs, that a poll of the loop came back after its timeout
 * since the last call (0: never), and starts again from 0.  A worker's
 * loop sleeps until its earliest timer; waking later than that is the
 * thread not being run, which its timers' lateness then shows (the worker
 * subtracts its run-queue wait to leave the machine's part).
 */
gint64 throng_reactor_take_wake_late (ThrongReactor *reactor);
guint throng_reactor_get_n_watches (ThrongReactor *reactor);

void throng_reactor_timer_init (ThrongReactorTimer *timer, ThrongReactor *reactor,
                                ThrongReactorTimerFunc func, gpointer data);

/*
 * Arms @timer to fire once at @due_us (g_get_monotonic_time()'s clock);
 * an armed timer moves.  A due time in the past fires on the next
 * dispatch.  Timers due at the same time fire in the order they were
 * armed.  A timer armed from inside a dispatch fires in a later one, so
 * re-arming at "now" yields to the rest of the loop.
 */
void throng_reactor_timer_arm (ThrongReactorTimer *timer, gint64 due_us);

/* Disarms @timer; a no-op when it is not armed.  Safe from any callback. */
void throng_reactor_timer_cancel (ThrongReactorTimer *timer);

gboolean throng_reactor_timer_is_armed (const ThrongReactorTimer *timer);

/* The time the timer was last armed for (also inside its callback). */
gint64 throng_reactor_timer_get_due (const ThrongReactorTimer *timer);

/* An fd watch, embedded in its owner's struct like a timer. */
struct _ThrongReactorWatch {
    /*< private >*/
    ThrongReactor *reactor;
    ThrongReactorWatchFunc func;
    gpointer data;
    int fd;
    guint32 events;             /* epoll's bits */
    int slot;                   /* index of its pending event in the batch, or -1 */
};

/*
 * Watches @fd (level-triggered) for @events (G_IO_IN, G_IO_OUT, G_IO_PRI;
 * G_IO_ERR and G_IO_HUP are always reported).  Fails, with @error set
 * and @watch untouched, when the kernel refuses the fd.
 */
gboolean throng_reactor_watch_add (ThrongReactorWatch *watch, ThrongReactor *reactor, int fd,
                                   GIOCondition events, ThrongReactorWatchFunc func,
                                   gpointer data, GError **error);

/* Changes the events a watch waits for; no syscall when they are unchanged. */
void throng_reactor_watch_modify (ThrongReactorWatch *watch, GIOCondition events);

/*
 * Stops watching, before the fd is closed; the owner may free @watch as
 * soon as this returns.  Safe from any callback, including the watch's
 * own; an event of @watch already read in the same batch is not
 * delivered.
 */
void throng_reactor_watch_remove (ThrongReactorWatch *watch);

int throng_reactor_watch_get_fd (const ThrongReactorWatch *watch);
GIOCondition throng_reactor_watch_get_events (const ThrongReactorWatch *watch);

/*
 * The reactor of @user's worker: the one accessor the SDK's watch and
 * timer calls (watch.c) use.  Implemented in user.c.
 */
ThrongReactor *throng_user_get_reactor (ThrongUser *user);
