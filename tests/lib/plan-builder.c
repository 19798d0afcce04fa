/* SPDX-License-Identifier: MIT */
/*
 * The common test plan as YAML text (see plan-builder.h).
 */
#include "plan-builder.h"

/* Appends ", " between the items of a flow map. */
static void
append_item (GString *map, const char *item)
{
    if (map->len > 0)
        g_string_append (map, ", ");
    g_string_append (map, item);
}

char *
throng_test_plan_yaml (const ThrongTestPlan *plan)
{
    GString *yaml = g_string_new (NULL);
    g_autoptr (GString) http = g_string_new (NULL);

    g_assert_nonnull (plan->steps);
    g_string_append_printf (yaml, "name: %s\n", plan->name != NULL ? plan->name : "test");
    if (plan->target != NULL)
        g_string_append_printf (yaml, "target: %s\n", plan->target);

    if (plan->transport != NULL) {
        g_autofree char *item = g_strdup_printf ("transport: %s", plan->transport);
        append_item (http, item);
    }
    if (plan->base_url != NULL) {
        g_autofree char *item = g_strdup_printf ("base_url: \"%s\"", plan->base_url);
        append_item (http, item);
    }
    if (plan->http != NULL)
        append_item (http, plan->http);
    if (http->len > 0)
        g_string_append_printf (yaml, "defaults:\n  http: { %s }\n", http->str);

    g_string_append_printf (yaml,
                            "scenarios:\n"
                            "  - name: %s\n"
                            "    users: %u\n",
                            plan->scenario != NULL ? plan->scenario : "s",
                            plan->users != 0 ? plan->users : 1);
    if (plan->duration != NULL)
        g_string_append_printf (yaml, "    duration: %s\n", plan->duration);
    else
        g_string_append_printf (yaml, "    iterations: %u\n",
                                plan->iterations != 0 ? plan->iterations : 1);
    if (plan->scenario_extra != NULL)
        g_string_append (yaml, plan->scenario_extra);
    g_string_append_printf (yaml, "    steps:\n%s", plan->steps);
    if (plan->plan_extra != NULL)
        g_string_append (yaml, plan->plan_extra);
    return g_string_free (yaml, FALSE);
}
