/* SPDX-License-Identifier: MIT */
/*
 * The reporter vtable.  Every hook runs on the main thread, never on a
 * worker; a reporter that is slow delays only other reporters, never the
 * load.
 */
#pragma once

#include <glib.h>
#include <throng/node.h>
#include <throng/sample.h>
#include <throng/summary.h>

G_BEGIN_DECLS

/**
 * ThrongRunInfo:
 * @size: sizeof (ThrongRunInfo) as the core was built
 * @plan_name: the plan's name
 * @plan_file: the plan's path
 * @n_scenarios: how many scenarios
 * @scenario_names: (array length=n_scenarios): their names
 * @scenario_users: (array length=n_scenarios): their (largest) user counts
 * @step_labels: (array length=n_scenarios): per scenario, a NULL-terminated
 *   array of step labels, indexed like #ThrongSample.step
 * @step_protocols: (array length=n_scenarios): likewise, each step's protocol name
 * @planned_us: the run's planned length when known, else 0
 * @workers: worker threads
 * @overwrite: TRUE when the user allowed result files to be overwritten
 * @quiet: TRUE when the user asked for no live progress (`--quiet`): a
 *   reporter that shows progress while the run goes stays silent until
 *   @close; what it writes at the end is unchanged.  Since: 0.2
 * @plan_sha256: (nullable): the SHA-256, in hex, of the plan file's bytes
 *   as the plan loader read them (what ran, even if the file has changed
 *   since; `--set` overrides are not in it); `throng report` takes it from
 *   the run's json file, where it may be missing (NULL).  Appended: read it
 *   only when @size covers it.  Since: 0.2
 * @scenario_targets: (array length=n_scenarios) (nullable): per scenario,
 *   what its steps load, from their protocols' `step_target` hooks: the
 *   distinct answers in step order, joined by ", " ("http://127.0.0.1:8080");
 *   an element is NULL when no protocol of the scenario could tell (and
 *   from `throng report`, when the run's file does not say).  Appended:
 *   read it only when @size covers it.  Since: 0.2
 * @step_info: (array length=n_scenarios) (nullable): per scenario, an
 *   array indexed like #ThrongSample.step of each step's kind, enclosing
 *   group and depth (a sample of a %THRONG_STEP_GROUP step is a group's
 *   transaction, not a request; such a step's protocol name is "group").
 *   NULL from `throng report`.  Appended: read it only when @size covers
 *   it.  Since: 0.3
 *
 * What a reporter learns when the run starts.  Owned by the core and
 * valid from @open until @close returns (transfer none): copy what is
 * needed later.  Appended fields are read only when @size covers them:
 * `THRONG_STRUCT_HAS (run, ThrongRunInfo, quiet) && run->quiet`.
 *
 * Since: 0.1
 */
typedef struct {
    gsize size;
    const char *plan_name;
    const char *plan_file;
    guint n_scenarios;
    const char *const *scenario_names;
    const guint *scenario_users;
    const char *const *const *step_labels;
    const char *const *const *step_protocols;
    gint64 planned_us;
    guint workers;
    gboolean overwrite;
    gboolean quiet;
    const char *plan_sha256;
    const char *const *scenario_targets;
    const ThrongStepInfo *const *step_info;
} ThrongRunInfo;

/**
 * ThrongReporter:
 * @size: sizeof (ThrongReporter) as the plugin was built
 * @name: the key that names this reporter in the plan (`console`)
 * @configure: parses and checks the reporter's options at plan load
 *   (@options may be an empty map or null node); returns the reporter's
 *   state or NULL with a located error.  Must not touch the outside world
 *   (`throng validate` calls it too).
 * @open: called when the run starts; may open files.  A failure stops the
 *   run before any load is sent.
 * @samples: (optional): a batch of samples, in completion order per worker
 * @snapshot: (optional): about once a second, the last interval
 * @close: the final summary; the reporter writes and flushes everything.
 *   Called exactly once after a successful @open, however the run ended.
 * @free: frees the state (also after a failed or absent @open)
 * @wants_samples: (optional): whether @samples should be called for this
 *   configuration; when absent, whether @samples is set.  When no reporter
 *   wants samples, workers do not collect them at all.
 * @drain: (optional): called once with the final summary of a run that
 *   started, before any reporter's @close: the reporter finishes what it
 *   sends in the background (a database's last writes) and returns what
 *   went wrong as warnings for the summary (transfer full, a
 *   NULL-terminated array, or NULL for none), which the core appends to
 *   #ThrongSummary.warnings before every reporter's @close, its own
 *   included.  Not called by `throng report` and `throng merge`: @close
 *   must still finish on its own.  Since: 0.3
 *
 * The state @configure returns belongs to the reporter and comes back in
 * every other hook, then in @free.  What the core passes in (@options,
 * the batch of samples, snapshots, the summary) is the core's and valid
 * only during the call (transfer none), except @options, which lives as
 * long as the plan.  A reporter is configured once per plan load, opened
 * at most once, and its hooks are never called concurrently.
 *
 * Append-only like #ThrongProtocol: @wants_samples was the last hook of
 * 0.1; hooks past the plugin's @size read as absent.
 *
 * Since: 0.1
 */
typedef struct _ThrongReporter ThrongReporter;
struct _ThrongReporter {
    gsize size;
    const char *name;

    gpointer (*configure) (const ThrongNode *options, GError **error);
    gboolean (*open) (gpointer self, const ThrongRunInfo *run, GError **error);
    void (*samples) (gpointer self, const ThrongSample *samples, gsize n_samples);
    void (*snapshot) (gpointer self, const ThrongSummary *snapshot);
    gboolean (*close) (gpointer self, const ThrongSummary *summary, GError **error);
    void (*free) (gpointer self);
    gboolean (*wants_samples) (gpointer self);
    char **(*drain) (gpointer self, const ThrongSummary *summary);
};

G_END_DECLS
