/* SPDX-License-Identifier: MIT */
/*
 * File-descriptor watches and timers on a user's worker, for protocol
 * plugins that do their own I/O.  A worker runs them on its reactor (one
 * epoll set and one timer heap behind a single GSource), so what a wakeup
 * costs depends on the fds that are ready and the timers that expired,
 * not on how many users the worker holds; a GSource per connection or per
 * timer makes every loop iteration walk all of them.  Both kinds of
 * handle are made once (per connection, per user) and reused: nothing
 * here allocates per request.
 */
#pragma once

#include <glib.h>
#include <throng/user.h>

G_BEGIN_DECLS

/**
 * ThrongWatch:
 *
 * A watch on one file descriptor, made by throng_user_watch_fd() and
 * ended by throng_watch_remove().
 *
 * Since: 0.2
 */
typedef struct _ThrongWatch ThrongWatch;

/**
 * ThrongWatchFunc:
 * @watch: the watch
 * @revents: what the fd is ready for: some of the events the watch waits
 *   for, and `G_IO_ERR` or `G_IO_HUP` whenever they hold
 * @user_data: the data given to throng_user_watch_fd()
 *
 * Called on the user's worker thread while the fd is ready
 * (level-triggered: again on the next loop iteration if the condition
 * still holds).  It may modify or remove any watch and cancel any timer,
 * its own included.
 *
 * Since: 0.2
 */
typedef void (*ThrongWatchFunc) (ThrongWatch *watch, GIOCondition revents, gpointer user_data);

/**
 * throng_user_watch_fd:
 * @user: the user the fd belongs to
 * @fd: a socket, pipe or other pollable descriptor, non-blocking
 * @events: what to wait for: `G_IO_IN`, `G_IO_OUT`, `G_IO_PRI`, or none
 *   (0) for a descriptor that only reports errors for now
 * @func: called when @fd is ready
 * @user_data: for @func
 * @error: return location for an error
 *
 * Watches @fd on @user's worker until throng_watch_remove().  The
 * descriptor stays the caller's: it removes the watch, then closes it.
 *
 * Returns: (transfer full) (nullable): the watch, or %NULL with @error
 *   set when the kernel refuses the descriptor (a regular file, or the
 *   limit of watched descriptors reached)
 *
 * Since: 0.2
 */
THRONG_API ThrongWatch *throng_user_watch_fd (ThrongUser *user, int fd, GIOCondition events,
                                              ThrongWatchFunc func, gpointer user_data,
                                              GError **error);

/**
 * throng_watch_modify:
 * @watch: a watch
 * @events: what to wait for from now on
 *
 * Changes what @watch waits for; a call that changes nothing makes no
 * system call, so a plugin may call it freely on each state change.
 *
 * Since: 0.2
 */
THRONG_API void throng_watch_modify (ThrongWatch *watch, GIOCondition events);

/**
 * throng_watch_remove:
 * @watch: (transfer full) (nullable): a watch
 *
 * Stops watching and frees @watch.  Call it before closing the
 * descriptor.  Safe from any callback, the watch's own included: an event
 * of @watch already read in the same batch is not delivered.
 *
 * Since: 0.2
 */
THRONG_API void throng_watch_remove (ThrongWatch *watch);

/**
 * ThrongTimer:
 *
 * A one-shot timer on a user's worker, made by throng_user_add_timer(),
 * armed again by throng_timer_rearm() as often as needed, and freed by
 * throng_timer_cancel().
 *
 * Since: 0.2
 */
typedef struct _ThrongTimer ThrongTimer;

/**
 * ThrongTimerFunc:
 * @timer: the timer that fired; no longer armed, still valid
 * @user_data: the data given to throng_user_add_timer()
 *
 * Called on the user's worker thread once the timer's due time has
 * passed.  It may re-arm @timer or cancel it, and touch any other watch
 * or timer.
 *
 * Since: 0.2
 */
typedef void (*ThrongTimerFunc) (ThrongTimer *timer, gpointer user_data);

/**
 * throng_user_add_timer:
 * @user: the user the timer belongs to
 * @due_us: when to fire, on the clock of g_get_monotonic_time(), or -1
 *   to make the timer unarmed
 * @func: called when the timer fires
 * @user_data: for @func
 *
 * Makes a timer on @user's worker, armed for @due_us.  Timers due at the
 * same time fire in the order they were armed; one due in the past fires
 * on the next loop iteration.  The handle stays valid after the timer
 * fires, until throng_timer_cancel(): a per-request timeout is one timer
 * per connection or per user, re-armed for each request.
 *
 * Returns: (transfer full): the timer
 *
 * Since: 0.2
 */
THRONG_API ThrongTimer *throng_user_add_timer (ThrongUser *user, gint64 due_us,
                                               ThrongTimerFunc func, gpointer user_data);

/**
 * throng_timer_rearm:
 * @timer: a timer
 * @due_us: the new due time, or -1 to disarm
 *
 * Arms @timer for @due_us, whether or not it was armed or has fired, with
 * no allocation; or disarms it.  A timer re-armed from a callback for a
 * time already past fires on a later loop iteration, never within the
 * same one, so re-arming for "now" yields to the rest of the loop.
 *
 * Since: 0.2
 */
THRONG_API void throng_timer_rearm (ThrongTimer *timer, gint64 due_us);

/**
 * throng_timer_cancel:
 * @timer: (transfer full) (nullable): a timer
 *
 * Disarms and frees @timer.  Safe from any callback, @timer's own
 * included.  Every timer is cancelled by the latest in the protocol's
 * `user_free`.
 *
 * Since: 0.2
 */
THRONG_API void throng_timer_cancel (ThrongTimer *timer);

G_END_DECLS
