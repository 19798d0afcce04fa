/* SPDX-License-Identifier: MIT */
/*
 * What the command line adds to a plan: `--set PATH=VALUE` edits the
 * tree before anything is read, `--out NAME=PATH` adds the reporter NAME
 * with the options {path: PATH} after the plan's own, and the run flags
 * (--workers, --quiet, --overwrite) become fields of the plan.  The CLI
 * passes them as given; errors name the option they came from.
 */
#include "plan-private.h"

#include <string.h>

gboolean
throng_plan_apply_sets (ThrongPlan *plan, const ThrongPlanLoadOptions *options, GError **error)
{
    for (gsize i = 0; options->sets != NULL && options->sets[i] != NULL; i++) {
        if (!throng_tree_set (plan->tree, options->sets[i], error))
            return FALSE;
    }
    return TRUE;
}

/*
 * One `--out NAME=PATH`.  The options tree is built, not parsed, so any
 * path survives as it is; PATH is located at "--out NAME":1:COLUMN, the
 * column of PATH in the option's value, as `--set` locates its values.
 */
static gboolean
add_output (ThrongPlanLoader *loader, const char *out, GError **error)
{
    const char *equals = strchr (out, '=');

    if (!g_utf8_validate (out, -1, NULL)) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_SYNTAX,
                     "--out: the argument is not valid UTF-8");
        return FALSE;
    }
    if (equals == NULL || equals == out || equals[1] == '\0') {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "--out %s: expected NAME=PATH, e.g. --out csv=results.csv", out);
        return FALSE;
    }

    g_autofree char *name = g_strndup (out, (gsize)(equals - out));
    g_autoptr (GError) local = NULL;
    const ThrongReporter *reporter = throng_registry_get_reporter (loader->registry, name, &local);

    if (reporter == NULL) {
        gboolean other_kind;
        g_autofree char *hint = NULL;

        if (g_error_matches (local, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND)) {
            hint = throng_plan_plugin_hint (loader, THRONG_PLUGIN_KIND_REPORTER, name,
                                            &other_kind);
            if (other_kind)
                g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                             "--out %s: '%s' is a protocol plugin, not a reporter", out, name);
            else
                g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                             "--out %s: unknown reporter '%s'%s", out, name, hint);
        } else
            g_propagate_error (error, g_steal_pointer (&local));
        return FALSE;
    }

    g_autofree char *origin = g_strdup_printf ("--out %s", name);
    guint column = (guint)g_utf8_strlen (out, equals + 1 - out) + 1;
    ThrongTree *tree = throng_tree_new_pair (origin, "path", equals + 1, column);
    const ThrongNode *options = throng_tree_root (throng_plan_keep_tree (loader->plan, tree));

    return throng_plan_add_reporter (loader, reporter, name, options, error);
}

gboolean
throng_plan_add_outputs (ThrongPlanLoader *loader, const ThrongPlanLoadOptions *options,
                         GError **error)
{
    for (gsize i = 0; options->outs != NULL && options->outs[i] != NULL; i++) {
        if (!add_output (loader, options->outs[i], error))
            return FALSE;
    }
    return TRUE;
}

void
throng_plan_apply_run_flags (ThrongPlan *plan, const ThrongPlanLoadOptions *options)
{
    plan->workers = options->workers;
    plan->quiet = options->quiet;
    plan->overwrite = options->overwrite;
}
