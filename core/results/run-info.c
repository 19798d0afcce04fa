/* SPDX-License-Identifier: MIT */
/*
 * The run info reporters open with (run-info.h), from a plan: names,
 * users, step labels and protocols, targets and the planned length.
 */
#include "run-info.h"

#include "shard.h"

/* The origins a scenario's steps go to, as their protocols name them: the html report's header. */
static char *
scenario_target (const ThrongPlanScenario *scenario)
{
    g_autoptr (GPtrArray) targets = g_ptr_array_new_with_free_func (g_free);

    for (guint i = 0; i < scenario->steps->len; i++) {
        const ThrongPlanStep *step = g_ptr_array_index (scenario->steps, i);
        /* The registry's copy of the vtable is full size: absent hooks are NULL. */
        if (step->protocol == NULL || step->protocol->step_target == NULL)
            continue;
        g_autofree char *target = step->protocol->step_target (step->data);
        if (target != NULL && !g_ptr_array_find_with_equal_func (targets, target, g_str_equal, NULL))
            g_ptr_array_add (targets, g_steal_pointer (&target));
    }
    if (targets->len == 0)
        return NULL;
    g_ptr_array_add (targets, NULL);
    return g_strjoinv (", ", (char **) targets->pdata);
}

void
throng_run_info_buffer_fill (ThrongRunInfoBuffer *buffer, const ThrongPlan *plan)
{
    guint n = plan->scenarios->len;
    gboolean all_timed = n > 0;
    gint64 longest = 0;

    buffer->scenario_names = g_ptr_array_new ();
    buffer->scenario_users = g_new0 (guint, MAX (n, 1));
    buffer->step_labels = g_ptr_array_new_with_free_func (g_free);
    buffer->step_protocols = g_ptr_array_new_with_free_func (g_free);
    buffer->scenario_targets = g_ptr_array_new_with_free_func (g_free);
    buffer->step_info = g_ptr_array_new ();
    for (guint s = 0; s < n; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);
        const char **labels = g_new0 (const char *, scenario->steps->len + 1);
        const char **protocols = g_new0 (const char *, scenario->steps->len + 1);

        for (guint i = 0; i < scenario->steps->len; i++) {
            const ThrongPlanStep *step = g_ptr_array_index (scenario->steps, i);
            labels[i] = step->label;
            protocols[i] = step->protocol_name;
        }
        g_ptr_array_add (buffer->scenario_names, scenario->name);
        buffer->scenario_users[s] = throng_shard_users (&plan->shard, scenario->users);
        g_ptr_array_add (buffer->step_labels, labels);
        g_ptr_array_add (buffer->step_protocols, protocols);
        g_ptr_array_add (buffer->scenario_targets, scenario_target (scenario));
        g_ptr_array_add (buffer->step_info, scenario->step_info);
        gint64 length = throng_plan_scenario_length (scenario);
        if (length > 0)
            longest = MAX (longest, scenario->start_after_us + length);
        else
            all_timed = FALSE;
    }
    ThrongRunInfo *info = &buffer->info;
    info->size = sizeof (ThrongRunInfo);
    info->plan_name = plan->name;
    info->plan_file = plan->file;
    info->n_scenarios = n;
    info->scenario_names = (const char *const *) buffer->scenario_names->pdata;
    info->scenario_users = buffer->scenario_users;
    info->step_labels = (const char *const *const *) buffer->step_labels->pdata;
    info->step_protocols = (const char *const *const *) buffer->step_protocols->pdata;
    info->planned_us = all_timed ? longest : 0;
    info->plan_sha256 = throng_tree_sha256 (plan->tree);
    info->scenario_targets = (const char *const *) buffer->scenario_targets->pdata;
    info->step_info = (const ThrongStepInfo *const *) buffer->step_info->pdata;
}

void
throng_run_info_buffer_clear (ThrongRunInfoBuffer *buffer)
{
    g_clear_pointer (&buffer->scenario_names, g_ptr_array_unref);
    g_clear_pointer (&buffer->step_labels, g_ptr_array_unref);
    g_clear_pointer (&buffer->step_protocols, g_ptr_array_unref);
    g_clear_pointer (&buffer->scenario_targets, g_ptr_array_unref);
    g_clear_pointer (&buffer->step_info, g_ptr_array_unref);
    g_clear_pointer (&buffer->scenario_users, g_free);
}
