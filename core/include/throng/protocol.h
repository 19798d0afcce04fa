/* SPDX-License-Identifier: MIT */
/*
 * The protocol vtable: how a plugin turns the plan's steps into requests.
 *
 * Threading: the `scenario_*` and `step_new/free` hooks run on the main
 * thread while the plan loads (before any load is sent) and after the run;
 * the `user_*`, `iteration_begin` and `step_run` hooks run on the user's
 * worker thread and must never block: all I/O is asynchronous on
 * throng_user_get_context().  Scenario and step data are read-only once
 * the run starts (several workers read them at once); anything a plugin
 * shares between users of different workers it protects itself.
 */
#pragma once

#include <glib.h>
#include <throng/node.h>
#include <throng/sample.h>
#include <throng/template.h>
#include <throng/user.h>

G_BEGIN_DECLS

/**
 * ThrongScenarioSetup:
 * @size: sizeof (ThrongScenarioSetup) as the core was built
 * @name: the scenario's name
 * @defaults: (nullable): the plan's `defaults.<protocol>` map
 * @options: (nullable): the scenario's own `<protocol>` map
 * @users: the largest number of users the scenario may run at once
 * @validate_only: TRUE under `throng validate`: check, but open nothing
 * @scope: the scenario's #ThrongScope, for templates, variables and checks
 *   (read it only when THRONG_STRUCT_HAS (setup, ThrongScenarioSetup,
 *   scope): a core older than 0.3 does not have it).  Since 0.3
 * @max_parallel: the most steps of one user that the scenario's `parallel`
 *   steps may run at once through `step_run_concurrent`; 0 when it has no
 *   `parallel` (read it only when THRONG_STRUCT_HAS says so).  Since 0.3
 *
 * What a protocol learns about a scenario when it is set up.  The struct
 * is valid only during `scenario_new`; the nodes it points to live as
 * long as the plan (a plugin may keep them in its scenario data).
 *
 * Since: 0.1
 */
typedef struct {
    gsize size;
    const char *name;
    const ThrongNode *defaults;
    const ThrongNode *options;
    guint users;
    gboolean validate_only;
    ThrongScope *scope;
    guint max_parallel;
} ThrongScenarioSetup;

/**
 * ThrongProtocol:
 * @size: sizeof (ThrongProtocol) as the plugin was built; hooks past it are
 *   treated as absent
 * @name: the key that names this protocol in a step (`http`)
 * @scenario_new: parses the protocol's defaults and scenario options;
 *   returns the scenario data or NULL with a located error
 * @scenario_free: frees it
 * @scenario_notes: (optional): appends to @notes (`char *`, transfer full)
 *   the caveats `throng validate` prints for this scenario, e.g. where a
 *   setting cannot be honoured exactly
 * @step_new: parses one step's options (@options is the value of the step's
 *   protocol key); returns the step data or NULL with a located error, and
 *   sets *@label (transfer full) to the default label ("GET /")
 * @step_free: frees it
 * @user_new: creates the per-user state, on the user's worker
 * @user_free: frees it, cancelling whatever is in flight without completing it
 * @iteration_begin: (optional): called before each iteration's first step
 * @step_run: starts @step for @user; fills @sample and calls
 *   throng_user_step_done() when done.  @sample stays valid until then.
 * @user_new_checked: (optional): like @user_new, but may fail: returns NULL
 *   and sets @error (out of file descriptors, a resource the scenario
 *   needs is gone).  When present it is called instead of @user_new, which
 *   may then be NULL.  Every user is created before any load is sent, so a
 *   failure ends the run before it starts: throng prints the error on one
 *   line and exits with status 3.  Since 0.2
 * @step_target: (optional): what @step sends its load to, as a short text
 *   for reports' "target" (the http plugin gives its URL's origin,
 *   `https://shop.example:8443`, never a path, query or password); transfer
 *   full, or NULL when it cannot tell.  Called on the main thread after the
 *   plan has loaded; the core joins a scenario's distinct answers.  Since 0.2
 * @step_run_concurrent: (optional): like @step_run, but the core may call
 *   it again for the same user while earlier steps are still in flight:
 *   the children of a `parallel` step, at most its `max` at once, each
 *   with its own @sample.  Returns FALSE, having started nothing and
 *   touched nothing, when the user cannot take one more step now (every
 *   connection it may open is busy, or the transport runs one at a time);
 *   the core then waits for one of the user's steps to complete and asks
 *   again.  With none in flight it must start the step.  Each step started
 *   this way completes with throng_user_step_done_sample() naming its
 *   @sample.  Without this hook the children of a `parallel` run one after
 *   another through @step_run.  The core never calls @step_run while
 *   concurrent steps of the user are in flight.  Since 0.3
 * @scenario_warnings: (optional): appends to @warnings (`char *`, transfer
 *   full) what the run's summary should warn of for this scenario: events
 *   a protocol saw that no sample carries (a server that sent bytes nobody
 *   asked for on an idle connection).  Called once after the run, on the
 *   main thread, when every user is gone; the core prefixes each with
 *   "scenario NAME: ".  Since 0.4
 *
 * Append-only: new hooks go at the end and the core calls them only when
 * @size covers them.  The table is a `static const` that outlives the
 * plugin's use (transfer none): the core keeps a pointer to it.
 *
 * Ownership: what `scenario_new`, `step_new` and `user_new` return belongs
 * to the plugin and comes back to it in `scenario_free`, `step_free` and
 * `user_free`; the core only passes it around.  @sample is the core's.
 * A scenario's data is freed after all its steps' and users' data.
 *
 * Since: 0.1
 */
typedef struct _ThrongProtocol ThrongProtocol;
struct _ThrongProtocol {
    gsize size;
    const char *name;

    gpointer (*scenario_new) (const ThrongScenarioSetup *setup, GError **error);
    void (*scenario_free) (gpointer scenario);
    void (*scenario_notes) (gpointer scenario, GPtrArray *notes);
    gpointer (*step_new) (gpointer scenario, const ThrongNode *options, char **label, GError **error);
    void (*step_free) (gpointer step);

    gpointer (*user_new) (gpointer scenario, ThrongUser *user);
    void (*user_free) (gpointer user_data);
    void (*iteration_begin) (gpointer user_data);
    void (*step_run) (gpointer user_data, gpointer step, ThrongSample *sample);

    gpointer (*user_new_checked) (gpointer scenario, ThrongUser *user, GError **error);
    char *(*step_target) (gpointer step);

    gboolean (*step_run_concurrent) (gpointer user_data, gpointer step, ThrongSample *sample);

    void (*scenario_warnings) (gpointer scenario, GPtrArray *warnings);
};

G_END_DECLS
