/* SPDX-License-Identifier: MIT */
/*
 * The plan's `setup:` and `teardown:` around the load: each runs as a
 * load of its own (one scenario, one user, one iteration, no reporter) so
 * that the engine, the protocols and the templates need nothing new; its
 * figures are printed on a line of their own and never enter the load's
 * summary, totals or thresholds.  Setup's variables reach the load through
 * the plan's ${setup.*} table (keep_setup_vars in user.c), filled before
 * the load's first user is created.
 */
#include "engine.h"

#include "template-private.h"

#include <stdio.h>
#include <string.h>

/*
 * Runs @scenario alone: @plan's settings, none of its reporters, no
 * shard (a phase is whole on the shard that runs it).  FALSE, with
 * @error, when it could not start or did not end clean.
 */
static gboolean
run_phase (ThrongPlan *plan, ThrongPlanScenario *scenario, const ThrongEngineOptions *options,
           GError **error)
{
    ThrongPlan phase = *plan;
    g_autoptr (GPtrArray) scenarios = g_ptr_array_new ();
    g_autoptr (GPtrArray) reporters = g_ptr_array_new ();
    ThrongEngineOptions phase_options = {
        .workers = 1,
        .overwrite = options->overwrite,
        .quiet = TRUE,
        .builtin_target = options->builtin_target,
    };
    ThrongRunResult result;
    gint64 start_us = g_get_monotonic_time ();

    g_ptr_array_add (scenarios, scenario);
    phase.scenarios = scenarios;
    phase.reporters = reporters;
    memset (&phase.shard, 0, sizeof phase.shard);
    phase.setup = phase.teardown = NULL;
    if (!throng_engine_run_load (&phase, &phase_options, &result, error)) {
        g_prefix_error (error, "%s did not start: ", scenario->name);
        return FALSE;
    }
    gdouble seconds = (gdouble) (g_get_monotonic_time () - start_us) / G_USEC_PER_SEC;
    g_printerr ("throng: %s: %" G_GUINT64_FORMAT " request%s, %" G_GUINT64_FORMAT " failed, "
                "%.2f s\n",
                scenario->name, result.requests, result.requests == 1 ? "" : "s", result.errors,
                seconds);
    if (result.outcome == THRONG_RUN_INTERRUPTED) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "%s was interrupted", scenario->name);
        return FALSE;
    }
    if (result.outcome != THRONG_RUN_COMPLETED || result.errors > 0) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "%s failed: %" G_GUINT64_FORMAT " of its %" G_GUINT64_FORMAT
                     " request%s failed (a check, a status or an extraction)",
                     scenario->name, result.errors, result.requests,
                     result.requests == 1 ? "" : "s");
        return FALSE;
    }
    return TRUE;
}

gboolean
throng_engine_run (ThrongPlan *plan, const ThrongEngineOptions *options, ThrongRunResult *result,
                   GError **error)
{
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
        if (!run_phase (plan, plan->setup, options, &local)) {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                         "%s; no load was sent", local->message);
            g_error_free (local);
            memset (result, 0, sizeof *result);
            return FALSE;
        }
    }
    ok = throng_engine_run_load (plan, options, result, error);
    /* After an interrupted or aborted load too: what setup made is undone. */
    if (shard_index == 0 && plan->teardown != NULL) {
        g_autoptr (GError) local = NULL;
        if (!run_phase (plan, plan->teardown, options, &local))
            g_printerr ("throng: warning: %s\n", local->message);
    }
    return ok;
}
