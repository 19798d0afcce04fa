/* SPDX-License-Identifier: MIT */
/*
 * The plan's `setup:` and `teardown:` around the load: each runs as a
 * load of its own (one scenario, one user, one iteration, no reporter) so
 * that the engine, the protocols and the templates need nothing new; its
 * summary is kept and shown as the load's summary's `setup` or `teardown`
 * row, never in the load's scenarios, totals or thresholds.  Setup's
 * variables reach the load through the plan's ${setup.*} table
 * (keep_setup_vars in user.c), filled before the load's first user is
 * created.
 */
#include "engine.h"

#include "template-private.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    ThrongPlan *plan;
    const ThrongEngineOptions *options;
    ThrongEngineKept setup;
    ThrongEngineKept teardown;
    gboolean teardown_ran;
    gboolean interrupted; /* a signal stopped the phase that failed */
} Phases;

/*
 * Runs @scenario alone: @plan's settings, none of its reporters, no
 * shard (a phase is whole on the shard that runs it); its summary kept in
 * @keep when it ran.  FALSE, with @error, when it could not start or did
 * not end clean.
 */
static gboolean
run_phase (Phases *phases, ThrongPlanScenario *scenario, ThrongEngineKept *keep, GError **error)
{
    ThrongPlan phase = *phases->plan;
    g_autoptr (GPtrArray) scenarios = g_ptr_array_new ();
    g_autoptr (GPtrArray) reporters = g_ptr_array_new ();
    ThrongEngineOptions options = {
        .workers = 1,
        .overwrite = phases->options->overwrite,
        .quiet = TRUE,
        .builtin_target = phases->options->builtin_target,
        .keep = keep,
    };
    ThrongRunResult result;

    g_ptr_array_add (scenarios, scenario);
    phase.scenarios = scenarios;
    phase.reporters = reporters;
    memset (&phase.shard, 0, sizeof phase.shard);
    phase.setup = phase.teardown = NULL;
    if (!throng_engine_run_load (&phase, &options, &result, error)) {
        g_prefix_error (error, "%s did not start: ", scenario->name);
        return FALSE;
    }
    if (result.outcome == THRONG_RUN_COMPLETED && result.errors == 0)
        return TRUE;
    phases->interrupted = result.outcome == THRONG_RUN_INTERRUPTED;
    if (phases->interrupted)
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID, "%s was interrupted",
                     scenario->name);
    else
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "%s failed: %" G_GUINT64_FORMAT " of its %" G_GUINT64_FORMAT
                     " request%s failed (a check, a status or an extraction)",
                     scenario->name, result.errors, result.requests,
                     result.requests == 1 ? "" : "s");
    return FALSE;
}

/* After the load (an interrupted one too), before its summary: what setup made is undone. */
static void
run_teardown (gpointer data, const ThrongScenarioSummary **row, char **warning)
{
    Phases *phases = data;
    g_autoptr (GError) error = NULL;

    phases->teardown_ran = TRUE;
    if (!run_phase (phases, phases->plan->teardown, &phases->teardown, &error))
        *warning = g_strdup (error->message);
    if (phases->teardown.filled)
        *row = &phases->teardown.buffer.summary.scenarios[0];
}

gboolean
throng_engine_run (ThrongPlan *plan, const ThrongEngineOptions *options, ThrongRunResult *result,
                   GError **error)
{
    Phases phases = { .plan = plan, .options = options };
    ThrongEngineOptions load = *options;
    guint shard_index, shard_count;
    gboolean ok;

    /* Only shard 0 runs setup and teardown: the values setup extracts
     * cannot reach the other shards without a coordinator. */
    throng_shard_get (&plan->shard, &shard_index, &shard_count);
    if (shard_index != 0 && plan->vars->setup_read) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "shard %u/%u cannot run this plan: it reads ${setup.*}, and only shard 0 "
                     "runs setup (its values do not reach other shards; docs/distributed.md)",
                     shard_index, shard_count);
        return FALSE;
    }
    if (shard_index == 0 && plan->setup != NULL) {
        GError *local = NULL;
        if (!run_phase (&phases, plan->setup, &phases.setup, &local)) {
            throng_engine_kept_clear (&phases.setup);
            memset (result, 0, sizeof *result);
            /* Stopped by the user: an interrupted run's exit status, not a failure's. */
            if (phases.interrupted) {
                g_printerr ("throng: %s; no load was sent\n", local->message);
                g_error_free (local);
                result->outcome = THRONG_RUN_INTERRUPTED;
                return TRUE;
            }
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                         "%s; no load was sent", local->message);
            g_error_free (local);
            return FALSE;
        }
        load.setup = &phases.setup.buffer.summary.scenarios[0];
    }
    if (shard_index == 0 && plan->teardown != NULL) {
        load.after_load = run_teardown;
        load.after_load_data = &phases;
    }
    ok = throng_engine_run_load (plan, &load, result, error);
    /* A load that never started still undoes what setup made. */
    if (load.after_load != NULL && !phases.teardown_ran) {
        g_autoptr (GError) local = NULL;
        if (!run_phase (&phases, plan->teardown, &phases.teardown, &local))
            g_printerr ("throng: warning: %s\n", local->message);
    }
    throng_engine_kept_clear (&phases.setup);
    throng_engine_kept_clear (&phases.teardown);
    return ok;
}
