/* SPDX-License-Identifier: MIT */
/*
 * The virtual user as a protocol plugin sees it: the worker context it
 * runs on, who it is, and the one call that completes a step.
 */
#pragma once

#include <glib.h>
#include <throng/version.h>

G_BEGIN_DECLS

/**
 * ThrongUser:
 *
 * One virtual user.  Owned by the core; valid from the protocol's
 * `user_new` to its `user_free`.  Every function here must be called on
 * the user's worker thread.
 *
 * Since: 0.1
 */
typedef struct _ThrongUser ThrongUser;

/* The GMainContext of the user's worker; the plugin attaches its sources there. */
THRONG_API GMainContext *throng_user_get_context (ThrongUser *user);

/* The user's index within its scenario, from 0. */
THRONG_API guint throng_user_get_id (ThrongUser *user);

/* The user's current iteration, from 0. */
THRONG_API guint64 throng_user_get_iteration (ThrongUser *user);

/* The worker thread's index, from 0. */
THRONG_API guint throng_user_get_worker (ThrongUser *user);

/**
 * throng_user_step_done:
 * @user: the user whose step completed
 *
 * Completes the step the core started with the protocol's `step_run`.  The
 * plugin has filled the sample it was given; the core takes it from here.
 * May be called from inside `step_run` (for a step that fails at once) or
 * later from a source on the user's context, exactly once per step, and
 * never after `user_free`.
 *
 * The core may start the user's next step (calling `step_run` again, or
 * `iteration_begin`, or even `user_free` when the user is done) before
 * this returns, so a plugin calls it last, with its per-user state
 * already consistent for the next step, and touches nothing of the user
 * afterwards.
 *
 * Since: 0.1
 */
THRONG_API void throng_user_step_done (ThrongUser *user);

G_END_DECLS
