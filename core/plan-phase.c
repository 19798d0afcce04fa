/* SPDX-License-Identifier: MIT */
/*
 * `setup:` and `teardown:`: a list of steps each, read as a scenario of
 * one user running one iteration, outside the plan's scenarios (no row,
 * no schedule, no thresholds).  phase.c runs them around the load.  Their
 * protocols take the plan's `defaults:` only: there is no map beside the
 * steps to hold a scenario's options.
 */
#include "plan-private.h"

#include "template-private.h"

gboolean
throng_plan_read_phase (ThrongPlanLoader *loader, const ThrongNode *node, const char *key,
                        ThrongPlanScenario **out, GError **error)
{
    ThrongPlanVars *vars = loader->plan->vars;
    gboolean is_setup = g_str_equal (key, "setup");
    gboolean ok;

    if (node == NULL || throng_node_is_null (node))
        return TRUE;
    if (throng_node_kind (node) != THRONG_NODE_SEQUENCE) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "'%s' is a list of steps, as a scenario's 'steps' (run by one "
                               "user, once)",
                               key);
        return FALSE;
    }
    if (throng_node_n_children (node) == 0) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_MISSING, "'%s' has no steps", key);
        return FALSE;
    }

    ThrongPlanScenario *scenario = g_new0 (ThrongPlanScenario, 1);
    *out = scenario;
    scenario->name = g_strdup (key);
    scenario->node = node;
    scenario->steps = g_ptr_array_new ();
    scenario->protocols = g_ptr_array_new ();
    scenario->users = 1;
    scenario->iterations = 1;
    scenario->executor = THRONG_EXECUTOR_USERS;
    scenario->keeps_vars = is_setup;
    scenario->phase = TRUE;
    /* ${user.id} is 0 here (first_user_id + 0 + 1 wraps), as k6's __VU in
     * setup(): no number a load user has. */
    scenario->first_user_id = G_MAXUINT64;
    scenario->scope = throng_scope_new (key, vars, NULL);

    vars->setup_loading = is_setup;
    vars->teardown_loading = !is_setup;
    ok = throng_plan_read_steps (loader, scenario, node, error)
         && throng_plan_build_steps (loader, scenario, error);
    vars->setup_loading = vars->teardown_loading = FALSE;
    if (!ok)
        return FALSE;
    if (is_setup) {
        vars->setup_scope = scenario->scope;
        g_ptr_array_set_size (vars->setup_values, (gint)throng_scope_n_vars (scenario->scope));
    }
    return TRUE;
}
