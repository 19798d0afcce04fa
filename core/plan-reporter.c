/* SPDX-License-Identifier: MIT */
/*
 * The plan's reporters: the `reporters` list (each a one-key map naming
 * its plugin), the console reporter when the plan names none, the
 * caller's (the command line's `--out`) after them, and the one place a
 * reporter is added and checks its options.  A reporter's
 * `filter:` is the core's, read here and never shown to the plugin.
 */
#include "plan-private.h"
#include "reporter-filter-private.h"

#include <string.h>

void
throng_plan_reporter_free (gpointer data)
{
    ThrongPlanReporter *reporter = data;

    if (reporter->data != NULL && reporter->reporter->free != NULL)
        reporter->reporter->free (reporter->data);
    throng_reporter_filter_free (reporter->filter);
    if (reporter->options != NULL) {
        g_ptr_array_unref (reporter->options->keys);
        g_ptr_array_unref (reporter->options->items);
        g_free (reporter->options);
    }
    g_free (reporter->name);
    g_free (reporter);
}

/* A shallow copy of the map @options without @key: what the plugin is shown. */
static ThrongNode *
options_without (const ThrongNode *options, const char *key)
{
    ThrongNode *copy = g_new0 (ThrongNode, 1);

    *copy = *options;
    copy->keys = g_ptr_array_new ();
    copy->items = g_ptr_array_new ();
    for (guint i = 0; i < options->keys->len; i++) {
        const ThrongNode *name = g_ptr_array_index (options->keys, i);
        if (strcmp (name->text, key) == 0)
            continue;
        g_ptr_array_add (copy->keys, (gpointer) name);
        g_ptr_array_add (copy->items, g_ptr_array_index (options->items, i));
    }
    return copy;
}

/*
 * The reporter's `filter:`.  A filter chooses samples, so a reporter
 * that takes none with these options (a summary, a live console) is
 * refused rather than silently left unfiltered.
 */
static gboolean
read_filter (ThrongPlanLoader *loader, ThrongPlanReporter *reporter, const ThrongNode *filter,
             GError **error)
{
    const ThrongReporter *found = reporter->reporter;
    gboolean takes_samples
        = found->samples != NULL
          && (found->wants_samples == NULL || found->wants_samples (reporter->data));

    if (!takes_samples) {
        throng_node_set_error (filter, error, THRONG_PLAN_ERROR_INVALID,
                               "the %s reporter takes no samples with these options, so there is "
                               "nothing to filter: a filter chooses the samples a reporter "
                               "receives, never its summary",
                               reporter->name);
        return FALSE;
    }
    reporter->filter = throng_reporter_filter_new (loader->plan, filter, error);
    return reporter->filter != NULL;
}

gboolean
throng_plan_add_reporter (ThrongPlanLoader *loader, const ThrongReporter *found, const char *name,
                          const ThrongNode *options, GError **error)
{
    GError *local = NULL;
    ThrongPlanReporter *reporter = g_new0 (ThrongPlanReporter, 1);

    reporter->name = g_strdup (name);
    reporter->reporter = found;
    reporter->node = options;
    g_ptr_array_add (loader->plan->reporters, reporter);

    const ThrongNode *filter = options != NULL ? throng_node_lookup (options, "filter") : NULL;
    if (filter != NULL) {
        reporter->options = options_without (options, "filter");
        options = reporter->options;
    }

    reporter->data = found->configure (options, &local);
    if (reporter->data == NULL) {
        if (local == NULL)
            throng_node_set_error (options, &local, THRONG_PLAN_ERROR_INVALID,
                                   "the %s reporter refused its options", name);
        g_propagate_error (error, local);
        return FALSE;
    }
    return filter == NULL || read_filter (loader, reporter, filter, error);
}

/* The reporter the plan names at @key, found and configured. */
static gboolean
add_named (ThrongPlanLoader *loader, const ThrongNode *key, const char *name,
           const ThrongNode *options, GError **error)
{
    GError *local = NULL;
    const ThrongReporter *found = throng_registry_get_reporter (loader->registry, name, &local);

    if (found == NULL) {
        throng_plan_plugin_error (loader, key, THRONG_PLUGIN_KIND_REPORTER, name, NULL, local,
                                  error);
        return FALSE;
    }
    return throng_plan_add_reporter (loader, found, name, options, error);
}

gboolean
throng_plan_read_reporters (ThrongPlanLoader *loader, const ThrongNode *reporters, GError **error)
{
    if (reporters != NULL && !throng_node_is_null (reporters)
        && !throng_node_expect_kind (reporters, THRONG_NODE_SEQUENCE,
                                     "a list of reporters such as '- console: {}'", error))
        return FALSE;

    if (reporters == NULL || throng_node_n_children (reporters) == 0) {
        ThrongTree *tree = throng_tree_load_data ("(default reporter)", "{}", 2, error);

        if (tree == NULL)
            return FALSE;
        const ThrongNode *empty = throng_tree_root (throng_plan_keep_tree (loader->plan, tree));
        return add_named (loader, empty, "console", empty, error);
    }

    for (guint i = 0; i < throng_node_n_children (reporters); i++) {
        const ThrongNode *item = throng_node_child (reporters, i);

        if (!throng_node_expect_kind (item, THRONG_NODE_MAP,
                                      "a map for reporter, such as 'console: {}'", error))
            return FALSE;
        if (throng_node_n_children (item) != 1) {
            const ThrongNode *at
                = throng_node_n_children (item) == 0 ? item : throng_node_key (item, 1);
            throng_node_set_error (at, error, THRONG_PLAN_ERROR_INVALID,
                                   "a reporter is a map with one key naming its plugin, such as "
                                   "'console: {}'");
            return FALSE;
        }
        const ThrongNode *key = throng_node_key (item, 0);
        if (!add_named (loader, key, throng_node_scalar (key), throng_node_child (item, 0), error))
            return FALSE;
    }
    return TRUE;
}

/* One of the caller's reporters; errors begin with its origin ("--out csv=x.csv: …"). */
static gboolean
add_output (ThrongPlanLoader *loader, const ThrongPlanOutput *output, GError **error)
{
    g_autoptr (GError) local = NULL;
    const ThrongReporter *reporter
        = throng_registry_get_reporter (loader->registry, output->name, &local);

    if (reporter != NULL)
        return throng_plan_add_reporter (loader, reporter, output->name, output->options, error);
    if (!g_error_matches (local, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND)) {
        g_propagate_error (error, g_steal_pointer (&local));
        return FALSE;
    }

    gboolean other_kind;
    g_autofree char *hint
        = throng_plan_plugin_hint (loader, THRONG_PLUGIN_KIND_REPORTER, output->name, &other_kind);
    if (other_kind)
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "%s: '%s' is a protocol plugin, not a reporter", output->origin, output->name);
    else
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "%s: unknown reporter '%s'%s", output->origin, output->name, hint);
    return FALSE;
}

gboolean
throng_plan_add_outputs (ThrongPlanLoader *loader, const ThrongPlanLoadOptions *options,
                         GError **error)
{
    for (const ThrongPlanOutput *output = options->outputs;
         output != NULL && output->name != NULL; output++) {
        if (!add_output (loader, output, error))
            return FALSE;
    }
    return TRUE;
}
