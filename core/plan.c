/* SPDX-License-Identifier: MIT */
/*
 * The plan loader: from a plan file and the command line's additions to
 * a typed, fully validated ThrongPlan.  Order matters and is fixed: the
 * tree is loaded, `--set` overrides are applied, the top level is read,
 * the plan's plugin_path joins the registry, `${env.*}` is expanded in
 * every string, the plan hash taken, then `${builtin.*}` expanded to the
 * URLs of the target the caller started, and
 * only then are defaults, scenarios, steps, reporters (the plan's, then
 * the caller's) and thresholds read, each protocol and reporter checking
 * its own options.
 * A plan that loads has been checked completely; nothing is sent before
 * that.  This file runs the load and reads the top level; scenarios
 * and reporters have their own files (plan-private.h).
 */
#include "plan-private.h"

#include <string.h>

#include "capacity-private.h"
#include "schedule.h"
#include "template-private.h"
#include "threshold.h"

static void
loader_clear (ThrongPlanLoader *loader)
{
    g_free (loader->http_url);
    g_free (loader->https_url);
    g_clear_pointer (&loader->scenario_names, g_hash_table_unref);
    g_clear_pointer (&loader->fragments_used, g_hash_table_unref);
    g_clear_pointer (&loader->fragments_open, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ThrongPlanLoader, loader_clear)

/* ---- plugins ------------------------------------------------------------- */

static int
compare_strings (gconstpointer a, gconstpointer b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

char *
throng_plan_plugin_hint (ThrongPlanLoader *loader, ThrongPluginKind kind, const char *name,
                         gboolean *other_kind)
{
    g_autoptr (GPtrArray) infos = throng_registry_scan (loader->registry);
    g_autoptr (GPtrArray) names = g_ptr_array_new ();

    *other_kind = FALSE;
    for (guint i = 0; i < infos->len; i++) {
        const ThrongPluginInfo *info = infos->pdata[i];

        if (info->error != NULL)
            continue;
        if (info->kind != kind) {
            *other_kind |= strcmp (info->name, name) == 0;
            continue;
        }
        /* The same plugin may be found in several directories of the path. */
        gboolean seen = FALSE;
        for (guint n = 0; n < names->len && !seen; n++)
            seen = strcmp (names->pdata[n], info->name) == 0;
        if (!seen)
            g_ptr_array_add (names, info->name);
    }
    if (*other_kind)
        return NULL;
    g_ptr_array_sort (names, compare_strings);
    g_ptr_array_add (names, NULL);

    const char *suggestion = throng_node_suggest (name, (const char *const *) names->pdata);
    if (suggestion != NULL)
        return g_strdup_printf ("; did you mean '%s'?", suggestion);
    /* Reporters are few and a plan names them by choice; an unknown
     * protocol is more often a misplaced key, said by the caller. */
    if (kind != THRONG_PLUGIN_KIND_REPORTER || names->len == 1)
        return g_strdup ("");
    g_autofree char *list = g_strjoinv (", ", (char **) names->pdata);
    return g_strdup_printf ("; available reporters: %s", list);
}

/*
 * A registry NOT_FOUND becomes a plan error at @at, with the nearest name
 * the registry can list (or the list); anything else (a plugin that
 * exists but was refused) goes up unchanged.
 */
void
throng_plan_plugin_error (ThrongPlanLoader *loader, const ThrongNode *at, ThrongPluginKind kind,
                          const char *name, const char *prefix, GError *local, GError **error)
{
    if (!g_error_matches (local, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND)) {
        g_propagate_error (error, local);
        return;
    }
    g_error_free (local);

    gboolean other_kind;
    g_autofree char *hint = throng_plan_plugin_hint (loader, kind, name, &other_kind);
    if (other_kind) {
        /* `- console: {}` as a step, `- http: {}` as a reporter */
        throng_node_set_error (at, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                               "'%s' is a %s plugin, not a %s", name,
                               kind == THRONG_PLUGIN_KIND_PROTOCOL ? "reporter" : "protocol",
                               kind == THRONG_PLUGIN_KIND_PROTOCOL ? "protocol" : "reporter");
        return;
    }
    g_autofree char *dirs = throng_registry_describe_path (loader->registry);
    g_autofree char *unknown
        = prefix != NULL ? g_strdup (prefix)
                         : g_strdup_printf ("unknown %s '%s':",
                                            kind == THRONG_PLUGIN_KIND_PROTOCOL ? "protocol"
                                                                                : "reporter",
                                            name);
    throng_node_set_error (at, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                           "%s no plugin libthrong-%s.so in %s%s", unknown, name, dirs, hint);
}

const ThrongProtocol *
throng_plan_find_protocol (ThrongPlanLoader *loader, const ThrongNode *key, GError **error)
{
    const char *name = throng_node_scalar (key);
    GError *local = NULL;
    const ThrongProtocol *protocol = throng_registry_get_protocol (loader->registry, name, &local);

    if (protocol == NULL)
        throng_plan_plugin_error (loader, key, THRONG_PLUGIN_KIND_PROTOCOL, name, NULL, local,
                                  error);
    return protocol;
}

/* The map given for a protocol, or NULL when it is absent or empty (`http:`). */
const ThrongNode *
throng_plan_protocol_map (const ThrongNode *node)
{
    return node == NULL || throng_node_is_null (node) ? NULL : node;
}

/*
 * Checks a protocol's defaults and scenario options where no step of the
 * scenario (or no scenario) uses the protocol, so that nothing the plan
 * says goes unchecked.
 */
gboolean
throng_plan_check_unused_protocol (ThrongPlanLoader *loader, const ThrongProtocol *protocol,
                                   const char *name, const ThrongNode *options, GError **error)
{
    /* a scope of its own, so that a protocol may count on having one */
    g_autoptr (ThrongScope) scope = throng_scope_new (name, loader->plan->vars, NULL);
    ThrongScenarioSetup setup = {
        .size = sizeof setup,
        .name = name,
        .options = options,
        .users = 1,
        .validate_only = TRUE,
        .scope = scope,
    };
    gpointer data;

    if (loader->defaults != NULL)
        setup.defaults
            = throng_plan_protocol_map (throng_node_lookup (loader->defaults, protocol->name));
    data = protocol->scenario_new (&setup, error);
    if (data == NULL)
        return FALSE;
    if (protocol->scenario_free != NULL)
        protocol->scenario_free (data);
    return TRUE;
}

/* ---- top level ----------------------------------------------------------- */

typedef struct {
    char *name;
    char *description;
    int target;
    const ThrongNode *plugin_path;
    const ThrongNode *defaults;
    const ThrongNode *scenarios;
    const ThrongNode *reporters;
    const ThrongNode *saturation;
    const ThrongNode *reserved;
    const ThrongNode *fragments;
    const ThrongNode *metrics;
    const ThrongNode *setup;
    const ThrongNode *teardown;
} TopLevel;

static const char *const target_choices[] = { "builtin", NULL };

static const ThrongOption top_level_options[] = {
    { "name", THRONG_OPTION_STRING, offsetof (TopLevel, name) },
    { "description", THRONG_OPTION_STRING, offsetof (TopLevel, description) },
    { "target", THRONG_OPTION_ENUM, offsetof (TopLevel, target), .choices = target_choices },
    { "plugin_path", THRONG_OPTION_NODE, offsetof (TopLevel, plugin_path) },
    { "defaults", THRONG_OPTION_NODE, offsetof (TopLevel, defaults) },
    { "scenarios", THRONG_OPTION_NODE, offsetof (TopLevel, scenarios) },
    { "reporters", THRONG_OPTION_NODE, offsetof (TopLevel, reporters) },
    /* read where a scenario's `use` step names one (plan-steps.c) */
    { "fragments", THRONG_OPTION_NODE, offsetof (TopLevel, fragments) },
    /* the plan's own metrics, read by custom-metric.c before the steps that record into them */
    { "metrics", THRONG_OPTION_NODE, offsetof (TopLevel, metrics) },
    /* steps run once before and after the load (plan-phase.c, phase.c) */
    { "setup", THRONG_OPTION_NODE, offsetof (TopLevel, setup) },
    { "teardown", THRONG_OPTION_NODE, offsetof (TopLevel, teardown) },
    /* read and checked by schedule.c */
    { "saturation", THRONG_OPTION_NODE, offsetof (TopLevel, saturation) },
    /* read and checked by threshold.c, from the tree */
    { "thresholds", THRONG_OPTION_NODE, offsetof (TopLevel, reserved) },
    { NULL },
};

static void
top_level_clear (TopLevel *top)
{
    throng_options_clear (top_level_options, top);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TopLevel, top_level_clear)

static char *
default_plan_name (const char *path)
{
    g_autofree char *base = g_path_get_basename (path);
    char *dot = strrchr (base, '.');

    if (dot != NULL && dot != base)
        *dot = '\0';
    return g_steal_pointer (&base);
}

static gboolean
add_plugin_dir (ThrongPlanLoader *loader, const ThrongNode *node, GError **error)
{
    const char *text;
    g_autofree char *dir = NULL;

    if (!throng_node_get_string (node, &text, error))
        return FALSE;
    if (text[0] == '\0') {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "plugin_path: a directory cannot be empty");
        return FALSE;
    }
    g_autofree char *plan_dir = g_path_get_dirname (loader->plan->file);
    g_autofree char *absolute_dir = g_canonicalize_filename (plan_dir, NULL);
    dir = g_canonicalize_filename (text, absolute_dir);
    if (!g_file_test (dir, G_FILE_TEST_IS_DIR)) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "plugin_path: no directory %s", dir);
        return FALSE;
    }
    throng_registry_add_dir (loader->registry, dir);
    return TRUE;
}

static gboolean
read_plugin_path (ThrongPlanLoader *loader, const ThrongNode *node, GError **error)
{
    if (node == NULL || throng_node_is_null (node))
        return TRUE;
    if (throng_node_kind (node) == THRONG_NODE_SCALAR)
        return add_plugin_dir (loader, node, error);
    if (throng_node_kind (node) == THRONG_NODE_MAP) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a directory or a list of directories for plugin_path, "
                               "got a map");
        return FALSE;
    }
    for (guint i = 0; i < throng_node_n_children (node); i++) {
        if (!add_plugin_dir (loader, throng_node_child (node, i), error))
            return FALSE;
    }
    return TRUE;
}

/*
 * `${env.NAME}` and `${env.NAME:-default}` in any string of the plan (a
 * base_url, a header in defaults) are replaced while the plan loads, so
 * settings that are not templates can read the environment too; one with
 * a filter (`${env.NAME | base64}`) is left to the template compiler.
 */
static const char *
lookup_env (ThrongPlanLoader *loader, const char *name, const ThrongNode *where, gsize offset,
            GError **error)
{
    const char *fallback = strstr (name, ":-");
    g_autofree char *variable = g_strndup (name, fallback != NULL ? (gsize) (fallback - name)
                                                                  : strlen (name));
    const char *value;

    if (strchr (name, '|') != NULL)
        return NULL;
    if (variable[0] == '\0') {
        throng_node_set_error_at (where, offset, error, THRONG_PLAN_ERROR_INVALID,
                                  "env. needs a variable name, as ${env.HOME}");
        return NULL;
    }
    value = throng_plan_vars_env (loader->plan->vars, variable);
    if (value == NULL && fallback != NULL)
        value = fallback + 2;
    if (value == NULL)
        throng_node_set_error_at (where, offset + 2, error, THRONG_PLAN_ERROR_INVALID,
                                  "environment variable %s is not set; set it, give -e %s=VALUE, "
                                  "or write a default: ${env.%s:-VALUE}",
                                  variable, variable, variable);
    return value;
}

/* The first expansion: `${env.*}`; the rest is left for later or for run time. */
static const char *
lookup_env_variable (const char *name, gpointer data, const ThrongNode *where, gsize offset,
                     GError **error)
{
    if (g_str_has_prefix (name, "env."))
        return lookup_env (data, name + 4, where, offset, error);
    return NULL;
}

/* The second, once the built-in target has its URLs: `${builtin.*}`. */
static const char *
lookup_builtin_variable (const char *name, gpointer data, const ThrongNode *where, gsize offset,
                         GError **error)
{
    ThrongPlanLoader *loader = data;

    if (!g_str_has_prefix (name, "builtin."))
        return NULL; /* reserved for run-time variables */
    if (!loader->plan->builtin_target) {
        throng_node_set_error (where, error, THRONG_PLAN_ERROR_INVALID,
                               "${%s} needs 'target: builtin' in the plan", name);
        return NULL;
    }
    if (strcmp (name, "builtin.http") == 0)
        return loader->http_url;
    if (strcmp (name, "builtin.https") == 0)
        return loader->https_url;
    throng_node_set_error (where, error, THRONG_PLAN_ERROR_INVALID,
                           "unknown variable ${%s}; the built-in target offers ${builtin.http} "
                           "and ${builtin.https}",
                           name);
    return NULL;
}

/* The built-in target's URLs, as the caller gave them; it started the target, not the loader. */
static void
builtin_urls (ThrongPlanLoader *loader, const ThrongPlanLoadOptions *options)
{
    gboolean given = !loader->validate_only && options->builtin_http != NULL
                     && options->builtin_https != NULL;

    if (!loader->plan->builtin_target)
        return;
    loader->http_url = g_strdup (given ? options->builtin_http : "http://127.0.0.1:1");
    loader->https_url = g_strdup (given ? options->builtin_https : "https://127.0.0.1:1");
}

static gboolean
read_defaults (ThrongPlanLoader *loader, const ThrongNode *defaults, GError **error)
{
    if (defaults == NULL || throng_node_is_null (defaults))
        return TRUE;
    if (!throng_node_expect_kind (defaults, THRONG_NODE_MAP,
                                  "a map of protocol names for defaults, such as "
                                  "'http: {base_url: ...}'",
                                  error))
        return FALSE;
    loader->defaults = defaults;

    for (guint i = 0; i < throng_node_n_children (defaults); i++) {
        const ThrongNode *key = throng_node_key (defaults, i);
        const ThrongNode *value = throng_node_child (defaults, i);

        if (throng_plan_find_protocol (loader, key, error) == NULL)
            return FALSE;
        g_autofree char *expected
            = g_strdup_printf ("a map of %s options", throng_node_scalar (key));

        if (!throng_node_is_null (value)
            && !throng_node_expect_kind (value, THRONG_NODE_MAP, expected, error))
            return FALSE;
    }
    return TRUE;
}

/* Defaults of a protocol that no scenario uses are still checked. */
static gboolean
check_unused_defaults (ThrongPlanLoader *loader, GError **error)
{
    if (loader->defaults == NULL)
        return TRUE;
    for (guint i = 0; i < throng_node_n_children (loader->defaults); i++) {
        const char *name = throng_node_scalar (throng_node_key (loader->defaults, i));
        gboolean used = FALSE;

        for (guint s = 0; s < loader->plan->scenarios->len && !used; s++) {
            const ThrongPlanScenario *scenario = loader->plan->scenarios->pdata[s];
            for (guint p = 0; p < scenario->protocols->len && !used; p++) {
                const ThrongPlanProtocol *protocol = scenario->protocols->pdata[p];
                used = strcmp (protocol->protocol->name, name) == 0;
            }
        }
        if (used)
            continue;

        const ThrongProtocol *protocol
            = throng_plan_find_protocol (loader, throng_node_key (loader->defaults, i), error);
        if (protocol == NULL
            || !throng_plan_check_unused_protocol (loader, protocol, "defaults", NULL, error))
            return FALSE;
    }
    return TRUE;
}

/* ---- the plan ------------------------------------------------------------ */

ThrongTree *
throng_plan_keep_tree (ThrongPlan *plan, ThrongTree *tree)
{
    g_ptr_array_add (((ThrongPlanPrivate *)plan)->option_trees, tree);
    return tree;
}

void
throng_plan_free (ThrongPlan *plan)
{
    ThrongPlanPrivate *priv = (ThrongPlanPrivate *)plan;

    if (plan == NULL)
        return;
    /* plugin data first: it may point into the trees */
    g_ptr_array_unref (plan->reporters);
    g_ptr_array_unref (plan->scenarios);
    g_clear_pointer (&plan->setup, throng_plan_scenario_free);
    g_clear_pointer (&plan->teardown, throng_plan_scenario_free);
    if (plan->metrics != NULL)
        g_ptr_array_unref (plan->metrics);
    throng_thresholds_free (plan->thresholds);
    throng_plan_vars_free (plan->vars);
    g_ptr_array_unref (priv->option_trees);
    throng_tree_free (plan->tree);
    g_free (plan->name);
    g_free (plan->file);
    g_free (plan->shard_hash);
    g_free (priv);
}

/*
 * Every declared metric is recorded by some step; and none is named like
 * a threshold's other subjects (`total`, a scenario, a step's label, a
 * protocol), which would make `NAME.count` ambiguous.
 */
static gboolean
check_metric_names (const ThrongPlan *plan, GError **error)
{
    for (guint m = 0; m < plan->metrics->len; m++) {
        const ThrongPlanMetric *metric = plan->metrics->pdata[m];

        /* declared and never fed: a threshold on it would judge nothing */
        if (!metric->recorded) {
            throng_node_set_error (metric->node, error, THRONG_PLAN_ERROR_INVALID,
                                   "metric '%s' is declared but no step records into it "
                                   "(record: { %s: … } beside a step's protocol)",
                                   metric->name, metric->name);
            return FALSE;
        }
        if (!throng_plan_check_metric_name (metric, "total", "the run's total", error))
            return FALSE;
        for (guint s = 0; s < plan->scenarios->len; s++) {
            const ThrongPlanScenario *scenario = plan->scenarios->pdata[s];
            if (!throng_plan_check_metric_name (metric, scenario->name, "a scenario", error))
                return FALSE;
            for (guint i = 0; i < scenario->steps->len; i++) {
                const ThrongPlanStep *step = scenario->steps->pdata[i];
                if (!throng_plan_check_metric_name (metric, step->label, "a step", error)
                    || !throng_plan_check_metric_name (metric, step->protocol_name,
                                                       "a protocol", error))
                    return FALSE;
            }
        }
    }
    return TRUE;
}

static ThrongPlan *
plan_load (const char *path, ThrongRegistry *registry, const ThrongPlanLoadOptions *options,
           GError **error)
{
    static const ThrongPlanLoadOptions no_options = { 0 };
    g_autoptr (ThrongPlan) plan = NULL;
    g_auto (TopLevel) top = { .target = -1 };
    g_auto (ThrongPlanLoader) loader = { 0 };

    g_return_val_if_fail (path != NULL, NULL);
    g_return_val_if_fail (registry != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    if (options == NULL)
        options = &no_options;

    ThrongPlanPrivate *priv = g_new0 (ThrongPlanPrivate, 1);
    plan = &priv->plan;
    plan->file = g_strdup (path);
    plan->scenarios = g_ptr_array_new_with_free_func (throng_plan_scenario_free);
    plan->reporters = g_ptr_array_new_with_free_func (throng_plan_reporter_free);
    plan->metrics = g_ptr_array_new_with_free_func (throng_plan_metric_free);
    priv->option_trees = g_ptr_array_new_with_free_func ((GDestroyNotify)throng_tree_free);
    for (guint i = 0; options->envs != NULL && options->envs[i] != NULL; i++) {
        const char *eq = strchr (options->envs[i], '=');
        if (eq == NULL || eq == options->envs[i]
            || !throng_scope_valid_name (options->envs[i], eq - options->envs[i])) {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                         "--env %s: expected NAME=VALUE, NAME letters, digits and '_'",
                         options->envs[i]);
            return NULL;
        }
    }
    plan->vars = throng_plan_vars_new (options->envs);

    loader.plan = plan;
    loader.registry = registry;
    loader.validate_only = options->validate_only;
    loader.scenario_names = g_hash_table_new (g_str_hash, g_str_equal);
    loader.fragments_used = g_hash_table_new (g_str_hash, g_str_equal);
    loader.fragments_open = g_ptr_array_new ();

    plan->tree = throng_tree_load_file (path, error);
    if (plan->tree == NULL)
        return NULL;
    if (options->edit != NULL && !options->edit (plan->tree, options->edit_data, error))
        return NULL;

    if (!throng_options_apply (throng_tree_root (plan->tree), top_level_options, &top, FALSE,
                               "the plan", error))
        return NULL;
    if (top.name != NULL && top.name[0] == '\0') {
        throng_node_set_error (throng_node_lookup (throng_tree_root (plan->tree), "name"), error,
                               THRONG_PLAN_ERROR_INVALID, "the plan's name cannot be empty");
        return NULL;
    }
    plan->builtin_target = top.target == 0;

    if (!read_plugin_path (&loader, top.plugin_path, error)
        || !throng_tree_expand (plan->tree, lookup_env_variable, &loader, error))
        return NULL;
    /* Taken before the built-in target's URLs enter the plan: each shard
     * starts its own target on its own ports, and still runs the same plan. */
    plan->shard_hash = throng_shard_plan_hash (throng_tree_root (plan->tree));
    builtin_urls (&loader, options);
    if (!throng_tree_expand (plan->tree, lookup_builtin_variable, &loader, error))
        return NULL;
    if (plan->builtin_target) {
        plan->vars->builtin_http = g_strdup (loader.http_url);
        plan->vars->builtin_https = g_strdup (loader.https_url);
    }

    /* read again: expansion may have changed it */
    const ThrongNode *name = throng_node_lookup (throng_tree_root (plan->tree), "name");
    plan->name = name != NULL ? g_strdup (throng_node_scalar (name)) : default_plan_name (path);

    if (!throng_schedule_parse_saturation (top.saturation, &plan->saturation_cpu,
                                           &plan->saturation_lag_us, error)
        || !read_defaults (&loader, top.defaults, error)
        || !throng_plan_read_metrics (plan->metrics, top.metrics, error)
        || !throng_plan_check_fragments (&loader, top.fragments, error)
        || !throng_plan_read_phase (&loader, top.setup, "setup", &plan->setup, error)
        || !throng_plan_read_scenarios (&loader, top.scenarios, error)
        || !throng_plan_read_phase (&loader, top.teardown, "teardown", &plan->teardown, error)
        || !check_metric_names (plan, error)
        || !throng_plan_check_fragments_used (&loader, error)
        || !check_unused_defaults (&loader, error)
        || !throng_plan_read_reporters (&loader, top.reporters, error)
        || !throng_plan_add_outputs (&loader, options, error))
        return NULL;
    plan->thresholds = throng_thresholds_load (plan, error);
    if (plan->thresholds == NULL)
        return NULL;

    g_debug ("plan %s: loaded from %s: %u scenario%s, %u reporter%s, %u threshold%s", plan->name,
             path, plan->scenarios->len, plan->scenarios->len == 1 ? "" : "s", plan->reporters->len,
             plan->reporters->len == 1 ? "" : "s", throng_thresholds_count (plan->thresholds),
             throng_thresholds_count (plan->thresholds) == 1 ? "" : "s");
    return g_steal_pointer (&plan);
}

/*
 * Every `thresholds` list of the plan (top level, scenarios, steps), judged
 * against the subjects the plan has: its scenarios, their steps' labels
 * and protocols.
 */
ThrongThresholds *
throng_thresholds_load (ThrongPlan *plan, GError **error)
{
    g_autoptr (ThrongThresholds) thresholds = throng_thresholds_new ();
    guint n = plan->scenarios->len;
    g_autofree const char **names = g_new0 (const char *, n + 1);
    g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GPtrArray) protocols = g_ptr_array_new_with_free_func (g_free);

    for (guint s = 0; s < n; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);
        const char **step_labels = g_new0 (const char *, scenario->steps->len + 1);
        const char **step_protocols = g_new0 (const char *, scenario->steps->len + 1);

        names[s] = scenario->name;
        for (guint i = 0; i < scenario->steps->len; i++) {
            const ThrongPlanStep *step = g_ptr_array_index (scenario->steps, i);
            step_labels[i] = step->label;
            step_protocols[i] = step->protocol_name;
        }
        g_ptr_array_add (labels, step_labels);
        g_ptr_array_add (protocols, step_protocols);
    }
    g_autofree const char **metric_names = g_new0 (const char *, plan->metrics->len + 1);
    g_autofree ThrongCustomMetricKind *metric_kinds
        = g_new0 (ThrongCustomMetricKind, plan->metrics->len + 1);
    for (guint m = 0; m < plan->metrics->len; m++) {
        const ThrongPlanMetric *metric = plan->metrics->pdata[m];
        metric_names[m] = metric->name;
        metric_kinds[m] = metric->kind;
    }
    ThrongThresholdSubjects subjects = {
        .n_scenarios = n,
        .scenario_names = names,
        .step_labels = (const char *const *const *) labels->pdata,
        .step_protocols = (const char *const *const *) protocols->pdata,
        .n_metrics = plan->metrics->len,
        .metric_names = metric_names,
        .metric_kinds = metric_kinds,
    };
    const ThrongNode *root = throng_tree_root (plan->tree);
    guint capacities = 0;

    if (!throng_thresholds_add_list (thresholds, &subjects,
                                     throng_node_lookup (root, "thresholds"), -1, -1, error))
        return NULL;
    for (guint s = 0; s < n; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);
        /* A capacity scenario's objectives: thresholds of the scenario, judged per level. */
        if (scenario->capacity != NULL) {
            if (++capacities > 1) {
                throng_node_set_error (throng_node_lookup (scenario->node, "executor"), error,
                                       THRONG_PLAN_ERROR_INVALID,
                                       "only one scenario of a plan may use executor capacity");
                return NULL;
            }
            scenario->capacity->objectives = throng_thresholds_new ();
            if (!throng_thresholds_add_list (scenario->capacity->objectives, &subjects,
                                             scenario->capacity->slo, (gint) s, -1, error))
                return NULL;
        }
        if (scenario->node != NULL
            && !throng_thresholds_add_list (thresholds, &subjects,
                                            throng_node_lookup (scenario->node, "thresholds"),
                                            (gint) s, -1, error))
            return NULL;
        for (guint i = 0; i < scenario->steps->len; i++) {
            const ThrongPlanStep *step = g_ptr_array_index (scenario->steps, i);
            if (step->node != NULL
                && !throng_thresholds_add_list (thresholds, &subjects,
                                                throng_node_lookup (step->node, "thresholds"),
                                                (gint) s, (gint) i, error))
                return NULL;
        }
    }
    return g_steal_pointer (&thresholds);
}

ThrongPlan *
throng_plan_load (const char *path, ThrongRegistry *registry, const ThrongPlanLoadOptions *options,
                  GError **error)
{
    GError *local = NULL;
    ThrongPlan *plan = plan_load (path, registry, options, &local);

    /* Not every error is set through a node (templates, data sets, plugins'
     * own messages), and any may quote what the user wrote: one line each. */
    if (local != NULL) {
        char *message = throng_one_line (local->message);

        g_free (local->message);
        local->message = message;
        g_propagate_error (error, local);
    }
    return plan;
}
