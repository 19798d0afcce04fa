/* SPDX-License-Identifier: MIT */
/*
 * The virtual user as a protocol plugin sees it: the worker context it
 * runs on, who it is, and the one call that completes a step.
 */
#pragma once

#include <glib.h>
#include <throng/sample.h>
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

/**
 * throng_user_get_context:
 * @user: a user
 *
 * The main context of the user's worker: a plugin attaches every source
 * it needs for the user there, and completes steps from callbacks that
 * run there.  It is also the thread-default main context of the worker
 * thread whenever a hook runs on it, so GIO's `_async` calls started from
 * `user_new`, `iteration_begin` or `step_run` (or from their callbacks)
 * complete on it without more ado.
 *
 * Returns: (transfer none): the context, owned by the core, valid as long
 *   as @user
 *
 * Since: 0.1
 */
THRONG_API GMainContext *throng_user_get_context (ThrongUser *user);

/**
 * throng_user_get_id:
 * @user: a user
 *
 * Returns: the user's index within its scenario, from 0
 *
 * Since: 0.1
 */
THRONG_API guint throng_user_get_id (ThrongUser *user);

/**
 * throng_user_get_iteration:
 * @user: a user
 *
 * Returns: the user's current iteration, from 0
 *
 * Since: 0.1
 */
THRONG_API guint64 throng_user_get_iteration (ThrongUser *user);

/**
 * throng_user_get_worker:
 * @user: a user
 *
 * Returns: the index of the user's worker thread, from 0
 *
 * Since: 0.1
 */
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

/**
 * throng_user_step_done_sample:
 * @user: the user whose step completed
 * @sample: the sample the step was started with
 *
 * Completes the step that owns @sample: the one way to complete a step
 * started by the protocol's `step_run_concurrent`, where several steps of
 * @user may be in flight; for a step started by `step_run` it is the same
 * as throng_user_step_done().  The same rules hold: exactly once per step,
 * never after `user_free`, called last (the core may start further steps,
 * concurrent or not, or free the user before it returns).
 *
 * Since: 0.3
 */
THRONG_API void throng_user_step_done_sample (ThrongUser *user, ThrongSample *sample);

G_END_DECLS
