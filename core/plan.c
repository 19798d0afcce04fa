/* SPDX-License-Identifier: MIT */
/*
 * The plan loader: from a YAML file to a typed, fully validated ThrongPlan.
 * Order matters and is fixed: the tree is loaded, `--set` overrides are
 * applied, the top level is read, the plan's plugin_path joins the
 * registry, the built-in target is started and `${builtin.*}` expanded,
 * and only then are defaults, scenarios, steps and reporters read, each
 * protocol and reporter checking its own options.  A plan that loads has
 * been checked completely; nothing is sent before that.
 */
#include "plan.h"

#include <string.h>

#include "schedule.h"

/* Bounds of the core's scenario settings (docs/plan-reference.md). */
#define MAX_USERS 1000000
#define MAX_ITERATIONS G_GINT64_CONSTANT (1000000000000)
#define MIN_DURATION_US (1000)
#define MAX_DURATION_US (G_GINT64_CONSTANT (30) * 24 * 3600 * G_USEC_PER_SEC)
#define MAX_RAMP_UP_US (G_GINT64_CONSTANT (24) * 3600 * G_USEC_PER_SEC)

/*
 * The plan as the caller sees it, plus what only the loader needs to
 * keep: the tree behind the default console reporter's empty options.
 */
typedef struct {
    ThrongPlan plan;
    ThrongTree *default_tree;
} PlanPrivate;

typedef struct {
    ThrongPlan *plan;
    ThrongRegistry *registry;
    gboolean validate_only;
    const ThrongNode *defaults; /* the `defaults` map, or NULL */
    char *http_url;
    char *https_url;
    GHashTable *scenario_names; /* name → the node that gave it */
} Loader;

static void
loader_clear (Loader *loader)
{
    g_free (loader->http_url);
    g_free (loader->https_url);
    g_clear_pointer (&loader->scenario_names, g_hash_table_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Loader, loader_clear)

/* ---- plugins ------------------------------------------------------------- */

/*
 * A registry NOT_FOUND becomes a plan error at @at, with the nearest name
 * the registry can list; anything else (a plugin that exists but was
 * refused) goes up unchanged.
 */
static void
plugin_error (Loader *loader, const ThrongNode *at, ThrongPluginKind kind, const char *name,
              const char *prefix, GError *local, GError **error)
{
    if (!g_error_matches (local, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND)) {
        g_propagate_error (error, local);
        return;
    }
    g_error_free (local);

    g_autoptr (GPtrArray) infos = throng_registry_scan (loader->registry);
    g_autoptr (GPtrArray) names = g_ptr_array_new ();
    for (guint i = 0; i < infos->len; i++) {
        const ThrongPluginInfo *info = infos->pdata[i];

        if (info->error != NULL)
            continue;
        if (info->kind == kind) {
            g_ptr_array_add (names, info->name);
        } else if (strcmp (info->name, name) == 0) {
            /* `- console: {}` as a step, `- http: {}` as a reporter */
            throng_node_set_error (at, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                                   "'%s' is a %s plugin, not a %s", name,
                                   kind == THRONG_PLUGIN_KIND_PROTOCOL ? "reporter" : "protocol",
                                   kind == THRONG_PLUGIN_KIND_PROTOCOL ? "protocol" : "reporter");
            return;
        }
    }
    g_ptr_array_add (names, NULL);

    const char *suggestion = throng_node_suggest (name, (const char *const *)names->pdata);
    g_autofree char *dirs = throng_registry_describe_path (loader->registry);
    g_autofree char *hint
        = suggestion != NULL ? g_strdup_printf ("; did you mean '%s'?", suggestion) : g_strdup ("");

    throng_node_set_error (at, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                           "%s no plugin libthrong-%s.so in %s%s", prefix, name, dirs, hint);
}

static const ThrongProtocol *
find_protocol (Loader *loader, const ThrongNode *key, GError **error)
{
    const char *name = throng_node_scalar (key);
    GError *local = NULL;
    const ThrongProtocol *protocol = throng_registry_get_protocol (loader->registry, name, &local);

    if (protocol == NULL) {
        g_autofree char *prefix = g_strdup_printf ("unknown protocol '%s':", name);
        plugin_error (loader, key, THRONG_PLUGIN_KIND_PROTOCOL, name, prefix, local, error);
    }
    return protocol;
}

/* The map given for a protocol, or NULL when it is absent or empty (`http:`). */
static const ThrongNode *
protocol_map (const ThrongNode *node)
{
    return node == NULL || throng_node_is_null (node) ? NULL : node;
}

/*
 * Checks a protocol's defaults and scenario options where no step of the
 * scenario (or no scenario) uses the protocol, so that nothing the plan
 * says goes unchecked.
 */
static gboolean
check_unused_protocol (Loader *loader, const ThrongProtocol *protocol, const char *name,
                       const ThrongNode *options, GError **error)
{
    ThrongScenarioSetup setup = {
        .size = sizeof setup,
        .name = name,
        .options = options,
        .users = 1,
        .validate_only = TRUE,
    };
    gpointer data;

    if (loader->defaults != NULL)
        setup.defaults = protocol_map (throng_node_lookup (loader->defaults, protocol->name));
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
add_plugin_dir (Loader *loader, const ThrongNode *node, GError **error)
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
read_plugin_path (Loader *loader, const ThrongNode *node, GError **error)
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

static const char *
lookup_variable (const char *name, gpointer data, const ThrongNode *where, GError **error)
{
    Loader *loader = data;

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

static gboolean
start_target (Loader *loader, const ThrongPlanLoadOptions *options, GError **error)
{
    if (!loader->plan->builtin_target)
        return TRUE;
    if (!loader->validate_only && options->start_target != NULL)
        return options->start_target (options->start_target_data, &loader->http_url,
                                      &loader->https_url, error);
    loader->http_url = g_strdup ("http://127.0.0.1:1");
    loader->https_url = g_strdup ("https://127.0.0.1:1");
    return TRUE;
}

static gboolean
read_defaults (Loader *loader, const ThrongNode *defaults, GError **error)
{
    if (defaults == NULL || throng_node_is_null (defaults))
        return TRUE;
    if (throng_node_kind (defaults) != THRONG_NODE_MAP) {
        g_autofree char *given = throng_node_describe (defaults);
        throng_node_set_error (defaults, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a map of protocol names for defaults, such as "
                               "'http: {base_url: ...}', got %s",
                               given);
        return FALSE;
    }
    loader->defaults = defaults;

    for (guint i = 0; i < throng_node_n_children (defaults); i++) {
        const ThrongNode *key = throng_node_key (defaults, i);
        const ThrongNode *value = throng_node_child (defaults, i);

        if (find_protocol (loader, key, error) == NULL)
            return FALSE;
        if (!throng_node_is_null (value) && throng_node_kind (value) != THRONG_NODE_MAP) {
            g_autofree char *given = throng_node_describe (value);
            throng_node_set_error (value, error, THRONG_PLAN_ERROR_TYPE,
                                   "expected a map of %s options, got %s", throng_node_scalar (key),
                                   given);
            return FALSE;
        }
    }
    return TRUE;
}

/* Defaults of a protocol that no scenario uses are still checked. */
static gboolean
check_unused_defaults (Loader *loader, GError **error)
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
            = find_protocol (loader, throng_node_key (loader->defaults, i), error);
        if (protocol == NULL || !check_unused_protocol (loader, protocol, "defaults", NULL, error))
            return FALSE;
    }
    return TRUE;
}

/* ---- scenarios ----------------------------------------------------------- */

typedef struct {
    char *name;
    guint64 users;
    guint64 iterations;
    gint64 duration_us;
    gint64 ramp_up_us;
    const ThrongNode *steps;
    const ThrongNode *other; /* protocol maps and thresholds: read from the tree */
} ScenarioFields;

/*
 * The core's own scenario keys.  Those of the schedule (executor, rate,
 * stages, max_users, start_after, think_time, pacing, graceful_stop) are
 * read by schedule.c, which also decides which of them fit together.
 */
static const ThrongOption scenario_options[] = {
    { "name", THRONG_OPTION_STRING, offsetof (ScenarioFields, name) },
    { "users", THRONG_OPTION_UINT, offsetof (ScenarioFields, users), .min = 1, .max = MAX_USERS },
    { "iterations", THRONG_OPTION_UINT, offsetof (ScenarioFields, iterations), .min = 1,
      .max = MAX_ITERATIONS },
    { "duration", THRONG_OPTION_DURATION, offsetof (ScenarioFields, duration_us),
      .min = MIN_DURATION_US, .max = MAX_DURATION_US },
    { "ramp_up", THRONG_OPTION_DURATION, offsetof (ScenarioFields, ramp_up_us), .min = 0,
      .max = MAX_RAMP_UP_US },
    { "steps", THRONG_OPTION_NODE, offsetof (ScenarioFields, steps) },
    { "executor", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "rate", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "stages", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "max_users", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "start_after", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "think_time", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "pacing", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "graceful_stop", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    /* read and checked by threshold.c, from the tree */
    { "thresholds", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { NULL },
};

static const char *const scenario_keys[] = {
    "name",     "users",         "iterations", "duration",  "ramp_up",     "steps",
    "executor", "rate",          "stages",     "max_users", "start_after", "think_time",
    "pacing",   "graceful_stop", "thresholds", NULL,
};

/* Keys of a step besides its protocol key. */
static const char *const step_keys[] = { "name", "thresholds", NULL };

static gboolean
is_one_of (const char *key, const char *const *keys)
{
    return g_strv_contains (keys, key);
}

static ThrongPlanProtocol *
scenario_protocol (ThrongPlanScenario *scenario, const ThrongProtocol *protocol)
{
    for (guint i = 0; i < scenario->protocols->len; i++) {
        ThrongPlanProtocol *entry = scenario->protocols->pdata[i];
        if (entry->protocol == protocol)
            return entry;
    }
    return NULL;
}

static void
scenario_free (gpointer data)
{
    ThrongPlanScenario *scenario = data;

    /* steps before their scenario data: a step may point into it */
    for (guint i = 0; i < scenario->steps->len; i++) {
        ThrongPlanStep *step = scenario->steps->pdata[i];
        if (step->data != NULL && step->protocol->step_free != NULL)
            step->protocol->step_free (step->data);
        g_free (step->label);
        g_free (step);
    }
    g_ptr_array_unref (scenario->steps);
    for (guint i = 0; i < scenario->protocols->len; i++) {
        ThrongPlanProtocol *entry = scenario->protocols->pdata[i];
        if (entry->data != NULL && entry->protocol->scenario_free != NULL)
            entry->protocol->scenario_free (entry->data);
        g_free (entry);
    }
    g_ptr_array_unref (scenario->protocols);
    if (scenario->stages != NULL)
        g_array_unref (scenario->stages);
    g_free (scenario->name);
    g_free (scenario);
}

/*
 * Reads the keys of one step (not yet its protocol options): its name
 * and its one protocol.
 */
static gboolean
read_step (Loader *loader, ThrongPlanScenario *scenario, const ThrongNode *node, GError **error)
{
    const ThrongNode *protocol_key = NULL;
    const ThrongProtocol *protocol = NULL;
    const char *name = NULL;

    if (throng_node_kind (node) != THRONG_NODE_MAP) {
        g_autofree char *given = throng_node_describe (node);
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a map for step, such as 'http: {url: /}', got %s", given);
        return FALSE;
    }
    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *key = throng_node_key (node, i);
        const char *text = throng_node_scalar (key);
        const char *suggestion;
        const ThrongProtocol *found;

        if (strcmp (text, "name") == 0) {
            if (!throng_node_get_string (throng_node_child (node, i), &name, error))
                return FALSE;
            continue;
        }
        if (is_one_of (text, step_keys))
            continue;

        GError *local = NULL;
        found = throng_registry_get_protocol (loader->registry, text, &local);
        if (found == NULL
            && !g_error_matches (local, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND)) {
            g_propagate_error (error, local);
            return FALSE;
        }
        /* not a protocol, but close to `name`: a typo, not a second protocol */
        suggestion = found == NULL ? throng_node_suggest (text, step_keys) : NULL;
        if (suggestion != NULL) {
            g_error_free (local);
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                                   "unknown key '%s' in step; did you mean '%s'?", text,
                                   suggestion);
            return FALSE;
        }
        if (protocol_key != NULL) {
            g_clear_error (&local);
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "a step names exactly one protocol, but this one names '%s' "
                                   "and '%s'",
                                   throng_node_scalar (protocol_key), text);
            return FALSE;
        }
        if (found == NULL) {
            g_autofree char *prefix = g_strdup_printf ("unknown protocol '%s':", text);
            plugin_error (loader, key, THRONG_PLUGIN_KIND_PROTOCOL, text, prefix, local, error);
            return FALSE;
        }
        protocol_key = key;
        protocol = found;
    }
    if (protocol_key == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_MISSING,
                               "a step needs a key naming its protocol, such as 'http'");
        return FALSE;
    }

    ThrongPlanStep *step = g_new0 (ThrongPlanStep, 1);
    step->label = g_strdup (name);
    step->protocol_name = throng_node_scalar (protocol_key);
    step->protocol = protocol;
    step->node = node;
    g_ptr_array_add (scenario->steps, step);

    if (scenario_protocol (scenario, protocol) == NULL) {
        ThrongPlanProtocol *entry = g_new0 (ThrongPlanProtocol, 1);
        entry->protocol = protocol;
        g_ptr_array_add (scenario->protocols, entry);
    }
    return TRUE;
}

/* Each protocol the steps use sees the scenario once, then each of its steps. */
static gboolean
build_steps (Loader *loader, ThrongPlanScenario *scenario, GError **error)
{
    for (guint i = 0; i < scenario->protocols->len; i++) {
        ThrongPlanProtocol *entry = scenario->protocols->pdata[i];
        const char *name = entry->protocol->name;
        ThrongScenarioSetup setup = {
            .size = sizeof setup,
            .name = scenario->name,
            .defaults = loader->defaults != NULL
                            ? protocol_map (throng_node_lookup (loader->defaults, name))
                            : NULL,
            .options = protocol_map (throng_node_lookup (scenario->node, name)),
            .users = scenario->users,
            .validate_only = loader->validate_only,
        };

        entry->data = entry->protocol->scenario_new (&setup, error);
        if (entry->data == NULL)
            return FALSE;
    }

    for (guint i = 0; i < scenario->steps->len; i++) {
        ThrongPlanStep *step = scenario->steps->pdata[i];
        ThrongPlanProtocol *entry = scenario_protocol (scenario, step->protocol);
        const ThrongNode *options = throng_node_lookup (step->node, step->protocol_name);
        g_autofree char *label = NULL;

        step->scenario_data = entry->data;
        step->data = step->protocol->step_new (entry->data, options, &label, error);
        if (step->data == NULL)
            return FALSE;
        if (step->label == NULL)
            step->label = label != NULL ? g_steal_pointer (&label) : g_strdup (step->protocol_name);
    }
    return TRUE;
}

/* A key that is neither a scenario setting nor a protocol the registry finds. */
static void
unknown_scenario_key (Loader *loader, const ThrongNode *key, GError *local, GError **error)
{
    const char *text = throng_node_scalar (key);
    const char *suggestion = throng_node_suggest (text, scenario_keys);

    if (!g_error_matches (local, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND)) {
        g_propagate_error (error, local);
        return;
    }
    if (suggestion != NULL) {
        g_error_free (local);
        throng_node_set_error (key, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                               "unknown key '%s' in scenario; did you mean '%s'?", text,
                               suggestion);
        return;
    }
    g_autofree char *prefix
        = g_strdup_printf ("unknown key '%s' in scenario: not a scenario setting, and", text);
    plugin_error (loader, key, THRONG_PLUGIN_KIND_PROTOCOL, text, prefix, local, error);
}

static const ThrongNode *
key_node (const ThrongNode *map, const char *name)
{
    for (guint i = 0; i < throng_node_n_children (map); i++) {
        const ThrongNode *key = throng_node_key (map, i);
        if (strcmp (throng_node_scalar (key), name) == 0)
            return key;
    }
    return NULL;
}

/* Whichever of the keys @a and @b of @map comes second. */
static const ThrongNode *
second_of (const ThrongNode *map, const ThrongNode *a, const ThrongNode *b)
{
    for (guint i = 0; i < throng_node_n_children (map); i++) {
        const ThrongNode *key = throng_node_key (map, i);
        if (key == a)
            return b;
        if (key == b)
            return a;
    }
    return b;
}

static gboolean
check_scenario_name (Loader *loader, ThrongPlanScenario *scenario, const ThrongNode *at,
                     GError **error)
{
    const ThrongNode *first;

    if (scenario->name[0] == '\0') {
        throng_node_set_error (at, error, THRONG_PLAN_ERROR_INVALID,
                               "a scenario name cannot be empty");
        return FALSE;
    }
    first = g_hash_table_lookup (loader->scenario_names, scenario->name);
    if (first != NULL) {
        /* a scenario without a name is "scenario-N": say so, or the clash is a puzzle */
        gboolean defaulted = throng_node_kind (at) == THRONG_NODE_MAP;
        throng_node_set_error (at, error, THRONG_PLAN_ERROR_DUPLICATE_KEY,
                               "duplicate scenario name '%s'%s (first at %u:%u)", scenario->name,
                               defaulted ? ", the default name of this scenario" : "",
                               throng_node_line (first), throng_node_column (first));
        return FALSE;
    }
    g_hash_table_insert (loader->scenario_names, scenario->name, (gpointer)at);
    return TRUE;
}

static gboolean
read_scenario (Loader *loader, const ThrongNode *node, guint index, GError **error)
{
    g_autoptr (GArray) table = NULL;
    ScenarioFields fields = { 0 };
    gboolean ok;

    if (throng_node_kind (node) != THRONG_NODE_MAP) {
        g_autofree char *given = throng_node_describe (node);
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a map for scenario, got %s", given);
        return FALSE;
    }

    /* Other keys name protocols: their values are those protocols' scenario options. */
    table = g_array_new (TRUE, TRUE, sizeof (ThrongOption));
    g_array_append_vals (table, scenario_options, G_N_ELEMENTS (scenario_options) - 1);
    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *key = throng_node_key (node, i);
        const char *text = throng_node_scalar (key);
        GError *local = NULL;

        if (is_one_of (text, scenario_keys))
            continue;
        if (throng_registry_get_protocol (loader->registry, text, &local) == NULL) {
            unknown_scenario_key (loader, key, local, error);
            return FALSE;
        }
        ThrongOption option = { text, THRONG_OPTION_NODE, offsetof (ScenarioFields, other) };
        g_array_append_val (table, option);
    }

    ok = throng_options_apply (node, (const ThrongOption *)table->data, &fields, FALSE, "scenario",
                               error);

    ThrongPlanScenario *scenario = g_new0 (ThrongPlanScenario, 1);
    scenario->node = node;
    scenario->steps = g_ptr_array_new ();
    scenario->protocols = g_ptr_array_new ();
    scenario->name = fields.name != NULL ? g_steal_pointer (&fields.name)
                                         : g_strdup_printf ("scenario-%u", index + 1);
    g_ptr_array_add (loader->plan->scenarios, scenario);
    if (!ok)
        return FALSE;

    const ThrongNode *name_node = throng_node_lookup (node, "name");
    if (!check_scenario_name (loader, scenario, name_node != NULL ? name_node : node, error))
        return FALSE;

    scenario->users = (guint)fields.users;

    const ThrongNode *iterations_key = key_node (node, "iterations");
    const ThrongNode *duration_key = key_node (node, "duration");
    if (iterations_key != NULL && duration_key != NULL) {
        /* at the second of the two, which is where the user changed their mind */
        throng_node_set_error (second_of (node, iterations_key, duration_key), error,
                               THRONG_PLAN_ERROR_INVALID,
                               "a scenario runs either for iterations or for a duration, not both");
        return FALSE;
    }
    scenario->iterations = duration_key != NULL     ? 0
                           : iterations_key != NULL ? fields.iterations
                                                    : 1;
    scenario->duration_us = fields.duration_us;
    scenario->ramp_up_us = fields.ramp_up_us;

    if (duration_key != NULL && scenario->ramp_up_us >= scenario->duration_us) {
        const ThrongNode *ramp_up = throng_node_lookup (node, "ramp_up");
        throng_node_set_error (ramp_up, error, THRONG_PLAN_ERROR_RANGE,
                               "ramp_up must be shorter than the duration (%s), got %s",
                               throng_node_scalar (throng_node_lookup (node, "duration")),
                               throng_node_scalar (ramp_up));
        return FALSE;
    }

    /* the executor may replace users, iterations and duration */
    if (!throng_schedule_parse (node, scenario, error))
        return FALSE;
    if (scenario->executor == THRONG_EXECUTOR_USERS && scenario->users == 0) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_MISSING,
                               "missing required key 'users' in scenario '%s'", scenario->name);
        return FALSE;
    }

    if (fields.steps == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_MISSING,
                               "missing required key 'steps' in scenario '%s'", scenario->name);
        return FALSE;
    }
    if (throng_node_kind (fields.steps) != THRONG_NODE_SEQUENCE) {
        g_autofree char *given = throng_node_describe (fields.steps);
        throng_node_set_error (fields.steps, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a list of steps, got %s", given);
        return FALSE;
    }
    if (throng_node_n_children (fields.steps) == 0) {
        throng_node_set_error (fields.steps, error, THRONG_PLAN_ERROR_MISSING,
                               "scenario '%s' has no steps", scenario->name);
        return FALSE;
    }
    for (guint i = 0; i < throng_node_n_children (fields.steps); i++) {
        if (!read_step (loader, scenario, throng_node_child (fields.steps, i), error))
            return FALSE;
    }
    if (!build_steps (loader, scenario, error))
        return FALSE;

    /* scenario options of a protocol no step uses */
    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *key = throng_node_key (node, i);
        const char *text = throng_node_scalar (key);
        const ThrongProtocol *protocol;

        if (is_one_of (text, scenario_keys))
            continue;
        protocol = find_protocol (loader, key, error);
        if (protocol == NULL)
            return FALSE;
        if (scenario_protocol (scenario, protocol) == NULL
            && !check_unused_protocol (loader, protocol, scenario->name,
                                       protocol_map (throng_node_child (node, i)), error))
            return FALSE;
    }
    return TRUE;
}

static gboolean
read_scenarios (Loader *loader, const ThrongNode *scenarios, GError **error)
{
    const ThrongNode *root = throng_tree_root (loader->plan->tree);

    if (scenarios == NULL) {
        throng_node_set_error (root, error, THRONG_PLAN_ERROR_MISSING,
                               "missing required key 'scenarios'");
        return FALSE;
    }
    if (throng_node_kind (scenarios) != THRONG_NODE_SEQUENCE) {
        g_autofree char *given = throng_node_describe (scenarios);
        throng_node_set_error (scenarios, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a list of scenarios, got %s", given);
        return FALSE;
    }
    if (throng_node_n_children (scenarios) == 0) {
        throng_node_set_error (scenarios, error, THRONG_PLAN_ERROR_MISSING,
                               "the plan has no scenarios");
        return FALSE;
    }
    for (guint i = 0; i < throng_node_n_children (scenarios); i++) {
        if (!read_scenario (loader, throng_node_child (scenarios, i), i, error))
            return FALSE;
    }
    return TRUE;
}

/* ---- reporters ----------------------------------------------------------- */

static void
reporter_free (gpointer data)
{
    ThrongPlanReporter *reporter = data;

    if (reporter->data != NULL && reporter->reporter->free != NULL)
        reporter->reporter->free (reporter->data);
    g_free (reporter->name);
    g_free (reporter);
}

static gboolean
add_reporter (Loader *loader, const ThrongNode *key, const char *name, const ThrongNode *options,
              GError **error)
{
    GError *local = NULL;
    const ThrongReporter *found = throng_registry_get_reporter (loader->registry, name, &local);

    if (found == NULL) {
        g_autofree char *prefix = g_strdup_printf ("unknown reporter '%s':", name);
        plugin_error (loader, key, THRONG_PLUGIN_KIND_REPORTER, name, prefix, local, error);
        return FALSE;
    }

    ThrongPlanReporter *reporter = g_new0 (ThrongPlanReporter, 1);
    reporter->name = g_strdup (name);
    reporter->reporter = found;
    reporter->node = options;
    g_ptr_array_add (loader->plan->reporters, reporter);

    reporter->data = found->configure (options, &local);
    if (reporter->data == NULL) {
        if (local == NULL)
            throng_node_set_error (options, &local, THRONG_PLAN_ERROR_INVALID,
                                   "the %s reporter refused its options", name);
        g_propagate_error (error, local);
        return FALSE;
    }
    return TRUE;
}

static gboolean
read_reporters (Loader *loader, const ThrongNode *reporters, GError **error)
{
    if (reporters != NULL && !throng_node_is_null (reporters)
        && throng_node_kind (reporters) != THRONG_NODE_SEQUENCE) {
        g_autofree char *given = throng_node_describe (reporters);
        throng_node_set_error (reporters, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a list of reporters such as '- console: {}', got %s",
                               given);
        return FALSE;
    }

    if (reporters == NULL || throng_node_n_children (reporters) == 0) {
        PlanPrivate *priv = (PlanPrivate *)loader->plan;

        priv->default_tree = throng_tree_load_data ("(default reporter)", "{}", 2, error);
        if (priv->default_tree == NULL)
            return FALSE;
        const ThrongNode *empty = throng_tree_root (priv->default_tree);
        return add_reporter (loader, empty, "console", empty, error);
    }

    for (guint i = 0; i < throng_node_n_children (reporters); i++) {
        const ThrongNode *item = throng_node_child (reporters, i);

        if (throng_node_kind (item) != THRONG_NODE_MAP) {
            g_autofree char *given = throng_node_describe (item);
            throng_node_set_error (item, error, THRONG_PLAN_ERROR_TYPE,
                                   "expected a map for reporter, such as 'console: {}', got %s",
                                   given);
            return FALSE;
        }
        if (throng_node_n_children (item) != 1) {
            const ThrongNode *at
                = throng_node_n_children (item) == 0 ? item : throng_node_key (item, 1);
            throng_node_set_error (at, error, THRONG_PLAN_ERROR_INVALID,
                                   "a reporter is a map with one key naming its plugin, such as "
                                   "'console: {}'");
            return FALSE;
        }
        const ThrongNode *key = throng_node_key (item, 0);
        if (!add_reporter (loader, key, throng_node_scalar (key), throng_node_child (item, 0),
                           error))
            return FALSE;
    }
    return TRUE;
}

/* ---- the plan ------------------------------------------------------------ */

void
throng_plan_free (ThrongPlan *plan)
{
    PlanPrivate *priv = (PlanPrivate *)plan;

    if (plan == NULL)
        return;
    /* plugin data first: it may point into the tree */
    g_ptr_array_unref (plan->reporters);
    g_ptr_array_unref (plan->scenarios);
    throng_tree_free (priv->default_tree);
    throng_tree_free (plan->tree);
    g_free (plan->name);
    g_free (plan->file);
    g_free (priv);
}

ThrongPlan *
throng_plan_load (const char *path, ThrongRegistry *registry, const ThrongPlanLoadOptions *options,
                  GError **error)
{
    static const ThrongPlanLoadOptions no_options = { 0 };
    g_autoptr (ThrongPlan) plan = NULL;
    g_auto (TopLevel) top = { .target = -1 };
    g_auto (Loader) loader = { 0 };

    g_return_val_if_fail (path != NULL, NULL);
    g_return_val_if_fail (registry != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    if (options == NULL)
        options = &no_options;

    PlanPrivate *priv = g_new0 (PlanPrivate, 1);
    plan = &priv->plan;
    plan->file = g_strdup (path);
    plan->scenarios = g_ptr_array_new_with_free_func (scenario_free);
    plan->reporters = g_ptr_array_new_with_free_func (reporter_free);

    loader.plan = plan;
    loader.registry = registry;
    loader.validate_only = options->validate_only;
    loader.scenario_names = g_hash_table_new (g_str_hash, g_str_equal);

    plan->tree = throng_tree_load_file (path, error);
    if (plan->tree == NULL)
        return NULL;
    for (gsize i = 0; options->sets != NULL && options->sets[i] != NULL; i++) {
        if (!throng_tree_set (plan->tree, options->sets[i], error))
            return NULL;
    }

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
        || !start_target (&loader, options, error)
        || !throng_tree_expand (plan->tree, lookup_variable, &loader, error))
        return NULL;

    /* read again: expansion may have changed it */
    const ThrongNode *name = throng_node_lookup (throng_tree_root (plan->tree), "name");
    plan->name = name != NULL ? g_strdup (throng_node_scalar (name)) : default_plan_name (path);

    if (!throng_schedule_parse_saturation (top.saturation, &plan->saturation_cpu,
                                           &plan->saturation_lag_us, error)
        || !read_defaults (&loader, top.defaults, error)
        || !read_scenarios (&loader, top.scenarios, error)
        || !check_unused_defaults (&loader, error)
        || !read_reporters (&loader, top.reporters, error))
        return NULL;
    return g_steal_pointer (&plan);
}
